import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ByreApi, ConversationSnapshot, WorktreeStatus } from '../../../shared/ipc';
import type { LibraryRow } from '../../../shared/library';
import { turn } from '../../../shared/test-support/lines';
import { createStore } from './store';

/**
 * The worktrees slice against a scripted window.byre: statuses by folder, the newest word from main kept;
 * a start in a worktree carries its base, name and first message through a trust question; a refused one
 * brings the form back with what was typed; a removed worktree's tab becomes the saved conversation in place.
 */

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  return createStore();
}

const ok = <T>(value: T) => ({ ok: true as const, value });
const refused = (name: string, message: string, extra: Record<string, unknown> = {}) => ({
  ok: false as const,
  error: { name, message, ...extra },
});

function status(path: string, patch: Partial<WorktreeStatus> = {}): WorktreeStatus {
  return {
    path,
    repository: '/repo',
    name: 'fix-login',
    branch: 'fix-login',
    base: 'main',
    baseCommit: 'abc1234',
    createdAt: 1,
    removed: false,
    ahead: 2,
    behind: 1,
    filesChanged: 3,
    uncommitted: [],
    problem: null,
    ...patch,
  };
}

const snapshot: ConversationSnapshot = {
  conversationId: 'c1',
  sessionId: 's1',
  cwd: '/repo/.claude/worktrees/fix-login',
  model: null,
  models: [],
  claudeCodeVersion: null,
  permissionMode: 'default',
  worktree: { repository: '/repo', name: 'fix-login', branch: 'fix-login', base: 'main' },
};

describe('worktrees in the store', () => {
  beforeEach(() => vi.restoreAllMocks());

  it('keeps the statuses by folder, and an event newer than a read wins over its answer', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const worktrees = vi.fn(() => new Promise((resolve) => (answer = resolve)));
    const store = freshStore({ worktrees });
    const loading = store.getState().loadWorktrees();
    store.getState().worktreesArrived([status('/repo/.claude/worktrees/b', { ahead: 5 })]);
    answer(ok({ worktrees: [status('/repo/.claude/worktrees/a')] }));
    await loading;
    expect(Object.keys(store.getState().worktrees)).toEqual(['/repo/.claude/worktrees/b']);
    expect(store.getState().worktrees['/repo/.claude/worktrees/b']?.ahead).toBe(5);
  });

  it('lists nothing, and says nothing, while main cannot tell', async () => {
    const store = freshStore({
      worktrees: vi.fn(async () => refused('NotSupported', 'Not supported yet.')),
    });
    await store.getState().loadWorktrees();
    expect(store.getState().worktrees).toEqual({});
  });

  it('starts in a worktree with its base, name and first message, asking trust first with the same', async () => {
    const startConversation = vi
      .fn()
      .mockResolvedValueOnce(refused('TrustNeeded', 'Trust this folder?', { folder: '/repo' }))
      .mockResolvedValue(ok(snapshot));
    const store = freshStore({
      startConversation,
      folderTrust: vi.fn(async () =>
        ok({ folder: '/repo', needsTrust: true, trusted: false, digest: 'd', items: [], changed: null }),
      ),
      decideTrust: vi.fn(async () => ok({})),
    });
    const starting = store.getState().startConversation('/repo', {
      permissionMode: 'default',
      worktree: { base: 'main', name: 'fix-login' },
      firstMessage: 'Fix the login form',
    });
    await vi.waitFor(() => expect(store.getState().trustQuestion).not.toBeNull());
    store.getState().answerTrust(true);
    await starting;
    const asked = {
      cwd: '/repo',
      permissionMode: 'default',
      worktree: { base: 'main', name: 'fix-login' },
      firstMessage: 'Fix the login form',
    };
    expect(startConversation).toHaveBeenCalledTimes(2);
    expect(startConversation).toHaveBeenNthCalledWith(1, asked);
    expect(startConversation).toHaveBeenNthCalledWith(2, asked);
    expect(store.getState().tabOrder).toEqual(['c1']);
  });

  it('brings the form back with what was typed when main refuses the worktree', async () => {
    const store = freshStore({
      startConversation: vi.fn(async () =>
        refused('WorktreeRefused', 'A branch named fix-login exists already.'),
      ),
    });
    const options = { worktree: { base: 'main', name: 'fix-login' }, firstMessage: 'Fix the login form' };
    await store.getState().startConversation('/repo', options);
    const state = store.getState();
    expect(state.tabOrder).toEqual([]);
    expect(state.composingNew).toBe(true);
    expect(state.refusedStart).toEqual({
      cwd: '/repo',
      options,
      reason: 'A branch named fix-login exists already.',
    });
  });

  it('shows a removed worktree conversation read-only from the library, in the same place', async () => {
    const row: LibraryRow = {
      sessionId: 's1',
      title: 'Fix the login form',
      cwd: snapshot.cwd,
      gitBranch: 'fix-login',
      lastActive: 0,
      messageCount: 2,
      sizeBytes: 10,
      resumable: true,
      hasTranscript: true,
      branchCount: 1,
      familyKey: 's1',
      cost: { usd: null, estimated: false },
    };
    const other = { ...snapshot, conversationId: 'c2', sessionId: 's2', worktree: null, cwd: '/else' };
    const removeWorktree = vi.fn(async () => ok({ sessionId: 's1' }));
    const store = freshStore({
      startConversation: vi.fn().mockResolvedValueOnce(ok(snapshot)).mockResolvedValueOnce(ok(other)),
      removeWorktree,
      openSaved: vi.fn(async () => ok({ row, events: turn(1), before: null, skipped: 0 })),
      closeConversation: vi.fn(async () => ok({})),
    });
    await store.getState().startConversation('/repo', { worktree: { base: 'main' } });
    await store.getState().startConversation('/else');
    store.getState().activate('c1');
    store.getState().openWorktreeDialog('c1', 'remove');
    await store.getState().removeWorktree('c1', true);
    expect(removeWorktree).toHaveBeenCalledWith({ conversationId: 'c1', deleteBranch: true });
    const state = store.getState();
    expect(state.tabOrder).toEqual(['saved:s1', 'c2']);
    expect(state.activeTab).toBe('saved:s1');
    expect(state.tabs['saved:s1']?.saved?.sessionId).toBe('s1');
    expect(state.worktreeDialog).toBeNull();
  });

  it('keeps the tab as it was when the removal is refused', async () => {
    const store = freshStore({
      startConversation: vi.fn(async () => ok(snapshot)),
      removeWorktree: vi.fn(async () => refused('WorktreeRefused', 'The worktree is locked.')),
    });
    await store.getState().startConversation('/repo', { worktree: { base: 'main' } });
    await expect(store.getState().removeWorktree('c1', false)).rejects.toThrow('The worktree is locked.');
    expect(store.getState().tabOrder).toEqual(['c1']);
    expect(store.getState().tabs.c1?.saved).toBeNull();
  });
});
