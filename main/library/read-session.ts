import { open, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import type { ConversationEvent } from '../../shared/ipc';
import {
  readSavedLine,
  SavedSessionEvents,
  type SavedFormat,
  type SavedLine,
} from '../../shared/saved-session';
import { CHUNK_BYTES, MAX_LINE_BYTES } from '../disk/files';

/**
 * A saved conversation crosses to the renderer as its last screenful, and earlier pages as the user scrolls
 * up. Pages are read backwards from the end of the file in fixed chunks, so the first paint of a 100 MB
 * session reads a few megabytes of it, and no file, however large, is ever held in memory whole.
 */

export interface SessionSource {
  cliFile: string | null;
  /** Byre's transcripts of the session, oldest first. */
  transcripts: string[];
}

export interface SessionPage {
  events: ConversationEvent[];
  /** Where the next earlier page ends; null: the start is reached. */
  before: string | null;
  /** Lines that could not be read and were left out. */
  skipped: number;
}

export interface PageOptions {
  /** User and assistant messages a page holds at least, unless the start comes first. */
  minMessages?: number;
}

/** The files a session is read from, in order, and how to read them. */
export interface SessionFiles {
  format: SavedFormat;
  paths: string[];
}

const DEFAULT_MIN_MESSAGES = 60;
/** Reads start small (most pages need a few kilobytes) and double up to CHUNK_BYTES. */
const FIRST_READ_BYTES = 64 * 1024;
/** Past this much, a page may begin inside a long turn, at a message that splits no tool call from its result. */
const PAGE_SOFT_BYTES = 2 * 1024 * 1024;
/** Past this much, a page begins at the next message whatever it splits (a subagent that ran for hours). */
const PAGE_HARD_BYTES = 4 * 1024 * 1024;

/**
 * The CLI's session file when it exists: it is one file per session, and a resume appends to it, so it holds
 * everything. Otherwise Byre's transcripts, which keep a session the CLI has cleaned up.
 */
export async function sessionFiles(source: SessionSource): Promise<SessionFiles> {
  if (source.cliFile !== null && (await exists(source.cliFile))) {
    return { format: 'cli', paths: [source.cliFile] };
  }
  return { format: 'transcript', paths: source.transcripts };
}

/**
 * The last page: at least `minMessages` user/assistant messages, beginning at a turn boundary (a prompt the
 * user typed) so a tool call and its result stay together.
 */
export async function readLastPage(source: SessionSource, options: PageOptions = {}): Promise<SessionPage> {
  const files = await sessionFiles(source);
  if (files.paths.length === 0) return { events: [], before: null, skipped: 0 };
  return readPage(files, { file: files.paths.length - 1, offset: null }, options);
}

export async function readPageBefore(
  source: SessionSource,
  before: string,
  options: PageOptions = {},
): Promise<SessionPage> {
  const cursor = parseCursor(before);
  const paths =
    cursor.format === 'cli' ? (source.cliFile === null ? [] : [source.cliFile]) : source.transcripts;
  if (cursor.file >= paths.length) throw invalidCursor();
  return readPage({ format: cursor.format, paths }, { file: cursor.file, offset: cursor.offset }, options);
}

// ---------------------------------------------------------------------------------------------------
// Pages

/** A place in the session: a byte offset in one of its files; null is the file's end. */
interface Position {
  file: number;
  offset: number | null;
}

const Cursor = z.object({
  format: z.enum(['cli', 'transcript']),
  file: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
});
type Cursor = z.infer<typeof Cursor>;

/** The cursor of the page that ends at `offset` of a session's CLI file (its end as it was, say). */
export function cliCursorAt(offset: number): string {
  return JSON.stringify({ format: 'cli', file: 0, offset } satisfies Cursor);
}

function parseCursor(text: string): Cursor {
  try {
    return Cursor.parse(JSON.parse(text));
  } catch {
    throw invalidCursor();
  }
}

function invalidCursor(): Error {
  return new Error('This page of the conversation no longer matches its files; reopen the conversation.');
}

interface PageLine {
  file: number;
  start: number;
  line: SavedLine;
}

async function readPage(files: SessionFiles, end: Position, options: PageOptions): Promise<SessionPage> {
  const minMessages = options.minMessages ?? DEFAULT_MIN_MESSAGES;
  /** Newest first. */
  const lines: PageLine[] = [];
  const scan = new BackwardScan();
  let bytes = 0;
  /** Where the page begins, once a place to begin it is found. */
  let begin: PageLine | null = null;
  let more = false;
  for await (const raw of linesBackward(files.paths, end)) {
    bytes += raw.bytes;
    if (raw.text !== null && raw.text.trim().length === 0) continue;
    const line = raw.text === null ? TOO_LONG : readSavedLine(files.format, raw.text);
    // A last line cut off mid-write is what a file being written, or a crash, leaves: not damage.
    if (line.bad && !raw.terminated) continue;
    if (begin !== null && line.events.length > 0) {
      more = true;
      break;
    }
    // Past the beginning only lines without events come here: those before the first message (a
    // transcript's control handshake) belong to the first page, not to a page of their own.
    const here: PageLine = { file: raw.file, start: raw.start, line };
    lines.push(here);
    if (begin !== null) continue;
    const { startsMessage, opensTurn, settled } = scan.see(line);
    if (
      startsMessage &&
      ((opensTurn && settled && scan.messages >= minMessages) ||
        (bytes >= PAGE_SOFT_BYTES && settled) ||
        bytes >= PAGE_HARD_BYTES)
    ) {
      begin = here;
    }
  }
  const page = more && begin ? lines.slice(0, lines.indexOf(begin) + 1) : lines;
  return {
    ...toEvents(files.format, page.reverse(), end),
    before:
      more && begin
        ? JSON.stringify({ format: files.format, file: begin.file, offset: begin.start } satisfies Cursor)
        : null,
  };
}

const TOO_LONG: SavedLine = { events: [], turnStart: false, processStart: false, bad: true };

/**
 * Reads the lines of a page newest first and tells where the page may begin: at a prompt that opened a
 * turn, with every tool result after it paired with its call. A page is reduced on its own before the
 * earlier ones arrive, so it must hold whole turns.
 */
class BackwardScan {
  /** User and assistant messages seen. */
  messages = 0;
  /** Tool results seen whose call lies further back. */
  private readonly unmatched = new Set<string>();
  /** Lines seen; a larger number is further back. */
  private seen = 0;
  /** The first result after the scan's position (human turns only). */
  private nextResult: number | null = null;
  /** Prompts the CLI reported on, and where it said each started. */
  private readonly reported = new Set<string>();
  private readonly started = new Map<string, number>();

  see(line: SavedLine): { startsMessage: boolean; opensTurn: boolean; settled: boolean } {
    this.seen += 1;
    let startsMessage = false;
    let opensTurn = false;
    for (const event of line.events) {
      if (event.kind === 'prompt') {
        startsMessage = true;
        this.messages += 1;
        opensTurn = line.turnStart && this.ranAtOnce(event.uuid);
        continue;
      }
      if (event.kind !== 'message') continue;
      const message = event.message;
      switch (message.type) {
        case 'assistant':
          startsMessage = true;
          this.messages += 1;
          for (const block of message.message.content)
            if (block.type === 'tool_use') this.unmatched.delete(block.id);
          break;
        case 'user':
          startsMessage = true;
          this.messages += 1;
          opensTurn = line.turnStart;
          if (typeof message.message.content === 'string') break;
          for (const block of message.message.content)
            if (block.type === 'tool_result') this.unmatched.add(block.tool_use_id);
          break;
        case 'result':
          if (!message.origin || message.origin.kind === 'human') this.nextResult = this.seen;
          break;
        case 'command_lifecycle':
          this.reported.add(message.command_uuid);
          if (message.state === 'started') this.started.set(message.command_uuid, this.seen);
          break;
      }
    }
    return { startsMessage, opensTurn, settled: this.unmatched.size === 0 };
  }

  /**
   * A prompt sent while another turn still ran (queued behind it) does not open a turn: a page beginning
   * there would answer it with the other turn's result. The CLI's lifecycle lines tell: a prompt that ran at
   * once started before the next result; a prompt nothing was said about is taken to have run at once.
   */
  private ranAtOnce(uuid: string): boolean {
    if (!this.reported.has(uuid) || this.nextResult === null) return true;
    const started = this.started.get(uuid);
    return started !== undefined && started > this.nextResult;
  }
}

/** The page's lines in file order, as events; a file whose end the page holds closes its CLI process. */
function toEvents(
  format: SavedFormat,
  lines: readonly PageLine[],
  end: Position,
): { events: ConversationEvent[]; skipped: number } {
  const saved = new SavedSessionEvents(format);
  let file = lines[0]?.file;
  for (const { file: lineFile, line } of lines) {
    if (lineFile !== file) saved.endFile();
    file = lineFile;
    saved.add(line);
  }
  if (file !== undefined && (file < end.file || end.offset === null)) saved.endFile();
  return { events: saved.take(), skipped: saved.skipped };
}

// ---------------------------------------------------------------------------------------------------
// Reading lines backwards

interface RawLine {
  file: number;
  /** Byte offset of the line's first byte in its file. */
  start: number;
  /** Bytes of the line and its newline. */
  bytes: number;
  /** null: longer than MAX_LINE_BYTES, skipped unread. */
  text: string | null;
  /** False for a last line with no newline after it. */
  terminated: boolean;
}

/** Every line before `end`, newest first, across the files (the later files first). */
async function* linesBackward(paths: readonly string[], end: Position): AsyncGenerator<RawLine> {
  for (let file = end.file; file >= 0; file -= 1) {
    const path = paths[file];
    if (path === undefined) continue;
    const handle = await openIfThere(path);
    // A transcript removed since the library listed it: the rest of the session still reads.
    if (!handle) continue;
    try {
      const size = (await handle.stat()).size;
      const from = file === end.file && end.offset !== null ? end.offset : size;
      if (from > size) throw invalidCursor();
      const lines = new BackwardLines(handle, from);
      for (let line = await lines.previous(); line; line = await lines.previous()) yield { file, ...line };
    } finally {
      await handle.close();
    }
  }
}

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * One file's lines, read backwards from `end` in reads of up to CHUNK_BYTES. Memory stays within one chunk plus the
 * line being assembled, which is capped at MAX_LINE_BYTES.
 */
class BackwardLines {
  /** Bytes [windowStart, windowStart + window.length) of the file, as last read. */
  private window: Buffer = EMPTY;
  private windowStart: number;
  /** Where the next line to return ends (its newline, or the end of the file); -1 once the start is passed. */
  private lineEnd: number;
  private terminated = true;
  private primed = false;
  private nextRead = FIRST_READ_BYTES;

  constructor(
    private readonly handle: FileHandle,
    end: number,
  ) {
    this.windowStart = end;
    this.lineEnd = end;
  }

  async previous(): Promise<Omit<RawLine, 'file'> | null> {
    if (!this.primed) await this.prime();
    if (this.lineEnd < 0) return null;
    const terminated = this.terminated;
    this.terminated = true;
    const inWindow = this.lineEnd - this.windowStart;
    const at = inWindow > 0 ? this.window.lastIndexOf(NEWLINE, inWindow - 1) : -1;
    if (at !== -1) {
      const start = this.windowStart + at + 1;
      const text = this.window.toString('utf8', at + 1, inWindow);
      return this.yieldLine(start, text, terminated);
    }
    // The line began before the window: read back, chunk by chunk, to its start.
    const tail = this.window.subarray(0, Math.max(inWindow, 0));
    let parts: Buffer[] = [tail];
    let length = tail.length;
    let tooLong = false;
    while (this.windowStart > 0) {
      const chunk = await this.read();
      const newline = chunk.lastIndexOf(NEWLINE);
      if (newline !== -1) {
        const head = chunk.subarray(newline + 1);
        length += head.length;
        const start = this.windowStart + newline + 1;
        const text =
          tooLong || length > MAX_LINE_BYTES ? null : Buffer.concat([head, ...parts]).toString('utf8');
        return this.yieldLine(start, text, terminated);
      }
      length += chunk.length;
      if (!tooLong) parts.unshift(chunk);
      if (length > MAX_LINE_BYTES) {
        tooLong = true;
        parts = [];
      }
    }
    const text = tooLong ? null : Buffer.concat(parts).toString('utf8');
    return this.yieldLine(0, text, terminated);
  }

  private yieldLine(start: number, text: string | null, terminated: boolean): Omit<RawLine, 'file'> {
    const bytes = this.lineEnd - start + (terminated ? 1 : 0);
    this.lineEnd = start - 1;
    return { start, bytes, text, terminated };
  }

  /** Reads the last chunk; a file that does not end in a newline has an unterminated last line. */
  private async prime(): Promise<void> {
    this.primed = true;
    if (this.windowStart === 0) {
      this.lineEnd = -1;
      return;
    }
    await this.read();
    if (this.window[this.window.length - 1] === NEWLINE) {
      this.lineEnd -= 1;
    } else {
      this.terminated = false;
    }
  }

  /** The next bytes before the window; they become the window. */
  private async read(): Promise<Buffer> {
    const length = Math.min(this.nextRead, this.windowStart);
    this.nextRead = Math.min(this.nextRead * 2, CHUNK_BYTES);
    const buffer = Buffer.allocUnsafe(length);
    const position = this.windowStart - length;
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buffer, filled, length - filled, position + filled);
      if (bytesRead === 0) throw new Error('The file was cut short while it was being read.');
      filled += bytesRead;
    }
    this.window = buffer;
    this.windowStart = position;
    return buffer;
  }
}

async function openIfThere(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  const handle = await openIfThere(path);
  await handle?.close();
  return handle !== null;
}
