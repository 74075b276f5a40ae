import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  append,
  byre,
  cli,
  createSessionWorld,
  indexAll,
  jsonl,
  type SessionWorld,
} from '../../test-support/library';
import { localDay } from '../rules/usage';

let world: SessionWorld;
beforeEach(() => {
  world = createSessionWorld();
});
afterEach(() => {
  world.dispose();
});

/** One content block's line of an API message: each repeats the message's usage, as the CLI writes them. */
function block(id: string, messageId: string, usage: Record<string, number>, at = '2026-03-01T10:00:00Z') {
  return {
    type: 'assistant',
    sessionId: id,
    uuid: randomUUID(),
    timestamp: at,
    message: { id: messageId, role: 'assistant', model: 'claude-sonnet-4-5-20250929', usage, content: [] },
  };
}

it('counts each message once, across content-block lines and an appended tail, and prices it', () => {
  const id = randomUUID();
  const usage = { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 10_000 };
  const path = world.writeCli(id, [
    cli.user(id, 'hello'),
    block(id, 'msg_1', usage),
    block(id, 'msg_1', usage),
  ]);
  const index = world.open();
  indexAll(index);
  // The tail repeats msg_1's last block, then a new message.
  append(path, [block(id, 'msg_1', usage), block(id, 'msg_2', { input_tokens: 500, output_tokens: 50 })]);
  index.notice([path]);
  indexAll(index);
  const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
  // By hand: input 1000 + 500, output 100 + 50, cache reads 10,000; Sonnet $3 in, $15 out, $0.30 cache read.
  expect(report.totals.tokens).toEqual({ input: 1500, output: 150, cacheWrite: 0, cacheRead: 10_000 });
  expect(report.totals.cost.usd).toBeCloseTo((1500 * 3 + 150 * 15 + 10_000 * 0.3) / 1e6, 10);
  expect(report.totals.cost.estimated).toBe(true);
  expect(report.days.map((day) => day.day)).toEqual(['2026-03-01']);
  expect(report.totals.top.map((row) => row.sessionId)).toEqual([id]);
  expect(index.usageDayConversations({ day: '2026-03-01', folder: null, timeZone: 'UTC' })).toHaveLength(1);
});

it("keeps the line of a message that says most, whichever of a file's lines comes last", () => {
  const id = randomUUID();
  world.writeCli(id, [
    cli.user(id, 'hello'),
    block(id, 'msg_1', { input_tokens: 10, output_tokens: 100 }, '2026-03-01T10:00:00Z'),
    // The same output and more of the rest: taken, with its time (the next quarter hour).
    block(
      id,
      'msg_1',
      { input_tokens: 10, output_tokens: 100, cache_read_input_tokens: 5 },
      '2026-03-01T10:15:00Z',
    ),
    // Says less (an earlier moment of the stream, written later): kept out.
    block(id, 'msg_1', { input_tokens: 10, output_tokens: 1 }, '2026-03-01T10:20:00Z'),
    block(id, 'msg_2', { input_tokens: 1, output_tokens: 2 }),
  ]);
  const index = world.open();
  indexAll(index);
  const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
  expect(report.totals.tokens).toEqual({ input: 11, output: 102, cacheWrite: 0, cacheRead: 5 });
  expect(index.windowUsage(Date.parse('2026-03-01T10:10:00Z')).total).toMatchObject({ output: 100 });
});

it('puts every quarter hour on its local day around DST changes, midnight ones and half-hour zones too', () => {
  // Paris (02:00 → 03:00), Santiago (DST ends at local midnight), St John's (−3:30, changes at 05:30 UTC),
  // Lord Howe (a half-hour change at 15:00 UTC): a day either side of each change, one message a quarter hour.
  const changes: [string, string][] = [
    ['Europe/Paris', '2026-03-29T01:00:00Z'],
    ['America/Santiago', '2026-04-05T03:00:00Z'],
    ['America/St_Johns', '2026-03-08T05:30:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
  ];
  const quarter = 15 * 60 * 1000;
  const instants = changes.flatMap(([, at]) =>
    Array.from({ length: 4 * 48 }, (_, i) => Date.parse(at) - 24 * 4 * quarter + i * quarter),
  );
  const id = randomUUID();
  world.writeCli(id, [
    cli.user(id, 'hello'),
    ...instants.map((ms, i) => block(id, `msg_${i}`, { output_tokens: 1 }, new Date(ms).toISOString())),
  ]);
  const index = world.open();
  indexAll(index);
  for (const [timeZone] of changes) {
    // By hand: each instant's day as Intl says it, one token each.
    const expected = new Map<string, number>();
    for (const ms of instants) {
      const day = localDay(ms, timeZone);
      expected.set(day, (expected.get(day) ?? 0) + 1);
    }
    const report = index.usageReport({ range: 'all', folder: null, timeZone });
    const got = new Map(
      report.days.map((day) => [day.day, day.models.reduce((sum, model) => sum + model.tokens.output, 0)]),
    );
    expect(got).toEqual(expected);
  }
});

describe("a library row's cost", () => {
  it('is the estimate where the CLI did not say, as the report has it, and nothing for an unpriced model', () => {
    const priced = randomUUID();
    const unpriced = randomUUID();
    world.writeCli(priced, [
      cli.user(priced, 'hello'),
      block(priced, 'msg_1', { input_tokens: 1000, output_tokens: 100 }),
      block(priced, 'msg_1', { input_tokens: 1000, output_tokens: 100 }),
    ]);
    const unknown = block(unpriced, 'msg_9', { input_tokens: 50, output_tokens: 5 });
    unknown.message.model = 'claude-future-9';
    world.writeCli(unpriced, [cli.user(unpriced, 'hi'), unknown]);
    const index = world.open();
    indexAll(index);
    const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
    const costs = new Map(index.list().map((row) => [row.sessionId, row.cost]));
    expect(costs.get(priced)).toEqual({ usd: report.totals.cost.usd, estimated: true });
    expect(costs.get(priced)?.usd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 10);
    expect(costs.get(unpriced)).toEqual({ usd: null, estimated: false });
    expect(index.row(priced)?.cost).toEqual(costs.get(priced));
  });

  it("is a Byre turn's own cost where its transcript has it, not an estimate, and grows as it is appended", () => {
    const id = randomUUID();
    const answer = (messageId: string) => {
      const line = byre.assistant(id, 'hi');
      const msg = line.msg as { message: Record<string, unknown> };
      msg.message = {
        ...msg.message,
        id: messageId,
        model: 'claude-sonnet-4-5-20250929',
        usage: { input_tokens: 1000, output_tokens: 100 },
      };
      return line;
    };
    const result = (total: number) => ({ dir: 'recv', msg: { type: 'result', total_cost_usd: total } });
    const path = world.writeTranscript('run-1', [
      byre.initialize(),
      byre.send(id, 'hello'),
      byre.init(id),
      answer('msg_a'),
      result(0.42),
    ]);
    const index = world.open();
    indexAll(index);
    expect(index.list()[0]?.cost).toEqual({ usd: 0.42, estimated: false });
    append(path, [byre.send(id, 'again'), answer('msg_b'), result(0.5)]);
    index.notice([path]);
    indexAll(index);
    expect(index.list()[0]?.cost.usd).toBeCloseTo(0.5, 10);
  });
});

describe('usage by lane', () => {
  it("puts what the terminal asked apart from what stream-json asked, by each line's entrypoint", () => {
    const carried = randomUUID();
    const older = randomUUID();
    const asked = (id: string, messageId: string, entrypoint: string | undefined, output: number) => ({
      ...block(id, messageId, { input_tokens: 1000, output_tokens: output }),
      ...(entrypoint ? { entrypoint } : {}),
    });
    // One conversation carried from stream-json to the terminal: a message in each lane.
    world.writeCli(carried, [
      cli.user(carried, 'hello'),
      asked(carried, 'msg_s', 'sdk-cli', 10),
      asked(carried, 'msg_t1', 'cli', 20),
      asked(carried, 'msg_t2', 'cli', 30),
    ]);
    // A CLI that did not write an entrypoint.
    world.writeCli(older, [cli.user(older, 'hi'), asked(older, 'msg_o', undefined, 40)]);
    // A Byre transcript's turn, with its real cost: stream-json.
    const transcriptOnly = randomUUID();
    const answer = byre.assistant(transcriptOnly, 'hi');
    (answer.msg as { message: Record<string, unknown> }).message = {
      ...(answer.msg as { message: Record<string, unknown> }).message,
      id: 'msg_b',
      model: 'claude-sonnet-4-5-20250929',
      usage: { input_tokens: 500, output_tokens: 5 },
    };
    world.writeTranscript('run-lanes', [
      byre.initialize(),
      byre.send(transcriptOnly, 'hello'),
      byre.init(transcriptOnly),
      answer,
      { dir: 'recv', msg: { type: 'result', total_cost_usd: 0.25 } },
    ]);
    const index = world.open();
    indexAll(index);
    const { lanes, totals } = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
    expect(lanes.map((row) => [row.lane, row.conversations, row.tokens.input, row.tokens.output])).toEqual([
      ['terminal', 1, 2000, 50],
      ['stream', 2, 1500, 15],
      ['unknown', 1, 1000, 40],
    ]);
    // The lanes add up to the whole, the real cost of the transcript's turn in the stream's.
    expect(lanes.reduce((sum, row) => sum + row.tokens.output, 0)).toBe(totals.tokens.output);
    const stream = lanes.find((row) => row.lane === 'stream');
    expect(stream?.cost.usd).toBeCloseTo(0.25 + (1000 * 3 + 10 * 15) / 1e6, 10);
    expect(lanes.find((row) => row.lane === 'terminal')?.cost).toMatchObject({ estimated: true });
  });

  it('leaves out a lane with no usage in the range', () => {
    const id = randomUUID();
    world.writeCli(id, [
      cli.user(id, 'hello'),
      { ...block(id, 'msg_1', { output_tokens: 3 }), entrypoint: 'cli' },
    ]);
    const index = world.open();
    indexAll(index);
    expect(
      index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' }).lanes.map((row) => row.lane),
    ).toEqual(['terminal']);
  });
});

describe('a message both files hold', () => {
  // Byre's transcript has the stream's assistant message as its first block ended (1 output token so far);
  // the CLI's file has it with the message's final usage. The index reads the two in either order.
  for (const transcriptFirst of [true, false]) {
    it(`counts its final usage, the ${transcriptFirst ? 'transcript' : "CLI's file"} read first`, () => {
      const id = randomUUID();
      const streamed = byre.assistant(id, 'hi');
      const msg = streamed.msg as { message: Record<string, unknown> };
      msg.message = {
        ...msg.message,
        id: 'msg_1',
        model: 'claude-sonnet-4-5-20250929',
        usage: { input_tokens: 1000, output_tokens: 1 },
      };
      const transcript = [byre.initialize(), byre.send(id, 'hello'), byre.init(id), streamed];
      const cliFile = [cli.user(id, 'hello'), block(id, 'msg_1', { input_tokens: 1000, output_tokens: 100 })];
      if (transcriptFirst) world.writeTranscript('run-1', transcript);
      else world.writeCli(id, cliFile);
      const index = world.open();
      indexAll(index);
      const second = transcriptFirst
        ? world.writeCli(id, cliFile)
        : world.writeTranscript('run-1', transcript);
      index.notice([second]);
      indexAll(index);
      const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
      expect(report.totals.tokens).toEqual({ input: 1000, output: 100, cacheWrite: 0, cacheRead: 0 });
      expect(report.totals.cost.usd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 10);
    });
  }
});

describe('the usage since a limit window began', () => {
  it("counts each conversation's messages from that moment on, most tokens first, and all of them together", () => {
    const small = randomUUID();
    const big = randomUUID();
    const at = (line: ReturnType<typeof block>, time: string) => ({ ...line, timestamp: time });
    world.writeCli(small, [
      cli.user(small, 'hello'),
      // Before the window, in the same 15-minute bucket as its start: left out all the same.
      at(block(small, 'msg_old', { input_tokens: 9000, output_tokens: 900 }), '2026-03-01T10:01:00Z'),
      at(block(small, 'msg_s', { input_tokens: 100, output_tokens: 10 }), '2026-03-01T10:06:00Z'),
    ]);
    world.writeCli(big, [
      cli.user(big, 'hi'),
      at(block(big, 'msg_b', { input_tokens: 1000, output_tokens: 100 }), '2026-03-01T10:07:00Z'),
      at(block(big, 'msg_b', { input_tokens: 1000, output_tokens: 100 }), '2026-03-01T10:07:00Z'),
    ]);
    const index = world.open();
    indexAll(index);
    const usage = index.windowUsage(Date.parse('2026-03-01T10:05:00Z'));
    expect(usage.total).toEqual({ input: 1100, output: 110, cacheWrite: 0, cacheRead: 0 });
    expect(usage.conversations.map((row) => [row.sessionId, row.tokens.input])).toEqual([
      [big, 1000],
      [small, 100],
    ]);
    expect(usage.conversations[0]?.cost).toEqual({
      usd: (1000 * 3 + 100 * 15) / 1e6,
      estimated: true,
      unpricedTokens: 0,
    });
    expect(usage.conversations[0]?.title).toBe('hi');
    expect(index.windowUsage(Date.parse('2026-03-01T11:00:00Z'))).toEqual({
      total: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
      conversations: [],
    });
  });
});

describe('a Byre turn that used two models', () => {
  it("files each model's share of the turn's real cost under that model", () => {
    const id = randomUUID();
    const result = {
      dir: 'recv',
      msg: {
        type: 'result',
        uuid: 'r1',
        total_cost_usd: 0.4,
        timestamp: '2026-03-01T10:00:00Z',
        modelUsage: {
          'claude-opus-4-1': { costUSD: 0.3, inputTokens: 10 },
          'claude-haiku-4-5': { costUSD: 0.1, inputTokens: 10 },
        },
      },
    };
    world.writeTranscript('run-1', [
      byre.initialize(),
      byre.send(id, 'hello'),
      byre.init(id),
      byre.assistant(id, 'hi'),
      result,
    ]);
    const index = world.open();
    indexAll(index);
    const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
    const byModel = new Map(report.models.map((model) => [model.model, model.cost]));
    expect(byModel.get('claude-opus-4-1')?.usd).toBeCloseTo(0.3, 10);
    expect(byModel.get('claude-haiku-4-5')?.usd).toBeCloseTo(0.1, 10);
    expect(report.totals.cost).toMatchObject({ estimated: false });
    expect(report.totals.cost.usd).toBeCloseTo(0.4, 10);
    expect(index.list()[0]?.cost.usd).toBeCloseTo(0.4, 10);
  });
});

describe("a subagent's transcript", () => {
  it('counts toward its parent session, each message once, and adds no conversation or message of its own', () => {
    const id = randomUUID();
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const path = world.writeCli(id, [cli.user(id, 'hello'), block(id, 'msg_1', usage)]);
    const subagent = (messageId: string, text: string) => ({
      ...block(id, messageId, usage),
      isSidechain: true,
      agentId: 'a1b2c3',
      message: {
        id: messageId,
        role: 'assistant',
        model: 'claude-haiku-4-5-20251001',
        usage,
        content: [{ type: 'text', text }],
      },
    });
    const folder = join(dirname(path), id, 'subagents');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'agent-a1b2c3.jsonl'),
      jsonl([
        { ...cli.user(id, 'look around'), isSidechain: true, agentId: 'a1b2c3' },
        subagent('msg_sub', 'zanzibar'),
        subagent('msg_sub', 'zanzibar'),
      ]),
    );
    const index = world.open();
    indexAll(index);
    const report = index.usageReport({ range: 'all', folder: null, timeZone: 'UTC' });
    expect(report.totals.tokens).toMatchObject({ input: 2000, output: 200 });
    expect(report.totals.conversations).toBe(1);
    expect(report.models.map((model) => model.model).sort()).toEqual([
      'claude-haiku-4-5-20251001',
      'claude-sonnet-4-5-20250929',
    ]);
    const sonnet = (1000 * 3 + 100 * 15) / 1e6;
    const haiku = (1000 * 1 + 100 * 5) / 1e6;
    const [row] = index.list();
    expect(index.list()).toHaveLength(1);
    expect(row?.cost.usd).toBeCloseTo(sonnet + haiku, 10);
    expect(row?.messageCount).toBe(2);
    expect(index.search({ query: 'zanzibar' })).toEqual([]);
  });
});
