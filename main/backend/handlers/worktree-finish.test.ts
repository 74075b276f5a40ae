import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorktreeRecords } from '../../data/worktree-records';
import type { BackendOptions } from '../options';
import type { Parts } from '../parts';
import { worktreeFinishHandlers } from './worktree-finish';

/**
 * "Open folder" of a worktree conversation: the host's file manager or terminal is given the folder Byre
 * recorded for the conversation's own folder, never anything else; a host that cannot says so, and a
 * conversation that is not in a worktree, or whose folder is gone, is refused with the reason. A worktree
 * made from a detached HEAD has no base branch to merge into or open a pull request against: refused.
 */

let data: string;
let records: WorktreeRecords;
const opened: string[] = [];

beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'byre-finish-'));
  records = new WorktreeRecords(data);
  opened.length = 0;
});

afterEach(() => rmSync(data, { recursive: true, force: true }));

/** The handlers over one open conversation in `cwd`, on a host with the given ways to open a folder. */
function handlers(cwd: string, host: Pick<BackendOptions, 'openFolder' | 'openTerminal'>) {
  const parts = {
    open: { any: () => ({ snapshot: () => ({ cwd }) }) },
    worktrees: records,
    options: host,
  } as unknown as Parts;
  return worktreeFinishHandlers(parts);
}

function recorded(path: string, base: string | null = 'main'): void {
  records.add({
    path,
    repository: data,
    commonDir: join(data, '.git'),
    name: 'w',
    branch: 'w',
    base,
    baseCommit: 'a'.repeat(40),
    createdAt: 1,
    removedAt: null,
  });
}

const host = {
  openFolder: async (path: string) => void opened.push(`files ${path}`),
  openTerminal: async (path: string) => void opened.push(`terminal ${path}`),
};

describe('openWorktreeFolder', () => {
  it("opens the recorded worktree's folder in the file manager or a terminal", async () => {
    recorded(data);
    const finish = handlers(data, host);
    await finish.openWorktreeFolder({ conversationId: 'c', in: 'files' });
    await finish.openWorktreeFolder({ conversationId: 'c', in: 'terminal' });
    expect(opened).toEqual([`files ${data}`, `terminal ${data}`]);
  });

  it('says when the host cannot open a terminal', async () => {
    recorded(data);
    await expect(
      handlers(data, { openFolder: host.openFolder }).openWorktreeFolder({
        conversationId: 'c',
        in: 'terminal',
      }),
    ).rejects.toThrow('This host cannot open a terminal.');
  });

  it('refuses a conversation that is not in a worktree, and one whose folder is gone', async () => {
    await expect(
      handlers(data, host).openWorktreeFolder({ conversationId: 'c', in: 'files' }),
    ).rejects.toThrow('This conversation is not in a worktree.');
    const gone = join(data, 'gone');
    recorded(gone);
    await expect(
      handlers(gone, host).openWorktreeFolder({ conversationId: 'c', in: 'files' }),
    ).rejects.toThrow(/folder .*gone is gone: resume the conversation to make it again/);
    expect(opened).toEqual([]);
  });
});

describe("a detached HEAD's worktree", () => {
  it('is refused a merge and a pull request, saying why and what to do', async () => {
    recorded(data, null);
    const finish = handlers(data, host);
    const why =
      /made from a detached HEAD \(commit a{12}\), so it has no base branch to .* Merge its branch w by hand\./;
    await expect(
      finish.mergeWorktree({ conversationId: 'c', squash: false, message: 'm', commitUncommitted: true }),
    ).rejects.toThrow(why);
    await expect(finish.createPullRequest({ conversationId: 'c', title: 't', body: 'b' })).rejects.toThrow(
      why,
    );
  });
});
