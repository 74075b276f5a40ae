import type {
  ConversationUsage,
  FolderUsage,
  LaneUsage,
  ModelUsage,
  TokenCounts,
  UsageCost,
  UsageDay,
  UsageRange,
  UsageReport,
} from '../../../shared/ipc/usage';
import { worktreeLayout } from '../../../shared/worktrees';
import { PRICING_CHECKED_AT } from '../rules/pricing';
import { BUCKET_MS, daysBefore, localDay } from '../rules/usage';
import type { IndexStore, UsageBucketRow, WindowUsageRow } from './store';

/**
 * The Usage view's figures: a query over the index's 15-minute usage sums (never a read of the files), each
 * bucket put on the local day its start falls on in the asked time zone, so a DST change moves no usage.
 */

export interface UsageQuery {
  range: UsageRange;
  folder: string | null;
  timeZone: string;
}

const RANGE_DAYS: Record<Exclude<UsageRange, 'all'>, number> = { today: 1, '7d': 7, '30d': 30, '90d': 90 };
/** Buckets are asked from this far before the first day's UTC midnight: no zone is further ahead than +14h. */
const ZONE_SLACK_MS = 15 * 60 * 60 * 1000;

/** What some usage cost, in the buckets' terms: estimates, how many were priced, and real turns' costs. */
export interface CostSum {
  estUsd: number;
  estimated: number;
  unpriced: number;
  realUsd: number;
  realTurns: number;
}

/** A sum of usage and cost, as the buckets hold it. */
interface Sum extends CostSum {
  tokens: TokenCounts;
}

function emptySum(): Sum {
  return {
    tokens: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
    estUsd: 0,
    estimated: 0,
    unpriced: 0,
    realUsd: 0,
    realTurns: 0,
  };
}

function add(sum: Sum, row: WindowUsageRow): void {
  sum.tokens.input += row.input;
  sum.tokens.output += row.output;
  sum.tokens.cacheWrite += row.cache_write;
  sum.tokens.cacheRead += row.cache_read;
  sum.estUsd += row.est_usd;
  sum.estimated += row.estimated;
  sum.unpriced += row.unpriced;
  sum.realUsd += row.real_usd;
  sum.realTurns += row.real_turns;
}

/** The one rule for what a sum cost, which the Usage view and the library's rows both follow. */
export function costOf(sum: CostSum): UsageCost {
  const priced = sum.estimated > 0 || sum.realTurns > 0;
  // Sums of many small floats: a removed row can leave a hair below zero.
  const usd = Math.max(0, sum.estUsd + sum.realUsd);
  return {
    usd: priced ? usd : null,
    estimated: sum.estimated > 0,
    unpricedTokens: Math.max(0, sum.unpriced),
  };
}

function tokensOf(sum: Sum): number {
  const t = sum.tokens;
  return t.input + t.output + t.cacheWrite + t.cacheRead;
}

/** Sums keyed by some part of a bucket row, in first-seen order. */
class Groups<K> {
  readonly sums = new Map<K, Sum>();
  add(key: K, row: WindowUsageRow): Sum {
    let sum = this.sums.get(key);
    if (!sum) {
      sum = emptySum();
      this.sums.set(key, sum);
    }
    add(sum, row);
    return sum;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The local day of each bucket in a time zone, found cheaply: asking Intl is slow, and all time can hold tens
 * of thousands of buckets. So the zone's offset is asked at both ends of each UTC day, and where it is the same
 * (every day but one with a DST change) that day's buckets are placed by arithmetic; on a day whose offset
 * changes, each bucket is asked of Intl itself. No zone changes its offset twice in one day.
 */
class LocalDays {
  private readonly offsets = new Map<number, number | null>();
  private readonly days = new Map<number, string>();
  private readonly clock: Intl.DateTimeFormat;

  constructor(private readonly timeZone: string) {
    this.clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  }

  of(bucket: number): string {
    let day = this.days.get(bucket);
    if (day === undefined) {
      const offset = this.offsetOfUtcDay(Math.floor(bucket / DAY_MS));
      day =
        offset === null
          ? localDay(bucket, this.timeZone)
          : new Date(bucket + offset).toISOString().slice(0, 10);
      this.days.set(bucket, day);
    }
    return day;
  }

  /** The zone's offset (ms) all through a UTC day, or null when it changes during it. */
  private offsetOfUtcDay(utcDay: number): number | null {
    let offset = this.offsets.get(utcDay);
    if (offset === undefined) {
      const start = utcDay * DAY_MS;
      const first = this.offsetAt(start);
      offset = first === this.offsetAt(start + DAY_MS - BUCKET_MS) ? first : null;
      this.offsets.set(utcDay, offset);
    }
    return offset;
  }

  /** The zone's offset at an instant on a whole minute: its wall clock read as UTC, less the instant. */
  private offsetAt(ms: number): number {
    const parts: Record<string, number> = {};
    for (const part of this.clock.formatToParts(ms)) parts[part.type] = Number(part.value);
    const wall = Date.UTC(
      parts.year ?? 1970,
      (parts.month ?? 1) - 1,
      parts.day ?? 1,
      parts.hour ?? 0,
      parts.minute ?? 0,
    );
    return wall - ms;
  }
}

/** The buckets of local days from `firstDay` (YYYY-MM-DD) on, or of every day; each with its local day. */
function bucketsFrom(
  store: IndexStore,
  firstDay: string | null,
  query: { folder: string | null; timeZone: string },
): { row: UsageBucketRow; day: string }[] {
  const from = firstDay === null ? 0 : Date.parse(`${firstDay}T00:00:00Z`) - ZONE_SLACK_MS;
  const days = new LocalDays(query.timeZone);
  const rows: { row: UsageBucketRow; day: string }[] = [];
  for (const row of store.usageBuckets(from, query.folder)) {
    const day = days.of(row.bucket);
    if (firstDay === null || day >= firstDay) rows.push({ row, day });
  }
  return rows;
}

function byCost(a: { sum: Sum }, b: { sum: Sum }): number {
  const cost = a.sum.estUsd + a.sum.realUsd - (b.sum.estUsd + b.sum.realUsd);
  return cost !== 0 ? -cost : tokensOf(b.sum) - tokensOf(a.sum);
}

function conversations(groups: Groups<string>, info: Map<string, WindowUsageRow>): ConversationUsage[] {
  return [...groups.sums]
    .map(([sessionId, sum]) => ({ sessionId, sum }))
    .sort(byCost)
    .map(({ sessionId, sum }) => conversationUsage(sessionId, sum, info));
}

function conversationUsage(
  sessionId: string,
  sum: Sum,
  info: Map<string, WindowUsageRow>,
): ConversationUsage {
  const row = info.get(sessionId);
  return {
    sessionId,
    title: row?.title ?? sessionId,
    folder: row?.cwd ?? null,
    tokens: sum.tokens,
    cost: costOf(sum),
  };
}

function modelsOf(groups: Groups<string>): ModelUsage[] {
  return [...groups.sums]
    .map(([model, sum]) => ({ model, sum }))
    .sort(byCost)
    .map(({ model, sum }) => ({ model, tokens: sum.tokens, cost: costOf(sum) }));
}

/** Where a session ran, as the sidebar groups folders: a worktree under its repository. */
function folderOf(cwd: string | null): string | null {
  return cwd === null ? null : (worktreeLayout(cwd)?.repository ?? cwd);
}

const LANE_ORDER: LaneUsage['lane'][] = ['terminal', 'stream', 'unknown'];

export function usageReport(
  store: IndexStore,
  query: UsageQuery,
  now: number,
  indexing: boolean,
): UsageReport {
  const today = localDay(now, query.timeZone);
  const firstDay = query.range === 'all' ? null : daysBefore(today, RANGE_DAYS[query.range] - 1);
  const total = emptySum();
  const days = new Map<string, Groups<string>>();
  const folders = new Groups<string | null>();
  const folderSessions = new Map<string | null, Set<string>>();
  const models = new Groups<string>();
  const sessions = new Groups<string>();
  const info = new Map<string, UsageBucketRow>();
  const lanes = new Groups<LaneUsage['lane']>();
  const laneSessions = new Map<LaneUsage['lane'], Set<string>>();
  for (const { row, day } of bucketsFrom(store, firstDay, query)) {
    add(total, row);
    lanes.add(row.lane, row);
    const inLane = laneSessions.get(row.lane) ?? new Set();
    inLane.add(row.session_id);
    laneSessions.set(row.lane, inLane);
    let dayModels = days.get(day);
    if (!dayModels) {
      dayModels = new Groups();
      days.set(day, dayModels);
    }
    dayModels.add(row.model, row);
    const folder = folderOf(row.cwd);
    folders.add(folder, row);
    const inFolder = folderSessions.get(folder) ?? new Set();
    inFolder.add(row.session_id);
    folderSessions.set(folder, inFolder);
    models.add(row.model, row);
    sessions.add(row.session_id, row);
    info.set(row.session_id, row);
  }
  const usageDays: UsageDay[] = [...days]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([day, groups]) => ({ day, models: modelsOf(groups) }));
  const folderRows: FolderUsage[] = [...folders.sums]
    .map(([folder, sum]) => ({ folder, sum }))
    .sort(byCost)
    .map(({ folder, sum }) => ({
      folder,
      conversations: folderSessions.get(folder)?.size ?? 0,
      tokens: sum.tokens,
      cost: costOf(sum),
    }));
  const read = total.tokens.input + total.tokens.cacheWrite + total.tokens.cacheRead;
  return {
    range: query.range,
    folder: query.folder,
    timeZone: query.timeZone,
    days: usageDays,
    folders: folderRows,
    models: modelsOf(models),
    lanes: LANE_ORDER.flatMap((lane) => {
      const sum = lanes.sums.get(lane);
      return sum && (tokensOf(sum) > 0 || sum.realTurns > 0)
        ? [{ lane, conversations: laneSessions.get(lane)?.size ?? 0, tokens: sum.tokens, cost: costOf(sum) }]
        : [];
    }),
    totals: {
      conversations: sessions.sums.size,
      tokens: total.tokens,
      cost: costOf(total),
      cacheReadShare: read === 0 ? 0 : total.tokens.cacheRead / read,
      top: conversations(sessions, info).slice(0, 10),
    },
    pricingCheckedAt: PRICING_CHECKED_AT,
    indexing,
  };
}

/** The conversations with usage on one local day, most costly first. */
export function usageDayConversations(
  store: IndexStore,
  query: { day: string; folder: string | null; timeZone: string },
): ConversationUsage[] {
  const sessions = new Groups<string>();
  const info = new Map<string, UsageBucketRow>();
  for (const { row, day } of bucketsFrom(store, query.day, query)) {
    if (day !== query.day) continue;
    sessions.add(row.session_id, row);
    info.set(row.session_id, row);
  }
  return conversations(sessions, info);
}

/** The conversations the limit window's share list shows at most. */
const WINDOW_CONVERSATIONS = 50;

/**
 * The usage since a moment (a limit window's start), by the messages' own times rather than their buckets,
 * so a window that starts mid-bucket takes nothing from before it: each conversation's share, most tokens
 * first, and all of it together.
 */
export function windowUsage(
  store: IndexStore,
  since: number,
): { total: TokenCounts; conversations: ConversationUsage[] } {
  const { messages, turns } = store.windowUsage(since);
  const total = emptySum();
  const sessions = new Groups<string>();
  const info = new Map<string, WindowUsageRow>();
  for (const row of [...messages, ...turns]) {
    add(total, row);
    sessions.add(row.session_id, row);
    info.set(row.session_id, row);
  }
  const conversations = [...sessions.sums]
    .sort(([, a], [, b]) => tokensOf(b) - tokensOf(a))
    .slice(0, WINDOW_CONVERSATIONS)
    .map(([sessionId, sum]) => conversationUsage(sessionId, sum, info));
  return { total: total.tokens, conversations };
}
