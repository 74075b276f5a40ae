import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseReadFiles, READ_FILES, RemoteHosts } from './hosts';
import { portableSh } from './ssh';

/** The hosts of the one config file, before any ssh runs. */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('the hosts Byre lists', () => {
  it('are the config file’s, and none without one in the home folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'byre-hosts-'));
    folders.push(folder);
    const file = join(folder, 'config');
    writeFileSync(file, 'Host devbox\nHost *\n');
    expect(new RemoteHosts(() => ({ file, chosen: true })).list()).toEqual({
      configFile: file,
      hosts: ['devbox'],
    });
    expect(new RemoteHosts(() => ({ file: join(folder, 'none'), chosen: false })).list()).toEqual({
      configFile: null,
      hosts: [],
    });
  });

  it('a file chosen in Settings that is gone reaches no host, saying why, rather than go on without it', async () => {
    const hosts = new RemoteHosts(() => ({ file: '/nowhere/ssh_config', chosen: true }));
    expect(hosts.list()).toEqual({ configFile: null, hosts: [] });
    await expect(hosts.prepare('prod', '/srv')).rejects.toMatchObject({
      name: 'RemoteProblem',
      kind: 'no-config',
      message: expect.stringMatching(/\/nowhere\/ssh_config, is not there/),
    });
    await hosts.closeAll();
  });
});

describe('files read on a host', () => {
  const paths = ['/srv/app/.claude/settings.json', '/srv/app/.mcp.json', '/srv/.mcp.json'];

  it('are each a text, absent, or unreadable with why', () => {
    const text = '{"hooks":{}}\nwith a newline inside\n';
    const answer = Buffer.from(`T ${Buffer.byteLength(text)}\n${text}\nA\nU it is a folder\n`);
    expect([...parseReadFiles(answer, paths)]).toEqual([
      [paths[0], { kind: 'text', text }],
      [paths[1], { kind: 'absent' }],
      [paths[2], { kind: 'unreadable', reason: 'it is a folder' }],
    ]);
  });

  it('are all unreadable, never absent, when the answer does not read as it should', () => {
    const unreadable = { kind: 'unreadable', reason: 'the host’s answer could not be read' };
    for (const answer of [
      null,
      // A file that shrank while it was read: its bytes do not end where its size said.
      Buffer.from('T 6\nabc\nA\nA\n'),
      Buffer.from('A\nA\n'),
      Buffer.from('A\nA\nA\nmore\n'),
      Buffer.from('X\nA\nA\n'),
    ]) {
      expect([...parseReadFiles(answer, paths).values()]).toEqual([unreadable, unreadable, unreadable]);
    }
  });
});

describe('reading files on a host', () => {
  it('reads only regular files, each at most as far as the limit, so a link to /dev/zero or a FIFO never hangs it', () => {
    const folder = mkdtempSync(join(tmpdir(), 'byre-read-'));
    folders.push(folder);
    const text = '{"hooks":{"Stop":[]}}\n';
    writeFileSync(join(folder, 'settings.json'), text);
    writeFileSync(join(folder, 'big.json'), 'x'.repeat(2048));
    symlinkSync('/dev/zero', join(folder, 'zero.json'));
    execFileSync('mkfifo', [join(folder, 'fifo.json')]);
    const paths = ['settings.json', 'zero.json', 'fifo.json', 'big.json', 'none.json'].map((name) =>
      join(folder, name),
    );
    const output = execFileSync(
      'sh',
      ['-c', portableSh(READ_FILES, ['1024', '100000', '100000', ...paths])],
      {
        timeout: 20_000,
      },
    );
    expect([...parseReadFiles(output, paths).values()]).toEqual([
      { kind: 'text', text },
      { kind: 'unreadable', reason: 'it is not a file' },
      { kind: 'unreadable', reason: 'it is not a file' },
      { kind: 'unreadable', reason: 'it is over 1024 bytes' },
      { kind: 'absent' },
    ]);
  });

  it('reads no more than the limit of them all: a file past it is unreadable, saying so', () => {
    const folder = mkdtempSync(join(tmpdir(), 'byre-read-'));
    folders.push(folder);
    const paths = ['a', 'b', 'c', 'd'].map((name) => join(folder, name));
    for (const path of paths) writeFileSync(path, 'x'.repeat(600));
    writeFileSync(paths[3]!, 'small');
    const output = execFileSync('sh', ['-c', portableSh(READ_FILES, ['1024', '1300', '9999', ...paths])]);
    const over = {
      kind: 'unreadable',
      reason: 'Byre reads no more of the folder: what it carries is over 9999 bytes',
    };
    expect([...parseReadFiles(output, paths).values()]).toEqual([
      { kind: 'text', text: 'x'.repeat(600) },
      { kind: 'text', text: 'x'.repeat(600) },
      over,
      { kind: 'text', text: 'small' },
    ]);
  });
});
