import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import { convertSavedSession, type SavedFormat } from '../../shared/saved-session';
import { readLastPage, readPageBefore, type SessionPage, type SessionSource } from './read-session';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-read-session-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const SID = 'a9e65555-56ac-4a9b-ab58-196c61627de6';
let fileCount = 0;

function writeSession(lines: readonly string[], ending = '\n'): string {
  const path = join(dir, `session-${++fileCount}.jsonl`);
  writeFileSync(path, lines.join('\n') + ending);
  return path;
}

// ---------------------------------------------------------------------------------------------------
// The CLI's entries, as it writes them

function entry(type: 'user' | 'assistant', uuid: string, message: object): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type,
    message,
    uuid,
    timestamp: '2026-11-30T10:33:25.490Z',
    cwd: '/work/proj',
    sessionId: SID,
  });
}

const prompt = (uuid: string, text: string): string => entry('user', uuid, { role: 'user', content: text });
const reply = (uuid: string, id: string, content: object[]): string =>
  entry('assistant', uuid, { id, role: 'assistant', model: 'claude-opus-5-5', content });
const toolResult = (uuid: string, toolUseId: string, output: string): string =>
  entry('user', uuid, {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: toolUseId, content: output, is_error: false }],
  });
const attachment = (uuid: string): string =>
  JSON.stringify({
    type: 'attachment',
    uuid,
    attachment: { type: 'date', date: '2026-11-30' },
    sessionId: SID,
  });

/** One turn: a prompt, a reply that runs Bash, the tool's output, and the closing reply. */
function turn(n: number, output = `output ${n}`): string[] {
  return [
    prompt(`p${n}`, `prompt ${n}`),
    attachment(`x${n}`),
    reply(`a${n}`, `msg_${n}_1`, [{ type: 'text', text: `Running ${n}.` }]),
    reply(`b${n}`, `msg_${n}_1`, [
      { type: 'tool_use', id: `tool_${n}`, name: 'Bash', input: { command: `echo ${n}` } },
    ]),
    toolResult(`r${n}`, `tool_${n}`, output),
    reply(`c${n}`, `msg_${n}_2`, [{ type: 'text', text: `Done ${n}.` }]),
  ];
}

const turns = (count: number, output?: (n: number) => string): string[] =>
  Array.from({ length: count }, (_, n) => turn(n, output?.(n))).flat();

const cliSource = (path: string): SessionSource => ({ cliFile: path, transcripts: [] });

/** Every page from the last back to the first, oldest first. */
async function allPages(source: SessionSource, minMessages?: number): Promise<SessionPage[]> {
  const options = minMessages === undefined ? {} : { minMessages };
  const pages = [await readLastPage(source, options)];
  for (let before = pages[0]!.before; before !== null; before = pages[0]!.before) {
    pages.unshift(await readPageBefore(source, before, options));
    if (pages.length > 10_000) throw new Error('paging does not end');
  }
  return pages;
}

function promptTexts(events: readonly ConversationEvent[]): string[] {
  return events.flatMap((event) =>
    event.kind === 'message' &&
    event.message.type === 'user' &&
    typeof event.message.message.content === 'string'
      ? [event.message.message.content]
      : [],
  );
}

function toolIds(events: readonly ConversationEvent[]): { uses: string[]; results: string[] } {
  const uses: string[] = [];
  const results: string[] = [];
  for (const event of events) {
    if (event.kind !== 'message') continue;
    const message = event.message;
    if (message.type === 'assistant') {
      for (const block of message.message.content) if (block.type === 'tool_use') uses.push(block.id);
    }
    if (message.type === 'user' && Array.isArray(message.message.content)) {
      for (const block of message.message.content)
        if (block.type === 'tool_result') results.push(block.tool_use_id);
    }
  }
  return { uses, results };
}

const wholeFile = (format: SavedFormat, paths: string[]) =>
  convertSavedSession(
    format,
    paths.map((path) => readFileSync(path, 'utf8')),
  );

/** Counts the bytes every FileHandle.read asks for. */
async function countReads(): Promise<() => number> {
  const probe = await open(import.meta.filename, 'r');
  const prototype = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => unknown };
  await probe.close();
  const spy = vi.spyOn(prototype, 'read');
  return () => spy.mock.calls.reduce((sum, call) => sum + (typeof call[2] === 'number' ? call[2] : 0), 0);
}

describe('paging a CLI session file from the end', () => {
  const path = (): string => writeSession(turns(5_000));
  let session: string;
  beforeAll(() => {
    session = path();
  });

  it('gives the last turns first, beginning at a prompt, with a cursor to the rest', async () => {
    const page = await readLastPage(cliSource(session));
    const texts = promptTexts(page.events);
    expect(texts[texts.length - 1]).toBe('prompt 4999');
    expect(texts[0]).toMatch(/^prompt \d+$/);
    const first = page.events[0]!;
    expect(first.kind === 'message' && first.message.type === 'user' && first.message.message.content).toBe(
      texts[0],
    );
    // 60 messages at least: 5 per turn, so 12 turns.
    expect(texts).toHaveLength(12);
    expect(page.before).not.toBeNull();
    expect(page.skipped).toBe(0);
  });

  it('reads back to the start, every message exactly once and in order', { timeout: 60_000 }, async () => {
    const pages = await allPages(cliSource(session));
    expect(pages.length).toBeGreaterThan(400);
    const events = pages.flatMap((page) => page.events);
    expect(events).toEqual(wholeFile('cli', [session]).events);
    expect(promptTexts(events)).toEqual(Array.from({ length: 5_000 }, (_, n) => `prompt ${n}`));
  });

  it('never splits a tool call from its result, whatever the page size', async () => {
    for (const minMessages of [1, 2, 3, 7]) {
      const pages = await allPages(cliSource(writeSession(turns(40))), minMessages);
      for (const page of pages) {
        const { uses, results } = toolIds(page.events);
        expect(results.every((id) => uses.includes(id))).toBe(true);
        expect(uses.every((id) => results.includes(id))).toBe(true);
      }
    }
  });

  it('rejects a cursor that is not one it gave', async () => {
    await expect(readPageBefore(cliSource(session), 'nonsense')).rejects.toThrow(/reopen/);
    const beyond = JSON.stringify({ format: 'cli', file: 0, offset: 10 ** 12 });
    await expect(readPageBefore(cliSource(session), beyond)).rejects.toThrow(/reopen/);
    const transcript = JSON.stringify({ format: 'transcript', file: 3, offset: 0 });
    await expect(readPageBefore(cliSource(session), transcript)).rejects.toThrow(/reopen/);
  });
});

describe('reading large files', () => {
  it(
    'paints the last page of a 50 MB session without reading the whole file',
    { timeout: 60_000 },
    async () => {
      const padding = 'x'.repeat(10_000);
      const session = writeSession(turns(5_000, (n) => `output ${n} ${padding}`));
      const size = readFileSync(session).length;
      expect(size).toBeGreaterThan(50 * 1024 * 1024);
      const bytesRead = await countReads();
      const page = await readLastPage(cliSource(session));
      expect(promptTexts(page.events).at(-1)).toBe('prompt 4999');
      expect(bytesRead()).toBeLessThan(2 * 1024 * 1024);
      expect(bytesRead()).toBeLessThan(size / 25);
    },
  );

  it(
    'ends a page inside a turn too long to read whole, but not between a tool call and its result',
    {
      timeout: 60_000,
    },
    async () => {
      // One prompt, then an agent that ran 300 tools with 100 KB of output each: 30 MB in one turn.
      const big = 'y'.repeat(100_000);
      const lines = [prompt('p0', 'do everything')];
      for (let n = 0; n < 300; n += 1) {
        lines.push(
          reply(`a${n}`, `msg_${n}`, [
            { type: 'tool_use', id: `tool_${n}`, name: 'Bash', input: { command: `echo ${n}` } },
          ]),
          toolResult(`r${n}`, `tool_${n}`, big),
        );
      }
      const session = writeSession(lines);
      const bytesRead = await countReads();
      const page = await readLastPage(cliSource(session));
      expect(bytesRead()).toBeLessThan(10 * 1024 * 1024);
      const { uses, results } = toolIds(page.events);
      expect(uses.length).toBeGreaterThan(0);
      expect(results.every((id) => uses.includes(id))).toBe(true);
      expect(page.before).not.toBeNull();
      const pages = await allPages(cliSource(session));
      expect(pages.flatMap((each) => each.events)).toEqual(wholeFile('cli', [session]).events);
    },
  );

  it('reads a line longer than one chunk whole', async () => {
    const long = 'z'.repeat(3 * 1024 * 1024 + 17);
    const session = writeSession([...turns(3), ...turn(3, long), ...turn(4), ...turn(5)]);
    const pages = await allPages(cliSource(session), 2);
    const events = pages.flatMap((page) => page.events);
    expect(events).toEqual(wholeFile('cli', [session]).events);
    const result = events.find(
      (event) =>
        event.kind === 'message' &&
        event.message.type === 'user' &&
        Array.isArray(event.message.message.content) &&
        event.message.message.content.some(
          (block) => block.type === 'tool_result' && block.tool_use_id === 'tool_3',
        ),
    );
    expect(JSON.stringify(result)).toContain(long);
  });

  it('skips and counts a line over the 64 MB cap without holding it', { timeout: 60_000 }, async () => {
    const session = join(dir, 'huge-line.jsonl');
    writeFileSync(session, turns(2).join('\n') + '\n');
    const piece = 'w'.repeat(1024 * 1024);
    appendFileSync(session, '{"type":"user","junk":"');
    for (let n = 0; n < 65; n += 1) appendFileSync(session, piece);
    appendFileSync(session, '"}\n' + turn(2).join('\n') + '\n');
    const pages = await allPages(cliSource(session), 3);
    expect(pages.reduce((sum, page) => sum + page.skipped, 0)).toBe(1);
    expect(promptTexts(pages.flatMap((page) => page.events))).toEqual(['prompt 0', 'prompt 1', 'prompt 2']);
  });
});

describe('damaged files', () => {
  it('tolerates a last line cut off mid-write, and counts garbage lines once', async () => {
    const lines = turns(20);
    lines.splice(30, 0, 'garbage one');
    lines.splice(70, 0, '{"type":"assistant"');
    lines.splice(90, 0, '');
    const session = writeSession([...lines, '{"type":"user","message":{"role":"user","content":"half'], '');
    const pages = await allPages(cliSource(session), 4);
    expect(pages.reduce((sum, page) => sum + page.skipped, 0)).toBe(2);
    expect(promptTexts(pages.flatMap((page) => page.events))).toEqual(
      Array.from({ length: 20 }, (_, n) => `prompt ${n}`),
    );
  });

  it('reads an empty file, and a source with no files, as an empty conversation', async () => {
    expect(await readLastPage(cliSource(writeSession([], '')))).toEqual({
      events: [],
      before: null,
      skipped: 0,
    });
    expect(await readLastPage({ cliFile: null, transcripts: [] })).toEqual({
      events: [],
      before: null,
      skipped: 0,
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Byre's transcripts

const TRANSCRIPT = readFileSync(
  join(import.meta.dirname, '../../shared/__fixtures__/transcript.jsonl'),
  'utf8',
)
  .trimEnd()
  .split('\n');
const kindOf = (line: string): string => {
  const { dir: way, msg } = JSON.parse(line) as { dir: string; msg: { type: string } };
  return `${way} ${msg.type}`;
};

const send = (uuid: string, text: string): string =>
  JSON.stringify({
    dir: 'send',
    msg: {
      type: 'user',
      message: { role: 'user', content: text },
      parent_tool_use_id: null,
      session_id: SID,
      uuid,
    },
  });
const lifecycle = (uuid: string, state: string): string =>
  JSON.stringify({
    dir: 'recv',
    msg: {
      type: 'command_lifecycle',
      command_uuid: uuid,
      state,
      uuid: `l-${uuid}-${state}`,
      session_id: SID,
    },
  });
const answer = (id: string, text: string): string =>
  JSON.stringify({
    dir: 'recv',
    msg: {
      type: 'assistant',
      message: { id, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text }] },
      parent_tool_use_id: null,
      session_id: SID,
      uuid: `u-${id}`,
    },
  });
let results = 0;
const resultLine = (): string =>
  JSON.stringify({
    dir: 'recv',
    msg: {
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 1,
      duration_ms: 5,
      total_cost_usd: 0,
      usage: {},
      session_id: SID,
      uuid: `result-${++results}`,
    },
  });

describe('paging Byre’s transcripts', () => {
  const firstResult = TRANSCRIPT.findIndex((line) => kindOf(line) === 'recv result');
  const secondPrompt = TRANSCRIPT.findIndex(
    (line, index) => index > firstResult && kindOf(line) === 'send user',
  );

  it('reads them when the CLI’s file is gone, several as one, with the crash between them', async () => {
    const first = writeSession(TRANSCRIPT.slice(0, firstResult));
    const second = writeSession([TRANSCRIPT[0]!, ...TRANSCRIPT.slice(secondPrompt)]);
    const source: SessionSource = { cliFile: join(dir, 'cleaned-up.jsonl'), transcripts: [first, second] };
    const whole = wholeFile('transcript', [first, second]).events;
    expect(whole.filter((event) => event.kind === 'exit')).toHaveLength(1);
    for (const minMessages of [1, 2, 60]) {
      const pages = await allPages(source, minMessages);
      expect(pages.flatMap((page) => page.events)).toEqual(whole);
    }
    const last = await readLastPage(source, { minMessages: 1 });
    expect(last.events[0]).toMatchObject({ kind: 'prompt', text: 'What is in this image?' });
    // The first page holds the handshake before the first prompt; no page is left without events.
    const pages = await allPages(source, 1);
    expect(pages.every((page) => page.events.length > 0)).toBe(true);
  });

  it('does not begin a page at a prompt sent while a tool was still running', async () => {
    const bashResult = TRANSCRIPT.findIndex((line) => kindOf(line) === 'recv user');
    const result = TRANSCRIPT.findIndex((line) => kindOf(line) === 'recv result');
    const queued = '22222222-2222-4222-8222-222222222222';
    const lines = [...TRANSCRIPT];
    // Queued behind the running turn, then cancelled before it ran.
    lines.splice(result + 1, 0, lifecycle(queued, 'cancelled'));
    lines.splice(bashResult, 0, send(queued, 'queued while Bash ran'), lifecycle(queued, 'queued'));
    const source: SessionSource = { cliFile: null, transcripts: [writeSession(lines)] };
    const pages = await allPages(source, 1);
    expect(pages).toHaveLength(2);
    for (const page of pages) {
      const { uses, results } = toolIds(page.events);
      expect(results.every((id) => uses.includes(id))).toBe(true);
    }
    expect(pages.flatMap((page) => page.events)).toEqual(wholeFile('transcript', source.transcripts).events);
  });

  it('keeps a queued prompt on the page of the turn it waited for, so a crash after it still ends the page', async () => {
    const [p1, p2, p3] = [
      '11111111-1111-4111-8111-111111111111',
      '22222222-2222-4222-8222-222222222222',
      '33333333-3333-4333-8333-333333333333',
    ];
    const lines = [
      TRANSCRIPT[0]!,
      send(p1, 'first'),
      lifecycle(p1, 'queued'),
      lifecycle(p1, 'started'),
      answer('msg_1', 'one'),
      send(p2, 'second, queued'),
      lifecycle(p2, 'queued'),
      resultLine(),
      lifecycle(p1, 'completed'),
      lifecycle(p2, 'started'),
      answer('msg_2', 'two'),
      send(p3, 'third, queued'),
      lifecycle(p3, 'queued'),
      resultLine(),
      lifecycle(p2, 'completed'),
      // The CLI died here, with the third prompt waiting.
    ];
    const source: SessionSource = { cliFile: null, transcripts: [writeSession(lines)] };
    const whole = wholeFile('transcript', source.transcripts).events;
    expect(whole.at(-1)).toEqual({ kind: 'exit' });
    const pages = await allPages(source, 1);
    expect(pages.flatMap((page) => page.events)).toEqual(whole);
    expect(pages.at(-1)!.events.at(-1)).toEqual({ kind: 'exit' });
  });

  it('prefers the CLI’s file when it exists', async () => {
    const cli = writeSession(turns(2));
    const page = await readLastPage({ cliFile: cli, transcripts: [writeSession(TRANSCRIPT)] });
    expect(promptTexts(page.events)).toEqual(['prompt 0', 'prompt 1']);
    expect(page.before).toBeNull();
  });
});
