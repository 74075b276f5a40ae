/**
 * What a host's shell prints before a command of Byre's (a greeting from ~/.bashrc, a tool that says it is
 * ready) is not the command's output. Byre's command prints a marker line first; everything up to and
 * including it is dropped. A stream that never shows the marker within MAX_PREAMBLE_BYTES is passed on
 * whole from there, so that nothing is held back for good.
 */

/** How much a shell's start-up may print before its output is taken as the command's own. */
export const MAX_PREAMBLE_BYTES = 1024 * 1024;

export class Preamble {
  private readonly mark: Buffer;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private done = false;
  /** The marker came: what follows is the command's. */
  found = false;

  constructor(marker: string) {
    this.mark = Buffer.from(`\n${marker}\n`);
  }

  /** The bytes of `chunk` that are the command's own; empty while the marker has not come yet. */
  take(chunk: Buffer): Buffer {
    if (this.done) return chunk;
    // A newline stands before the first byte: the marker on the very first line is found too.
    if (this.held.length === 0) this.held.push(Buffer.from('\n'));
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    const all = Buffer.concat(this.held);
    const at = all.indexOf(this.mark);
    if (at >= 0) {
      this.done = true;
      this.found = true;
      this.held = [];
      return all.subarray(at + this.mark.length);
    }
    if (this.heldBytes > MAX_PREAMBLE_BYTES) {
      this.done = true;
      this.held = [];
      return all.subarray(1);
    }
    this.held = [all];
    return Buffer.alloc(0);
  }

  /** The stream ended: what was held, when the marker never came (ssh's own failure, say). */
  end(): Buffer {
    if (this.done) return Buffer.alloc(0);
    this.done = true;
    const all = Buffer.concat(this.held);
    this.held = [];
    return all.subarray(Math.min(1, all.length));
  }
}

/** A whole output without what came before the marker; as it is when the marker is not in it. */
export function withoutPreamble(output: Buffer, marker: string): Buffer {
  const preamble = new Preamble(marker);
  const taken = preamble.take(output);
  return Buffer.concat([taken, preamble.end()]);
}
