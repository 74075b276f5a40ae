import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../disk/private-files';
import { dirname } from 'node:path';
import type { JsonObject } from '../../shared/protocol';
import type { BYRE_LINE } from '../../shared/saved-session';

/**
 * The app's own transcript of one CLI run: every line both ways as {"dir","msg"} JSONL, with the text of
 * each line as it was received or sent. Telemetry (stream_event and system/thinking_tokens lines) is left
 * out, and the account email is replaced with [redacted] everywhere once it is known.
 *
 * Lines are buffered and written once per turn of the event loop, or at 64 KB; a turn's result, close()
 * (which the session calls when the CLI exits or crashes, after its last line) and the app's exit write at
 * once. So a crash of the CLI loses nothing already seen; a hard kill of the app loses at most the lines of
 * its last turn of the event loop.
 *
 * A write that fails (a full disk) leaves no half line: the file is cut back to where the write began. The
 * writer says so once, keeps the lines meanwhile (up to HELD_CHARS, the oldest dropped past that), tries
 * again every RETRY_MS, and says so again when it has written them.
 */
export class TranscriptWriter {
  private fd: number | undefined;
  private secret: Secret | undefined;
  private pending = '';
  private flushTimer: NodeJS.Immediate | undefined;
  /** Since a write failed: the lines dropped meanwhile, and the timer of the next try. */
  private failing: { dropped: number; retry: NodeJS.Timeout } | undefined;

  constructor(
    readonly path: string,
    /** Told once when writing fails (disk full, say); the conversation goes on, its lines wait. */
    private readonly onError: (error: Error) => void = () => undefined,
    /** Told when writing works again, with how many lines were dropped meanwhile. */
    private readonly onResume: (dropped: number) => void = () => undefined,
    /** Told when it is closed while writing still fails, with how many lines could not be written. */
    private readonly onLost: (lines: number) => void = () => undefined,
  ) {
    makePrivateDir(dirname(path));
    this.fd = openSync(path, 'a', PRIVATE_FILE_MODE);
    flushedOnExit.add(this);
  }

  /** From the initialize response on, this string never reaches the file. */
  redact(secret: string): void {
    if (secret.length > 0) this.secret = new Secret(secret);
  }

  /**
   * One line: `msg` says what it is; `text` is its JSON as it went over the pipe, written as it is (a line
   * we send may leave it out, to have `msg` stringified).
   */
  record(dir: 'send' | 'recv' | typeof BYRE_LINE, msg: JsonObject, text?: string): void {
    if (this.fd === undefined || isTelemetry(msg)) return;
    const json = text ?? JSON.stringify(msg);
    this.pending += `{"dir":"${dir}","msg":${this.secret ? this.secret.redact(json) : json}}\n`;
    if (this.failing) {
      this.holdAtMost(HELD_CHARS);
      return;
    }
    if (msg.type === 'result' || this.pending.length >= WRITE_CHARS) this.flush();
    else this.flushTimer ??= setImmediate(() => this.flush());
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (this.fd === undefined || this.pending === '') return;
    const text = this.pending;
    try {
      writeWhole(this.fd, Buffer.from(text, 'utf8'));
    } catch (error) {
      if (!this.failing) {
        this.failing = { dropped: 0, retry: this.retryLater() };
        this.onError(error instanceof Error ? error : new Error(String(error)));
      } else {
        clearTimeout(this.failing.retry);
        this.failing.retry = this.retryLater();
      }
      return;
    }
    this.pending = this.pending.slice(text.length);
    if (this.failing) {
      const { dropped } = this.failing;
      this.failing = undefined;
      this.onResume(dropped);
    }
  }

  close(): void {
    this.flush();
    if (this.failing) {
      const held = this.pending.split('\n').length - 1;
      this.onLost(held + this.failing.dropped);
    }
    this.stop();
  }

  private retryLater(): NodeJS.Timeout {
    return setTimeout(() => this.flush(), RETRY_MS).unref();
  }

  /** Drops the oldest whole lines until what is held fits `chars`, counting them. */
  private holdAtMost(chars: number): void {
    while (this.pending.length > chars && this.failing) {
      const end = this.pending.indexOf('\n');
      if (end === -1) break;
      this.pending = this.pending.slice(end + 1);
      this.failing.dropped += 1;
    }
  }

  private stop(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (this.failing) clearTimeout(this.failing.retry);
    this.failing = undefined;
    this.pending = '';
    flushedOnExit.delete(this);
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Nothing more can be written either way.
    }
  }
}

/** Buffered text is written at this size (in UTF-16 units, for speed) at the latest. */
const WRITE_CHARS = 64 * 1024;
/** While writes fail: how much is kept to write later, and how often writing is tried again. */
const HELD_CHARS = 8 * 1024 * 1024;
const RETRY_MS = 2_000;

/**
 * Appends all of `bytes`, or nothing: a write that fails part way (the disk filled up) is undone by cutting
 * the file back to its length before it, so the transcript never holds half a line.
 */
function writeWhole(fd: number, bytes: Buffer): void {
  const before = fstatSync(fd).size;
  try {
    for (let written = 0; written < bytes.length;) {
      written += writeSync(fd, bytes, written, bytes.length - written);
    }
  } catch (error) {
    try {
      ftruncateSync(fd, before);
    } catch {
      // Left as it is: readers skip a line they cannot parse.
    }
    throw error;
  }
}

const REDACTED = '[redacted]';

function isTelemetry(msg: JsonObject): boolean {
  return msg.type === 'stream_event' || (msg.type === 'system' && msg.subtype === 'thinking_tokens');
}

/** Open writers, whose buffered lines are written if the app exits before their next turn of the loop. */
const flushedOnExit = new Set<TranscriptWriter>();
process.on('exit', () => {
  for (const writer of flushedOnExit) writer.flush();
});

/**
 * Replaces a secret in a line of JSON text as if in every string of it, keys included, without parsing it.
 *
 * Without `\u` or `\/` escapes, which JSON.stringify (the CLI's writer) never uses for printable
 * characters, a string has one spelling in JSON text, so the secret is found by its escaped form; a match
 * counts only where it starts on a character, not inside an escape such as the `\n` before "nobody@…".
 * A secret with an `@` matches only inside strings, since JSON text has none outside them. Any other line
 * or secret is parsed, scrubbed and stringified again; the line is then written re-encoded.
 */
class Secret {
  private readonly escaped: string;
  private readonly findsInText: boolean;

  constructor(private readonly secret: string) {
    this.escaped = JSON.stringify(secret).slice(1, -1);
    this.findsInText = secret.includes('@');
  }

  redact(json: string): string {
    if (this.findsInText && !json.includes('\\u') && !json.includes('\\/')) {
      return json.includes(this.escaped) ? this.replaceEscaped(json) : json;
    }
    return JSON.stringify(scrub(JSON.parse(json), this.secret));
  }

  private replaceEscaped(json: string): string {
    const { escaped } = this;
    let out = '';
    let copied = 0;
    let at = json.indexOf(escaped);
    while (at !== -1) {
      if (startsCharacter(json, at)) {
        out += json.slice(copied, at) + REDACTED;
        copied = at + escaped.length;
        at = json.indexOf(escaped, copied);
      } else {
        at = json.indexOf(escaped, at + 1);
      }
    }
    return out + json.slice(copied);
  }
}

/** Whether `at` starts a character of a string in JSON text rather than the middle of a `\x` escape. */
function startsCharacter(json: string, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes > 0 && json.charCodeAt(at - backslashes - 1) === 0x5c) backslashes++;
  return backslashes % 2 === 0;
}

function scrub(value: unknown, secret: string): unknown {
  if (typeof value === 'string') return value.includes(secret) ? value.split(secret).join(REDACTED) : value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, secret));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [scrub(key, secret), scrub(item, secret)]),
    );
  }
  return value;
}
