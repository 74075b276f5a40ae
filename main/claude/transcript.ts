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

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  /** From the initialize response on, this string never reaches the file. */
  redact(secret: string): void {
    // Match the secret as it appears inside a JSON string.
    if (secret.length > 0) this.secret = JSON.stringify(secret).slice(1, -1);
  }

  record(dir: 'send' | 'recv', msg: JsonObject): void {
    if (this.fd === undefined || msg.type === 'stream_event') return;
    let line = JSON.stringify({ dir, msg });
    if (this.secret) line = line.split(this.secret).join('[redacted]');
    writeSync(this.fd, `${line}\n`);
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
