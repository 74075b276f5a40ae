import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonObject } from '../../shared/protocol';

/**
 * The app's own transcript of one CLI run: every line both ways as {"dir","msg"} JSONL, stream_event lines
 * left out, the account email replaced with [redacted] everywhere once it is known. Each line is appended
 * with a synchronous write, so a crash of the app or the CLI loses nothing already seen.
 */
export class TranscriptWriter {
  private fd: number | undefined;
  private secret: string | undefined;

  constructor(
    readonly path: string,
    /** Told once if writing fails (disk full, say); the transcript stops, the conversation does not. */
    private readonly onError: (error: Error) => void = () => undefined,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  /** From the initialize response on, this string never reaches the file. */
  redact(secret: string): void {
    if (secret.length > 0) this.secret = secret;
  }

  record(dir: 'send' | 'recv', msg: JsonObject): void {
    if (this.fd === undefined || msg.type === 'stream_event') return;
    // Redact before escaping, so a match can never straddle a JSON escape; keys are scrubbed too.
    const line = JSON.stringify({ dir, msg: this.secret ? scrub(msg, this.secret) : msg });
    try {
      writeSync(this.fd, `${line}\n`);
    } catch (error) {
      this.close();
      this.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  close(): void {
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

function scrub(value: unknown, secret: string): unknown {
  if (typeof value === 'string')
    return value.includes(secret) ? value.split(secret).join('[redacted]') : value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, secret));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [scrub(key, secret), scrub(item, secret)]),
    );
  }
  return value;
}
