import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitIn } from '../changes/test-support/git';
import { mergeIntoBase } from './merge';
import { createWorktree, repositoryOf, type Repository, type Worktree } from './worktrees';

/**
 * "Merge into <base>" with real git: a merge and a squash, into a base no checkout has and into the main
 * checkout's (fast-forwarded, its files updated); a conflict changes nothing anywhere; a base checked out
 * with local changes is refused; two merges asked at once both land, one after the other.
 */

let root: string;
let top: string;
let repository: Repository;
const run = gitIn;
const identity = { name: 'Byre Test', email: 'byre@test' };

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'byre-merge-'));
  top = join(root, 'repo');
  mkdirSync(top);
  writeFileSync(join(top, 'app.ts'), 'one\ntwo\nthree\n');
  run(top, 'init', '--quiet', '-b', 'main');
  run(top, 'add', '-A');
  run(top, 'commit', '--quiet', '-m', 'start');
  repository = (await repositoryOf(top))!;
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A worktree from main whose branch commits `text` to `file`. */
async function worked(name: string, file: string, text: string): Promise<Worktree> {
  const worktree = await createWorktree(repository, 'main', name);
  writeFileSync(join(worktree.path, file), text);
  run(worktree.path, 'add', '-A');
  run(worktree.path, 'commit', '--quiet', '-m', `${name}'s work`);
  return worktree;
}

const status = () => run(top, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all');
const parents = (ref: string) =>
  run(top, 'rev-list', '--parents', '-n', '1', ref).trim().split(' ').length - 1;

describe('mergeIntoBase', () => {
  it("merges into the main checkout's branch, its files brought in, and squashes as one commit", async () => {
    await worked('feature', 'app.ts', 'one\n2\nthree\n');
    const merged = await mergeIntoBase(repository, {
      branch: 'feature',
      base: 'main',
      squash: false,
      message: 'Merge feature',
      identity,
    });
    expect(merged).toMatchObject({ merged: true });
    expect(readFileSync(join(top, 'app.ts'), 'utf8')).toBe('one\n2\nthree\n');
    expect(parents('main')).toBe(2);
    expect(run(top, 'log', '-1', '--format=%s %an', 'main').trim()).toBe('Merge feature Byre Test');
    expect(status()).toBe('');

    await worked('other', 'new.ts', 'new\n');
    await mergeIntoBase(repository, {
      branch: 'other',
      base: 'main',
      squash: true,
      message: 'Other',
      identity,
    });
    expect(parents('main')).toBe(1);
    expect(readFileSync(join(top, 'new.ts'), 'utf8')).toBe('new\n');
  });

  it('with a conflict changes nothing, anywhere, and names the files', async () => {
    await worked('left', 'app.ts', 'one\nleft\nthree\n');
    writeFileSync(join(top, 'app.ts'), 'one\nright\nthree\n');
    run(top, 'commit', '--quiet', '-am', 'right');
    const main = run(top, 'rev-parse', 'main');
    const result = await mergeIntoBase(repository, {
      branch: 'left',
      base: 'main',
      squash: false,
      message: 'Merge left',
      identity,
    });
    expect(result).toEqual({ merged: false, conflicts: ['app.ts'] });
    expect(run(top, 'rev-parse', 'main')).toBe(main);
    expect(readFileSync(join(top, 'app.ts'), 'utf8')).toBe('one\nright\nthree\n');
    expect(status()).toBe('');
  });

  it('refuses while the base is checked out with local changes, saying why', async () => {
    await worked('feature', 'app.ts', 'one\n2\nthree\n');
    writeFileSync(join(top, 'app.ts'), 'the user is editing this\n');
    await expect(
      mergeIntoBase(repository, { branch: 'feature', base: 'main', squash: false, message: 'm', identity }),
    ).rejects.toThrow(/main is checked out in .* with changes not committed there/);
    expect(readFileSync(join(top, 'app.ts'), 'utf8')).toBe('the user is editing this\n');
  });

  it('moves a base no checkout has by its ref, and takes two merges asked at once one after the other', async () => {
    run(top, 'branch', 'release');
    await worked('a', 'a.ts', 'a\n');
    await worked('b', 'b.ts', 'b\n');
    const [first, second] = await Promise.all([
      mergeIntoBase(repository, { branch: 'a', base: 'release', squash: false, message: 'a', identity }),
      mergeIntoBase(repository, { branch: 'b', base: 'release', squash: false, message: 'b', identity }),
    ]);
    expect(first).toMatchObject({ merged: true });
    expect(second).toMatchObject({ merged: true });
    expect(run(top, 'ls-tree', '--name-only', 'release').split('\n').filter(Boolean).sort()).toEqual([
      'a.ts',
      'app.ts',
      'b.ts',
    ]);
    // The main checkout was never touched.
    expect(run(top, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(status()).toBe('');
  });
});
