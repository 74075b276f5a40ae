/**
 * A usage report for tests of the Usage view: two days, three models (one the pricing table does not
 * know), three folders (one with a long path, one unknown), whose figures add up the way the backend's do.
 */
import type { ConversationUsage, UsageReport } from '../../../shared/ipc';

const SONNET = 'claude-sonnet-4-5-20250929';
const OPUS = 'claude-opus-4-1-20250805';
const LOCAL = 'local-llama-70b-instruct';
const BYRE = '/home/ann/code/byre';
const NOTES = '/home/ann/a/very/long/path/of/folders/that/goes/on/notes';

const tokens = (input: number, output: number, cacheWrite: number, cacheRead: number) => ({
  input,
  output,
  cacheWrite,
  cacheRead,
});
const priced = (usd: number) => ({ usd, estimated: true, unpricedTokens: 0 });
const unpriced = (count: number) => ({ usd: null, estimated: false, unpricedTokens: count });

function conversation(n: number, folder: string | null, usd: number): ConversationUsage {
  return {
    sessionId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Conversation ${n}`,
    folder,
    tokens: tokens(1000 * n, 500 * n, 0, 2000 * n),
    cost: priced(usd),
  };
}

export function usageReport(): UsageReport {
  return {
    range: '30d',
    folder: null,
    timeZone: 'UTC',
    days: [
      {
        day: '2026-11-12',
        models: [
          { model: SONNET, tokens: tokens(100_000, 50_000, 50_000, 700_000), cost: priced(3) },
          { model: OPUS, tokens: tokens(50_000, 20_000, 10_000, 20_000), cost: priced(0.6) },
        ],
      },
      {
        day: '2026-11-13',
        models: [
          { model: SONNET, tokens: tokens(20_000, 10_000, 10_000, 60_000), cost: priced(0.5) },
          { model: LOCAL, tokens: tokens(140_000, 60_000, 0, 0), cost: unpriced(200_000) },
        ],
      },
    ],
    folders: [
      { folder: BYRE, conversations: 5, tokens: tokens(150_000, 70_000, 60_000, 760_000), cost: priced(3.9) },
      { folder: null, conversations: 1, tokens: tokens(140_000, 60_000, 0, 0), cost: unpriced(200_000) },
      { folder: NOTES, conversations: 2, tokens: tokens(20_000, 10_000, 10_000, 20_000), cost: priced(0.2) },
    ],
    models: [
      { model: SONNET, tokens: tokens(120_000, 60_000, 60_000, 760_000), cost: priced(3.5) },
      { model: OPUS, tokens: tokens(50_000, 20_000, 10_000, 20_000), cost: priced(0.6) },
      { model: LOCAL, tokens: tokens(140_000, 60_000, 0, 0), cost: unpriced(200_000) },
    ],
    lanes: [
      {
        lane: 'terminal',
        conversations: 5,
        tokens: tokens(150_000, 70_000, 60_000, 760_000),
        cost: priced(3.9),
      },
      { lane: 'stream', conversations: 2, tokens: tokens(20_000, 10_000, 10_000, 20_000), cost: priced(0.2) },
      { lane: 'unknown', conversations: 1, tokens: tokens(140_000, 60_000, 0, 0), cost: unpriced(200_000) },
    ],
    totals: {
      conversations: 8,
      tokens: tokens(310_000, 140_000, 70_000, 780_000),
      cost: { usd: 4.1, estimated: true, unpricedTokens: 200_000 },
      cacheReadShare: 780 / 1160,
      top: [conversation(1, BYRE, 2.5), conversation(2, NOTES, 0.2), conversation(3, null, 0.1)],
    },
    pricingCheckedAt: '2026-10-01',
    indexing: false,
  };
}
