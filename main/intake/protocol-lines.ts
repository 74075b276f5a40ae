import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ProtocolLine, ProtocolLinesRequest, ProtocolLinesResponse } from '../../shared/ipc';

/**
 * The protocol inspector's reading of Byre's transcripts: the raw `send` and `recv` lines (and Byre's own)
 * behind one message, or the whole session's, filtered by type and by a search, in file order.
 *
 * The lines behind a message are those that carry its uuid (the prompt Byre sent, the CLI's replay of it,
 * its lifecycle), its API message id (one assistant line per content block), or one of its tool calls' ids
 * (the tool results, the permission requests and Byre's answers to them).
 */

type Behind = NonNullable<ProtocolLinesRequest['behind']>;

/** What kind of line it is, as the filter lists it: `assistant`, `system/init`, `control_request/can_use_tool`. */
export function lineType(msg: Record<string, unknown>): string {
  const type = typeof msg.type === 'string' ? msg.type : 'unknown';
  const sub =
    typeof msg.subtype === 'string'
      ? msg.subtype
      : isRecord(msg.request) && typeof msg.request.subtype === 'string'
        ? msg.request.subtype
        : isRecord(msg.response) && typeof msg.response.subtype === 'string'
          ? msg.response.subtype
          : null;
  return sub ? `${type}/${sub}` : type;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The strings in a line that tie it to a message: uuids, message ids, tool use ids, request ids. */
function keysOf(msg: Record<string, unknown>): { ids: string[]; answers: string | null } {
  const ids: string[] = [];
  const push = (value: unknown) => typeof value === 'string' && ids.push(value);
  push(msg.uuid);
  push(msg.command_uuid);
  push(msg.tool_use_id);
  const message = isRecord(msg.message) ? msg.message : null;
  if (message) {
    push(message.id);
    if (Array.isArray(message.content)) {
      for (const block of message.content) {
        if (!isRecord(block)) continue;
        push(block.tool_use_id);
        if (block.type === 'tool_use') push(block.id);
      }
    }
  }
  let answers: string | null = null;
  if (isRecord(msg.request)) push(msg.request.tool_use_id);
  if (isRecord(msg.response) && typeof msg.response.request_id === 'string')
    answers = msg.response.request_id;
  return { ids, answers };
}

interface Scan {
  lines: ProtocolLine[];
  total: number;
  types: Map<string, number>;
}

/**
 * Reads the transcripts in order and keeps the lines asked for: at most `limit` (the first ones), with how
 * many matched in all and, for the type filter, how many lines of each type there are behind the message
 * (or in the session) before the type and the search narrow them.
 */
export async function readProtocolLines(
  files: readonly string[],
  request: Pick<ProtocolLinesRequest, 'behind' | 'types' | 'query' | 'limit'>,
): Promise<ProtocolLinesResponse> {
  const scan: Scan = { lines: [], total: 0, types: new Map() };
  const wanted = request.behind ? new Set(keyList(request.behind)) : null;
  const types = request.types ? new Set(request.types) : null;
  const query = request.query.trim().toLowerCase();
  let unreadable = 0;
  for (const [fileIndex, file] of files.entries()) {
    // Permission requests behind the message, so that the answers to them are too.
    const requests = new Set<string>();
    let number = 0;
    try {
      const input = createInterface({
        input: createReadStream(file, { encoding: 'utf8' }),
        crlfDelay: Infinity,
      });
      for await (const text of input) {
        number++;
        if (!text) continue;
        // Cheap first: a line that names none of the keys is not read as JSON.
        if (wanted && !mentionsAny(text, wanted, requests)) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          unreadable++;
          continue;
        }
        if (!isRecord(parsed) || !isRecord(parsed.msg)) continue;
        const dir =
          parsed.dir === 'send' || parsed.dir === 'recv' || parsed.dir === 'byre' ? parsed.dir : null;
        if (!dir) continue;
        const msg = parsed.msg;
        if (wanted) {
          const { ids, answers } = keysOf(msg);
          const matched = ids.some((id) => wanted.has(id)) || (answers !== null && requests.has(answers));
          if (!matched) continue;
          const requestId = typeof msg.request_id === 'string' ? msg.request_id : null;
          if (requestId && msg.type === 'control_request') requests.add(requestId);
        }
        const type = lineType(msg);
        scan.types.set(type, (scan.types.get(type) ?? 0) + 1);
        if (types && !types.has(type)) continue;
        const json = written(msg);
        if (query && !(json ?? text).toLowerCase().includes(query)) continue;
        scan.total++;
        if (scan.lines.length < request.limit) {
          const shown =
            json === null
              ? { text, cut: 'Nested too deeply to format: the line as the transcript has it.' }
              : shortened(msg, json);
          scan.lines.push({ file: fileIndex, line: number, dir, type, ...capped(shown) });
        }
      }
    } catch {
      // A transcript that went away or cannot be read: the others still answer.
      unreadable++;
    }
  }
  return {
    lines: scan.lines,
    total: scan.total,
    types: [...scan.types]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => a.type.localeCompare(b.type)),
    files: files.length,
    unreadable,
  };
}

/** A line longer than this (an image's base64, a huge tool result) is sent with its long strings cut. */
const LINE_MAX_CHARS = 100_000;
const STRING_KEPT_CHARS = 2_000;

/**
 * The line's message as JSON; null when it is nested too deeply for JSON.stringify (which recurses, where
 * JSON.parse does not), so that one such line is shown as it was written and the rest of the file still read.
 */
function written(msg: Record<string, unknown>): string | null {
  try {
    return JSON.stringify(msg);
  } catch {
    return null;
  }
}

function shortened(msg: Record<string, unknown>, json: string): { text: string; cut: string | null } {
  if (json.length <= LINE_MAX_CHARS) return { text: json, cut: null };
  let cut = false;
  const text = JSON.stringify(msg, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length <= STRING_KEPT_CHARS) return value;
    cut = true;
    return `${value.slice(0, STRING_KEPT_CHARS)}… [${value.length - STRING_KEPT_CHARS} more characters]`;
  });
  return { text, cut: cut ? 'Long strings shortened.' : null };
}

/** Still too long (many short strings, or a line shown as written): its start, saying how much is left out. */
function capped(line: { text: string; cut: string | null }): { text: string; cut: string | null } {
  if (line.text.length <= LINE_MAX_CHARS) return line;
  const left = `The first ${LINE_MAX_CHARS.toLocaleString('en')} of ${line.text.length.toLocaleString('en')} characters.`;
  return { text: line.text.slice(0, LINE_MAX_CHARS), cut: line.cut ? `${line.cut} ${left}` : left };
}

function keyList(behind: Behind): string[] {
  return [...behind.uuids, ...behind.apiMessageIds, ...behind.toolUseIds];
}

function mentionsAny(text: string, keys: ReadonlySet<string>, requests: ReadonlySet<string>): boolean {
  for (const key of keys) if (text.includes(key)) return true;
  for (const id of requests) if (text.includes(id)) return true;
  return false;
}
