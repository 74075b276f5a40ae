import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitIn } from '../changes/test-support/git';
import {
  aheadBehind,
  createWorktree,
  localBranches,
  recreateWorktree,
  removeWorktree,
  repositoryOf,
  uncommitted,
  WorktreeRefused,
  type Repository,
} from './worktrees';

/**
 * Worktrees with real git: made from a chosen base (a branch, or a detached HEAD's commit) with the main
 * checkout's status as it was, a taken name refused, ahead and behind counted, what is uncommitted listed,
 * removed (locked, or deleted by hand) and made again from its branch.
 */

let root: string;
let top: string;
let repository: Repository;
const run = gitIn;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'byre-worktrees-'));
  top = join(root, 'repo');
  mkdirSync(join(top, 'src'), { recursive: true });
  writeFileSync(join(top, 'src', 'app.ts'), 'main\n');
  run(top, 'init', '--quiet', '-b', 'main');
  run(top, 'add', '-A');
  run(top, 'commit', '--quiet', '-m', 'main');
  run(top, 'checkout', '--quiet', '-b', 'release');
  writeFileSync(join(top, 'src', 'app.ts'), 'release\n');
  run(top, 'commit', '--quiet', '-am', 'release');
  run(top, 'checkout', '--quiet', 'main');
  writeFileSync(join(top, 'notes.txt'), 'the user’s own, untracked\n');
  repository = (await repositoryOf(join(top, 'src')))!;
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const status = () => run(top, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all');

describe('worktrees', () => {
  it('lists the local branches, the current one first, and makes a worktree from the one chosen', async () => {
    expect(repository.top).toBe(top);
    expect(await localBranches(repository)).toMatchObject({ current: 'main', branches: ['main', 'release'] });
    const before = status();
    const worktree = await createWorktree(repository, 'release', 'fix-login');
    expect(worktree.path).toBe(join(top, '.claude', 'worktrees', 'fix-login'));
    expect(readFileSync(join(worktree.path, 'src', 'app.ts'), 'utf8')).toBe('release\n');
    expect(run(worktree.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('fix-login');
    // The main checkout reads the same: the worktrees' folder is excluded, not the user's .gitignore.
    expect(status()).toBe(before);
    expect(existsSync(join(top, '.gitignore'))).toBe(false);
    expect(readFileSync(join(top, '.git', 'info', 'exclude'), 'utf8')).toContain('/.claude/worktrees/\n');

    writeFileSync(join(worktree.path, 'src', 'app.ts'), 'fixed\n');
    run(worktree.path, 'commit', '--quiet', '-am', 'fix');
    expect(await aheadBehind(repository, 'fix-login', 'release')).toEqual({ ahead: 1, behind: 0 });
    expect(await aheadBehind(repository, 'fix-login', 'main')).toEqual({ ahead: 2, behind: 0 });
    expect(readFileSync(join(top, 'src', 'app.ts'), 'utf8')).toBe('main\n');
  });

  it('refuses a name whose branch exists, or a base that is no commit, saying why', async () => {
    await expect(createWorktree(repository, 'main', 'release')).rejects.toThrow(
      /A branch named release exists already/,
    );
    await expect(createWorktree(repository, 'no-such-base', 'x')).rejects.toThrow(
      /no-such-base is not a branch or commit/,
    );
    await expect(createWorktree(repository, 'main', '../out')).rejects.toBeInstanceOf(WorktreeRefused);
  });

  it('from a detached HEAD, bases the worktree on its commit', async () => {
    const commit = run(top, 'rev-parse', 'release').trim();
    run(top, 'checkout', '--quiet', '--detach', commit);
    const branches = await localBranches(repository);
    expect(branches).toMatchObject({ current: null, head: commit });
    const worktree = await createWorktree(repository, branches.head, 'from-detached');
    expect(worktree.baseCommit).toBe(commit);
    expect(run(worktree.path, 'rev-parse', 'HEAD').trim()).toBe(commit);
  });

  it('says what is uncommitted, removes the worktree (locked or not), and makes it again from its branch', async () => {
    const worktree = await createWorktree(repository, 'main', 'try-it');
    writeFileSync(join(worktree.path, 'src', 'app.ts'), 'changed\n');
    writeFileSync(join(worktree.path, 'new.txt'), 'new\n');
    expect((await uncommitted(worktree.path)).sort()).toEqual(['new.txt', 'src/app.ts']);
    run(worktree.path, 'add', '-A');
    run(worktree.path, 'commit', '--quiet', '-m', 'work');
    run(top, 'worktree', 'lock', worktree.path);

    await removeWorktree(repository, worktree, false);
    expect(existsSync(worktree.path)).toBe(false);
    expect(run(top, 'branch', '--list', 'try-it')).toContain('try-it');

    await recreateWorktree(repository, worktree);
    expect(readFileSync(join(worktree.path, 'new.txt'), 'utf8')).toBe('new\n');

    // Deleted by hand: removing it still works, and the branch goes when asked.
    rmSync(worktree.path, { recursive: true, force: true });
    await removeWorktree(repository, worktree, true);
    expect(run(top, 'branch', '--list', 'try-it')).toBe('');
    await expect(recreateWorktree(repository, worktree)).rejects.toThrow(/branch try-it is gone/);
  });

  it('never removes or writes a folder that is not one of its worktrees', async () => {
    await expect(
      removeWorktree(repository, { path: join(top, 'src'), branch: 'main' }, false),
    ).rejects.toThrow(/not one of this repository's worktrees/);
    expect(existsSync(join(top, 'src', 'app.ts'))).toBe(true);
  });

  it('makes no worktree through a .claude or .claude/worktrees the repository has as a link', async () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(join(elsewhere, 'worktrees'), { recursive: true });
    symlinkSync(elsewhere, join(top, '.claude'));
    await expect(createWorktree(repository, 'main', 'fix-login')).rejects.toThrow(/is a link or a file/);
    expect(readdirSync(join(elsewhere, 'worktrees'))).toEqual([]);
    rmSync(join(top, '.claude'));
    mkdirSync(join(top, '.claude'));
    symlinkSync(join(elsewhere, 'worktrees'), join(top, '.claude', 'worktrees'));
    await expect(createWorktree(repository, 'main', 'fix-login')).rejects.toThrow(/is a link or a file/);
    expect(readdirSync(join(elsewhere, 'worktrees'))).toEqual([]);
    expect(run(top, 'branch', '--list', 'fix-login')).toBe('');
  });

  it('names a staged rename once, by its new path', async () => {
    const worktree = await createWorktree(repository, 'main', 'renames');
    run(worktree.path, 'mv', 'src/app.ts', 'src/main.ts');
    expect(await uncommitted(worktree.path)).toEqual(['src/main.ts']);
  });

  it('forgets only its own worktree when its folder was deleted by hand, not the user’s other ones', async () => {
    const ours = await createWorktree(repository, 'main', 'ours');
    // The user's own worktree, on a drive that is not mounted now: its folder is not there for a while.
    const theirs = join(root, 'usb', 'theirs');
    run(top, 'worktree', 'add', '--quiet', '-b', 'theirs', theirs);
    renameSync(join(root, 'usb'), join(root, 'usb-unmounted'));
    rmSync(ours.path, { recursive: true, force: true });

    await removeWorktree(repository, ours, false);
    await recreateWorktree(repository, ours);
    expect(existsSync(join(ours.path, 'src', 'app.ts'))).toBe(true);
    renameSync(join(root, 'usb-unmounted'), join(root, 'usb'));
    // Git still knows the user's worktree: it works as it did.
    expect(run(top, 'worktree', 'list', '--porcelain')).toContain(theirs);
    expect(run(theirs, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('theirs');
  });
});
