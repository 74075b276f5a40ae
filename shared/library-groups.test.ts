import { worktreeStatusKey } from './worktrees';
import { describe, expect, it } from 'vitest';
import type { WorktreeStatus } from './ipc';
import type { LibraryRow } from './library';
import {
  aheadBehind,
  costLabel,
  folderList,
  groupRows,
  homeFolder,
  type SidebarItem,
} from './library-groups';

/**
 * The sidebar's grouping: a repository's worktree conversations (Byre's, and the CLI's made in a terminal)
 * under its heading after its own rows, with their statuses; the folder filter offering the repository once.
 */

const row = (sessionId: string, cwd: string | null, lastActive: number): LibraryRow => ({
  sessionId,
  title: sessionId,
  cwd,
  gitBranch: null,
  lastActive,
  messageCount: 1,
  sizeBytes: 1,
  resumable: true,
  hasTranscript: true,
  branchCount: 1,
  familyKey: sessionId,
  cost: { usd: null, estimated: false },
});

const status: WorktreeStatus = {
  path: '/repo/.claude/worktrees/fix-login',
  repository: '/repo',
  name: 'fix-login',
  branch: 'fix-login',
  base: 'main',
  baseCommit: 'abc',
  createdAt: 1,
  removed: false,
  ahead: 2,
  behind: 1,
  filesChanged: 3,
  uncommitted: [],
  problem: null,
};

const names = (items: SidebarItem[]) =>
  items.map((item) =>
    item.kind === 'host'
      ? `@ ${item.host} (${item.count})`
      : item.kind === 'folder'
        ? `# ${item.folder} (${item.count})`
        : item.row.sessionId,
  );

describe('the sidebar groups', () => {
  const rows = [
    row('own-old', '/repo', 1),
    row('byre-worktree', '/repo/.claude/worktrees/fix-login', 9),
    row('other', '/other', 5),
    row('cli-worktree', '/repo/.claude/worktrees/quick-fix/', 3),
    row('own-new', '/repo', 4),
    row('inside-worktree', '/repo/.claude/worktrees/fix-login/src', 2),
  ];

  it('lists worktree conversations under their repository, after its own rows, newest first', () => {
    expect(names(groupRows(rows, {}))).toEqual([
      '# /repo (4)',
      'own-new',
      'own-old',
      'byre-worktree',
      'cli-worktree',
      '# /other (1)',
      'other',
      // A folder inside a worktree is not its top level: a folder of its own.
      '# /repo/.claude/worktrees/fix-login/src (1)',
      'inside-worktree',
    ]);
  });

  it('gives a worktree row its name and, for one Byre made, its status', () => {
    const items = groupRows(rows, { [status.path]: status });
    const worktreeOf = (id: string) =>
      items.find((item) => item.kind === 'row' && item.row.sessionId === id) as Extract<
        SidebarItem,
        { kind: 'row' }
      >;
    expect(worktreeOf('byre-worktree').worktree).toEqual({ name: 'fix-login', status });
    expect(worktreeOf('cli-worktree').worktree).toEqual({ name: 'quick-fix', status: null });
    expect(worktreeOf('own-new').worktree).toBeNull();
  });

  it('gives a worktree on a host the status of that host’s worktree, never this computer’s of the same path', () => {
    const there = { ...row('on-host', status.path, 60), host: 'build-box' };
    const hostStatus = { ...status, host: 'build-box', ahead: 7 };
    const items = groupRows([...rows, there], {
      [worktreeStatusKey(status.path)]: status,
      [worktreeStatusKey(status.path, 'build-box')]: hostStatus,
    });
    const worktreeOf = (id: string) =>
      items.find((item) => item.kind === 'row' && item.row.sessionId === id) as Extract<
        SidebarItem,
        { kind: 'row' }
      >;
    expect(worktreeOf('on-host').worktree).toEqual({ name: 'fix-login', status: hostStatus });
    expect(worktreeOf('byre-worktree').worktree).toEqual({ name: 'fix-login', status });
  });

  it('offers a repository and its worktrees as one folder', () => {
    expect(folderList(rows)).toEqual(['/other', '/repo', '/repo/.claude/worktrees/fix-login/src']);
    expect(homeFolder('/repo/.claude/worktrees/fix-login')).toBe('/repo');
    expect(homeFolder('C:\\code\\app\\.claude\\worktrees\\x')).toBe('C:\\code\\app');
  });

  it('says ahead and behind in arrows, and in words for a screen reader', () => {
    expect(aheadBehind(status)).toEqual({ shown: '↑2 ↓1', words: '2 ahead of main, 1 behind' });
    expect(aheadBehind({ ...status, ahead: null })).toBeNull();
    expect(aheadBehind({ ...status, base: null })?.words).toBe('2 ahead of its base, 1 behind');
  });
});

describe('the sidebar sorted by cost', () => {
  const costing = (sessionId: string, cwd: string, lastActive: number, usd: number | null): LibraryRow => ({
    ...row(sessionId, cwd, lastActive),
    cost: { usd, estimated: true },
  });

  it('lists the costliest first, folders by their costliest conversation, the unpriced last', () => {
    const rows = [
      costing('new-cheap', '/a', 40, 0.1),
      costing('old-dear', '/b', 10, 3),
      costing('unpriced', '/b', 50, null),
      costing('mid', '/a', 20, 1),
    ];
    expect(names(groupRows(rows, {}, 'cost'))).toEqual([
      '# /b (2)',
      'old-dear',
      'unpriced',
      '# /a (2)',
      'mid',
      'new-cheap',
    ]);
    expect(names(groupRows(rows, {}, 'recent'))).toEqual([
      '# /b (2)',
      'unpriced',
      'old-dear',
      '# /a (2)',
      'new-cheap',
      'mid',
    ]);
  });

  it('labels a cost in dollars, marks an estimate, and shows nothing it could not price', () => {
    expect(costLabel({ usd: 0.4249, estimated: false })).toBe('$0.42');
    expect(costLabel({ usd: 0.42, estimated: true })).toBe('~$0.42');
    expect(costLabel({ usd: 0.001, estimated: true })).toBe('<$0.01');
    expect(costLabel({ usd: 0.006, estimated: true })).toBe('~$0.01');
    expect(costLabel({ usd: 0, estimated: false })).toBe('$0.00');
    expect(costLabel({ usd: null, estimated: false })).toBeNull();
  });
});

describe('conversations on other hosts', () => {
  it('are listed after this computer’s, each host under its name, a folder of one path on two machines apart', () => {
    const on = (host: string, sessionId: string, cwd: string, lastActive: number): LibraryRow => ({
      ...row(sessionId, cwd, lastActive),
      host,
    });
    const items = groupRows(
      [
        on('devbox', 'there-new', '/srv/app', 9),
        row('here', '/srv/app', 5),
        on('gpu', 'far', '/data', 7),
        on('devbox', 'there-old', '/srv/app', 1),
      ],
      {},
    );
    expect(names(items)).toEqual([
      '# /srv/app (1)',
      'here',
      '@ devbox (2)',
      '# /srv/app (2)',
      'there-new',
      'there-old',
      '@ gpu (1)',
      '# /data (1)',
      'far',
    ]);
  });
});
