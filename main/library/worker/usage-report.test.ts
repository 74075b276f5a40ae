import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { append, cli, createSessionWorld, indexAll, type SessionWorld } from '../../test-support/library';
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
