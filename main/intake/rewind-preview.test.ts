import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FileRewind } from '../../shared/ipc';
import { cli, type Entry } from '../test-support/library';
import { DiffWorker } from './rewind-diff';
import { countLines, fileChanges } from './rewind-preview';

let root: string;
let configDir: string;
let work: string;
const SESSION = randomUUID();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-rewind-preview-'));
  configDir = join(root, '.claude');
  work = join(root, 'work');
  mkdirSync(join(configDir, 'projects', '-work'), { recursive: true });
  mkdirSync(work);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * The app's own diff worker (its TypeScript source, through tsx), for every preview here. These tests are of
 * what is counted and where, not of the app's 200 ms budget a diff: on a busy machine a 60,000-line diff
 * can take longer than that, and would be given up.
 */
const WORKER = join(import.meta.dirname, 'rewind-diff-worker.ts');
let diffs: DiffWorker;
beforeAll(() => {
  diffs = new DiffWorker(WORKER, { timeoutMs: 60_000 });
});
afterAll(() => diffs.close());

/** Writes the session's CLI file: each entry goes on from the one before unless it names its parent. */
function session(entries: Entry[]): void {
  let parent: string | null = null;
  const lines = entries.map((entry) => {
    const linked =
      'parentUuid' in entry && entry.parentUuid !== null ? entry : { ...entry, parentUuid: parent };
    parent = linked.uuid as string;
    return JSON.stringify(linked);
  });
  writeFileSync(join(configDir, 'projects', '-work', `${SESSION}.jsonl`), `${lines.join('\n')}\n`);
}

/** A file tool's result, as the CLI records it on the user entry that carries it. */
function wrote(path: string, before: string | null, after: string, extra: Entry = {}): Entry {
  return cli.user(SESSION, [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }], {
    toolUseResult: {
      type: before === null ? 'create' : 'update',
      filePath: path,
      content: after,
      structuredPatch: [],
      originalFile: before,
    },
    ...extra,
  });
}

const preview = (filesChanged: string[], insertions: number, deletions: number): FileRewind => ({
  canRewind: true,
  filesChanged,
  insertions,
  deletions,
  fileChanges: null,
  byCommand: [],
  reason: null,
});

describe('countLines', () => {
  it('counts the lines a restore adds and removes, from the file now to the file then', () => {
    expect(countLines('a\nb two\nc\n', 'a\nb\nc\n')).toEqual({ insertions: 1, deletions: 1 });
    expect(countLines('x\ny\n', '')).toEqual({ insertions: 0, deletions: 2 });
    expect(countLines('', 'x\n')).toEqual({ insertions: 1, deletions: 0 });
    expect(countLines('same\n', 'same\n')).toEqual({ insertions: 0, deletions: 0 });
  });

  it('gives up a diff that takes longer than its budget, rather than keep the dialog waiting', () => {
    // Every other line of 40,000 changed: tens of thousands of edits, far more than a millisecond's work.
    const now = Array.from({ length: 40_000 }, (_, at) => `line ${at}`).join('\n');
    const before = Array.from({ length: 40_000 }, (_, at) => (at % 2 ? `line ${at}` : `was ${at}`)).join(
      '\n',
    );
    expect(countLines(now, before, 1)).toBeNull();
  });
});

describe('fileChanges', () => {
  it('works out each file from the first change after the message, tool results made in parallel too', async () => {
    const [a, b, c] = ['a.txt', 'b.txt', 'c.txt'].map((name) => join(work, name)) as [string, string, string];
    const message = cli.user(SESSION, 'change them');
    const callA = cli.assistant(SESSION, 'calling a');
    const callB = cli.assistant(SESSION, 'calling b');
    session([
      cli.user(SESSION, 'make a'),
      wrote(a, null, 'one\n'),
      message,
      callA,
      callB,
      // Parallel calls: a's result hangs off its call; only b's is on the chain.
      wrote(a, 'one\n', 'one\ntwo\n', { parentUuid: callA.uuid }),
      wrote(b, 'b\n', 'B\n', { parentUuid: callB.uuid }),
      wrote(a, 'one\ntwo\n', 'one\ntwo\nthree\n'),
      wrote(c, null, 'c\nc\n'),
    ]);
    writeFileSync(a, 'one\ntwo\nthree\n');
    writeFileSync(b, 'B\n');
    writeFileSync(c, 'c\nc\n');
    const changes = await fileChanges(
      configDir,
      SESSION,
      message.uuid as string,
      preview([a, b, c], 1, 5),
      diffs.count,
    );
    expect(changes).toEqual([
      { path: a, insertions: 0, deletions: 2, byCommand: false },
      { path: b, insertions: 1, deletions: 1, byCommand: false },
      { path: c, insertions: 0, deletions: 2, byCommand: false },
    ]);
  });

  it("leaves out another branch's changes after the same message", async () => {
    const a = join(work, 'a.txt');
    const message = cli.user(SESSION, 'change a');
    const other = wrote(a, 'from the other branch\n', 'x\n', { parentUuid: message.uuid });
    session([
      cli.user(SESSION, 'start'),
      message,
      other,
      wrote(a, 'first\n', 'second\n', { parentUuid: message.uuid }),
    ]);
    writeFileSync(a, 'second\n');
    const changes = await fileChanges(
      configDir,
      SESSION,
      message.uuid as string,
      preview([a], 1, 1),
      diffs.count,
    );
    expect(changes).toEqual([{ path: a, insertions: 1, deletions: 1, byCommand: false }]);
  });

  it('gives nothing rather than figures that do not add up to the totals of the CLI', async () => {
    const a = join(work, 'a.txt');
    const message = cli.user(SESSION, 'change a');
    session([message, wrote(a, 'first\n', 'second\n')]);
    writeFileSync(a, 'second\nand a line from a shell command\n');
    const says = (insertions: number, deletions: number) =>
      fileChanges(
        configDir,
        SESSION,
        message.uuid as string,
        preview([a], insertions, deletions),
        diffs.count,
      );
    expect(await says(1, 2)).toEqual([{ path: a, insertions: 1, deletions: 2, byCommand: false }]);
    expect(await says(1, 1)).toBeNull();
  });

  it('gives nothing when a file, the message or the session file is not to be found', async () => {
    const [a, b] = ['a.txt', 'b.txt'].map((name) => join(work, name)) as [string, string];
    const message = cli.user(SESSION, 'change a');
    // An update too large for the CLI to keep what was there before.
    session([
      message,
      wrote(a, 'first\n', 'second\n'),
      wrote(b, 'x', 'y', { toolUseResult: { type: 'update', filePath: b, originalFile: null } }),
    ]);
    writeFileSync(a, 'second\n');
    writeFileSync(b, 'y\n');
    const uuid = message.uuid as string;
    expect(await fileChanges(configDir, SESSION, uuid, preview([a], 1, 1), diffs.count)).not.toBeNull();
    expect(await fileChanges(configDir, SESSION, uuid, preview([a, b], 2, 2), diffs.count)).toBeNull();
    expect(await fileChanges(configDir, SESSION, randomUUID(), preview([a], 1, 1), diffs.count)).toBeNull();
    expect(await fileChanges(configDir, randomUUID(), uuid, preview([a], 1, 1), diffs.count)).toBeNull();
    // A session id that would lead out of the projects folder names no file.
    expect(
      await fileChanges(configDir, `../-work/${SESSION}`, uuid, preview([a], 1, 1), diffs.count),
    ).toBeNull();
  });
});

describe('the diff worker', () => {
  it("counts off main's event loop: a timer set after a long diff is asked for runs before its answer", async () => {
    // A 1.5 MB file of 60,000 lines, one in a thousand changed since.
    const lines = Array.from({ length: 60_000 }, (_, at) => `line ${at} of a long generated file`);
    const now = lines.join('\n');
    const before = lines.map((line, at) => (at % 1000 === 0 ? `${line}, as it was` : line)).join('\n');
    const order: string[] = [];
    const answer = diffs.count(now, before).then((counts) => {
      order.push('answer');
      return counts;
    });
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push('timer');
        resolve();
      }, 0),
    );
    expect(await answer).toEqual({ insertions: 60, deletions: 60 });
    expect(order).toEqual(['timer', 'answer']);
  });
});
