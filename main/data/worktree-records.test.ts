import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKTREE_RECORDS_FILE, WorktreeRecords, type WorktreeRecord } from './worktree-records';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-worktree-records-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const record = (name: string, createdAt: number): WorktreeRecord => ({
  path: `/repo/.claude/worktrees/${name}`,
  repository: '/repo',
  commonDir: '/repo/.git',
  name,
  branch: name,
  base: 'main',
  baseCommit: 'a'.repeat(40),
  createdAt,
  removedAt: null,
});

describe('WorktreeRecords', () => {
  it('keeps each worktree by its folder, across instances, oldest first', () => {
    new WorktreeRecords(dataDir).add(record('second', 2));
    new WorktreeRecords(dataDir).add(record('first', 1));
    const records = new WorktreeRecords(dataDir);
    expect(records.all().map((r) => r.name)).toEqual(['first', 'second']);
    expect(records.at('/repo/.claude/worktrees/first')?.branch).toBe('first');
    expect(records.at('/repo')).toBeUndefined();
    expect(records.at('constructor')).toBeUndefined();
  });

  it('marks one removed and there again, and forgets one', () => {
    const records = new WorktreeRecords(dataDir);
    records.add(record('x', 1));
    records.setRemoved('/repo/.claude/worktrees/x', 50);
    expect(records.at('/repo/.claude/worktrees/x')?.removedAt).toBe(50);
    records.setRemoved('/repo/.claude/worktrees/x', null);
    expect(records.at('/repo/.claude/worktrees/x')?.removedAt).toBeNull();
    records.forget('/repo/.claude/worktrees/x');
    expect(records.all()).toEqual([]);
  });

  it('reads a damaged file as empty, and never overwrites it unseen', () => {
    writeFileSync(join(dataDir, WORKTREE_RECORDS_FILE), '{"version":1,"worktrees":');
    const records = new WorktreeRecords(dataDir);
    expect(records.all()).toEqual([]);
    records.add(record('y', 1));
    expect(records.all().map((r) => r.name)).toEqual(['y']);
  });
});
