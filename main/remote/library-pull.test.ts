import { execFile } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostProjectsCopy } from '../library/remote-copies';
import {
  FETCH_BYTES,
  fetchLine,
  fetchRuns,
  isSessionPath,
  parseListing,
  planFetches,
  RemoteLibraryPull,
  withinCap,
  splitFetched,
  type RunOnHost,
} from './library-pull';

/**
 * The library's copy of a host's sessions. The "host" here is a POSIX sh on this machine under a HOME of the
 * test's, running the very lines ssh would carry; what each run asked for is kept, to see that only new
 * bytes travel.
 */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function world(maxCopyBytes?: number) {
  const root = mkdtempSync(join(tmpdir(), 'byre-pull-'));
  folders.push(root);
  const home = join(root, 'host-home');
  const data = join(root, 'data');
  const project = join(home, '.claude', 'projects', '-srv-app');
  mkdirSync(project, { recursive: true });
  const lines: string[] = [];
  const changed: string[] = [];
  const run: RunOnHost = (_host, line, maxBuffer) =>
    new Promise((resolve) => {
      lines.push(line);
      execFile(
        'sh',
        ['-c', line],
        { env: { PATH: process.env.PATH, HOME: home }, encoding: 'buffer', maxBuffer },
        (error, stdout) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
      );
    });
  const pull = new RemoteLibraryPull(data, run, (host) => changed.push(host), maxCopyBytes);
  const copy = (rel: string) => join(hostProjectsCopy(data, 'devbox'), rel);
  return { home, data, project, lines, changed, pull, copy };
}

describe('the pure parts', () => {
  it('takes only session files and subagents’ files, in safe names, from the listing', () => {
    expect(isSessionPath('-srv-app/0b1c.jsonl')).toBe(true);
    expect(isSessionPath('-srv-app/0b1c/subagents/agent-1.jsonl')).toBe(true);
    for (const bad of [
      '../x.jsonl',
      '-srv-app/../../x.jsonl',
      'a/b.txt',
      'a/b/c.jsonl',
      'a/b c.jsonl',
      'x.jsonl',
    ])
      expect(isSessionPath(bad), bad).toBe(false);
    expect(
      parseListing(
        '12 1700000000 -srv-app/a.jsonl\nnoise\n5 1 ../../etc/passwd.jsonl\n7 2 p/s/subagents/b.jsonl\n',
      ),
    ).toEqual([
      { rel: '-srv-app/a.jsonl', size: 12, mtime: 1700000000 },
      { rel: 'p/s/subagents/b.jsonl', size: 7, mtime: 2 },
    ]);
  });

  it('asks for a grown file’s new bytes only, a shrunk one whole, and a large one in pieces', () => {
    const have = new Map([
      ['p/grew.jsonl', { size: 10, mtime: 1 }],
      ['p/same.jsonl', { size: 5, mtime: 1 }],
      ['p/shrank.jsonl', { size: 50, mtime: 1 }],
    ]);
    const fetches = planFetches(
      [
        { rel: 'p/grew.jsonl', size: 25, mtime: 2 },
        { rel: 'p/same.jsonl', size: 5, mtime: 1 },
        { rel: 'p/shrank.jsonl', size: 20, mtime: 2 },
        { rel: 'p/big.jsonl', size: FETCH_BYTES * 2 + 3, mtime: 2 },
      ],
      (rel) => have.get(rel) ?? null,
    );
    expect(fetches.map(({ rel, from, length }) => [rel, from, length])).toEqual([
      ['p/grew.jsonl', 10, 15],
      ['p/shrank.jsonl', 0, 20],
      ['p/big.jsonl', 0, FETCH_BYTES],
      ['p/big.jsonl', FETCH_BYTES, FETCH_BYTES],
      ['p/big.jsonl', FETCH_BYTES * 2, 3],
    ]);
    // No run brings back more than FETCH_BYTES.
    for (const run of fetchRuns(fetches))
      expect(run.reduce((sum, fetch) => sum + fetch.length, 0)).toBeLessThanOrEqual(FETCH_BYTES);
  });

  it('keeps each run’s command line short enough for Windows, and plans nothing for a size no file has', () => {
    const many = Array.from({ length: 200 }, (_, index) => ({
      rel: `-home-ada-projects-a-rather-long-project-name-${index}/0b7a3c1e-5d2f-4e6a-9b8c-7d6e5f4a3b2c/subagents/agent-a1b2c3d4e5f6.jsonl`,
      from: 0,
      length: 10,
      size: 10,
      mtime: 1,
    }));
    const runs = fetchRuns(many);
    expect(runs.length).toBeGreaterThan(1);
    for (const run of runs) expect(fetchLine(run, 'n'.repeat(32)).length).toBeLessThan(20_000);
    expect(
      parseListing('99999999999999999999 1 p/a.jsonl\n999999999999999 1 p/b.jsonl\n5 1 p/c.jsonl\n'),
    ).toEqual([{ rel: 'p/c.jsonl', size: 5, mtime: 1 }]);
  });

  it('keeps only the pieces that end with the nonce where they should', () => {
    const run = [
      { rel: 'p/a.jsonl', from: 0, length: 3, size: 3, mtime: 1 },
      { rel: 'p/b.jsonl', from: 0, length: 4, size: 4, mtime: 1 },
    ];
    expect(splitFetched(Buffer.from('abc\nN\nwxyz\nN\n'), run, 'N').map(String)).toEqual(['abc', 'wxyz']);
    // b shrank on the host before it was read: it and what follows are fetched next time.
    expect(splitFetched(Buffer.from('abc\nN\nwx\nN\n'), run, 'N').map(String)).toEqual(['abc']);
  });
});

describe('pulling a host’s sessions', () => {
  it('copies them, then only what they gained, and keeps a session the host deleted', async () => {
    const { project, lines, changed, pull, copy } = world();
    const session = join(project, 'aaaa-1.jsonl');
    writeFileSync(session, '{"type":"user","n":1}\n');
    mkdirSync(join(project, 'aaaa-1', 'subagents'), { recursive: true });
    writeFileSync(join(project, 'aaaa-1', 'subagents', 'agent-x.jsonl'), '{"agent":1}\n');
    // Not a session's file: never copied.
    writeFileSync(join(project, 'notes.txt'), 'secret');

    expect(await pull.pull('devbox')).toEqual({ changed: 2 });
    expect(readFileSync(copy('-srv-app/aaaa-1.jsonl'), 'utf8')).toBe('{"type":"user","n":1}\n');
    expect(existsSync(copy('-srv-app/aaaa-1/subagents/agent-x.jsonl'))).toBe(true);
    expect(existsSync(copy('-srv-app/notes.txt'))).toBe(false);
    expect(changed).toEqual(['devbox']);
    // Dated as on the host, so that the index sees it as the host's file.
    expect(Math.floor(statSync(copy('-srv-app/aaaa-1.jsonl')).mtimeMs / 1000)).toBe(
      Math.floor(statSync(session).mtimeMs / 1000),
    );

    // Nothing new: one listing, no fetch, no change said.
    lines.length = 0;
    expect(await pull.pull('devbox')).toEqual({ changed: 0 });
    expect(lines).toHaveLength(1);
    expect(changed).toEqual(['devbox']);

    // The session grew: only its new bytes are asked for.
    const before = statSync(session).size;
    appendFileSync(session, '{"type":"assistant","n":2}\n');
    lines.length = 0;
    expect(await pull.pull('devbox')).toEqual({ changed: 1 });
    expect(lines[1]).toContain(`'=-srv-app/aaaa-1.jsonl' '=${before}' `);
    expect(readFileSync(copy('-srv-app/aaaa-1.jsonl'), 'utf8')).toBe(readFileSync(session, 'utf8'));

    // The host cleaned up: the copy keeps the conversation.
    rmSync(session);
    await pull.pull('devbox');
    expect(readFileSync(copy('-srv-app/aaaa-1.jsonl'), 'utf8')).toContain('"n":2');
  });

  it('copies a session written anew (shorter) whole, and a large one in pieces of bounded size', async () => {
    const { project, lines, pull, copy } = world();
    const session = join(project, 'bbbb-2.jsonl');
    writeFileSync(session, 'x'.repeat(100) + '\n');
    await pull.pull('devbox');
    writeFileSync(session, 'short\n');
    // Dated later, as a rewrite would be.
    utimesSync(session, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    await pull.pull('devbox');
    expect(readFileSync(copy('-srv-app/bbbb-2.jsonl'), 'utf8')).toBe('short\n');

    const big = join(project, 'cccc-3.jsonl');
    const line = `${JSON.stringify({ type: 'user', text: 'y'.repeat(1000) })}\n`;
    writeFileSync(big, line.repeat(Math.ceil((FETCH_BYTES * 1.5) / line.length)));
    lines.length = 0;
    await pull.pull('devbox');
    expect(lines.length).toBe(3);
    expect(readFileSync(copy('-srv-app/cccc-3.jsonl')).equals(readFileSync(big))).toBe(true);
  });

  it('copies at most its cap of a host’s sessions, the newest first', async () => {
    const { project, pull, copy } = world(3_000);
    const write = (name: string, size: number, mtime: number) => {
      writeFileSync(join(project, name), `${'x'.repeat(size - 1)}\n`);
      utimesSync(join(project, name), mtime, mtime);
    };
    write('old.jsonl', 1_500, 1_000);
    write('middle.jsonl', 1_000, 2_000);
    write('new.jsonl', 1_500, 3_000);
    await pull.pull('devbox');
    expect(existsSync(copy('-srv-app/new.jsonl'))).toBe(true);
    expect(existsSync(copy('-srv-app/middle.jsonl'))).toBe(true);
    // Over the cap: left out, however the host lists it.
    expect(existsSync(copy('-srv-app/old.jsonl'))).toBe(false);
    expect(withinCap([{ rel: 'a', size: 5, mtime: 1 }], 4)).toEqual({ kept: [], left: 1 });
  });

  it('a host that cannot be reached leaves the copy as it was', async () => {
    const { project, data, pull, copy } = world();
    writeFileSync(join(project, 'dddd-4.jsonl'), 'kept\n');
    await pull.pull('devbox');
    const failing = new RemoteLibraryPull(
      data,
      () => Promise.reject(new Error('Byre cannot reach devbox')),
      () => undefined,
    );
    await expect(failing.pull('devbox')).rejects.toThrow(/cannot reach/);
    expect(readFileSync(copy('-srv-app/dddd-4.jsonl'), 'utf8')).toBe('kept\n');
  });
});
