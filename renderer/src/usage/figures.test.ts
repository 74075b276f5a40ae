import { describe, expect, it } from 'vitest';
import type { FolderUsage, UsageReport } from '../../../shared/ipc';
import {
  chartScales,
  costWords,
  daysOfRange,
  formatTokens,
  formatUsd,
  groupBars,
  modelName,
  modelOrder,
  sortFolders,
  stackDays,
  summaryText,
  todayIn,
} from './figures';
import { usageReport } from './fixture';

/** The Usage view's figures: what the user reads on bars, cells and the chart's description. */

describe('writing tokens and money', () => {
  it('shortens tokens to a few figures', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(12_345)).toBe('12.3k');
    expect(formatTokens(1_200_000)).toBe('1.2M');
    expect(formatTokens(999_960)).toBe('1M');
    expect(formatTokens(2_000)).toBe('2k');
    expect(formatTokens(345_600_000)).toBe('346M');
    expect(formatTokens(3_400_000_000)).toBe('3.4B');
  });

  it('writes dollars with cents, and a sliver of a cent as under a cent', () => {
    expect(formatUsd(4.1)).toBe('$4.10');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.001)).toBe('<$0.01');
    expect(formatUsd(0)).toBe('$0.00');
  });

  it('labels estimates, and never prices what the table does not know', () => {
    expect(costWords({ usd: 4.1, estimated: false, unpricedTokens: 0 })).toBe('$4.10');
    expect(costWords({ usd: 4.1, estimated: true, unpricedTokens: 0 })).toBe('$4.10 estimated');
    expect(costWords({ usd: null, estimated: false, unpricedTokens: 500 })).toBe('unpriced');
    expect(costWords({ usd: 2, estimated: true, unpricedTokens: 500 })).toBe('$2.00 estimated + unpriced');
  });

  it('names a model without the date the API adds', () => {
    expect(modelName('claude-sonnet-4-5-20250929')).toBe('sonnet-4-5');
    expect(modelName('gpt-local')).toBe('gpt-local');
  });
});

describe('the days a range shows', () => {
  it('gives every day of the range a place, ending today, gaps included', () => {
    const days = daysOfRange('7d', '2026-03-02', [{ day: '2026-02-26', models: [] }]);
    expect(days).toEqual([
      '2026-02-24',
      '2026-02-25',
      '2026-02-26',
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    expect(daysOfRange('today', '2026-03-02', [])).toEqual(['2026-03-02']);
  });

  it('starts all time at the first day with usage', () => {
    const days = daysOfRange('all', '2026-01-03', [
      { day: '2026-01-02', models: [] },
      { day: '2025-12-31', models: [] },
    ]);
    expect(days).toEqual(['2025-12-31', '2026-01-01', '2026-01-02', '2026-01-03']);
  });

  it('reads today in the time zone asked for, not the machine’s', () => {
    const lateInUtc = Date.UTC(2026, 10, 12, 23, 30);
    expect(todayIn('UTC', lateInUtc)).toBe('2026-11-12');
    expect(todayIn('Asia/Tokyo', lateInUtc)).toBe('2026-11-13');
  });
});

describe('stacking a day’s models', () => {
  const report = usageReport();
  const order = modelOrder(report.models);

  it('puts the most used model lowest, and each on top of the one before', () => {
    expect(order[0]).toBe('claude-sonnet-4-5-20250929');
    const [day] = stackDays(['2026-11-12'], report.days, 'tokens', order);
    expect(day!.segments.map((segment) => [segment.model, segment.y0, segment.y1])).toEqual([
      ['claude-sonnet-4-5-20250929', 0, 900_000],
      ['claude-opus-4-1-20250805', 900_000, 1_000_000],
    ]);
    expect(day!.total).toBe(1_000_000);
  });

  it('stacks dollars for cost, leaving out a model that could not be priced', () => {
    const [day] = stackDays(['2026-11-13'], report.days, 'cost', order);
    expect(day!.segments.map((segment) => segment.model)).toEqual(['claude-sonnet-4-5-20250929']);
    expect(day!.total).toBeCloseTo(0.5);
  });

  it('leaves a day without usage empty', () => {
    expect(stackDays(['2026-11-01'], report.days, 'tokens', order)).toEqual([
      { day: '2026-11-01', total: 0, segments: [] },
    ]);
  });

  it('scales from nothing at the bottom to a round figure at the top', () => {
    const { x, y } = chartScales(['a', 'b'], 930, 200, 100);
    expect(y(0)).toBe(100);
    expect(y.domain()[1]).toBe(1000);
    expect(x('b')!).toBeGreaterThan(x('a')!);
    expect(x.bandwidth()).toBeGreaterThan(0);
  });

  it('bars folders and models biggest first', () => {
    expect(groupBars(report, 'folder', 'tokens').map((bar) => bar.label)).toEqual([
      'byre',
      'No folder',
      'notes',
    ]);
    expect(groupBars(report, 'model', 'cost').map((bar) => bar.label)).toEqual(['sonnet-4-5', 'opus-4-1']);
  });
});

describe('sorting the folder table', () => {
  const rows = usageReport().folders;
  const names = (list: FolderUsage[]) => list.map((row) => row.folder);

  it('sorts by any column, either way', () => {
    expect(names(sortFolders(rows, 'input', 'descending'))).toEqual([
      '/home/ann/code/byre',
      null,
      '/home/ann/a/very/long/path/of/folders/that/goes/on/notes',
    ]);
    expect(names(sortFolders(rows, 'conversations', 'ascending'))[0]).toBe(null);
    expect(names(sortFolders(rows, 'folder', 'ascending'))).toEqual([
      null,
      '/home/ann/a/very/long/path/of/folders/that/goes/on/notes',
      '/home/ann/code/byre',
    ]);
  });

  it('puts unpriced folders below free ones when sorting by cost', () => {
    expect(names(sortFolders(rows, 'cost', 'ascending'))[0]).toBe(null);
  });
});

describe('the chart’s description', () => {
  it('says the range, the totals and the busiest day', () => {
    expect(summaryText(usageReport(), 'tokens', 'en-GB')).toBe(
      '30 days: 1.3M tokens, $4.10 estimated + unpriced; most on 12 Nov',
    );
  });

  it('says when there was nothing', () => {
    const empty: UsageReport = { ...usageReport(), days: [], folders: [], models: [] };
    empty.totals = {
      conversations: 0,
      tokens: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
      cost: { usd: null, estimated: false, unpricedTokens: 0 },
      cacheReadShare: 0,
      top: [],
    };
    expect(summaryText(empty, 'cost')).toBe('30 days: no usage');
  });
});
