/** The byte pipe's line framing: NDJSON reassembled exactly across chunks, with a cap on a line's size. */

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface LineSink {
  line(text: string): void;
  /** A line longer than the cap: it is skipped (up to its newline), never buffered whole. */
  oversized(bytes: number): void;
  /** Bytes left without a newline when the stream ended: a truncated last line. */
  truncated(bytes: number): void;
}

const NEWLINE = 0x0a;

export class LineSplitter {
  private parts: Buffer[] = [];
  private pending = 0;
  /** While skipping an oversized line: the bytes seen so far. */
  private skipping = -1;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      this.finishLine(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk, start, chunk.length);
  }

  end(): void {
    if (this.skipping >= 0) {
      this.sink.oversized(this.skipping);
    } else if (this.pending > 0) {
      this.sink.truncated(this.pending);
    }
    this.parts = [];
    this.pending = 0;
    this.skipping = -1;
  }

  private keep(chunk: Buffer, start: number, end: number): void {
    const size = end - start;
    if (this.skipping >= 0) {
      this.skipping += size;
      return;
    }
    if (this.pending + size > this.maxLineBytes) {
      this.skipping = this.pending + size;
      this.parts = [];
      this.pending = 0;
      return;
    }
    // Copy: the stream may reuse the chunk's memory.
    this.parts.push(Buffer.from(chunk.subarray(start, end)));
    this.pending += size;
  }

  private finishLine(chunk: Buffer, start: number, end: number): void {
    if (this.skipping >= 0) {
      this.sink.oversized(this.skipping + (end - start));
      this.skipping = -1;
      return;
    }
    if (this.pending + (end - start) > this.maxLineBytes) {
      this.sink.oversized(this.pending + (end - start));
      this.parts = [];
      this.pending = 0;
      return;
    }
    let text: string;
    if (this.pending === 0) {
      text = chunk.toString('utf8', start, end);
    } else {
      this.parts.push(chunk.subarray(start, end));
      text = Buffer.concat(this.parts, this.pending + (end - start)).toString('utf8');
      this.parts = [];
      this.pending = 0;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.length > 0) this.sink.line(text);
  }
}
