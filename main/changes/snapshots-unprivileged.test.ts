import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gitIn } from './test-support/git';

/**
 * Snapshots where the user cannot read or write everything: a file that cannot be read (the others are
 * still snapshotted, and it is named), and a repository whose object store cannot be written (the
 * snapshots go to a private repository of Byre's instead, and the repository is left untouched). Run as
 * root, the child that takes the snapshots runs as `nobody` (setpriv), so the permissions mean something.
 */

const CHILD_SOURCE = resolve(import.meta.dirname, 'test-support', 'snapshot-child.ts');
const asRoot = process.getuid?.() === 0;

/**
 * The child, bundled into one file in a folder anyone may read: `nobody` cannot be counted on to reach
 * Byre's checkout (a clone inside a private temp folder, say), so it runs nothing from there.
 */
let childDir: string;
let child: string;
beforeAll(() => {
  childDir = mkdtempSync(join(tmpdir(), 'byre-snapshot-child-'));
  chmodSync(childDir, 0o755);
  child = join(childDir, 'snapshot-child.mjs');
  buildSync({
    entryPoints: [CHILD_SOURCE],
    outfile: child,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(childDir, { recursive: true, force: true }));

let root: string;
let folder: string;
let store: string;

// The repository becomes the child's: root may still look at it.
const run = (cwd: string, ...args: string[]) => gitIn(cwd, '-c', 'safe.directory=*', ...args);

/** Everything under `path` made the child's, as its own files would be. */
function giveToChild(path: string) {
  if (asRoot) execFileSync('chown', ['-R', 'nobody:nogroup', path]);
}

function takeSnapshots(): {
  unreadable: string[];
  changed: string[];
  inRepository: boolean;
  restored: string;
} {
  const command = [process.execPath, child, folder, store];
  const ran = asRoot
    ? spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...command], {
        encoding: 'utf8',
        cwd: childDir,
        env: { ...process.env, HOME: root },
      })
    : spawnSync(command[0] ?? '', command.slice(1), { encoding: 'utf8', cwd: childDir });
  if (ran.status !== 0) throw new Error(`The snapshot child failed: ${ran.stderr}`);
  return JSON.parse(ran.stdout.trim().split('\n').pop() ?? '{}');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-unprivileged-'));
  chmodSync(root, 0o755);
  folder = join(root, 'folder');
  store = join(root, 'store');
  mkdirSync(folder);
  mkdirSync(store);
  writeFileSync(join(folder, 'edited.txt'), 'first line\n');
  writeFileSync(join(folder, 'readable.txt'), 'anyone may read this\n');
  giveToChild(store);
});

afterEach(() => {
  execFileSync('chmod', ['-R', 'u+rwX', root]);
  rmSync(root, { recursive: true, force: true });
});

describe('snapshots without every permission', () => {
  it('snapshots the other files when one cannot be read, and names it', () => {
    writeFileSync(join(folder, 'secret.txt'), 'not yours\n');
    giveToChild(folder);
    chmodSync(join(folder, 'secret.txt'), 0o000);
    const result = takeSnapshots();
    expect(result.unreadable).toEqual(['secret.txt']);
    expect(result.changed).toEqual(['edited.txt']);
    expect(result.restored).toBe('restored');
    expect(readFileSync(join(folder, 'edited.txt'), 'utf8')).toBe('first line\n');
  });

  it('keeps a read-only repository as it was, and says why a revert cannot write there', () => {
    run(folder, 'init', '--quiet', '-b', 'main');
    run(folder, 'add', '-A');
    run(folder, 'commit', '--quiet', '-m', 'start');
    giveToChild(folder);
    const objects = run(folder, 'count-objects', '-v');
    // The objects and the work tree cannot be written; edited.txt itself still can (so the turn can edit).
    execFileSync('chmod', ['-R', 'a-w', join(folder, '.git')]);
    chmodSync(folder, 0o555);
    chmodSync(join(folder, 'edited.txt'), 0o666);
    const result = takeSnapshots();
    expect(result.inRepository).toBe(true);
    expect(result.changed).toEqual(['edited.txt']);
    expect(run(folder, 'count-objects', '-v')).toBe(objects);
    expect(run(folder, 'for-each-ref', 'refs/byre/')).toBe('');
    // git writes a file back by replacing it, which a folder that cannot be written refuses: said, with
    // the file and the reason, and the file left as it was.
    expect(result.restored).toMatch(/^The files could not be restored: .*'edited\.txt': Permission denied/);
    expect(readFileSync(join(folder, 'edited.txt'), 'utf8')).toBe('first line\none more line\n');
  });
});
