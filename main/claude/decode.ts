import { decodeCliMessage, rewrittenBlocks, type CliMessage, type JsonObject } from '../../shared/protocol';
import { shortenStrings } from './shorten';
import { fastDecode } from './fast-decode';
import type { LineSink } from './lines';

/** The decode stage between framing and dispatch: each stdout line is parsed once and typed once. */

export interface BadLine {
  problem: string;
  /** The line's text, when it was not JSON (cut to 1,000 characters). */
  text?: string;
  /** The parsed line, when it was JSON but of an unknown kind or failed its schema. */
  line?: JsonObject;
}

export interface DecodedSink {
  /** A typed line, with its text as received (for the transcript). */
  message(message: CliMessage, text: string): void;
  /** A JSON object this app does not understand: reported as bad, and still passed on. */
  raw(line: JsonObject, problem: string, text: string): void;
  bad(bad: BadLine): void;
}

/**
 * The text of a line that decoded to a faithful copy of it, kept on the decoded message under a symbol that
 * is not enumerable: JSON, Object.keys, spreads and copies never see it, so a changed copy of a message
 * never carries its original's text. (A WeakMap of them cost more than the decode itself: each of a
 * stream's lines is an entry the collector must trace.)
 */
const LINE_TEXT = Symbol('line text');

function keepLineText(message: CliMessage, text: string): void {
  Object.defineProperty(message, LINE_TEXT, { value: text });
}

/** The JSON of a decoded message as the CLI wrote it, if the decode changed nothing in it. */
export function lineTextOf(message: CliMessage): string | undefined {
  return (message as { [LINE_TEXT]?: string })[LINE_TEXT];
}

/**
 * A line longer than this (in characters) is not shown whole: its long strings (a tool's enormous output, say) are cut to
 * SHOWN_STRING_BYTES before it is parsed, so neither the host nor the page holds it. The transcript still
 * gets the line as received.
 */
export const SHOWN_LINE_BYTES = 4 * 1024 * 1024;
export const SHOWN_STRING_BYTES = 256 * 1024;

/** Said where a string was cut, as it is written inside a JSON string (the line breaks escaped). */
function cutMarker(bytes: number): string {
  return `\\n\\n[Byre cut ${(bytes / 1e6).toFixed(1)} MB here: too large to show. The transcript has it whole.]`;
}

export function decodingLineSink(sink: DecodedSink): LineSink {
  return {
    line(received) {
      // `text` is what is parsed and shown; `received` what goes to the transcript.
      // Never a control line: a permission request's input is what the CLI runs if the user allows it,
      // and must go back whole. Nor an image's base64, which cut would be no image.
      const text =
        received.length > SHOWN_LINE_BYTES && !received.includes('"type":"control_')
          ? shortenStrings(Buffer.from(received, 'utf8'), SHOWN_STRING_BYTES, cutMarker, ['data']).toString(
              'utf8',
            )
          : received;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        sink.bad({ problem: 'The CLI wrote a line that is not JSON.', text: text.slice(0, 1_000) });
        return;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        sink.bad({ problem: 'The CLI wrote a line that is not a JSON object.', text: text.slice(0, 1_000) });
        return;
      }
      const line = parsed as JsonObject;
      const fast = fastDecode(line);
      if (fast) {
        // The parsed line itself: its text is its JSON, whatever keys it has.
        keepLineText(fast, text);
        sink.message(fast, received);
        return;
      }
      const rewritten = rewrittenBlocks.count;
      const decoded = decodeCliMessage(line);
      if (decoded.ok) {
        // Zod drops an own "__proto__" key: a line that has one is not its message's JSON.
        const whole = !text.includes('"__proto__"');
        if (whole && rewrittenBlocks.count === rewritten) keepLineText(decoded.message, text);
        sink.message(decoded.message, received);
      } else {
        // A line of a new kind or system subtype is kept in the transcript (for the protocol inspector),
        // not shown to the user as a line that could not be read.
        if (!decoded.unknownKind) sink.bad({ problem: decoded.problem, line });
        sink.raw(line, decoded.problem, received);
      }
    },
    oversized(bytes) {
      sink.bad({ problem: `A line of ${bytes} bytes exceeds the line size limit and was skipped.` });
    },
    truncated(bytes) {
      sink.bad({ problem: `The output ended in the middle of a line (${bytes} bytes); it was dropped.` });
    },
  };
}
