import { describe, expect, it } from 'vitest';
import { priceOf, ratesOf } from './pricing';
import { emptyUsageState, localDay, readUsage, type UsageRead } from './usage';

const T = Date.parse('2026-03-01T10:00:00Z');

function cliLine(id: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: 'assistant',
    uuid: `u-${Math.random()}`,
    requestId: 'req_1',
    timestamp: '2026-03-01T10:00:00Z',
    message: { id, model: 'claude-sonnet-4-5-20250929', usage, content: [] },
    ...extra,
  };
}

function readAll(kind: 'cli' | 'transcript', lines: unknown[]): UsageRead[] {
  const state = emptyUsageState();
  return lines.flatMap((line, n) => readUsage(kind, line, state, T, `@${n}`) ?? []);
}

describe('usage of a session file', () => {
  it('gives the same key for every content-block line of one message, so it is counted once', () => {
    const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100 };
    const reads = readAll('cli', [cliLine('msg_1', usage), cliLine('msg_1', usage), cliLine('msg_2', usage)]);
    expect(new Set(reads.map((read) => read.kind === 'message' && read.key))).toEqual(
      new Set(['msg_1', 'msg_2']),
    );
  });

  it('counts sidechain messages, and skips the CLI’s local <synthetic> ones', () => {
    const usage = { input_tokens: 1, output_tokens: 1 };
    const synthetic = cliLine('msg_s', usage);
    synthetic.message.model = '<synthetic>';
    const reads = readAll('cli', [cliLine('msg_side', usage, { isSidechain: true }), synthetic]);
    expect(reads.map((read) => read.kind === 'message' && read.key)).toEqual(['msg_side']);
  });

  it('splits cache writes into 5-minute and 1-hour rates', () => {
    const [read] = readAll('cli', [
      cliLine('msg_1', {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 3000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      }),
    ]);
    // Sonnet: $3/M input, 5m write 3.75, 1h write 6.
    expect(read?.kind === 'message' && read.cacheWrite).toBe(3000);
    expect(read?.kind === 'message' && read.estUsd).toBeCloseTo((1000 * 3.75 + 2000 * 6) / 1e6, 10);
  });

  it('gives a Byre turn its real cost, the running total less the last, covering the turn’s messages', () => {
    const recv = (msg: Record<string, unknown>) => ({ dir: 'recv', msg });
    const assistant = (id: string) =>
      recv({
        type: 'assistant',
        session_id: 's',
        message: { id, model: 'claude-opus-4-1', usage: { input_tokens: 1, output_tokens: 2 } },
      });
    const reads = readAll('transcript', [
      assistant('msg_a'),
      recv({ type: 'result', uuid: 'r1', total_cost_usd: 0.5 }),
      assistant('msg_b'),
      recv({ type: 'result', uuid: 'r2', total_cost_usd: 0.75 }),
    ]);
    const turns = reads.filter((read) => read.kind === 'turn');
    expect(turns.map((turn) => [turn.parts, turn.covers])).toEqual([
      [[{ model: 'claude-opus-4-1', usd: 0.5 }], ['msg_a']],
      [[{ model: 'claude-opus-4-1', usd: 0.25 }], ['msg_b']],
    ]);
  });

  it('splits a turn’s real cost by model from the growth of its result’s running modelUsage', () => {
    const recv = (msg: Record<string, unknown>) => ({ dir: 'recv', msg });
    const opus = 'claude-opus-4-1';
    const haiku = 'claude-haiku-4-5';
    const usage = (costs: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(costs).map(([model, costUSD]) => [
          model,
          { costUSD, inputTokens: 1, outputTokens: 1 },
        ]),
      );
    const reads = readAll('transcript', [
      recv({ type: 'result', uuid: 'r1', total_cost_usd: 0.5, modelUsage: usage({ [opus]: 0.5 }) }),
      // The second turn used both: opus grew by 0.3, haiku by 0.1.
      recv({
        type: 'result',
        uuid: 'r2',
        total_cost_usd: 0.9,
        modelUsage: usage({ [opus]: 0.8, [haiku]: 0.1 }),
      }),
    ]);
    const turns = reads.filter((read) => read.kind === 'turn');
    expect(turns[0]?.parts).toEqual([{ model: opus, usd: 0.5 }]);
    const second = turns[1]?.parts ?? [];
    expect(second.map((part) => part.model)).toEqual([opus, haiku]);
    expect(second[0]?.usd).toBeCloseTo(0.3, 10);
    expect(second[1]?.usd).toBeCloseTo(0.1, 10);
  });
});

describe('pricing', () => {
  it('knows the families by their ids, with cache rates from input', () => {
    expect(ratesOf('claude-sonnet-4-5-20250929')).toEqual({
      input: 3,
      output: 15,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      cacheRead: 0.3,
    });
    expect(ratesOf('claude-opus-4-1-20250805')?.input).toBe(15);
    expect(ratesOf('claude-opus-4-20250514')?.input).toBe(15);
    expect(ratesOf('claude-opus-4-5-20251101')?.input).toBe(5);
    expect(ratesOf('claude-3-5-haiku-20241022')?.output).toBe(4);
    expect(ratesOf('claude-haiku-4-5-20251001')?.output).toBe(5);
    const tokens = { input: 1e6, output: 1e6, cacheWrite5m: 1e6, cacheWrite1h: 1e6, cacheRead: 1e6 };
    expect(priceOf('claude-haiku-4-5', tokens)).toBeCloseTo(1 + 5 + 1.25 + 2 + 0.1, 10);
  });

  it('gives no price for a model it does not know', () => {
    const tokens = { input: 1, output: 1, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 };
    expect(priceOf('gpt-5', tokens)).toBeNull();
    expect(priceOf('claude-future-9', tokens)).toBeNull();
  });
});

describe('local days', () => {
  it('puts instants on the right day across a DST change', () => {
    // Berlin springs forward on 2026-03-29 at 01:00 UTC: 22:30 UTC the day before is 23:30 local (CET).
    expect(localDay(Date.parse('2026-03-28T22:30:00Z'), 'Europe/Berlin')).toBe('2026-03-28');
    expect(localDay(Date.parse('2026-03-28T23:15:00Z'), 'Europe/Berlin')).toBe('2026-03-29');
    // After the change Berlin is UTC+2: 22:15 UTC on the 29th is already the 30th.
    expect(localDay(Date.parse('2026-03-29T22:15:00Z'), 'Europe/Berlin')).toBe('2026-03-30');
    // New York springs forward on 2026-03-08: 04:30 UTC is 23:30 EST on the 7th, 05:00 UTC on the 9th is 01:00 EDT.
    expect(localDay(Date.parse('2026-03-08T04:30:00Z'), 'America/New_York')).toBe('2026-03-07');
    expect(localDay(Date.parse('2026-03-09T04:15:00Z'), 'America/New_York')).toBe('2026-03-09');
  });
});
