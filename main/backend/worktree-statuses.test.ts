import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorktreeStatus } from '../../shared/ipc';
import { thisMachine, type Machine } from '../machines/machine';
import { WorktreeRecords } from '../data/worktree-records';
import { WorktreeStatuses } from './worktree-statuses';

/**
 * How the worktrees stand, told to the windows: a host that is slow to answer (or away, which ssh waits out
 * up to its connect timeout) never holds back this computer's worktrees.
 */

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-worktree-statuses-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const record = (path: string, host?: string) => ({
  path,
  repository: '/repo',
  commonDir: '/repo/.git',
  name: 'fix',
  branch: 'fix',
  base: 'main',
  baseCommit: 'a'.repeat(40),
  createdAt: 1,
  removedAt: null,
  ...(host ? { host } : {}),
});

describe('the worktrees’ statuses', () => {
  it('tells this computer’s at once, and a host’s as last known (or being asked) until it answers', async () => {
    const records = new WorktreeRecords(dataDir);
    const here = join(dataDir, 'gone-worktree');
    records.add(record(here));
    records.add(record(here, 'build-box'));
    // Its folder gone, once it answers.
    let answer: (there: boolean) => void = () => undefined;
    const slowHost: Machine = {
      ...thisMachine,
      where: 'build-box',
      isFolder: () => new Promise((resolve) => (answer = resolve)),
    };
    const told: WorktreeStatus[][] = [];
    const statuses = new WorktreeStatuses(
      records,
      ({ worktrees }) => told.push(worktrees),
      () => slowHost,
    );
    const byHost = (list: WorktreeStatus[] | undefined) =>
      Object.fromEntries((list ?? []).map((status) => [status.host ?? 'here', status]));

    statuses.changed();
    await expect.poll(() => told.length).toBe(1);
    expect(byHost(told[0])).toMatchObject({
      here: { removed: true, problem: null },
      'build-box': { removed: false, problem: 'Asking build-box how it stands…' },
    });
    answer(false);
    await statuses.settled();
    expect(told).toHaveLength(2);
    expect(byHost(told[1])).toMatchObject({ 'build-box': { removed: true, problem: null } });

    // Next time, the host's last answer stands in while it is asked again.
    statuses.changed();
    await expect.poll(() => told.length).toBe(3);
    expect(byHost(told[2])).toMatchObject({ 'build-box': { removed: true, problem: null } });
    answer(false);
    await statuses.settled();
  });
});
