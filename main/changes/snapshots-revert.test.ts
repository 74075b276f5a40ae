import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_BOUNDS, Snapshots, SnapshotsOff } from './snapshots';
import { MACHINES } from './test-support/shell-host';
import { gitIn, TEST_GIT_ENV } from './test-support/git';

/**
 * What the Changes panel reads from snapshots and what a revert does with them, with real git: a file's
 * diff of each kind (text, binary, symlink, submodule, a huge one cut), putting files back as a snapshot
 * had them (and deleting those it did not have) without touching the user's git, what the repository is
 * in the middle of, the note on ignored files, and the bound past which no snapshot is taken.
 */

let root: string;
let store: string;
let repo: string;

const run = gitIn;

/** The user's git as they would see it; the index read first, and status kept from refreshing it. */
function userState() {
  const index = readFileSync(join(repo, '.git', 'index')).toString('base64');
  const status = execFileSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...TEST_GIT_ENV, GIT_OPTIONAL_LOCKS: '0' },
  });
  return { index, status, stash: run(repo, 'stash', 'list'), head: run(repo, 'rev-parse', 'HEAD') };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-revert-'));
  store = join(root, 'data', 'snapshots');
  repo = join(root, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'app.ts'), 'const a = 1;\nconst b = 2;\n');
  writeFileSync(join(repo, 'gone.txt'), 'to be deleted\n');
  writeFileSync(join(repo, 'image.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
  writeFileSync(join(repo, '.gitignore'), 'dist/\n');
  run(repo, 'init', '--quiet', '-b', 'main');
  run(repo, 'add', '-A');
  run(repo, 'commit', '--quiet', '-m', 'start');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.each(MACHINES)('restoring from a snapshot, %s', (_, machine) => {
  it('puts edited, deleted and added files back as they were, and touches nothing else', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const start = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'src', 'app.ts'), 'const a = 10;\n');
    rmSync(join(repo, 'gone.txt'));
    mkdirSync(join(repo, 'src', 'made', 'deep'), { recursive: true });
    writeFileSync(join(repo, 'src', 'made', 'deep', 'new.ts'), 'new\n');
    writeFileSync(join(repo, 'left-alone.txt'), 'not asked for\n');
    const turn = await snapshots.take('c', 'turn-1', start);
    const before = userState();

    await snapshots.restore(start, ['src/app.ts', 'gone.txt', 'src/made/deep/new.ts']);

    expect(readFileSync(join(repo, 'src', 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\n');
    expect(readFileSync(join(repo, 'gone.txt'), 'utf8')).toBe('to be deleted\n');
    expect(existsSync(join(repo, 'src', 'made'))).toBe(false);
    expect(existsSync(join(repo, 'src'))).toBe(true);
    expect(readFileSync(join(repo, 'left-alone.txt'), 'utf8')).toBe('not asked for\n');
    // The user's index and HEAD as they were; only the working tree's files changed.
    const after = userState();
    expect(after.index).toBe(before.index);
    expect(after.head).toBe(before.head);
    expect(after.stash).toBe(before.stash);
    expect(after.status).toBe('?? left-alone.txt\n');

    // And forward again, from the later snapshot: an undo.
    await snapshots.restore(turn, ['src/app.ts', 'gone.txt', 'src/made/deep/new.ts']);
    expect(readFileSync(join(repo, 'src', 'app.ts'), 'utf8')).toBe('const a = 10;\n');
    expect(existsSync(join(repo, 'gone.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'src', 'made', 'deep', 'new.ts'), 'utf8')).toBe('new\n');
  });

  it('restores many files with long names at once, in as many runs of git as a command line takes', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const start = await snapshots.take('c', 'start', null);
    // 600 names of some 240 bytes each (a name takes 255 at most), not all of it ASCII: far past one command line's worth.
    const names = Array.from(
      { length: 600 },
      (_, index) => `${'é'.repeat(40)}${'n'.repeat(150)}-${index}.txt`,
    );
    mkdirSync(join(repo, 'many'));
    for (const name of names) writeFileSync(join(repo, 'many', name), `${name}\n`);
    const turn = await snapshots.take('c', 'turn-1', start);
    const paths = names.map((name) => `many/${name}`);
    await snapshots.restore(start, paths);
    expect(existsSync(join(repo, 'many'))).toBe(false);
    await snapshots.restore(turn, paths);
    expect(readFileSync(join(repo, 'many', names[599] ?? ''), 'utf8')).toBe(`${names[599]}\n`);
    expect(await snapshots.compose(start, turn, paths)).toBe((await snapshots.current()).tree);
    // Hundreds of files through a shell for each piece of work: a busy machine's time, never a bound on it.
  }, 120_000);

  it('refuses a path that leads out of the folder, and never deletes through a symlink', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const start = await snapshots.take('c', 'start', null);
    await expect(snapshots.restore(start, ['../outside.txt'])).rejects.toThrow(/not a path inside/);
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'precious.txt'), 'keep\n');
    symlinkSync(elsewhere, join(repo, 'link'));
    await expect(snapshots.restore(start, ['link/precious.txt'])).rejects.toThrow(/not a folder/);
    expect(readFileSync(join(elsewhere, 'precious.txt'), 'utf8')).toBe('keep\n');
  });
});

describe.each(MACHINES)("a file's diff, %s", (_, machine) => {
  it('reads text hunks, binary sizes, symlink targets and submodule commits', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const start = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'src', 'app.ts'), 'const a = 1;\nconst b = 3;\n');
    writeFileSync(join(repo, 'image.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 7, 7]));
    symlinkSync('src/app.ts', join(repo, 'shortcut'));
    const sub = join(root, 'sub');
    mkdirSync(sub);
    run(sub, 'init', '--quiet', '-b', 'main');
    run(sub, 'commit', '--quiet', '--allow-empty', '-m', 'sub');
    const subHead = run(sub, 'rev-parse', 'HEAD').trim();
    execFileSync('cp', ['-r', sub, join(repo, 'vendored')]);
    const turn = await snapshots.take('c', 'turn-1', start);

    const changes = await snapshots.diff(start, turn);
    expect(changes.map(({ path, kind, status }) => [path, kind, status])).toEqual([
      ['image.bin', 'file', 'modified'],
      ['shortcut', 'symlink', 'added'],
      ['src/app.ts', 'file', 'modified'],
      ['vendored', 'submodule', 'added'],
    ]);
    expect(changes.find((change) => change.path === 'image.bin')?.added).toBeNull();

    expect(await snapshots.fileDiff(start, turn, 'src/app.ts')).toEqual({
      kind: 'text',
      path: 'src/app.ts',
      hunks: [
        {
          oldStart: 1,
          oldLines: 2,
          newStart: 1,
          newLines: 2,
          header: '',
          lines: [' const a = 1;', '-const b = 2;', '+const b = 3;'],
        },
      ],
      cut: null,
    });
    expect(await snapshots.fileDiff(start, turn, 'image.bin')).toEqual({
      kind: 'binary',
      path: 'image.bin',
      before: 6,
      after: 8,
    });
    expect(await snapshots.fileDiff(start, turn, 'shortcut')).toEqual({
      kind: 'symlink',
      path: 'shortcut',
      before: null,
      after: 'src/app.ts',
    });
    expect(await snapshots.fileDiff(start, turn, 'vendored')).toEqual({
      kind: 'submodule',
      path: 'vendored',
      before: null,
      after: subHead,
    });
    // The link stays a link, pointing where it did: nothing followed it.
    expect(lstatSync(join(repo, 'shortcut')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(repo, 'shortcut'))).toBe('src/app.ts');
  });

  it('against the working tree as it is now, which no ref keeps', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const start = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'src', 'app.ts'), 'changed by hand\n');
    const now = await snapshots.current();
    expect((await snapshots.diff(start, now.tree)).map((change) => change.path)).toEqual(['src/app.ts']);
    expect(run(repo, 'for-each-ref', 'refs/byre/')).toBe(`${start.commit} commit\t${start.ref}\n`);
  });
});

describe.each(MACHINES)('what the panel says about the folder, %s', (_, machine) => {
  it('names the state a repository is in the middle of, and snapshots it all the same', async () => {
    run(repo, 'checkout', '--quiet', '-b', 'other');
    writeFileSync(join(repo, 'src', 'app.ts'), 'other side\n');
    run(repo, 'commit', '--quiet', '-am', 'other');
    run(repo, 'checkout', '--quiet', 'main');
    writeFileSync(join(repo, 'src', 'app.ts'), 'main side\n');
    run(repo, 'commit', '--quiet', '-am', 'main');
    expect(() => run(repo, 'merge', '--quiet', 'other')).toThrow();
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    expect(await snapshots.repositoryState()).toBe('a merge');
    const before = userState();
    const start = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'src', 'app.ts'), 'resolved\n');
    const turn = await snapshots.take('c', 'turn-1', start);
    expect((await snapshots.diff(start, turn)).map((change) => change.path)).toEqual(['src/app.ts']);
    // Mid-merge the user's index holds the conflict's stages: still exactly as it was.
    expect(userState().index).toBe(before.index);
  });

  it('says once that ignored files are not tracked, and leaves them out', async () => {
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    expect(await snapshots.ignoredNote()).toBeNull();
    mkdirSync(join(repo, 'dist'));
    writeFileSync(join(repo, 'dist', 'bundle.js'), 'built\n');
    writeFileSync(join(repo, 'dist', 'bundle.js.map'), 'built\n');
    const start = await snapshots.take('c', 'start', null);
    expect(await snapshots.ignoredNote()).toBe(
      'One file or folder that .gitignore leaves out is not tracked.',
    );
    expect(run(repo, 'ls-tree', '-r', '--name-only', start.commit)).not.toMatch(/dist/);
  });

  it('takes no snapshot past its bound of new files, and says why', async () => {
    const snapshots = await Snapshots.open(repo, store, { files: 50, bytes: 1024 ** 3 }, machine);
    await snapshots.take('c', 'start', null);
    mkdirSync(join(repo, 'node_modules'));
    for (let index = 0; index < 60; index++) writeFileSync(join(repo, 'node_modules', `m${index}.js`), 'x\n');
    const taking = snapshots.take('c', 'turn-1', null);
    await expect(taking).rejects.toBeInstanceOf(SnapshotsOff);
    await expect(taking).rejects.toThrow(/60 new files appeared at once \(more than 50\)/);
    expect(run(repo, 'for-each-ref', '--format=%(refname)', 'refs/byre/')).toBe('refs/byre/c/start\n');
  });
});
