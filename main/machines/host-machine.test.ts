import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from './git';
import { thisMachine } from './machine';
import { shellHost } from '../changes/test-support/shell-host';
import { Snapshots, SnapshotsOff } from '../changes/snapshots';
import { hostMachine, readHostLook } from './host-machine';

/**
 * A host's file operations for the snapshots, each line run by a shell as the host's would (the snapshots
 * themselves run through it in snapshots*.test.ts): names no shell may mangle, a hostile folder's special
 * files counted without being read, a host without git, and a host that cannot be reached.
 */

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-host-machine-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const ODD = ['with space', "it's", 'a\nnewline', 'bang!', 'back\\slash', '-dash', '$HOME', '`tick`'];

describe('a host’s files, through its shell', () => {
  it('tells folders, files, links and nothing apart, whatever the names hold', async () => {
    const host = shellHost();
    for (const name of ODD) writeFileSync(join(root, name), name);
    mkdirSync(join(root, 'folder'));
    symlinkSync(join(root, 'folder'), join(root, 'link'));
    const paths = [...ODD, 'folder', 'link', 'missing'].map((name) => join(root, name));
    expect(await host.kinds(paths)).toEqual([...ODD.map(() => 'file'), 'folder', 'other', null]);
    // A folder through a link is one to work in, as here.
    for (const machine of [host, thisMachine]) {
      expect(
        await Promise.all(
          ['folder', 'link', ODD[0] ?? '', 'missing'].map((name) => machine.isFolder(join(root, name))),
        ),
      ).toEqual([true, true, false, false]);
    }
  });

  it('counts new files’ bytes as this computer does, without reading a FIFO or a link to /dev/zero', async () => {
    const host = shellHost();
    writeFileSync(join(root, 'big'), Buffer.alloc(64 * 1024, 1));
    writeFileSync(join(root, 'a\nnewline'), Buffer.alloc(8 * 1024, 1));
    // Sparse: its size, not the little it takes on disk.
    execFileSync('truncate', ['-s', '3M', join(root, 'sparse')]);
    execFileSync('mkfifo', [join(root, 'fifo')]);
    symlinkSync('/dev/zero', join(root, 'zero'));
    // An embedded repository's folder, as ls-files lists one: counted as a folder, not what it holds.
    mkdirSync(join(root, 'nested'));
    writeFileSync(join(root, 'nested', 'inside'), Buffer.alloc(1024 * 1024, 1));
    const paths = ['big', 'a\nnewline', 'sparse', 'fifo', 'zero', 'nested/', 'gone'];
    const bytes = await host.bytes(root, paths);
    expect(bytes).toBe(64 * 1024 + 8 * 1024 + 3 * 1024 * 1024 + '/dev/zero'.length);
    expect(bytes).toBeLessThanOrEqual(await thisMachine.bytes(root, paths));
    expect(await host.bytes(root, [])).toBe(0);
  });

  it('writes, copies (dated as the original), and removes Byre’s own files privately', async () => {
    const host = shellHost();
    const store = join(root, 'store', 'deep');
    await host.makePrivateFolder(store);
    await host.writePrivateFile(join(store, 'alternates'), 'line one\nline two!\n');
    const stat = (format: string, path: string) =>
      execFileSync('stat', ['-c', format, path], { encoding: 'utf8' }).trim();
    expect(stat('%a', store)).toBe('700');
    expect(stat('%a %s', join(store, 'alternates'))).toBe('600 19');
    writeFileSync(join(root, 'index'), 'x');
    // A time with a fraction of a second, which git's stat cache compares too.
    utimesSync(join(root, 'index'), 981173106.123456, 981173106.123456);
    expect(await host.copyIndex(join(root, 'index'), join(store, 'copy'))).toBe(true);
    expect(stat('%y', join(store, 'copy'))).toBe(stat('%y', join(root, 'index')));
    expect(stat('%y', join(store, 'copy'))).toMatch(/\.123456/);
    expect(await host.copyIndex(join(root, 'none'), join(store, 'other'))).toBe(false);
    // Folders only once empty, and deepest first.
    mkdirSync(join(store, 'empty', 'deeper'), { recursive: true });
    await host.removeEmptyFolders([join(store, 'empty', 'deeper'), join(store, 'empty'), store]);
    expect(await host.kinds([join(store, 'empty'), store])).toEqual([null, 'folder']);
    await host.unlinkAll([join(store, 'copy'), join(store, 'alternates')]);
    expect(await host.kinds([join(store, 'copy'), join(store, 'alternates')])).toEqual([null, null]);
    await host.remove(join(root, 'store'));
    expect(await host.kinds([join(root, 'store')])).toEqual([null]);
  });

  it('says git is not installed on the host, by its name, when it is not there', async () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // A PATH with a shell and nothing else: no git.
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const host = shellHost({ ...process.env, PATH: bin });
    mkdirSync(join(root, 'folder'));
    const opened = Snapshots.open(join(root, 'folder'), join(root, 'store'), undefined, host);
    await expect(opened).rejects.toBeInstanceOf(SnapshotsOff);
    await expect(opened).rejects.toThrow(/^Git is not installed on test-host/);
  });

  it('says what ssh said when its line never ran there', async () => {
    const host = hostMachine('far-box', async () => ({
      code: 255,
      stdout: Buffer.alloc(0),
      stderr: 'ssh: connect to host far-box port 22: Connection refused\n',
      reached: false,
    }));
    const run = await host.git(['status'], { cwd: '/srv' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/far-box/);
    await expect(host.kinds(['/srv'])).rejects.toThrow(/far-box/);
    // Never taken for git's own "no": a check that may fail still fails, and the folder is not taken for
    // one outside a repository.
    await expect(
      git(['cat-file', '-e', 'HEAD'], { cwd: '/srv', mayFail: true, via: host.git }),
    ).rejects.toThrow(/far-box/);
    await expect(Snapshots.open('/srv', '/store', undefined, host)).rejects.toThrow(/far-box/);
  });
});

describe('what a host’s git was seen to be', () => {
  const look = (version: string, listing: string, status: string) =>
    Buffer.from(`${version}\n${listing}${status}\n`).toString('hex');
  const own = 'local\0file:.git/config\0filter.x.clean\nsh evil\0';

  it('tells a git that reads GIT_CONFIG_* (2.31 and later) from one that needs -c, and reads the listing', () => {
    for (const [version, envConfig] of [
      ['git version 2.30.2', false],
      ['git version 2.31.0', true],
      ['git version 2.39.5.windows.1', true],
      ['git version 3.0.0', true],
    ] as const) {
      const seen = readHostLook(look(version, own, '0'));
      expect(seen).toMatchObject({
        envConfig,
        programs: { own: [{ key: 'filter.x.clean', value: 'sh evil' }] },
      });
    }
    expect(readHostLook(look('git version 2.39.5', '', '1'))).toMatchObject({ programs: { own: [] } });
  });

  it('refuses when git could not list the config (before 2.26), rather than run with whatever it names', () => {
    expect(readHostLook(look('git version 2.25.1', '', '129'))).toEqual({
      refused: "its git could not list the repository's config (git 2.26 or later is needed)",
    });
  });
});
