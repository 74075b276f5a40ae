/**
 * The Usage view's arithmetic, kept out of its components so that it can be tested on its own: how tokens
 * and money are written, which days a range shows, how a day's models stack into one bar, how the folder
 * table sorts, and the sentence that describes the chart to someone who cannot see it.
 */
import { scaleBand, scaleLinear } from '@visx/scale';
import type {
  FolderUsage,
  ModelUsage,
  TokenCounts,
  UsageCost,
  UsageDay,
  UsageGrouping,
  UsageRange,
  UsageReport,
} from '../../../shared/ipc';
import type { UsageMetric } from '../state/types';

export type { UsageMetric };

export const RANGE_WORDS: Record<UsageRange, string> = {
  today: 'Today',
  '7d': '7 days',
  '30d': '30 days',
  '90d': '90 days',
  all: 'All time',
};

export const GROUPING_WORDS: Record<UsageGrouping, string> = { day: 'Day', folder: 'Folder', model: 'Model' };

export function sumTokens(tokens: TokenCounts): number {
  return tokens.input + tokens.output + tokens.cacheWrite + tokens.cacheRead;
}

/** One figure of a group for the metric: its tokens, or its dollars (nothing priced counts as none). */
export function measure(metric: UsageMetric, usage: { tokens: TokenCounts; cost: UsageCost }): number {
  return metric === 'tokens' ? sumTokens(usage.tokens) : (usage.cost.usd ?? 0);
}

/** "950", "12.3k", "1.2M", "3.4B": short enough for a bar's tooltip and a table cell. */
export function formatTokens(count: number): string {
  const suffixes = ['', 'k', 'M', 'B'];
  let step = 0;
  let scaled = count;
  // 999,960 rounds to "1000.0k": it is said as "1M", one step up.
  while (step < suffixes.length - 1 && Math.abs(scaled) >= 999.95) {
    scaled /= 1000;
    step += 1;
  }
  if (step === 0) return String(Math.round(count));
  return `${scaled.toFixed(scaled >= 99.5 ? 0 : 1).replace(/\.0$/, '')}${suffixes[step]}`;
}

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** "$4.10", "$1,234.50"; a cost above nothing but below a cent is "<$0.01", not "$0.00". */
export function formatUsd(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return dollars.format(usd);
}

/**
 * A cost as the user should read it: the dollars, "estimated" where any part came from the pricing table,
 * and "unpriced" where tokens of a model the table does not know were left out (alone, when nothing could
 * be priced: never a wrong $0.00).
 */
export function costWords(cost: UsageCost): string {
  if (cost.usd === null) return cost.unpricedTokens > 0 ? 'unpriced' : '—';
  const figure = `${formatUsd(cost.usd)}${cost.estimated ? ' estimated' : ''}`;
  return cost.unpricedTokens > 0 ? `${figure} + unpriced` : figure;
}

/** A value on the chart's axis or in its tooltip, for the metric. */
export function formatMetric(metric: UsageMetric, value: number): string {
  return metric === 'tokens' ? formatTokens(value) : formatUsd(value);
}

/**
 * The day labels' formatters, one per locale: making one costs far more than using it, and a year's chart
 * labels every one of its days (each bar's button is named by its day).
 */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** "12 Nov" (in the locale's order) for a YYYY-MM-DD day, which is already the user's local day. */
export function dayLabel(day: string, locale?: string): string {
  let format = dayFormats.get(locale ?? '');
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    dayFormats.set(locale ?? '', format);
  }
  const [year, month, date] = day.split('-').map(Number);
  return format.format(Date.UTC(year ?? 1970, (month ?? 1) - 1, date ?? 1));
}

/** Today in a time zone, as YYYY-MM-DD (the form the report's days take). */
export function todayIn(timeZone: string, now: number = Date.now()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

function addDays(day: string, count: number): string {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(Date.UTC(year ?? 1970, (month ?? 1) - 1, (date ?? 1) + count)).toISOString().slice(0, 10);
}

const RANGE_DAYS: Record<Exclude<UsageRange, 'all'>, number> = { today: 1, '7d': 7, '30d': 30, '90d': 90 };

/**
 * Every day the chart has a place for, oldest first: the range's days ending today (a day without usage is a
 * gap, so that the bars keep their dates), or for all time from the first day with usage.
 */
export function daysOfRange(range: UsageRange, today: string, days: readonly UsageDay[]): string[] {
  const first =
    range === 'all' ? (days.map((day) => day.day).sort()[0] ?? today) : addDays(today, 1 - RANGE_DAYS[range]);
  // A report a moment older than midnight may hold a day after "today": it gets its place too.
  const last = days.reduce((latest, day) => (day.day > latest ? day.day : latest), today);
  const list: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) list.push(day);
  return list;
}

/** The models in the order their colours and stacks take: most used first, so the biggest sits lowest. */
export function modelOrder(models: readonly ModelUsage[]): string[] {
  return [...models]
    .sort((a, b) => sumTokens(b.tokens) - sumTokens(a.tokens) || a.model.localeCompare(b.model))
    .map((model) => model.model);
}

/** How many colours the chart has (styles.css `--usage-color-N`); more models than this share them. */
export const COLOR_COUNT = 8;

export function colorOf(index: number): string {
  return `var(--usage-color-${index % COLOR_COUNT})`;
}

/** "claude-sonnet-4-5-20250929" as the legend says it: without the date the API adds. */
export function modelName(model: string): string {
  return model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
}

export interface StackSegment {
  model: string;
  /** Its bottom and top on the metric's axis. */
  y0: number;
  y1: number;
}

export interface DayStack {
  day: string;
  total: number;
  segments: StackSegment[];
}

/** Each day's bar: its models stacked in `order` (the ones a day did not use are left out). */
export function stackDays(
  dayList: readonly string[],
  days: readonly UsageDay[],
  metric: UsageMetric,
  order: readonly string[],
): DayStack[] {
  const byDay = new Map(days.map((day) => [day.day, day]));
  return dayList.map((day) => {
    const models = new Map((byDay.get(day)?.models ?? []).map((model) => [model.model, model]));
    const segments: StackSegment[] = [];
    let top = 0;
    for (const model of order) {
      const usage = models.get(model);
      const value = usage ? measure(metric, usage) : 0;
      if (value <= 0) continue;
      segments.push({ model, y0: top, y1: top + value });
      top += value;
    }
    return { day, total: top, segments };
  });
}

/** One bar of the folder or model grouping. */
export interface GroupBar {
  key: string;
  label: string;
  value: number;
  /** Its full name (a long folder path), for the tooltip. */
  title: string;
}

/** The bars for grouping by folder or by model, biggest first. */
export function groupBars(
  report: UsageReport,
  grouping: 'folder' | 'model',
  metric: UsageMetric,
): GroupBar[] {
  const bars =
    grouping === 'folder'
      ? report.folders.map((folder) => ({
          key: folder.folder ?? '',
          label: folder.folder ? lastPart(folder.folder) : 'No folder',
          title: folder.folder ?? 'Sessions that do not say where they ran',
          value: measure(metric, folder),
        }))
      : report.models.map((model) => ({
          key: model.model,
          label: modelName(model.model),
          title: model.model,
          value: measure(metric, model),
        }));
  return bars.filter((bar) => bar.value > 0).sort((a, b) => b.value - a.value || a.key.localeCompare(b.key));
}

function lastPart(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** The chart's scales: a band per bar across, the metric up (0 at the bottom, a round figure at the top). */
export function chartScales(keys: readonly string[], max: number, width: number, height: number) {
  const x = scaleBand<string>({ domain: [...keys], range: [0, width], padding: 0.2 });
  const y = scaleLinear<number>({ domain: [0, max > 0 ? max : 1], range: [height, 0], nice: true });
  return { x, y };
}

export type FolderColumn =
  'folder' | 'conversations' | 'input' | 'output' | 'cacheWrite' | 'cacheRead' | 'cost';
export type SortDirection = 'ascending' | 'descending';

function columnValue(row: FolderUsage, column: Exclude<FolderColumn, 'folder'>): number {
  if (column === 'conversations') return row.conversations;
  // Unpriced sorts below every priced figure, free ones included.
  if (column === 'cost') return row.cost.usd ?? -1;
  return row.tokens[column];
}

/** The folder table's rows by a column; ties keep the folders in name order, so the order never jumps. */
export function sortFolders(
  rows: readonly FolderUsage[],
  column: FolderColumn,
  direction: SortDirection,
): FolderUsage[] {
  const sign = direction === 'ascending' ? 1 : -1;
  const name = (row: FolderUsage) => row.folder ?? '';
  return [...rows].sort((a, b) => {
    const primary =
      column === 'folder' ? name(a).localeCompare(name(b)) : columnValue(a, column) - columnValue(b, column);
    return sign * primary || name(a).localeCompare(name(b));
  });
}

/** "38%" of what went in that was read from the cache. */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * The chart said in a sentence: "30 days: 1.2M tokens, $4.10 estimated; most on 12 Nov". The day named is
 * the one with most of the metric shown.
 */
export function summaryText(report: UsageReport, metric: UsageMetric, locale?: string): string {
  const range = RANGE_WORDS[report.range];
  const tokens = sumTokens(report.totals.tokens);
  if (tokens === 0) return `${range}: no usage`;
  let busiest: UsageDay | null = null;
  let most = 0;
  for (const day of report.days) {
    const value = day.models.reduce((sum, model) => sum + measure(metric, model), 0);
    if (value > most) [busiest, most] = [day, value];
  }
  const where = busiest && report.range !== 'today' ? `; most on ${dayLabel(busiest.day, locale)}` : '';
  return `${range}: ${formatTokens(tokens)} tokens, ${costWords(report.totals.cost)}${where}`;
}
