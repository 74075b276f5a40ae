import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { parseJsonLine } from '../../../shared/json-line';
import { shortenStrings } from '../../claude/shorten';
import { CHUNK_BYTES, readAt, readLines, type LibraryFs } from '../../disk/files';
import {
  emptyFacts,
  FileFacts,
  type FileKind,
  isSidechainStart,
  MESSAGE_TEXT_CHARS,
  readEntry,
  type MessageRead,
} from '../rules/entries';
import { emptyUsageState, readUsage, type UsageRead } from '../rules/usage';
import type { Preview } from './rows';
import type { FilePatch, FileRow } from './store';

/**
 * Reading one session file for the index, without holding it in memory: the cheap preview of its head and
 * tail, and the full read of a few MB from where the last step stopped. What is read is returned; the index
 * files it (library-index.ts).
 */

/** How much of a file's start and end gives its title, folder, branch and last activity (as the SDK reads). */
const PREVIEW_BYTES = 64 * 1024;
/** A rewrite is noticed by a changed hash of this much of the file's start. */
const HASH_BYTES = 4096;
/** A reading step reads about this much before the worker answers requests again. */
export const STEP_BYTES = 2 * CHUNK_BYTES;
/** How far into a transcript its session id is looked for before giving up. */
const SESSION_ID_SEARCH_BYTES = 64 * 1024 * 1024;
/** Lines longer than this have their long strings cut before they are parsed, to this many bytes. */
const LONG_LINE_BYTES = 64 * 1024;
const KEPT_STRING_BYTES = 2 * MESSAGE_TEXT_CHARS;

export type TimedMessage = MessageRead & { time: number };

/**
 * The cheap read: the first and last 64 KB of a file give its session's title, folder, branch and last
 * activity, and a message count estimated from their density. The full read replaces it.
 */
export function readPreview(
  fs: LibraryFs,
  fd: number,
  row: FileRow & { kind: FileKind },
): { preview: Preview; sessionId: string | null; sidechain: boolean } {
  const lines = sampleLines(fs, fd, row);
  const facts = emptyFacts(row.kind === 'cli' ? row.session_id : null);
  const uuids = new Set<string>();
  let sidechain = false;
  lines.values.forEach((value, index) => {
    if (index === 0 && lines.fromStart && isSidechainStart(row.kind, value)) sidechain = true;
    const read = readEntry(row.kind, value, facts);
    if (read?.uuid) uuids.add(read.uuid);
  });
  facts.summaries = facts.summaries
    .filter((summary) => uuids.has(summary.leafUuid))
    .map((summary) => ({ ...summary, verified: true }));
  const preview: Preview = { facts, sizeAt: row.size, sampled: lines.bytes };
  const sessionId = row.session_id ?? facts.sessionId;
  return { preview, sessionId, sidechain };
}

/** The parsed lines of a file's head (if it has not been read yet) and tail. */
function sampleLines(
  fs: LibraryFs,
  fd: number,
  row: FileRow,
): { values: unknown[]; bytes: number; fromStart: boolean } {
  const fromStart = row.offset === 0;
  const head = fromStart ? readAt(fs, fd, 0, Math.min(row.size, PREVIEW_BYTES)) : Buffer.alloc(0);
  const headEnd = fromStart ? head.length : row.offset;
  const tailStart = Math.max(headEnd, row.size - PREVIEW_BYTES);
  const tail = tailStart < row.size ? readAt(fs, fd, tailStart, row.size - tailStart) : Buffer.alloc(0);
  let texts: string[];
  if (tailStart === headEnd) {
    texts = Buffer.concat([head, tail]).toString('utf8').split('\n');
  } else {
    // The head's last line and the tail's first are cut by the window: both are left out.
    texts = [
      ...head.toString('utf8').split('\n').slice(0, -1),
      ...tail.toString('utf8').split('\n').slice(1),
    ];
  }
  const values: unknown[] = [];
  for (const line of texts) {
    const value = parseLine(line);
    if (value !== undefined) values.push(value);
  }
  return { values, bytes: head.length + tail.length, fromStart };
}

/** What a step of the full read found: the file is a subagent's, has no session id yet, or was read on. */
export type WindowRead =
  | { read: 'sidechain' }
  | { read: 'no-session'; eof: boolean }
  | { read: 'read'; patch: FilePatch; end: number; sessionId: string; usage: UsageRead[] };

/** The full read: a few MB from where the last step stopped, each message handed to `add` under its session. */
export function readWindow(
  fs: LibraryFs,
  fd: number,
  row: FileRow,
  add: (sessionId: string, message: TimedMessage) => void,
): WindowRead {
  const facts = FileFacts.parse(JSON.parse(row.facts));
  // A transcript's session id comes in the CLI's first answer; the preview has usually seen it already.
  facts.sessionId ??= row.session_id;
  let badLines = row.bad_lines;
  let nonUtf8Lines = row.non_utf8_lines;
  let sidechain = false;
  const held: TimedMessage[] = [];
  const usage: UsageRead[] = [];
  const usageState = facts.usage ?? emptyUsageState();
  // A subagent's transcript is read for its usage only: its messages are not its parent conversation's.
  const kind = row.kind === 'subagent' ? null : row.kind;
  const index = (message: TimedMessage) => {
    if (facts.sessionId === null) {
      held.push(message);
      return;
    }
    for (const earlier of held.splice(0)) add(facts.sessionId, earlier);
    add(facts.sessionId, message);
  };
  const window = readLines(
    {
      fs,
      fd,
      from: row.offset,
      budget: facts.sessionId === null ? SESSION_ID_SEARCH_BYTES : STEP_BYTES,
      skipping: row.state === 'skipping',
    },
    (line, start) => {
      if (!isUtf8(line)) nonUtf8Lines += 1;
      // Only the start of a long string is indexed (MESSAGE_TEXT_CHARS at most): the rest need not be parsed.
      const text = (line.length > LONG_LINE_BYTES ? shortenStrings(line, KEPT_STRING_BYTES) : line).toString(
        'utf8',
      );
      if (text.trim() === '') return true;
      const value = parseLine(text);
      if (value === undefined) {
        badLines += 1;
        return true;
      }
      if (kind !== null) {
        if (start === 0 && isSidechainStart(kind, value)) {
          sidechain = true;
          return false;
        }
        const read = readEntry(kind, value, facts);
        if (read) index({ ...read, time: read.time ?? row.mtime });
      }
      const used = readUsage(kind ?? 'cli', value, usageState, facts.lastActive ?? row.mtime, `@${start}`);
      if (used) usage.push(used);
      return true;
    },
  );
  if (sidechain) return { read: 'sidechain' };
  if (facts.sessionId === null) return { read: 'no-session', eof: window.eof };
  for (const earlier of held.splice(0)) add(facts.sessionId, earlier);
  if (facts.usage || usage.length > 0) facts.usage = usageState;
  const hashLength = Math.min(HASH_BYTES, window.end);
  const patch: FilePatch = {
    offset: window.end,
    state: window.skipping ? 'skipping' : window.eof && window.end < row.size ? 'tail' : 'reading',
    facts: JSON.stringify(facts),
    session_id: facts.sessionId,
    bad_lines: badLines,
    non_utf8_lines: nonUtf8Lines,
    long_lines: row.long_lines + window.longLines,
    ...(window.end >= row.size ? { preview: null } : {}),
    ...(hashLength > row.head_len
      ? { head_len: hashLength, head_hash: hash(readAt(fs, fd, 0, hashLength)) }
      : {}),
  };
  return { read: 'read', patch, end: window.end, sessionId: facts.sessionId, usage };
}

function parseLine(line: string): unknown {
  if (line.trim() === '') return undefined;
  try {
    return parseJsonLine(line);
  } catch {
    return undefined;
  }
}

export function hash(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}
