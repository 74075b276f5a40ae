/**
 * Usage from a session file's lines, for the Usage view (issue 29): each API message's tokens once, and for
 * Byre's transcripts each turn's real cost. The CLI writes one line per content block, each repeating the
 * message's `usage` so far; the index keeps one row per message id, held by the line (of either file) that
 * says most.
 * Pure; no Node, no I/O.
 */
import { z } from 'zod';
import { record, text, timestamp, type JsonRecord } from './json';
import { priceOf } from './pricing';
/** The two kinds of session file (entries.ts's FileKind, which imports this file). */
type FileKind = 'cli' | 'transcript';

/** What a file's read so far left open for its usage: kept with its facts, so a tail read goes on from it. */
export const UsageState = z.object({
  /** Transcripts: the messages of the turn not yet ended by its result line. */
  pending: z.array(z.string()),
  /** The model the open turn used last (the turn's real cost is filed under it). */
  pendingModel: z.string().nullable(),
  /** The CLI process's running `total_cost_usd` at the last result (a transcript is one process). */
  processCost: z.number(),
  /** Its running `modelUsage[model].costUSD` at the last result, by model (absent in older facts). */
  processModelCosts: z.record(z.string(), z.number()).optional(),
});
export type UsageState = z.infer<typeof UsageState>;

export function emptyUsageState(): UsageState {
  return { pending: [], pendingModel: null, processCost: 0, processModelCosts: {} };
}

/**
 * Which lane a message was asked through, and so what it bills to (cli-facts 19): the CLI writes its
 * `entrypoint` on every line of its session file, `cli` for the interactive terminal (a subscription's plan),
 * `sdk-cli` (and the SDKs' `sdk-ts`, `sdk-py`) for a programmatic run (the Agent SDK credit, or an API key).
 * Byre's own transcripts are all stream-json. `unknown`: a line that does not say (an older CLI, another tool).
 */
export type UsageLane = 'terminal' | 'stream' | 'unknown';

export function laneOfEntrypoint(entrypoint: unknown): UsageLane {
  if (entrypoint === 'cli') return 'terminal';
  if (typeof entrypoint === 'string' && entrypoint.startsWith('sdk-')) return 'stream';
  return 'unknown';
}

/** One API message's usage. `estUsd` null: its model has no price. */
export interface MessageUsage {
  kind: 'message';
  key: string;
  lane: UsageLane;
  model: string;
  time: number;
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  estUsd: number | null;
}

/** A turn of a Byre transcript ended: what it really cost, by model, and the messages that cost covers. */
export interface TurnCost {
  kind: 'turn';
  /** The result line's uuid, else its place in the file. */
  key: string;
  time: number;
  /** The turn's cost split by model (one part when the result does not say how it was split). */
  parts: { model: string; usd: number }[];
  covers: string[];
}

export type UsageRead = MessageUsage | TurnCost;

/** A turn's open messages kept at most (a turn that never ends must not grow the file's facts forever). */
const MAX_PENDING = 5000;
/** The CLI's local slash commands write assistant lines under this model; no API call was made. */
const SYNTHETIC = '<synthetic>';

/**
 * The usage one parsed line holds, if any. `fallbackTime`: when the line does not say (the latest time the
 * file said before it). `place` names the line when it has no uuid.
 */
export function readUsage(
  kind: FileKind,
  value: unknown,
  state: UsageState,
  fallbackTime: number,
  place: string,
): UsageRead | null {
  const line = record(value);
  if (!line) return null;
  if (kind === 'cli') {
    if (line.type !== 'assistant') return null;
    return messageUsage(line, fallbackTime, laneOfEntrypoint(line.entrypoint));
  }
  const msg = record(line.msg);
  if (line.dir !== 'recv' || !msg) return null;
  if (msg.type === 'assistant') {
    const usage = messageUsage(msg, fallbackTime, 'stream');
    if (usage && state.pending.length < MAX_PENDING && !state.pending.includes(usage.key)) {
      state.pending.push(usage.key);
    }
    if (usage) state.pendingModel = usage.model;
    return usage;
  }
  if (msg.type !== 'result' || typeof msg.total_cost_usd !== 'number') return null;
  const total = msg.total_cost_usd;
  // The running total of the process; a smaller one means the CLI started again.
  const restarted = total < state.processCost;
  const usd = Math.max(0, restarted ? total : total - state.processCost);
  const modelCosts = costsByModel(msg.modelUsage);
  const split = splitByModel(usd, modelCosts, restarted ? {} : (state.processModelCosts ?? {}));
  const turn: TurnCost = {
    kind: 'turn',
    key: text(msg.uuid) ?? place,
    time: timestamp(msg.timestamp) ?? fallbackTime,
    parts: split ?? [{ model: state.pendingModel ?? firstModel(msg.modelUsage) ?? 'unknown', usd }],
    covers: state.pending,
  };
  state.pending = [];
  state.pendingModel = null;
  state.processCost = total;
  state.processModelCosts = modelCosts;
  return turn;
}

/** A result's running `costUSD` by model, from its `modelUsage` ({model: {costUSD, inputTokens, …}}). */
function costsByModel(value: unknown): Record<string, number> {
  const costs: Record<string, number> = {};
  for (const [model, usage] of Object.entries(record(value) ?? {})) {
    const cost = record(usage)?.costUSD;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) costs[model] = cost;
  }
  return costs;
}

/**
 * A turn's cost split by what each model's running cost grew by since the last result, scaled so the parts
 * add up to the turn's own `total_cost_usd` figure; null when the result does not say (no model grew).
 */
function splitByModel(
  usd: number,
  now: Record<string, number>,
  before: Record<string, number>,
): { model: string; usd: number }[] | null {
  const grew = Object.entries(now)
    .map(([model, cost]) => ({ model, usd: cost - (before[model] ?? 0) }))
    .filter((part) => part.usd > 0);
  const sum = grew.reduce((total, part) => total + part.usd, 0);
  if (sum <= 0) return null;
  return grew.map((part) => ({ model: part.model, usd: (part.usd / sum) * usd }));
}

function messageUsage(entry: JsonRecord, fallbackTime: number, lane: UsageLane): MessageUsage | null {
  const message = record(entry.message);
  const usage = record(message?.usage);
  const model = text(message?.model);
  if (!message || !usage || !model || model === SYNTHETIC) return null;
  // The message id names the API response in every file that holds it (a transcript has no requestId, so
  // keying on both would count a message twice when the CLI's file holds it too).
  const key = text(message.id) ?? text(entry.requestId) ?? text(entry.uuid);
  if (!key) return null;
  const creation = record(usage.cache_creation);
  const write1h = count(creation?.ephemeral_1h_input_tokens);
  const cacheWrite = Math.max(
    count(usage.cache_creation_input_tokens),
    count(creation?.ephemeral_5m_input_tokens) + write1h,
  );
  const tokens = {
    input: count(usage.input_tokens),
    output: count(usage.output_tokens),
    cacheWrite5m: cacheWrite - write1h,
    cacheWrite1h: write1h,
    cacheRead: count(usage.cache_read_input_tokens),
  };
  return {
    kind: 'message',
    key,
    lane,
    model,
    time: timestamp(entry.timestamp) ?? fallbackTime,
    input: tokens.input,
    output: tokens.output,
    cacheWrite,
    cacheRead: tokens.cacheRead,
    estUsd: priceOf(model, tokens),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function firstModel(value: unknown): string | null {
  const models = record(value);
  return models ? (Object.keys(models)[0] ?? null) : null;
}

/** Usage is summed in 15-minute UTC buckets: fine enough for any time zone's days (all offsets are 15-min). */
export const BUCKET_MS = 15 * 60 * 1000;

export function bucketOf(ms: number): number {
  return Math.floor(ms / BUCKET_MS) * BUCKET_MS;
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The local day (YYYY-MM-DD) an instant falls on in an IANA time zone; throws RangeError for a bad zone. */
export function localDay(ms: number, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The day `days` before a YYYY-MM-DD day (calendar arithmetic, no time zone involved). */
export function daysBefore(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
}
