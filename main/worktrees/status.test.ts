import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitIn } from '../changes/test-support/git';
import { worktreeStatus, type RecordedWorktree } from './status';
import { createWorktree, removeWorktree, repositoryOf, type Repository } from './worktrees';

/**
 * How a worktree stands, with real git: ahead and behind its base, files changed since the base counting
 * committed, uncommitted and new files, what is uncommitted, a removed folder, a base that is gone.
 */

let root: string;
let top: string;
let repository: Repository;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'byre-worktree-status-'));
  top = join(root, 'repo');
  mkdirSync(top, { recursive: true });
  writeFileSync(join(top, 'a.txt'), 'a\n');
  writeFileSync(join(top, 'b.txt'), 'b\n');
  gitIn(top, 'init', '--quiet', '-b', 'main');
  gitIn(top, 'add', '-A');
  gitIn(top, 'commit', '--quiet', '-m', 'start');
  repository = (await repositoryOf(top))!;
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function made(name: string, base = 'main'): Promise<RecordedWorktree> {
  const worktree = await createWorktree(repository, base, name);
  return { ...repository, repository: top, name, base, createdAt: 1, ...worktree };
}

describe('worktree status', () => {
  it('counts commits both ways and every file that differs from the base, committed or not', async () => {
    const record = await made('work');
    writeFileSync(join(record.path, 'a.txt'), 'changed and committed\n');
    gitIn(record.path, 'commit', '--quiet', '-am', 'on the branch');
    writeFileSync(join(record.path, 'b.txt'), 'changed, not committed\n');
    writeFileSync(join(record.path, 'new.txt'), 'new\n');
    writeFileSync(join(top, 'base-only.txt'), 'x\n');
    gitIn(top, 'add', '-A');
    gitIn(top, 'commit', '--quiet', '-m', 'the base moves on');
    gitIn(top, 'commit', '--quiet', '--allow-empty', '-m', 'and again');

    const status = await worktreeStatus(record);
    expect(status).toMatchObject({ ahead: 1, behind: 2, filesChanged: 3, removed: false, problem: null });
    expect(status.uncommitted.sort()).toEqual(['b.txt', 'new.txt']);
  });

  it('says a removed worktree is removed, and a base branch that is gone in words', async () => {
    const gone = await made('gone');
    await removeWorktree(repository, gone, false);
    expect(await worktreeStatus(gone)).toMatchObject({ removed: true, ahead: null, problem: null });

    gitIn(top, 'branch', '--quiet', 'topic');
    const orphan = await made('orphan', 'topic');
    gitIn(top, 'branch', '--quiet', '-D', 'topic');
    expect(await worktreeStatus(orphan)).toMatchObject({
      removed: false,
      ahead: null,
      filesChanged: null,
      problem: 'Its base branch topic is gone.',
    });
  });

  it('compares a worktree made from a detached HEAD with the commit it was made from', async () => {
    const head = gitIn(top, 'rev-parse', 'HEAD').trim();
    const worktree = await createWorktree(repository, head, 'detached');
    const record = {
      ...repository,
      repository: top,
      name: 'detached',
      base: null,
      createdAt: 1,
      ...worktree,
    };
    writeFileSync(join(record.path, 'a.txt'), 'changed\n');
    expect(await worktreeStatus(record)).toMatchObject({ ahead: 0, behind: 0, filesChanged: 1 });
  });
});
