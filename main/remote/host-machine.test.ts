import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellHost } from '../changes/test-support/shell-host';
import { Snapshots, SnapshotsOff } from '../changes/snapshots';
import { hostMachine } from './host-machine';

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
  });

  it('counts new files’ bytes without reading a FIFO or a link to /dev/zero', async () => {
    const host = shellHost();
    writeFileSync(join(root, 'big'), Buffer.alloc(64 * 1024, 1));
    writeFileSync(join(root, 'a\nnewline'), Buffer.alloc(8 * 1024, 1));
    execFileSync('mkfifo', [join(root, 'fifo')]);
    symlinkSync('/dev/zero', join(root, 'zero'));
    const bytes = await host.bytes(root, ['big', 'a\nnewline', 'fifo', 'zero', 'gone']);
    // du's count: what they take on disk, near their size.
    expect(bytes).toBeGreaterThanOrEqual(72 * 1024);
    expect(bytes).toBeLessThan(200 * 1024);
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
    execFileSync('touch', ['-d', '2001-02-03 04:05:06', join(root, 'index')]);
    expect(await host.copyIndex(join(root, 'index'), join(store, 'copy'))).toBe(true);
    expect(stat('%Y', join(store, 'copy'))).toBe(stat('%Y', join(root, 'index')));
    expect(await host.copyIndex(join(root, 'none'), join(store, 'other'))).toBe(false);
    expect(await host.removeEmptyFolder(store)).toBe(false);
    await host.unlink(join(store, 'copy'));
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
  });
});
