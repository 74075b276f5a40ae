/**
 * Usage and limits (issue 29): where the tokens and the money went, from the library's index (a query over
 * aggregates it keeps as it indexes, never a scan), and how close the plan's limits are, from the CLI's
 * `rate_limit_event` lines. And a message kept to be sent when a limit resets, which survives a restart.
 */
import { z } from 'zod';
import { RateLimitInfo } from '../protocol';
import { SessionId } from '../library';
import { ConversationRef, Empty } from './refs';
import { HostName } from './remote';

/** The span a report covers, ending now: today (local midnight on), the last 7/30/90 days, or everything. */
export const UsageRange = z.enum(['today', '7d', '30d', '90d', 'all']);
export type UsageRange = z.infer<typeof UsageRange>;

/** How the chart groups: by the user's local day, by folder, or by model. */
export const UsageGrouping = z.enum(['day', 'folder', 'model']);
export type UsageGrouping = z.infer<typeof UsageGrouping>;

const Count = z.number().int().nonnegative();

/** Tokens by kind. A message counts once, by its `message.id` (and `requestId`), sidechains included. */
export const TokenCounts = z.object({
  input: Count,
  output: Count,
  /** Cache writes, 5-minute and 1-hour together. */
  cacheWrite: Count,
  cacheRead: Count,
});
export type TokenCounts = z.infer<typeof TokenCounts>;

/**
 * What some usage cost: `usd` is the CLI's own `total_cost_usd` where Byre's transcripts have it, else an
 * estimate from the pricing table (`estimated`: some part of it is). Tokens of a model the table does not
 * know are left out of `usd` and counted in `unpricedTokens`; `usd` is null when nothing could be priced.
 */
export const UsageCost = z.object({
  usd: z.number().nonnegative().nullable(),
  estimated: z.boolean(),
  unpricedTokens: Count,
});
export type UsageCost = z.infer<typeof UsageCost>;

/** One model's share of a group. `model` is the API's id ("claude-sonnet-4-5-20250929"). */
export const ModelUsage = z.object({
  model: z.string(),
  tokens: TokenCounts,
  cost: UsageCost,
});
export type ModelUsage = z.infer<typeof ModelUsage>;

/** One local day (YYYY-MM-DD in the request's time zone): its usage by model. Days with none are left out. */
export const UsageDay = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  models: z.array(ModelUsage),
});
export type UsageDay = z.infer<typeof UsageDay>;

/** One folder's row of the "Usage by folder" table. `folder` null: sessions that do not say where they ran. */
export const FolderUsage = z.object({
  folder: z.string().nullable(),
  conversations: Count,
  tokens: TokenCounts,
  cost: UsageCost,
});
export type FolderUsage = z.infer<typeof FolderUsage>;

/**
 * One lane's share (cli-facts 19): `terminal`, the interactive CLI, which a subscription's plan limits cover;
 * `stream`, stream-json runs, which a subscription bills to the Agent SDK credit (an API key, to the API);
 * `unknown`, messages whose lines do not say (an older CLI). A conversation carried from one lane to the other
 * counts in both. Its cost is at API rates whatever pays for it.
 */
export const LaneUsage = z.object({
  lane: z.enum(['terminal', 'stream', 'unknown']),
  conversations: Count,
  tokens: TokenCounts,
  cost: UsageCost,
});
export type LaneUsage = z.infer<typeof LaneUsage>;

/** One conversation's usage in the range: for the top 10, and a day's list. Each opens in the library. */
export const ConversationUsage = z.object({
  sessionId: SessionId,
  title: z.string(),
  folder: z.string().nullable(),
  tokens: TokenCounts,
  cost: UsageCost,
});
export type ConversationUsage = z.infer<typeof ConversationUsage>;

export const UsageTotals = z.object({
  conversations: Count,
  tokens: TokenCounts,
  cost: UsageCost,
  /** cacheRead / (input + cacheWrite + cacheRead); 0 when there were none. */
  cacheReadShare: z.number().min(0).max(1),
  /** The ten that cost the most (by tokens where unpriced), most first. */
  top: z.array(ConversationUsage).max(10),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

/** Everything the Usage view shows for a range (and folder), so that switching the grouping asks nothing. */
export const UsageReport = z.object({
  range: UsageRange,
  folder: z.string().nullable(),
  timeZone: z.string(),
  days: z.array(UsageDay),
  folders: z.array(FolderUsage),
  models: z.array(ModelUsage),
  /** The range's usage by lane, terminal first; lanes with none are left out. */
  lanes: z.array(LaneUsage),
  totals: UsageTotals,
  /** The pricing table's date (YYYY-MM-DD): when its rates were last checked. */
  pricingCheckedAt: z.string(),
  /** Whether the index is still reading files: the figures may still grow. */
  indexing: z.boolean(),
});
export type UsageReport = z.infer<typeof UsageReport>;

/** A limit window as last reported, by kind ("five_hour", "seven_day", …); `at`: when it came (ms). */
export const LimitWindow = z.object({
  rateLimitType: z.string(),
  info: RateLimitInfo,
  at: z.number(),
});
export type LimitWindow = z.infer<typeof LimitWindow>;

export const Limits = z.object({
  windows: z.array(LimitWindow),
  /** The share of a window at which a notification is shown (Settings; 0.9 by default). */
  alertAt: z.number().min(0.01).max(1),
});
export type Limits = z.infer<typeof Limits>;

/** A message kept to be sent when a limit resets: sent once at `sendAt` (ms), after a restart too. */
export const ScheduledSend = z.object({
  id: z.string().uuid(),
  sessionId: SessionId,
  /** The conversation's folder, to resume it in if it is not open then. */
  cwd: z.string(),
  /** The host it runs on, over ssh; null or absent: this computer. It is sent there or not at all. */
  host: HostName.nullable().optional(),
  text: z.string().min(1).max(1_000_000),
  sendAt: z.number(),
  createdAt: z.number(),
  /** Why the last attempt failed, if one did (it is then not tried again on its own). */
  failed: z.string().nullable(),
});
export type ScheduledSend = z.infer<typeof ScheduledSend>;

export const usageChannels = {
  /** The Usage view's figures for a range, in the user's time zone, optionally for one folder (and its worktrees). */
  usageReport: {
    request: z.object({
      range: UsageRange,
      folder: z.string().max(4096).nullable(),
      timeZone: z.string().min(1).max(100),
    }),
    response: UsageReport,
  },
  /** The conversations of one local day, most costly first. */
  usageDayConversations: {
    request: z.object({
      day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      folder: z.string().max(4096).nullable(),
      timeZone: z.string().min(1).max(100),
    }),
    response: z.object({ conversations: z.array(ConversationUsage) }),
  },
  /** The limit windows as last reported across all conversations (they are the account's, not one's). */
  limits: { request: Empty, response: Limits },
  /**
   * The usage since a moment (ms; a limit window's start, `resetsAt` less its length), by conversation, most
   * tokens first: each conversation's share of the current window. `total`: all of it together.
   */
  windowUsage: {
    request: z.object({ since: z.number().nonnegative() }),
    response: z.object({
      total: TokenCounts,
      conversations: z.array(ConversationUsage).max(50),
    }),
  },
  /**
   * Keeps a message to be sent when the conversation's reached limit resets (its `resetsAt`). Refused when no
   * limit of this conversation is reached or its reset time is not known.
   */
  sendWhenLimitResets: {
    request: ConversationRef.extend({ text: z.string().min(1).max(1_000_000) }),
    response: ScheduledSend,
  },
  scheduledSends: { request: Empty, response: z.object({ sends: z.array(ScheduledSend) }) },
  /** `cancelled` false: it was no longer waiting (main had sent it already). */
  cancelScheduledSend: {
    request: z.object({ id: z.string().uuid() }),
    response: z.object({ cancelled: z.boolean() }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

/** Events of this domain, merged into eventChannels. */
export const usageEvents = {
  /** A limit window changed (a rate_limit_event came in any conversation). */
  limitsChanged: Limits,
  /** A message was kept, sent, failed or cancelled: all that wait, as now. */
  scheduledSendsChanged: z.object({ sends: z.array(ScheduledSend) }),
  /** The index took in more usage (a file was indexed or grew): an open Usage view asks again. */
  usageChanged: Empty,
} satisfies Record<string, z.ZodType>;
