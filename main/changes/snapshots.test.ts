import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_BOUNDS, Snapshots } from './snapshots';
import { thisMachine, type Machine } from '../machines/machine';
import { MACHINES } from './test-support/shell-host';
import { gitIn } from './test-support/git';

/**
 * Snapshots with real git: what changed between two of them, shell-made files included, in a repository
 * (whose index, HEAD, status and stash stay exactly as they were) and in a plain folder.
 */

let root: string;
let store: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-snapshots-'));
  store = join(root, 'data', 'changes');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const run = gitIn;

/** What the user's git shows: their status, stash, HEAD, branches and the bytes of their index. */
function userState(repo: string) {
  return {
    status: run(repo, 'status', '--porcelain=v1', '--untracked-files=all'),
    stash: run(repo, 'stash', 'list'),
    head: run(repo, 'rev-parse', 'HEAD'),
    branches: run(repo, 'branch', '--list'),
    index: readFileSync(join(repo, '.git', 'index')).toString('base64'),
  };
}

/** The same edits in either kind of folder: an edit, a new file, a deletion, a rename, an ignored file. */
function edit(folder: string) {
  writeFileSync(join(folder, 'edited.txt'), 'one\n2\nthree\nfour\n');
  writeFileSync(join(folder, 'made-by-bash.txt'), 'from a command\n');
  rmSync(join(folder, 'deleted.txt'));
  renameSync(join(folder, 'old-name.txt'), join(folder, 'new-name.txt'));
  writeFileSync(join(folder, 'build.log'), 'ignored\n');
}

function start(folder: string) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'edited.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(folder, 'deleted.txt'), 'gone soon\n');
  writeFileSync(join(folder, 'old-name.txt'), 'a file that only moves\n'.repeat(5));
  writeFileSync(join(folder, '.gitignore'), '*.log\n');
}

const EXPECTED = [
  { path: 'deleted.txt', from: null, status: 'deleted', kind: 'file', added: 0, removed: 1 },
  { path: 'edited.txt', from: null, status: 'modified', kind: 'file', added: 2, removed: 1 },
  { path: 'made-by-bash.txt', from: null, status: 'added', kind: 'file', added: 1, removed: 0 },
  { path: 'new-name.txt', from: 'old-name.txt', status: 'renamed', kind: 'file', added: 0, removed: 0 },
];

describe.each(MACHINES)('snapshots, %s', (_, machine) => {
  it('in a repository: lists what changed between two, and leaves the user’s git as it was', async () => {
    const repo = join(root, 'repo');
    start(repo);
    run(repo, 'init', '--quiet', '-b', 'main');
    run(repo, 'add', '-A');
    run(repo, 'commit', '--quiet', '-m', 'start');
    // Work of the user's own in flight: a stash, a staged change, an untracked file.
    writeFileSync(join(repo, 'edited.txt'), 'stashed\n');
    run(repo, 'stash', '--quiet');
    writeFileSync(join(repo, 'staged.txt'), 'staged\n');
    run(repo, 'add', 'staged.txt');

    const snapshots = await Snapshots.open(join(repo), store, SNAPSHOT_BOUNDS, machine);
    expect(snapshots.inRepository).toBe(true);
    let before = userState(repo);
    const first = await snapshots.take('conversation-1', 'start', null);
    expect(userState(repo)).toEqual(before);

    edit(repo);
    before = userState(repo);
    const second = await snapshots.take('conversation-1', 'turn-1', first);
    expect(userState(repo)).toEqual(before);

    expect(await snapshots.diff(first, second)).toEqual(EXPECTED);
    expect(run(repo, 'for-each-ref', '--format=%(refname)', 'refs/byre/')).toBe(
      'refs/byre/conversation-1/start\nrefs/byre/conversation-1/turn-1\n',
    );
    await snapshots.forget('conversation-1');
    expect(run(repo, 'for-each-ref', 'refs/byre/')).toBe('');
    expect(userState(repo)).toEqual(before);
  });

  it('outside a repository: the same, in a private repository that leaves the folder alone', async () => {
    const folder = join(root, 'plain');
    start(folder);
    const snapshots = await Snapshots.open(folder, store, SNAPSHOT_BOUNDS, machine);
    expect(snapshots.inRepository).toBe(false);
    const first = await snapshots.take('conversation-2', 'start', null);
    edit(folder);
    const second = await snapshots.take('conversation-2', 'turn-1', first);
    expect(await snapshots.diff(first, second)).toEqual(EXPECTED);
    expect(existsSync(join(folder, '.git'))).toBe(false);
    // Forgotten, the private repository goes whole: nothing else needs it.
    await snapshots.forget('conversation-2');
    expect(readdirSync(store)).toEqual([]);
  });

  it("never runs a filter command the repository's config names, and keeps the bytes on disk", async () => {
    const repo = join(root, 'repo');
    start(repo);
    run(repo, 'init', '--quiet', '-b', 'main');
    const marker = join(root, 'filter-ran');
    run(repo, 'config', 'filter.evil.clean', `touch '${marker}'; tr a-z A-Z`);
    run(repo, 'config', 'filter.evil.required', 'true');
    // A name with "=" in it, which `-c filter.<name>.clean=` would cut short.
    run(repo, 'config', 'filter.x=y.clean', `touch '${marker}'; tr a-z A-Z`);
    writeFileSync(join(repo, '.gitattributes'), '* filter=evil\n*.txt filter=x=y\n');
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const first = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'edited.txt'), 'one\ntwo\nthree\nfour\n');
    const second = await snapshots.take('c', 'turn-1', first);
    expect(existsSync(marker)).toBe(false);
    expect(await snapshots.diff(first, second)).toEqual([
      { path: 'edited.txt', from: null, status: 'modified', kind: 'file', added: 1, removed: 0 },
    ]);
    expect(run(repo, 'cat-file', '-p', `${second.commit}:edited.txt`)).toBe('one\ntwo\nthree\nfour\n');
  });

  it("never runs the signing program or diff drivers a repository's config names", async () => {
    const repo = join(root, 'repo');
    start(repo);
    run(repo, 'init', '--quiet', '-b', 'main');
    const marker = join(root, 'program-ran');
    const program = join(root, 'evil.sh');
    writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    run(repo, 'config', 'commit.gpgSign', 'true');
    run(repo, 'config', 'gpg.program', program);
    run(repo, 'config', 'diff.evil.textconv', program);
    run(repo, 'config', 'diff.evil.command', program);
    writeFileSync(join(repo, '.gitattributes'), '* diff=evil\n');
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const first = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'edited.txt'), 'one\ntwo\nthree\nfour\n');
    const second = await snapshots.take('c', 'turn-1', first);
    expect((await snapshots.diff(first, second)).map((change) => change.path)).toEqual(['edited.txt']);
    expect(await snapshots.fileDiff(first, second, 'edited.txt')).toMatchObject({ kind: 'text' });
    await snapshots.restore(first, ['edited.txt']);
    expect(readFileSync(join(repo, 'edited.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(existsSync(marker)).toBe(false);
  });

  it('from a subfolder of a repository, snapshots the whole repository', async () => {
    const repo = join(root, 'repo');
    start(repo);
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'app.ts'), 'app\n');
    run(repo, 'init', '--quiet', '-b', 'main');
    run(repo, 'add', '-A');
    run(repo, 'commit', '--quiet', '-m', 'start');
    const snapshots = await Snapshots.open(join(repo, 'src'), store, SNAPSHOT_BOUNDS, machine);
    expect(snapshots.inRepository).toBe(true);
    expect(snapshots.workTree).toBe(repo);
    const first = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'top.txt'), 'top\n');
    const second = await snapshots.take('c', 'turn-1', first);
    expect((await snapshots.diff(first, second)).map((change) => change.path)).toEqual(['top.txt']);
    // In the repository's own store, beside its commits.
    expect(run(repo, 'for-each-ref', '--format=%(refname)', 'refs/byre/')).toBe(
      'refs/byre/c/start\nrefs/byre/c/turn-1\n',
    );
  });

  it('reverts a filtered file (an LFS pointer in the index, say) to the bytes that were on disk', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo, { recursive: true });
    run(repo, 'init', '--quiet', '-b', 'main');
    // What git-lfs does in shape: the index holds a pointer, the working tree the content.
    run(repo, 'config', 'filter.fake.clean', 'sed s/^/POINTER:/');
    run(repo, 'config', 'filter.fake.smudge', 'sed s/^POINTER://');
    writeFileSync(join(repo, '.gitattributes'), '*.bin filter=fake\n');
    writeFileSync(join(repo, 'big.bin'), 'real content\n');
    // Written a while ago, so git's stat cache trusts the index's entry rather than reading it again.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(repo, 'big.bin'), anHourAgo, anHourAgo);
    run(repo, 'add', '-A');
    run(repo, 'commit', '--quiet', '-m', 'start');
    expect(run(repo, 'cat-file', '-p', 'HEAD:big.bin')).toBe('POINTER:real content\n');

    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const first = await snapshots.take('c', 'start', null);
    writeFileSync(join(repo, 'big.bin'), 'changed by a command\n');
    await snapshots.take('c', 'turn-1', first);
    await snapshots.restore(first, ['big.bin']);
    expect(readFileSync(join(repo, 'big.bin'), 'utf8')).toBe('real content\n');
  });
});

describe.each(MACHINES)('the first snapshot of a repository, %s', (_, machine) => {
  it("sees a file edited to the same size in the second the user's index was written", async () => {
    const repo = join(root, 'racy');
    mkdirSync(repo);
    const file = join(repo, 'app.ts');
    const then = new Date(Date.now() - 3_600_000);
    writeFileSync(file, 'one\ntwo\nthree\n');
    utimesSync(file, then, then);
    run(repo, 'init', '--quiet');
    // Ctime cannot be set back: git is told not to look at it, so only size and mtime say "unchanged".
    run(repo, 'config', 'core.trustctime', 'false');
    run(repo, 'add', '-A');
    run(repo, 'commit', '--quiet', '-m', 'start');
    // The index written in the same second as the file, then the file edited in that second, to its size.
    utimesSync(join(repo, '.git', 'index'), then, then);
    writeFileSync(file, 'one\nTWO\nthree\n');
    utimesSync(file, then, then);
    const snapshots = await Snapshots.open(repo, store, SNAPSHOT_BOUNDS, machine);
    const { commit } = await snapshots.take('c', 'start', null);
    expect(run(repo, 'show', `${commit}:app.ts`)).toBe('one\nTWO\nthree\n');
  });
});

describe('a diff between two snapshots, asked again', () => {
  it('is answered without running git again: by the same commits, by a commit and its tree, or a tree and itself', async () => {
    const folder = join(root, 'plain');
    start(folder);
    const diffTrees: string[][] = [];
    const counting: Machine = {
      ...thisMachine,
      git: (args, options) => {
        if (args[0] === 'diff-tree') diffTrees.push([...args]);
        return thisMachine.git(args, options);
      },
    };
    const snapshots = await Snapshots.open(folder, store, SNAPSHOT_BOUNDS, counting);
    const first = await snapshots.take('conversation-1', 'start', null);
    edit(folder);
    const second = await snapshots.take('conversation-1', 'turn-1', first);
    expect(await snapshots.diff(first, second)).toEqual(EXPECTED);
    const ran = diffTrees.length;
    expect(ran).toBeGreaterThan(0);

    // The panel opened again: the same two snapshots.
    const again = await snapshots.diff(first, second);
    expect(again).toEqual(EXPECTED);
    // The folder now, as a tree, is the turn's snapshot: the same diff.
    const now = await snapshots.current();
    expect(await snapshots.diff(first, now.tree)).toEqual(EXPECTED);
    // Nothing changed since the turn: nothing differs, and git is not asked.
    expect(await snapshots.diff(second, now.tree)).toEqual([]);
    expect(diffTrees).toHaveLength(ran);
    // Each caller has a list of its own.
    again.pop();
    expect(await snapshots.diff(first, second)).toEqual(EXPECTED);

    // A change since: the folder's new tree is another diff, read anew.
    writeFileSync(join(folder, 'edited.txt'), 'one\n');
    const later = await snapshots.current();
    expect(later.tree).not.toBe(now.tree);
    const changed = await snapshots.diff(first, later.tree);
    expect(changed.find((change) => change.path === 'edited.txt')).toMatchObject({ added: 0, removed: 2 });
    expect(diffTrees.length).toBeGreaterThan(ran);
  });

  it('is asked of git again after a failure, which is not kept', async () => {
    const folder = join(root, 'plain');
    start(folder);
    let fail = false;
    const flaky: Machine = {
      ...thisMachine,
      git: (args, options) =>
        fail && args[0] === 'diff-tree'
          ? Promise.resolve({ code: 128, stdout: '', stderr: 'fatal: the disk went away' })
          : thisMachine.git(args, options),
    };
    const snapshots = await Snapshots.open(folder, store, SNAPSHOT_BOUNDS, flaky);
    const first = await snapshots.take('conversation-1', 'start', null);
    edit(folder);
    const second = await snapshots.take('conversation-1', 'turn-1', first);
    fail = true;
    await expect(snapshots.diff(first, second)).rejects.toThrow(/the disk went away/);
    fail = false;
    expect(await snapshots.diff(first, second)).toEqual(EXPECTED);
  });
});
