import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ConversationEvent } from '../../shared/ipc';
import { eventJson } from './event-json';

/**
 * What an open conversation has shown, for a window that opens later (a reload, a second window). It
 * crosses to the renderer as its last screenful plus a cursor, and earlier pages as the user scrolls up,
 * the way a saved conversation does; no window ever receives the whole history at once.
 *
 * Every event is appended to a file of its own as one JSON line (written once per tick, or every 64 KB),
 * and only the newest few megabytes stay in memory, so a conversation of hundreds of megabytes costs main
 * a few bytes an event. If the file cannot be written, the events stay in memory instead: nothing is lost.
 *
 * Pages begin where the conversation can be reduced in parts: at a prompt (a turn's start), so a tool call
 * keeps its result; a turn too long for one page is cut at a reply.
 */

export interface EventPage {
  events: ConversationEvent[];
  /** Where the page before this one ends (an event index, as the contract's opaque cursor); null at the start. */
  before: string | null;
}

/** The last page, and what the conversation is as a whole from before it (to apply first). */
export interface EventWindow extends EventPage {
  prelude: ConversationEvent[];
}

export interface EventLogLimits {
  /** Prompts and replies a page holds at least, unless the start comes first. */
  minMessages: number;
  /** Past this many bytes a page ends at the next turn's start even with fewer messages. */
  softBytes: number;
  /** Past this many bytes a page is cut at a reply, inside a turn. */
  hardBytes: number;
  /** The newest events kept parsed in memory, in bytes of JSON. */
  memoryBytes: number;
}

const DEFAULT_LIMITS: EventLogLimits = {
  minMessages: 60,
  softBytes: 1024 * 1024,
  hardBytes: 4 * 1024 * 1024,
  memoryBytes: 1024 * 1024,
};

/** Buffered lines are written at this size at the latest. */
const WRITE_BYTES = 64 * 1024;

/** The kind of place an event is in the conversation, for cutting pages. */
const Place = {
  Other: 0,
  /** A prompt: a turn starts here. */
  TurnStart: 1,
  /** A reply (an assistant line): a page may start here if a turn is too long for one. */
  Reply: 2,
} as const;
type Place = (typeof Place)[keyof typeof Place];

export class EventLog {
  private fd: number | undefined;
  /** Byte offset of each event in the file; the file's length after the last. */
  private readonly starts: number[] = [0];
  /** Prompts and replies before each event (same indexing as `starts`). */
  private readonly messages: number[] = [0];
  private readonly places: Place[] = [];
  /** The newest events, parsed: those from `memoryFrom` on. */
  private memory: ConversationEvent[] = [];
  private memoryFrom = 0;
  /** Lines not written yet. */
  private pending: string[] = [];
  private pendingBytes = 0;
  private flushTimer: NodeJS.Immediate | undefined;
  /** Written up to here (the rest is in `pending`). */
  private writtenBytes = 0;
  /** Events that set what a conversation is as a whole, the latest of each kind, for a window that starts later. */
  private readonly sticky = new Map<string, { index: number; event: ConversationEvent }>();
  /** Permission requests still waiting, by request id. */
  private readonly waiting = new Map<string, { index: number; event: ConversationEvent }>();
  private readonly limits: EventLogLimits;
  /** Turns running or queued (prompts not yet answered by a result). */
  private turns = 0;
  /** Tool calls waiting for their results. */
  private readonly calls = new Set<string>();
  /** The API message id of the last reply line (the CLI writes a line per content block). */
  private lastReply: string | undefined;

  constructor(
    readonly path: string,
    limits: Partial<EventLogLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      this.fd = openSync(path, 'w+', 0o600);
    } catch {
      // Kept in memory instead.
      this.fd = undefined;
    }
  }

  /** Events so far. */
  get length(): number {
    return this.places.length;
  }

  append(event: ConversationEvent): void {
    const index = this.places.length;
    const text = `${eventJson(event)}\n`;
    const bytes = Buffer.byteLength(text);
    const place = this.placeOf(event);
    this.places.push(place);
    this.starts.push(this.end + bytes);
    this.messages.push(this.messageCount(index) + (isMessage(event) ? 1 : 0));
    this.memory.push(event);
    this.remember(index, event);
    if (this.fd !== undefined) {
      this.pending.push(text);
      this.pendingBytes += bytes;
      if (this.pendingBytes >= WRITE_BYTES) this.flush();
      else this.flushTimer ??= setImmediate(() => this.flush());
    }
    this.forget();
  }

  /** The last screenful, with what the conversation is as a whole from before it. */
  window(): EventWindow {
    const end = this.length;
    const start = this.pageStart(end);
    const prelude = [...this.sticky.values(), ...this.waiting.values()]
      .filter((entry) => entry.index < start)
      .sort((a, b) => a.index - b.index)
      .map((entry) => entry.event);
    return { prelude, events: this.read(start, end), before: start > 0 ? String(start) : null };
  }

  /** The page that ends where `before` (a cursor from an earlier page) says. */
  pageBefore(before: string): EventPage {
    const end = Number(before);
    if (!/^\d+$/.test(before) || end <= 0 || end > this.length) {
      throw new Error('This page of the conversation no longer matches it; reopen the conversation.');
    }
    const start = this.pageStart(end);
    return { events: this.read(start, end), before: start > 0 ? String(start) : null };
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (this.fd === undefined || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    try {
      const bytes = Buffer.from(text);
      for (let done = 0; done < bytes.length;) {
        done += writeSync(this.fd, bytes, done, bytes.length - done, this.writtenBytes + done);
      }
      this.writtenBytes += bytes.length;
    } catch {
      this.keepInMemory();
    }
  }

  /** Removes the file: the conversation is closed. */
  close(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    this.pending = [];
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Removed below either way.
      }
      this.fd = undefined;
    }
    try {
      rmSync(this.path, { force: true });
    } catch {
      // It never was made.
    }
  }

  private get end(): number {
    return this.starts[this.starts.length - 1] ?? 0;
  }

  private messageCount(index: number): number {
    return this.messages[index] ?? 0;
  }

  private remember(index: number, event: ConversationEvent): void {
    switch (event.kind) {
      case 'title':
      case 'model':
      case 'permission_mode':
      case 'done_when':
        this.sticky.set(event.kind, { index, event });
        break;
      // The header's last check result; its card stays where it is in the log.
      case 'check':
        this.sticky.set('check', { index, event: { kind: 'check_status', check: event.check } });
        break;
      // The process's state: the latest of the two says whether it runs.
      case 'exit':
      case 'resumed':
        this.sticky.set('process', { index, event });
        break;
      case 'permission_request':
        this.waiting.set(event.requestId, { index, event });
        break;
      case 'permission_resolved':
        this.waiting.delete(event.requestId);
        break;
      default:
        break;
    }
  }

  /** Drops the oldest parsed events past the memory budget; they are read back from the file. */
  private forget(): void {
    if (this.fd === undefined) return;
    let drop = 0;
    const limit = this.limits.memoryBytes;
    while (drop < this.memory.length - 1 && this.end - this.startOf(this.memoryFrom + drop + 1) > limit) {
      drop++;
    }
    // In chunks, so the array is not shifted on every event.
    if (drop >= 256 || (drop > 0 && drop * 2 >= this.memory.length)) {
      this.memory = this.memory.slice(drop);
      this.memoryFrom += drop;
    }
  }

  /**
   * Where a page may begin: at a prompt typed while no turn ran (a queued one belongs to the turn before
   * it); inside a long turn, at the first line of a top-level reply while no tool call waits for its result
   * (so a call keeps its result, a reply its blocks and a subagent its card).
   */
  private placeOf(event: ConversationEvent): Place {
    switch (event.kind) {
      case 'prompt':
        return this.turns++ === 0 ? Place.TurnStart : Place.Other;
      case 'prompt_cancelled':
        this.turns = Math.max(0, this.turns - 1);
        return Place.Other;
      case 'exit':
        this.turns = 0;
        this.calls.clear();
        return Place.Other;
      case 'message':
        break;
      default:
        return Place.Other;
    }
    const message = event.message;
    if (message.type === 'result') {
      this.turns = Math.max(0, this.turns - 1);
      // A call whose result never came (an interrupt) holds nothing up past its turn.
      if (this.turns === 0) this.calls.clear();
      return Place.Other;
    }
    if (message.type === 'user') {
      for (const id of toolIds(message.message.content, 'tool_result')) this.calls.delete(id);
      return Place.Other;
    }
    if (message.type !== 'assistant') return Place.Other;
    const messageId = message.message.id;
    const starts =
      messageId !== this.lastReply && message.parent_tool_use_id === null && this.calls.size === 0;
    this.lastReply = messageId;
    for (const id of toolIds(message.message.content, 'tool_use')) this.calls.add(id);
    return starts ? Place.Reply : Place.Other;
  }

  private startOf(index: number): number {
    return this.starts[index] ?? this.end;
  }

  /** Where the page ending before event `end` begins. */
  private pageStart(end: number): number {
    const { minMessages, softBytes, hardBytes } = this.limits;
    const endByte = this.startOf(end);
    let cut = -1;
    for (let index = end - 1; index > 0; index--) {
      const place = this.places[index];
      if (place === Place.Other) continue;
      const bytes = endByte - this.startOf(index);
      const enough = this.messageCount(end) - this.messageCount(index) >= minMessages || bytes >= softBytes;
      if (place === Place.TurnStart && enough) return index;
      // No turn starts within the hard limit: the nearest reply that makes the page enough will do. (Not the
      // farthest one within the limit: a long turn would reopen with megabytes where a screenful does.)
      if (place === Place.Reply && enough && cut === -1) cut = index;
      if (bytes >= hardBytes && cut !== -1) return cut;
    }
    return 0;
  }

  private read(start: number, end: number): ConversationEvent[] {
    if (start >= end) return [];
    if (start >= this.memoryFrom) return this.memory.slice(start - this.memoryFrom, end - this.memoryFrom);
    this.flush();
    const fromFile = Math.min(end, this.memoryFrom);
    const first = this.startOf(start);
    const buffer = Buffer.alloc(this.startOf(fromFile) - first);
    if (this.fd === undefined)
      throw new Error('The earlier part of this conversation could not be read back.');
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(this.fd, buffer, read, buffer.length - read, first + read);
      if (got === 0) break;
      read += got;
    }
    const events: ConversationEvent[] = [];
    let offset = 0;
    while (offset < read) {
      const newline = buffer.indexOf(0x0a, offset);
      const lineEnd = newline === -1 ? read : newline;
      events.push(JSON.parse(buffer.toString('utf8', offset, lineEnd)) as ConversationEvent);
      offset = lineEnd + 1;
    }
    return [...events, ...this.memory.slice(0, end - fromFile)];
  }

  /** Writing failed: from now on everything stays in memory (what was written is read back first). */
  private keepInMemory(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    let earlier: ConversationEvent[] = [];
    try {
      earlier = this.read(0, this.memoryFrom);
    } catch {
      // What could not be read back is lost from the window, not from the transcript.
    }
    this.memory = [...earlier, ...this.memory];
    this.memoryFrom = 0;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Nothing more is written to it.
    }
  }
}

/** A prompt or a reply: what a page holds a number of. */
function isMessage(event: ConversationEvent): boolean {
  return event.kind === 'prompt' || (event.kind === 'message' && event.message.type === 'assistant');
}

/** The ids of the tool calls an assistant line makes, or of the results a user line carries. */
function toolIds(content: unknown, type: 'tool_use' | 'tool_result'): string[] {
  if (!Array.isArray(content)) return [];
  const ids: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const { type: kind, id, tool_use_id: toolUseId } = block as Record<string, unknown>;
    const found = type === 'tool_use' ? id : toolUseId;
    if (kind === type && typeof found === 'string') ids.push(found);
  }
  return ids;
}
