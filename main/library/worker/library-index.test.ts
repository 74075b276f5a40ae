import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MATCH_END, MATCH_START } from '../../../shared/library';
import { CHUNK_BYTES, MAX_LINE_BYTES, nodeFs, type LibraryFs } from '../../disk/files';
import type { LibraryIndex } from './library-index';
import {
  append,
  byre,
  byreRun,
  cli,
  conversation,
  createSessionWorld,
  CWD,
  indexAll,
  jsonl,
  type SessionWorld,
} from '../../test-support/library';
import { shardFiles } from './text-store';
import { SearchLanes, SearchSuperseded, supersededBy } from '../search-lanes';
import { UNTITLED } from '../rules/titles';
import { hostProjectsCopy } from '../remote-copies';

let world: SessionWorld;
beforeEach(() => {
  world = createSessionWorld();
});
afterEach(() => {
  world.dispose();
});

/** The real disk, with every open and read recorded. */
function countingFs() {
  const opened: string[] = [];
  const reads: { path: string; position: number; length: number }[] = [];
  const paths = new Map<number, string>();
  const fs: LibraryFs = {
    ...nodeFs,
    open(path) {
      opened.push(path);
      const fd = nodeFs.open(path);
      paths.set(fd, path);
      return fd;
    },
    read(fd, buffer, offset, length, position) {
      reads.push({ path: paths.get(fd) ?? '?', position, length });
      return nodeFs.read(fd, buffer, offset, length, position);
    },
  };
  return { fs, opened, reads };
}

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0]!;
}

/** Makes the file look changed to a stat even when its size is the same. */
function bumpMtime(path: string): void {
  const later = new Date(statSync(path).mtimeMs + 5000);
  utimesSync(path, later, later);
}

describe('one row per session', () => {
  it("merges Byre's transcript and the CLI's file of one session into one row", () => {
    const id = randomUUID();
    const prompt = 'help me find the parser bug';
    const sent = byre.send(id, prompt);
    const sentUuid = (sent.msg as { uuid: string }).uuid;
    world.writeTranscript('run-1', [
      byre.initialize(),
      sent,
      byre.init(id),
      byre.setTitle('Parser bug hunt'),
      byre.assistant(id, 'Found it in parseConfigFile.'),
      byre.result(id),
    ]);
    world.writeCli(id, [
      cli.user(id, prompt, { uuid: sentUuid }),
      cli.assistant(id, 'Found it in parseConfigFile.'),
    ]);
    const index = world.open();
    indexAll(index);
    const row = only(index.list());
    expect(row).toMatchObject({
      sessionId: id,
      title: 'Parser bug hunt',
      cwd: CWD,
      gitBranch: 'main',
      messageCount: 2,
      resumable: true,
      hasTranscript: true,
    });
    // The prompt both files hold is indexed once.
    const hits = index.search({ query: 'parser bug' }).filter((hit) => hit.messageUuid === sentUuid);
    expect(hits).toHaveLength(1);
    const files = index.files(id)!;
    expect(files.cliFile).toMatch(/\.jsonl$/);
    expect(files.transcripts).toHaveLength(1);
    expect(files.title).toBe('Parser bug hunt');
  });

  it('gives the transcripts of a resumed session oldest first, and the latest set_title', () => {
    const id = randomUUID();
    const first = world.writeTranscript('b-first', [
      ...byreRun(id, 'start here', 'ok'),
      byre.setTitle('Old name'),
    ]);
    const second = world.writeTranscript('a-second', [
      ...byreRun(id, 'carry on', 'sure'),
      byre.setTitle('New name'),
    ]);
    const index = world.open();
    indexAll(index);
    const row = only(index.list());
    expect(row.title).toBe('New name');
    expect(row.resumable).toBe(false);
    expect(row.messageCount).toBe(4);
    expect(index.files(id)!.transcripts).toEqual([first, second]);
  });

  it("does not list subagents' files", () => {
    const id = randomUUID();
    const main = world.writeCli(id, conversation(id, 'main thread', 'answer'));
    const subagents = join(main.replace(/\.jsonl$/, ''), 'subagents');
    mkdirSync(subagents, { recursive: true });
    writeFileSync(join(subagents, 'agent-1.jsonl'), jsonl(conversation(id, 'subagent prompt', 'sub answer')));
    const agentId = randomUUID();
    world.writeCli(agentId, [
      cli.user(agentId, 'a sidechain at the top level', { isSidechain: true }),
      cli.assistant(agentId, 'sidechain answer', { isSidechain: true }),
    ]);
    const index = world.open();
    indexAll(index);
    expect(index.list().map((row) => row.sessionId)).toEqual([id]);
    expect(index.search({ query: 'sidechain' })).toEqual([]);
  });

  it('gives the newest rows only, as many as asked for (a first screen of them)', () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    for (const id of ids) world.writeCli(id, conversation(id, `question ${id}`, 'answer'));
    const index = world.open();
    indexAll(index);
    const all = index.list().map((row) => row.sessionId);
    expect(all).toHaveLength(5);
    expect(index.list(null, 2).map((row) => row.sessionId)).toEqual(all.slice(0, 2));
    expect(index.list(null, 50).map((row) => row.sessionId)).toEqual(all);
  });

  it('makes one row of two CLI files with the same session id, and reports it', () => {
    const id = randomUUID();
    const older = world.writeCli(
      id,
      conversation(id, 'older copy', 'a', { cwd: '/old/place' }),
      '/old/place',
    );
    const newer = world.writeCli(
      id,
      conversation(id, 'newer copy', 'b', { cwd: '/new/place' }),
      '/new/place',
    );
    const past = new Date(Date.now() - 60_000);
    utimesSync(older, past, past);
    const index = world.open();
    indexAll(index);
    const row = only(index.list());
    expect(row.cwd).toBe('/new/place');
    expect(index.files(id)!.cliFile).toBe(newer);
    const problem = only(index.status().problems);
    expect(problem.path).toBe(older);
    expect(problem.reason).toContain('same session id');
  });

  it('takes the folder from the entries, never from the folder name', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'hi', 'hello', { cwd: '/a-b/c' }), '/a/b/c');
    expect(path).toContain('-a-b-c');
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).cwd).toBe('/a-b/c');
  });
});

describe('titles in the index', () => {
  it('uses a summary only when its leaf is a message of the session', () => {
    const id = randomUUID();
    const entries = conversation(id, 'the first prompt', 'answer');
    const leaf = entries[2]!.uuid as string;
    world.writeCli(id, [cli.summary('Not about this session', randomUUID()), ...entries]);
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).title).toBe('the first prompt');
    world.writeCli(id, [cli.summary('Refactoring the parser', leaf), ...entries]);
    indexAll(index);
    expect(only(index.list()).title).toBe('Refactoring the parser');
  });

  it('prefers custom-title to ai-title, and says "Untitled conversation" when there is nothing', () => {
    const id = randomUUID();
    world.writeCli(id, [
      ...conversation(id, 'prompt', 'a'),
      cli.aiTitle(id, 'AI'),
      cli.customTitle(id, 'Mine'),
    ]);
    const bare = randomUUID();
    world.writeCli(bare, [
      cli.user(bare, '<local-command-stdout>x</local-command-stdout>'),
      cli.assistant(bare, 'ok'),
    ]);
    const index = world.open();
    indexAll(index);
    const titles = Object.fromEntries(index.list().map((row) => [row.sessionId, row.title]));
    expect(titles[id]).toBe('Mine');
    expect(titles[bare]).toBe(UNTITLED);
  });
});

describe('rename and hide', () => {
  it('keep across a restart, and across the index being deleted, in library.json', () => {
    const kept = randomUUID();
    const hidden = randomUUID();
    world.writeCli(kept, conversation(kept, 'keep me', 'a'));
    world.writeCli(hidden, conversation(hidden, 'hide me with parseConfigFile', 'b'));
    const first = world.open();
    indexAll(first);
    first.rename(kept, 'My own name');
    first.hide(hidden);
    expect(first.list().map((row) => [row.sessionId, row.title])).toEqual([[kept, 'My own name']]);
    first.close();

    const again = world.open();
    indexAll(again);
    expect(again.list().map((row) => row.title)).toEqual(['My own name']);
    expect(again.search({ query: 'parseConfigFile' })).toEqual([]);
    again.close();

    rmSync(join(world.dataDir, 'library.sqlite'));
    const rebuilt = world.open();
    indexAll(rebuilt);
    expect(rebuilt.list().map((row) => row.title)).toEqual(['My own name']);
    const saved = JSON.parse(readFileSync(join(world.dataDir, 'library.json'), 'utf8'));
    expect(saved).toEqual({ renames: { [kept]: 'My own name' }, hidden: [hidden] });
  });

  it('gives the title back to the rules when the rename is empty', () => {
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'original prompt', 'a'));
    const index = world.open();
    indexAll(index);
    index.rename(id, 'Named');
    index.rename(id, '  ');
    expect(only(index.list()).title).toBe('original prompt');
  });
});

describe('the list kept in the worker', () => {
  /** What an index opened afresh on the same data folder lists (its rows read from the database). */
  function listedAfresh(): unknown[] {
    const fresh = world.open();
    try {
      return fresh.list();
    } finally {
      fresh.close();
    }
  }

  it('follows every change to a row, as an index opened afresh lists it', () => {
    const grows = randomUUID();
    const renamed = randomUUID();
    const hidden = randomUUID();
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const growing = world.writeCli(grows, conversation(grows, 'first prompt', 'first answer'));
    const renamedPath = world.writeCli(renamed, conversation(renamed, 'to be renamed', 'a'));
    world.writeCli(hidden, conversation(hidden, 'to be hidden', 'b'));
    const index = world.open();
    indexAll(index);
    const before = index.list();
    expect(before).toHaveLength(3);
    expect(before).toEqual(listedAfresh());

    // A file that grows: its message count, its last activity (it goes first) and its cost change.
    append(growing, [
      cli.user(grows, 'second prompt'),
      cli.assistant(grows, 'second answer', {
        message: {
          id: 'msg_grown',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          usage,
          content: [],
        },
      }),
    ]);
    index.notice([growing]);
    indexAll(index);
    index.rename(renamed, 'Its own name');
    index.hide(hidden);
    const after = index.list();
    expect(after.map((row) => row.sessionId)).toEqual(
      listedAfresh().map((row) => (row as { sessionId: string }).sessionId),
    );
    expect(after).toEqual(listedAfresh());
    const grown = after.find((row) => row.sessionId === grows);
    expect(grown?.messageCount).toBe(4);
    expect(grown?.cost.usd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 10);
    expect(after.find((row) => row.sessionId === renamed)?.title).toBe('Its own name');
    expect(after.some((row) => row.sessionId === hidden)).toBe(false);
    expect(index.status()).toMatchObject({ total: 2, indexed: 2 });

    // A subagent's usage changes its session's cost and nothing else of its row.
    const subagents = join(renamedPath.replace(/\.jsonl$/, ''), 'subagents');
    mkdirSync(subagents, { recursive: true });
    writeFileSync(
      join(subagents, 'agent-1.jsonl'),
      jsonl([
        { ...cli.user(renamed, 'look around'), isSidechain: true },
        cli.assistant(renamed, 'looked', {
          isSidechain: true,
          message: {
            id: 'msg_sub',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            usage,
            content: [],
          },
        }),
      ]),
    );
    index.notice([renamedPath]);
    indexAll(index);
    expect(index.list().find((row) => row.sessionId === renamed)?.cost.usd).toBeCloseTo(
      (1000 * 3 + 100 * 15) / 1e6,
      10,
    );
    expect(index.list()).toEqual(listedAfresh());

    // A branch the CLI made from it (its entries say forkedFrom): the family is listed once, newest first.
    const branch = randomUUID();
    const branchPath = world.writeCli(branch, [
      cli.user(branch, 'a branch', { forkedFrom: { sessionId: renamed, messageUuid: randomUUID() } }),
      cli.assistant(branch, 'branched'),
    ]);
    index.notice([branchPath]);
    indexAll(index);
    expect(index.list().map((row) => [row.sessionId, row.familyKey, row.branchCount])).toEqual([
      [branch, renamed, 2],
      // Its appended prompt does not go on from the chain's leaf (the test's entries have no parents): a rewind.
      [grows, grows, 2],
    ]);
    expect(index.list()).toEqual(listedAfresh());

    // A file that shrank to no conversation takes its row with it.
    writeFileSync(growing, jsonl([cli.queued(grows, 'nothing said')]));
    bumpMtime(growing);
    index.notice([growing]);
    indexAll(index);
    expect(index.list().map((row) => row.sessionId)).toEqual([branch]);
    expect(index.list()).toEqual(listedAfresh());
  });
});

describe('reading incrementally', () => {
  it('reads only what was added to a file', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'first prompt', 'first answer'));
    const { fs, reads } = countingFs();
    const index = world.open({ fs });
    indexAll(index);
    const size = statSync(path).size;
    reads.length = 0;
    append(path, [cli.user(id, 'second prompt about tokenizeLine'), cli.assistant(id, 'done')]);
    indexAll(index);
    // Besides the few bytes that check the file was not rewritten, only the new part is read.
    const body = reads.filter((read) => read.path === path && read.position > 0);
    expect(body.length).toBeGreaterThan(0);
    expect(body.every((read) => read.position >= size)).toBe(true);
    expect(only(index.list()).messageCount).toBe(4);
    expect(index.search({ query: 'tokenizeLine' })).toHaveLength(1);
  });

  it('reads on in the next files within a step, newest first; a file that fails there ends the step alone', () => {
    const ids = Array.from({ length: 4 }, () => randomUUID());
    const paths = ids.map((id, n) =>
      world.writeCli(id, conversation(id, `prompt ${n}`, `answer zorblax${n}`)),
    );
    paths.forEach((path, n) => utimesSync(path, new Date(1e12 + n * 1000), new Date(1e12 + n * 1000)));
    const failing = paths[2]!;
    let opens = 0;
    const fs: LibraryFs = {
      ...nodeFs,
      open(path) {
        // The preview opens each file once; the full read of this one fails.
        if (path === failing && ++opens > 1)
          throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        return nodeFs.open(path);
      },
    };
    const index = world.open({ fs });
    index.scan();
    expect(index.step()).toBe(true); // the previews
    expect(index.step()).toBe(true); // the newest file, then the one that fails
    expect(index.status()).toMatchObject({ total: 4, indexed: 2 });
    index.step(); // both older files
    expect(index.status()).toMatchObject({ done: true, total: 4, indexed: 4 });
    expect(index.status().problems).toEqual([
      { path: failing, reason: 'It could not be read: the disk reported an input/output error.' },
    ]);
    for (const n of [0, 1, 3]) expect(index.search({ query: `zorblax${n}` })).toHaveLength(1);
    expect(index.search({ query: 'zorblax2' })).toEqual([]);
  });

  it('reads no file at all after a restart when nothing changed', () => {
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'prompt', 'answer'));
    world.writeTranscript('run', byreRun(id, 'prompt', 'answer'));
    indexAll(world.open());
    const { fs, opened } = countingFs();
    const index = world.open({ fs });
    indexAll(index);
    expect(opened).toEqual([]);
    expect(only(index.list()).sessionId).toBe(id);
  });

  it('reads a file that shrank again from the start', () => {
    const id = randomUUID();
    const path = world.writeCli(id, [
      ...conversation(id, 'prompt', 'an answer about frobnicateWidget'),
      ...conversation(id, 'more', 'more'),
    ]);
    const index = world.open();
    indexAll(index);
    expect(index.search({ query: 'frobnicateWidget' })).toHaveLength(1);
    writeFileSync(path, jsonl(conversation(id, 'short now', 'reticulateSplines')));
    indexAll(index);
    expect(index.search({ query: 'frobnicateWidget' })).toEqual([]);
    expect(index.search({ query: 'reticulateSplines' })).toHaveLength(1);
    expect(only(index.list())).toMatchObject({ title: 'short now', messageCount: 2 });
  });

  it('notices a rewrite that kept or grew the size, by the hash of its head', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'aaaa', 'answer one'));
    const index = world.open();
    indexAll(index);
    const replaced = jsonl(conversation(id, 'bbbb', 'answer two'));
    writeFileSync(path, replaced);
    bumpMtime(path);
    indexAll(index);
    expect(only(index.list()).title).toBe('bbbb');
    expect(index.search({ query: 'answer one' })).toEqual([]);
  });

  it('leaves a truncated last line for later, and reads it once it is finished', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'prompt', 'answer'));
    const last = JSON.stringify(cli.assistant(id, 'the finished line with quuxWidget'));
    appendFileSync(path, last.slice(0, 40));
    const index = world.open();
    indexAll(index);
    expect(index.status().problems).toEqual([]);
    expect(index.search({ query: 'quuxWidget' })).toEqual([]);
    appendFileSync(path, `${last.slice(40)}\n`);
    indexAll(index);
    expect(index.search({ query: 'quuxWidget' })).toHaveLength(1);
  });

  it('lists rows from the heads and tails of files before the full-text pass', () => {
    const id = randomUUID();
    const filler = Array.from({ length: 40 }, (_, n) =>
      cli.assistant(id, `filler ${n} ${'lorem ipsum '.repeat(9000)}`),
    );
    world.writeCli(id, [
      ...conversation(id, 'a big session', 'first'),
      ...filler,
      cli.customTitle(id, 'Big one'),
    ]);
    const index = world.open();
    index.scan();
    index.step(); // the previews
    const row = only(index.list());
    expect(row.title).toBe('Big one');
    expect(row.messageCount).toBeGreaterThan(0);
    expect(index.status()).toMatchObject({ done: false, indexed: 0, total: 1 });
    while (index.step()) {
      // read it all
    }
    expect(index.status()).toMatchObject({ done: true, indexed: 1, total: 1 });
    expect(only(index.list()).messageCount).toBe(42);
  });
});

describe('files that are gone', () => {
  it('keeps the row when the CLI cleaned up its copy but a transcript has it', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'prompt', 'answer'));
    world.writeTranscript('run', byreRun(id, 'prompt', 'answer'));
    const index = world.open();
    indexAll(index);
    rmSync(path);
    indexAll(index);
    expect(only(index.list())).toMatchObject({ sessionId: id, resumable: false, hasTranscript: true });
    expect(index.files(id)!.cliFile).toBeNull();
  });

  it("finds the CLI's file written since the last scan, so a session closed a moment ago can be resumed", () => {
    const id = randomUUID();
    world.writeTranscript('run', byreRun(id, 'prompt', 'answer'));
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).resumable).toBe(false);
    const path = world.writeCli(id, conversation(id, 'prompt', 'answer'));
    expect(index.files(id)!.cliFile).toBe(path);
    // Taken in on the way: the row says so without waiting for the next scan.
    while (index.step()) {
      // read it
    }
    expect(only(index.list())).toMatchObject({ sessionId: id, resumable: true });
  });

  it("says the folder from the CLI's file it finds on the way, when the transcript read so far does not", () => {
    const id = randomUUID();
    // A transcript listed before its init line (the one that says the folder) was read.
    const run = byreRun(id, 'prompt', 'answer');
    world.writeTranscript(
      'run',
      run.filter((_, line) => line !== 2),
    );
    const index = world.open();
    indexAll(index);
    expect(only(index.list())).toMatchObject({ sessionId: id, cwd: null });
    // The CLI's file, written since: a resume asked for now needs the folder it says.
    const path = world.writeCli(id, conversation(id, 'prompt', 'answer'));
    expect(index.files(id)).toMatchObject({ cliFile: path, cwd: CWD });
  });

  it('still lists a session whose files are all gone, marked', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'remember me', 'answer'));
    const index = world.open();
    indexAll(index);
    rmSync(path);
    indexAll(index);
    expect(only(index.list())).toMatchObject({
      title: 'remember me',
      resumable: false,
      hasTranscript: false,
      sizeBytes: 0,
    });
  });
});

describe('bad input', () => {
  it('skips a garbage line, counts it, and reads the rest', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'before', 'answer'));
    appendFileSync(path, 'this is {not json\n');
    append(path, [cli.user(id, 'after the garbage')]);
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).messageCount).toBe(3);
    expect(only(index.status().problems)).toEqual({ path, reason: '1 line is not JSON; skipped.' });
  });

  it('reads a file with invalid UTF-8, and says so', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'prompt', 'answer'));
    const line = Buffer.from(JSON.stringify(cli.user(id, 'bad byte here: X then findMe')));
    line[line.indexOf('X')] = 0xff;
    appendFileSync(path, Buffer.concat([line, Buffer.from('\n')]));
    const index = world.open();
    indexAll(index);
    expect(index.search({ query: 'findMe' })).toHaveLength(1);
    expect(only(index.status().problems).reason).toContain('not valid UTF-8');
  });

  it('skips an empty file, with a reason', () => {
    const id = randomUUID();
    const path = world.writeCli(id, []);
    const index = world.open();
    indexAll(index);
    expect(index.list()).toEqual([]);
    expect(only(index.status().problems)).toEqual({ path, reason: 'The file is empty; it was skipped.' });
  });

  it('indexes a 12 MB single line, cut', () => {
    const id = randomUUID();
    const huge = `startOfHugeOutput ${'x'.repeat(12 * 1024 * 1024)} endOfHugeOutput`;
    world.writeCli(id, [
      ...conversation(id, 'run the big thing', 'ok'),
      cli.user(id, [{ type: 'tool_result', tool_use_id: 't', content: huge }]),
      cli.assistant(id, 'that was big'),
    ]);
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).messageCount).toBe(3);
    expect(index.search({ query: 'startOfHugeOutput' })).toHaveLength(1);
    expect(index.search({ query: 'endOfHugeOutput' })).toEqual([]);
    expect(index.status().problems).toEqual([]);
  });

  it('lists and searches a session with a tool input nested 5,000 levels deep', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'build the deep thing', 'ok'));
    // Written by hand: JSON.stringify itself cannot write a value this deep.
    const call = JSON.stringify(
      cli.assistant(id, [{ type: 'tool_use', id: 't', name: 'DeepTool', input: { deep: 'HOLE' } }]),
    );
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    appendFileSync(path, `${call.replace('"HOLE"', deep)}\n`);
    append(path, [cli.assistant(id, 'after the deepLineMarker')]);
    const index = world.open();
    indexAll(index);
    expect(only(index.list())).toMatchObject({ sessionId: id, messageCount: 4 });
    expect(index.status().problems).toEqual([]);
    expect(index.search({ query: 'deepLineMarker' })).toHaveLength(1);
    expect(index.search({ query: 'DeepTool' })).toHaveLength(1);
  });

  it('keeps what it read of a file deleted while it was being read', () => {
    const id = randomUUID();
    const entries = Array.from({ length: 12 }, (_, n) =>
      cli.assistant(id, `part ${n} marker${n}Word ${'z'.repeat(CHUNK_BYTES / 2)}`),
    );
    const path = world.writeCli(id, [cli.user(id, 'a long one'), ...entries]);
    const other = randomUUID();
    world.writeCli(other, conversation(other, 'an unrelated session', 'fine'));
    const index = world.open();
    index.scan();
    // Read until the long file is partly read (the small one goes first).
    const readSoFar = () => {
      const db = new Database(join(world.dataDir, 'library.sqlite'), { readonly: true });
      const row = db.prepare('SELECT offset FROM files WHERE path = ?').get(path) as { offset: number };
      db.close();
      return row.offset;
    };
    for (let step = 0; step < 10 && readSoFar() === 0; step += 1) index.step();
    expect(readSoFar()).toBeGreaterThan(0);
    expect(readSoFar()).toBeLessThan(statSync(path).size);
    rmSync(path);
    indexAll(index);
    const rows = Object.fromEntries(index.list().map((row) => [row.sessionId, row]));
    expect(rows[id]).toMatchObject({ title: 'a long one', resumable: false });
    expect(rows[other]).toMatchObject({ resumable: true });
    expect(index.search({ query: 'marker0Word' })).toHaveLength(1);
    expect(only(index.status().problems)).toEqual({
      path,
      reason: 'It was deleted before it was read to the end; what was read is kept.',
    });
  });

  it('reports a folder it cannot read and lists everything else', () => {
    const good = randomUUID();
    world.writeCli(good, conversation(good, 'readable', 'fine'), '/good');
    const locked = randomUUID();
    world.writeCli(locked, conversation(locked, 'locked away', 'no'), '/locked');
    const lockedFolder = join(world.projectsDir, '-locked');
    const fs: LibraryFs = {
      ...nodeFs,
      readdir(path) {
        if (path === lockedFolder)
          throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return nodeFs.readdir(path);
      },
    };
    const index = world.open({ fs });
    indexAll(index);
    expect(index.list().map((row) => row.sessionId)).toEqual([good]);
    expect(only(index.status().problems)).toEqual({
      path: lockedFolder,
      reason: 'This folder could not be read: permission denied.',
    });
  });

  it('reports a projects "folder" that is a file', () => {
    mkdirSync(world.configDir, { recursive: true });
    writeFileSync(world.projectsDir, 'not a folder');
    const id = randomUUID();
    world.writeTranscript('run', byreRun(id, 'from a transcript', 'ok'));
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).title).toBe('from a transcript');
    expect(only(index.status().problems)).toEqual({
      path: world.projectsDir,
      reason: 'This folder could not be read: it is not a folder.',
    });
  });

  it('lists a 3 GB file from its head and tail, and reads it only in bounded chunks', () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'the enormous session', 'starting'));
    const size = 3 * 1024 ** 3;
    // Sparse: 3 GB on paper, a few KB on disk. The gap reads as one long line of NULs.
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, size);
    const tail = Buffer.from(
      `\n${jsonl([cli.assistant(id, 'the very end'), cli.customTitle(id, 'Enormous')])}`,
    );
    writeSync(fd, tail, 0, tail.length, size);
    closeSync(fd);
    const { fs, reads } = countingFs();
    const index = world.open({ fs });
    index.scan();
    index.step(); // the preview: head and tail only
    expect(reads.reduce((sum, read) => sum + read.length, 0)).toBeLessThanOrEqual(2 * 64 * 1024);
    expect(only(index.list())).toMatchObject({ title: 'Enormous', resumable: true });
    expect(only(index.list()).sizeBytes).toBe(size + tail.length);
    for (let step = 0; step < 4; step += 1) index.step();
    expect(Math.max(...reads.map((read) => read.length))).toBeLessThanOrEqual(CHUNK_BYTES);
    // The gap is read up to the line cap, then skipped two chunks a step; never held whole.
    expect(reads.reduce((sum, read) => sum + read.length, 0)).toBeLessThan(MAX_LINE_BYTES + 16 * CHUNK_BYTES);
    expect(only(index.status().problems).reason).toBe('1 line is longer than 32 MB; skipped.');
    expect(index.status().done).toBe(false);
  });

  it('starts a new index when the old one is damaged', () => {
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'still here', 'yes'));
    mkdirSync(world.dataDir, { recursive: true });
    writeFileSync(join(world.dataDir, 'library.sqlite'), 'this is not a database');
    const index = world.open();
    indexAll(index);
    expect(only(index.list()).title).toBe('still here');
  });

  it('keeps an index it cannot open for another reason than damage, and says so', () => {
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'kept through a bad start', 'yes'));
    const first = world.open();
    indexAll(first);
    void first.close();
    const files = readdir(world.dataDir).filter((name) => name.endsWith('.sqlite'));
    // A folder where SQLite's write-ahead log should be: the open fails, but nothing is wrong with the files.
    // (The tests may run as root, whom a chmod does not stop.)
    const wal = join(world.dataDir, 'library.sqlite-wal');
    mkdirSync(wal);
    expect(() => world.open()).toThrow(/could not be opened .*Its files were left as they are\./);
    expect(readdir(world.dataDir).filter((name) => name.endsWith('.sqlite'))).toEqual(files);
    rmdirSync(wal);
    expect(only(world.open().list()).title).toBe('kept through a bad start');
  });

  it('sets a damaged library.json aside instead of overwriting it', () => {
    mkdirSync(world.dataDir, { recursive: true });
    writeFileSync(join(world.dataDir, 'library.json'), '{"renames": [oops');
    const index = world.open();
    index.rename(randomUUID(), 'x');
    expect(existsSync(join(world.dataDir, 'library.json'))).toBe(true);
    const aside = readdir(world.dataDir).filter((name) => name.startsWith('library.json.damaged-'));
    expect(aside).toHaveLength(1);
  });
});

function readdir(folder: string): string[] {
  return nodeFs.readdir(folder).map((entry) => entry.name);
}

describe('search', () => {
  function twoSessions(): { older: string; newer: string; index: LibraryIndex } {
    const older = randomUUID();
    const newer = randomUUID();
    world.writeCli(older, [
      cli.customTitle(older, 'Older'),
      cli.user(older, 'where is parseConfigFile called?', { timestamp: '2026-01-01T00:00:00.000Z' }),
      cli.assistant(older, 'In main.ts, parseConfigFile is called once.', {
        timestamp: '2026-01-01T00:00:01.000Z',
      }),
    ]);
    world.writeCli(
      newer,
      [
        cli.customTitle(newer, 'Newer'),
        cli.user(newer, 'where is parseConfigFile called?', {
          timestamp: '2026-11-01T00:00:00.000Z',
          cwd: '/other',
        }),
        cli.assistant(newer, 'In main.ts, parseConfigFile is called once.', {
          timestamp: '2026-11-01T00:00:01.000Z',
          cwd: '/other',
        }),
      ],
      '/other',
    );
    const index = world.open({ now: () => Date.parse('2026-11-02T00:00:00.000Z') });
    indexAll(index);
    return { older, newer, index };
  }

  it('finds a substring of an identifier, with the match marked and the message uuid', () => {
    const id = randomUUID();
    const answer = cli.assistant(id, 'The bug is in tokenizeConfigLine, which drops the last byte.');
    world.writeCli(id, [cli.user(id, 'find the bug'), answer]);
    const index = world.open();
    indexAll(index);
    const hit = only(index.search({ query: 'ConfigLin' }));
    expect(hit.sessionId).toBe(id);
    expect(hit.messageUuid).toBe(answer.uuid);
    expect(hit.snippet).toBe(
      `The bug is in tokenize${MATCH_START}ConfigLin${MATCH_END}e, which drops the last byte.`,
    );
    expect(hit.title).toBe('find the bug');
  });

  it('ranks the newer of two equal matches first', () => {
    const { older, newer, index } = twoSessions();
    const hits = index.search({ query: 'parseConfigFile' });
    expect(hits.map((hit) => hit.sessionId).slice(0, 2)).toEqual([newer, newer]);
    expect(hits.map((hit) => hit.sessionId)).toContain(older);
  });

  it('filters by folder', () => {
    const { older, index } = twoSessions();
    const hits = index.search({ query: 'parseConfigFile', folder: CWD });
    expect(new Set(hits.map((hit) => hit.sessionId))).toEqual(new Set([older]));
    expect(index.list(CWD).map((row) => row.sessionId)).toEqual([older]);
  });

  it("counts a repository's worktrees in its folder, and nothing merely under it", () => {
    const inWorktree = randomUUID();
    const below = randomUUID();
    const neighbour = randomUUID();
    const folders = {
      [inWorktree]: `${CWD}/.claude/worktrees/fix-login`,
      [below]: `${CWD}/.claude/worktrees/fix-login/src`,
      [neighbour]: `${CWD}-old/.claude/worktrees/fix-login`,
    };
    for (const [id, cwd] of Object.entries(folders)) {
      world.writeCli(
        id,
        [cli.user(id, 'where is parseConfigFile?', { cwd }), cli.assistant(id, 'here', { cwd })],
        cwd,
      );
    }
    const index = world.open();
    indexAll(index);
    expect(index.list(CWD).map((row) => row.sessionId)).toEqual([inWorktree]);
    const hits = index.search({ query: 'parseConfigFile', folder: CWD });
    expect(new Set(hits.map((hit) => hit.sessionId))).toEqual(new Set([inWorktree]));
  });

  it('answers the titles alone when asked for them, before any message is looked through', () => {
    const { older, newer, index } = twoSessions();
    const titled = randomUUID();
    world.writeCli(titled, [
      ...conversation(titled, 'prompt', 'answer'),
      cli.customTitle(titled, 'parseConfigFile notes'),
    ]);
    indexAll(index);
    const titles = index.search({ query: 'parseConfigFile', part: 'titles' });
    expect(titles.map((hit) => [hit.sessionId, hit.messageUuid])).toEqual([[titled, null]]);
    // All of it: the same title first, then the messages.
    const all = index.search({ query: 'parseConfigFile' });
    expect(all[0]).toEqual(titles[0]);
    expect(new Set(all.slice(1).map((hit) => hit.sessionId))).toEqual(new Set([older, newer]));
  });

  it('stops a search in the middle of its candidates once a newer one of its searcher arrives', () => {
    const id = randomUUID();
    const turns = Array.from({ length: 300 }, (_, n) =>
      conversation(id, `question ${n} about parseConfigFile`, `answer ${n}: parseConfigFile again`),
    ).flat();
    world.writeCli(id, turns);
    const index = world.open();
    indexAll(index);
    // How often a search that runs to its end looks whether it is still wanted.
    let looksToTheEnd = 0;
    index.search({ query: 'parseConfigFile' }, () => {
      looksToTheEnd += 1;
      return false;
    });
    expect(looksToTheEnd).toBeGreaterThan(3);

    const lanes = new SearchLanes();
    const first = lanes.claim('box', 1);
    if (!first) throw new Error('the first search has a ticket');
    const superseded = supersededBy(lanes.buffer, first);
    let looks = 0;
    const search = () =>
      index.search({ query: 'parseConfigFile' }, () => {
        looks += 1;
        // The user types another letter while the first search reads its candidates.
        if (looks === 2) lanes.claim('box', 2);
        return superseded();
      });
    expect(search).toThrow(SearchSuperseded);
    // It stopped at the first look after the newer search came, far from the end of its work.
    expect(looks).toBe(2);
    // The newer search's ticket is the lane's: it answers in full.
    const second = lanes.claim('box', 2) ?? undefined;
    expect(supersededBy(lanes.buffer, second)()).toBe(false);
    expect(
      index.search({ query: 'parseConfigFile' }, supersededBy(lanes.buffer, second)).length,
    ).toBeGreaterThan(0);
  });

  it('counts title matches, marked, with no message uuid', () => {
    const id = randomUUID();
    world.writeCli(id, [...conversation(id, 'prompt', 'answer'), cli.customTitle(id, 'Lexer rewrite')]);
    const index = world.open();
    indexAll(index);
    const hit = only(index.search({ query: 'lexer' }));
    expect(hit.messageUuid).toBeNull();
    expect(hit.snippet).toBe(`${MATCH_START}Lexer${MATCH_END} rewrite`);
  });

  it('takes any characters, and uses short words only to narrow', () => {
    const id = randomUUID();
    world.writeCli(id, [
      cli.customTitle(id, 'Go quoting'),
      cli.user(id, 'go run it: foo("bar") and 100% done'),
      cli.assistant(id, 'ok'),
    ]);
    const index = world.open();
    indexAll(index);
    expect(index.search({ query: 'foo("bar")' })).toHaveLength(1);
    expect(index.search({ query: '100%' })).toHaveLength(1);
    expect(index.search({ query: 'go foo(' })).toHaveLength(1);
    expect(index.search({ query: 'zz foo(' })).toEqual([]);
    expect(index.search({ query: '"unbalanced' })).toEqual([]);
    // A short word matches whole words only: the title, then the message.
    expect(index.search({ query: 'go' }).map((hit) => hit.messageUuid === null)).toEqual([true, false]);
    expect(index.search({ query: 'ru' })).toEqual([]);
    expect(index.search({ query: '   ' })).toEqual([]);
  });

  it('finds any part of what was said, and whole words in tool output', () => {
    const id = randomUUID();
    const call = cli.assistant(id, [
      { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'quuxHandler' } },
    ]);
    const output = 'src/a.ts:3: export function frobnicateSprocket() {}';
    const result = cli.user(id, [{ tool_use_id: 'toolu_1', type: 'tool_result', content: output }]);
    const question = cli.user(id, 'where is normalizeWidgetPath defined?');
    world.writeCli(id, [
      cli.customTitle(id, 'Looking around'),
      question,
      call,
      result,
      cli.assistant(id, 'ok'),
    ]);
    const index = world.open();
    indexAll(index);
    const uuidOf = (query: string) => index.search({ query }).map((hit) => hit.messageUuid);
    // What was said, and tool calls: any part of a word.
    expect(uuidOf('WidgetPa')).toEqual([question.uuid]);
    expect(uuidOf('Handler')).toEqual([call.uuid]);
    // Tool output: whole words, in any case; then the query is checked as typed.
    expect(uuidOf('frobnicatesprocket')).toEqual([result.uuid]);
    expect(uuidOf('a.ts:3')).toEqual([result.uuid]);
    expect(uuidOf('export frobnicateSprocket()')).toEqual([result.uuid]);
    expect(uuidOf('export zzz')).toEqual([]);
    // Not part of a word in tool output.
    expect(uuidOf('frobni')).toEqual([]);
    expect(uuidOf('Sprocket')).toEqual([]);
  });

  it('returns at most the limit, a few hits per session', () => {
    const id = randomUUID();
    world.writeCli(
      id,
      Array.from({ length: 20 }, (_, n) => cli.assistant(id, `repeated needleword number ${n}`)),
    );
    const index = world.open();
    indexAll(index);
    expect(index.search({ query: 'needleword' })).toHaveLength(3);
    expect(index.search({ query: 'needleword', limit: 2 })).toHaveLength(2);
  });
});

describe('status', () => {
  it("reads cleanupPeriodDays from the CLI's settings and says where it looks", () => {
    const index = world.open();
    indexAll(index);
    expect(index.status()).toMatchObject({
      cleanupPeriodDays: 30,
      projectsDir: world.projectsDir,
      done: true,
    });
    mkdirSync(world.configDir, { recursive: true });
    writeFileSync(join(world.configDir, 'settings.json'), JSON.stringify({ cleanupPeriodDays: 99 }));
    index.scan();
    expect(index.status().cleanupPeriodDays).toBe(99);
  });
});

describe('text shards', () => {
  /** Sessions enough that both shards hold some: each answer (not the title) says its own word. */
  function sessionsSaying(words: string[]): void {
    for (const word of words) {
      const id = randomUUID();
      world.writeCli(id, [cli.user(id, 'what parses lines?'), cli.assistant(id, `${word} parses lines.`)]);
    }
  }
  const WORDS = ['alphaTokenizer', 'betaTokenizer', 'gammaTokenizer', 'deltaTokenizer'];
  const found = (index: LibraryIndex) =>
    WORDS.filter((word) => index.search({ query: word }).some((hit) => hit.snippet.includes(word)));

  it('spreads the messages over every shard', () => {
    sessionsSaying(WORDS);
    const index = world.open();
    indexAll(index);
    expect(found(index)).toEqual(WORDS);
    expect(shardFiles(world.dataDir)).toHaveLength(2);
    for (const path of shardFiles(world.dataDir)) {
      const db = new Database(path, { readonly: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM messages').get()).not.toEqual({ n: 0 });
      db.close();
    }
  });

  it('reads a file again when its shard did not write what the index had read (the app stopped)', () => {
    sessionsSaying(WORDS);
    const first = world.open();
    indexAll(first);
    void first.close();
    // The main index says every file was read; the shards lost it all, as if their writers never ran.
    for (const path of shardFiles(world.dataDir)) {
      const db = new Database(path);
      db.exec('DELETE FROM messages; DELETE FROM marks;');
      db.close();
    }
    const again = world.open();
    indexAll(again);
    expect(found(again)).toEqual(WORDS);
  });

  it('forgets what a file had in its shard when the forget never arrived (no duplicate messages)', () => {
    sessionsSaying(WORDS);
    const first = world.open();
    indexAll(first);
    void first.close();
    const counted = () =>
      shardFiles(world.dataDir).reduce((sum, path) => {
        const db = new Database(path, { readonly: true });
        const { n } = db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number };
        db.close();
        return sum + n;
      }, 0);
    const before = counted();
    // As if every file was read again from the start and the forgets were lost with the app.
    const main = new Database(join(world.dataDir, 'library.sqlite'));
    main.exec("UPDATE files SET offset = 0, needs_preview = 1, state = 'reading'; DELETE FROM uuids;");
    main.close();
    const again = world.open();
    indexAll(again);
    expect(counted()).toBe(before);
    expect(found(again)).toEqual(WORDS);
  });

  it('starts the whole index anew when a shard is damaged', () => {
    sessionsSaying(WORDS);
    const first = world.open();
    indexAll(first);
    void first.close();
    const damaged = shardFiles(world.dataDir)[1];
    if (!damaged) throw new Error('expected two shards');
    writeFileSync(damaged, 'this is not a database');
    const again = world.open();
    expect(again.list()).toEqual([]);
    indexAll(again);
    expect(again.list()).toHaveLength(WORDS.length);
    expect(found(again)).toEqual(WORDS);
  });
});

describe('copies of another host’s sessions', () => {
  /** Writes a host's copy of a session, as library-pull.ts keeps it. */
  const writeCopy = (host: string, id: string, prompt: string) => {
    const folder = join(hostProjectsCopy(world.dataDir, host), '-srv-app');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `${id}.jsonl`),
      jsonl(conversation(id, prompt, 'answered there', { cwd: '/srv/app' })),
    );
  };

  it('are listed under their host, resumable there, and found by search', () => {
    const id = randomUUID();
    writeCopy('devbox', id, 'a question about zanzibar');
    const index = world.open();
    indexAll(index);
    expect(only(index.list())).toMatchObject({
      sessionId: id,
      host: 'devbox',
      cwd: '/srv/app',
      resumable: true,
    });
    expect(index.search({ query: 'zanzibar' }).some((hit) => hit.sessionId === id)).toBe(true);
  });

  it('a session this computer has its own file of stays this computer’s (a home folder shared with the host)', () => {
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'asked here', 'answered here'));
    writeCopy('devbox', id, 'asked here');
    const index = world.open();
    indexAll(index);
    const row = only(index.list());
    expect(row.sessionId).toBe(id);
    expect(row.host ?? null).toBeNull();
  });
});
