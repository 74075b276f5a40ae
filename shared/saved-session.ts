/**
 * Saved conversations as the events the live chat reduces, so one renderer shows both. Two kinds of file:
 *
 * - Byre's own transcripts: every line both ways as `{"dir":"send"|"recv","msg":…}`, one file per CLI run.
 *   A prompt Byre sent becomes the `prompt` event the live chat had; what the CLI said becomes `message`
 *   events, decoded with the same schemas; the byre MCP tool calls become `title` and `notify` events.
 * - The CLI's own session files (`~/.claude/projects/<cwd>/<session>.jsonl`): main-thread user and assistant
 *   entries become the stream-json lines the CLI would have written for them. They carry no `system/init`
 *   and no results, and the prompts arrive as plain user lines (shown as sent), so the reduced state is
 *   settled: nothing claims to be running.
 *
 * Pure (no Node, no DOM): the library reads files page by page in main and hands lines here.
 */
import { z } from 'zod';
import { CheckRun, SetupRun, type ConversationEvent, type TurnImage } from './ipc';
import { keptToolUseResult } from './conversation/questions';
import { keptWriteResult } from './conversation/write-result';
import { parseJsonLine } from './json-line';
import {
  decodeCliMessage,
  lenientResult,
  OutgoingUserMessage,
  SYSTEM_SUBTYPES,
  type CliMessage,
  type JsonObject,
} from './protocol';

export type SavedFormat = 'cli' | 'transcript';

/**
 * The `dir` of a transcript line Byre wrote itself rather than one that crossed the pipe: a reply cut off
 * by an interrupt or the CLI's exit, as the assistant line it never sent, marked `aborted`.
 */
export const BYRE_LINE = 'byre';
/** The `msg.type` of a Byre line that holds a run of the "Done when" check (`msg.check`: a CheckRun). */
export const CHECK_LINE = 'byre_check';
/** The `msg.type` of a Byre line that holds how a new worktree's setup command ended (`msg.run`: a SetupRun). */
export const SETUP_LINE = 'byre_setup';
/** A transcript's line saying the host its CLI ran on, over ssh (absent: this computer). */
export const HOST_LINE = 'byre_host';

/** What one line of a saved file turns into. */
export interface SavedLine {
  events: readonly ConversationEvent[];
  /** A prompt the user typed: a page may begin here without splitting a turn. */
  turnStart: boolean;
  /** A new CLI process began here (a transcript's initialize request): the one before it has ended. */
  processStart: boolean;
  /** The line could not be read (not JSON, or a message that fails its schema). */
  bad: boolean;
}

export interface ConvertedSession {
  events: ConversationEvent[];
  /** Lines that could not be read and were left out. */
  skipped: number;
}

const NOTHING: SavedLine = { events: [], turnStart: false, processStart: false, bad: false };
const BAD: SavedLine = { ...NOTHING, bad: true };

export function readSavedLine(format: SavedFormat, text: string): SavedLine {
  let parsed: unknown;
  try {
    parsed = parseJsonLine(text);
  } catch {
    return BAD;
  }
  if (!isObject(parsed)) return BAD;
  return format === 'cli' ? readCliEntry(parsed) : readTranscriptLine(parsed);
}

/**
 * Joins saved lines, in file order, into one event list. Where a transcript's CLI process ended in the
 * middle of a turn (it crashed, or was killed), an `exit` follows, as it did live, so nothing spins.
 */
export class SavedSessionEvents {
  skipped = 0;
  private events: ConversationEvent[] = [];
  /** Prompts of the current process that no result has answered yet, oldest first. */
  private readonly unanswered: string[] = [];
  private readonly started = new Set<string>();

  constructor(readonly format: SavedFormat) {}

  line(text: string): void {
    this.add(readSavedLine(this.format, text));
  }

  add(line: SavedLine): void {
    if (line.bad) {
      this.skipped += 1;
      return;
    }
    if (line.processStart) this.endProcess();
    for (const event of line.events) {
      this.follow(event);
      this.events.push(event);
    }
  }

  /** The events so far, handed over once: a long file is reduced batch by batch, not held whole. */
  take(): ConversationEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /** The end of one file; for a transcript, the end of one CLI process. */
  endFile(): void {
    this.endProcess();
  }

  private endProcess(): void {
    if (this.unanswered.length > 0) this.events.push({ kind: 'exit' });
    this.unanswered.length = 0;
    this.started.clear();
  }

  /** Keeps the same account of open prompts as the reducer does. */
  private follow(event: ConversationEvent): void {
    if (event.kind === 'prompt') {
      this.unanswered.push(event.uuid);
      return;
    }
    if (event.kind !== 'message') return;
    const message = event.message;
    if (message.type === 'result' && (!message.origin || message.origin.kind === 'human')) {
      this.unanswered.shift();
    } else if (message.type === 'command_lifecycle') {
      if (message.state === 'started') this.started.add(message.command_uuid);
      if (message.state === 'cancelled' && !this.started.has(message.command_uuid)) {
        const at = this.unanswered.indexOf(message.command_uuid);
        if (at !== -1) this.unanswered.splice(at, 1);
      }
    }
  }
}

/**
 * Converts whole files (their text, oldest first) as one conversation. A last line cut off mid-write is
 * left out without being counted; it is what a file being written, or a crash, leaves behind.
 */
export function convertSavedSession(format: SavedFormat, files: readonly string[]): ConvertedSession {
  const saved = new SavedSessionEvents(format);
  for (const text of files) {
    const lines = text.split('\n');
    const last = lines.pop() ?? '';
    for (const line of lines) if (line.trim().length > 0) saved.line(line);
    if (last.trim().length > 0) {
      const line = readSavedLine(format, last);
      if (!line.bad) saved.add(line);
    }
    saved.endFile();
  }
  return { events: saved.take(), skipped: saved.skipped };
}

// ---------------------------------------------------------------------------------------------------
// Byre transcripts

/** Lines that are not part of the conversation: the control channel both ways, and the CLI's heartbeat. */
const CONTROL_LINES = new Set(['control_response', 'control_cancel_request', 'keep_alive', 'stream_event']);
/** Line kinds the chat shows; one of these that fails its schema is damage, not news. */
const MESSAGE_TYPES = new Set(['assistant', 'user', 'result', 'tool_progress', 'command_lifecycle']);
/** What the driver records for a stdout line that was not JSON; it was reported live, and is skipped here. */
const UNPARSED_LINE = 'unparsed_line';

const ByreToolCall = z.looseObject({
  request: z.looseObject({
    subtype: z.literal('mcp_message'),
    message: z.looseObject({
      method: z.literal('tools/call'),
      params: z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
    }),
  }),
});
const SetTitleArguments = z.looseObject({ title: z.string().trim().min(1) });
const NotifyArguments = z.looseObject({
  message: z.string().trim().min(1),
  title: z.string().trim().min(1).optional(),
});

function readTranscriptLine(line: JsonObject): SavedLine {
  const { dir, msg } = line;
  if ((dir !== 'send' && dir !== 'recv' && dir !== BYRE_LINE) || !isObject(msg)) return BAD;
  if (dir === 'send') return readSentLine(msg);
  if (dir === BYRE_LINE) {
    if (msg.type === CHECK_LINE) {
      const check = CheckRun.safeParse(msg.check);
      return check.success ? { ...NOTHING, events: [{ kind: 'check', check: check.data }] } : BAD;
    }
    // Where it ran is the library's to know; it shows nothing in the conversation.
    if (msg.type === HOST_LINE) return NOTHING;
    if (msg.type === SETUP_LINE) {
      const run = SetupRun.safeParse(msg.run);
      return run.success ? { ...NOTHING, events: [{ kind: 'setup', run: run.data }] } : BAD;
    }
    // A reply the CLI cut off, as far as it had streamed (main/stream-tail.ts).
    const decoded = msg.type === 'assistant' ? decodeCliMessage(msg) : undefined;
    return decoded?.ok ? messageLine(decoded.message) : NOTHING;
  }
  const type = msg.type;
  if (type === 'control_request') return { ...NOTHING, events: byreToolEvents(msg) };
  if (typeof type !== 'string' || type === UNPARSED_LINE) return BAD;
  if (CONTROL_LINES.has(type)) return NOTHING;
  const decoded = decodeCliMessage(msg);
  if (decoded.ok) return messageLine(decoded.message);
  // A turn ends on its result even when a newer CLI changed its shape, as it did live.
  if (type === 'result') {
    const result = lenientResult(msg, stringField(msg.session_id), stringField(msg.uuid) || textId(msg));
    return result ? messageLine(result) : BAD;
  }
  // Kinds this app does not show (rate limits, new system notices, …) are not damage.
  const known = type === 'system' ? SYSTEM_SUBTYPES.has(String(msg.subtype)) : MESSAGE_TYPES.has(type);
  return known ? BAD : NOTHING;
}

function readSentLine(msg: JsonObject): SavedLine {
  if (msg.type === 'control_request') {
    const request = msg.request;
    return isObject(request) && request.subtype === 'initialize'
      ? { ...NOTHING, processStart: true }
      : NOTHING;
  }
  if (msg.type !== 'user') return NOTHING;
  const sent = OutgoingUserMessage.safeParse(msg);
  if (!sent.success) return BAD;
  const content = sent.data.message.content;
  const texts: string[] = [];
  const images: TurnImage[] = [];
  if (typeof content === 'string') {
    texts.push(content);
  } else {
    for (const block of content) {
      if (block.type === 'text') texts.push(block.text);
      else images.push({ mediaType: block.source.media_type, data: block.source.data });
    }
  }
  const event: ConversationEvent = { kind: 'prompt', uuid: sent.data.uuid, text: texts.join('\n'), images };
  return { ...NOTHING, events: [event], turnStart: true };
}

/** The byre MCP server's tools, called through the control channel: what they did in the app. */
function byreToolEvents(msg: JsonObject): ConversationEvent[] {
  const call = ByreToolCall.safeParse(msg);
  if (!call.success) return [];
  const { name, arguments: args = {} } = call.data.request.message.params;
  if (name === 'set_title') {
    const parsed = SetTitleArguments.safeParse(args);
    return parsed.success ? [{ kind: 'title', title: parsed.data.title }] : [];
  }
  if (name === 'notify') {
    const parsed = NotifyArguments.safeParse(args);
    if (!parsed.success) return [];
    const { message, title } = parsed.data;
    return [{ kind: 'notify', message, ...(title ? { title } : {}) }];
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------
// The CLI's session files

const INTERRUPTED = /^\[Request interrupted by user/;
const LOCAL_COMMAND_OUTPUT = /^<local-command-stdout>/;
const SLASH_COMMAND = /^<command-name>([\s\S]*?)<\/command-name>/;
const SLASH_COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;

function readCliEntry(entry: JsonObject): SavedLine {
  const type = entry.type;
  if (type === 'system' && entry.subtype === 'compact_boundary') return compactBoundaryLine(entry);
  if (type !== 'user' && type !== 'assistant') return NOTHING;
  // Subagent turns and the CLI's own reminders to the model are not part of the conversation shown.
  if (entry.isSidechain === true || entry.isMeta === true) return NOTHING;
  const message = isObject(entry.message) ? entry.message : undefined;
  if (!message) return BAD;
  const decoded = decodeCliMessage({
    type,
    message: type === 'user' ? withSlashCommand(message) : message,
    uuid: entry.uuid,
    session_id: stringField(entry.sessionId),
    parent_tool_use_id: null,
    // The summary Claude went on from: it folds into the compact marker just before it, as it does live.
    ...(entry.isCompactSummary === true ? { isSynthetic: true } : {}),
    ...(typeof entry.timestamp === 'string' ? { timestamp: entry.timestamp } : {}),
    // What a tool reported, kept by the session file under its own name: a question's answers, a plan's file, a
    // Write's file before it. Not every tool's: a read's is the whole file again.
    ...(keptToolUseResult(entry.toolUseResult) !== undefined || keptWriteResult(entry.toolUseResult)
      ? { tool_use_result: entry.toolUseResult }
      : {}),
  });
  if (!decoded.ok) return BAD;
  return messageLine(decoded.message, isTypedPrompt(decoded.message));
}

/** The file's compact boundary (its metadata in camelCase), as the stream's line: the compact marker. */
function compactBoundaryLine(entry: JsonObject): SavedLine {
  const meta = isObject(entry.compactMetadata) ? entry.compactMetadata : {};
  const decoded = decodeCliMessage({
    type: 'system',
    subtype: 'compact_boundary',
    session_id: stringField(entry.sessionId),
    uuid: stringField(entry.uuid) || textId(entry),
    compact_metadata: { trigger: meta.trigger, pre_tokens: meta.preTokens, post_tokens: meta.postTokens },
  });
  return decoded.ok ? messageLine(decoded.message) : BAD;
}

/** A slash command is stored as markup around what the user typed; show what they typed. */
function withSlashCommand(message: JsonObject): JsonObject {
  const content = message.content;
  if (typeof content !== 'string') return message;
  const command = SLASH_COMMAND.exec(content)?.[1];
  if (command === undefined) return message;
  const args = SLASH_COMMAND_ARGS.exec(content)?.[1]?.trim();
  return { ...message, content: args ? `${command} ${args}` : command };
}

/** A user line the person typed (not a tool result, an interruption marker or a command's output). */
function isTypedPrompt(message: CliMessage): boolean {
  if (message.type !== 'user' || message.parent_tool_use_id || message.isSynthetic) return false;
  const content = message.message.content;
  if (typeof content === 'string') return !INTERRUPTED.test(content) && !LOCAL_COMMAND_OUTPUT.test(content);
  let shown = false;
  for (const block of content) {
    if (block.type === 'tool_result') return false;
    if (block.type === 'text' && (INTERRUPTED.test(block.text) || LOCAL_COMMAND_OUTPUT.test(block.text)))
      return false;
    if (block.type === 'text' || block.type === 'image') shown = true;
  }
  return shown;
}

// ---------------------------------------------------------------------------------------------------

function messageLine(message: CliMessage, turnStart = false): SavedLine {
  return { ...NOTHING, events: [{ kind: 'message', message }], turnStart };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A stable id for a line that lacks one (FNV-1a of its text), so rereading it gives the same id. */
function textId(line: JsonObject): string {
  const text = JSON.stringify(line);
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `line-${(hash >>> 0).toString(16)}`;
}
