/**
 * Reading the disk: the few file operations the library and the data files need, injectable so tests can count reads or
 * fail them, and a line reader that never holds more than one chunk plus one (capped) line in memory.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface FileStat {
  size: number;
  mtimeMs: number;
  isFile(): boolean;
}

export interface LibraryFs {
  readdir(path: string): DirEntry[];
  stat(path: string): FileStat;
  open(path: string): number;
  read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  close(fd: number): void;
}

export const nodeFs: LibraryFs = {
  readdir: (path) => readdirSync(path, { withFileTypes: true }),
  stat: (path) => statSync(path),
  open: (path) => openSync(path, 'r'),
  read: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
  close: (fd) => closeSync(fd),
};

/** Reads are at most this big. */
export const CHUNK_BYTES = 1024 * 1024;
/** A longer line is skipped (and reported); shorter ones are read whole, however long. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

const NEWLINE = 0x0a;

export interface LineWindow {
  fs: LibraryFs;
  fd: number;
  /** Where to start: just after a newline, or inside an over-long line when `skipping`. */
  from: number;
  /** Stop at the first line end after reading this many bytes (a line is never cut in two). */
  budget: number;
  /** `from` is inside an over-long line: drop bytes up to its newline first. */
  skipping: boolean;
  chunkBytes?: number;
  maxLineBytes?: number;
}

export interface WindowEnd {
  /** Where reading may resume: after the last complete line, or inside an over-long line when `skipping`. */
  end: number;
  skipping: boolean;
  /** The end of the file was reached (a last line without its newline is left for later). */
  eof: boolean;
  /** Over-long lines met (counted when the skip begins). */
  longLines: number;
}

/**
 * Calls `onLine` with each complete line from `from`, reading chunk by chunk. `onLine` returns false to stop
 * early; reading then ends after that line. A line longer than the cap is skipped without being buffered,
 * and the skip can resume in a later window.
 */
export function readLines(window: LineWindow, onLine: (line: Buffer, start: number) => boolean): WindowEnd {
  const chunkBytes = window.chunkBytes ?? CHUNK_BYTES;
  const maxLineBytes = window.maxLineBytes ?? MAX_LINE_BYTES;
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let position = window.from;
  let committed = window.from;
  let skipping = window.skipping;
  let longLines = 0;
  let parts: Buffer[] = [];
  let pending = 0;
  for (;;) {
    const got = window.fs.read(window.fd, buffer, 0, chunkBytes, position);
    if (got <= 0) return { end: skipping ? position : committed, skipping, eof: true, longLines };
    let start = 0;
    for (;;) {
      const nl = buffer.indexOf(NEWLINE, start);
      if (nl === -1 || nl >= got) break;
      const lineStart = committed;
      committed = position + nl + 1;
      if (skipping) {
        skipping = false;
      } else if (pending + nl - start > maxLineBytes) {
        longLines += 1;
      } else {
        const line =
          pending > 0 ? Buffer.concat([...parts, buffer.subarray(start, nl)]) : buffer.subarray(start, nl);
        if (onLine(line, lineStart) === false)
          return { end: committed, skipping: false, eof: false, longLines };
      }
      parts = [];
      pending = 0;
      start = nl + 1;
      if (committed - window.from >= window.budget)
        return { end: committed, skipping: false, eof: false, longLines };
    }
    if (start < got && !skipping) {
      if (pending + got - start > maxLineBytes) {
        skipping = true;
        longLines += 1;
        parts = [];
        pending = 0;
      } else {
        // Copied: the chunk buffer is reused by the next read.
        parts.push(Buffer.from(buffer.subarray(start, got)));
        pending += got - start;
      }
    }
    position += got;
    // Inside a line too long to keep, the window may end anywhere; the skip goes on in the next one.
    if (skipping && position - window.from >= window.budget) {
      return { end: position, skipping, eof: false, longLines };
    }
  }
}

/** How much `eachLine` reads before it lets the event loop turn to other work. */
const EACH_LINE_BYTES = 2 * CHUNK_BYTES;

/**
 * Calls `onLine` with every complete line of an open file, a few megabytes at a time, yielding between
 * them so a long file does not stall the thread it runs on. Resolves with the over-long lines skipped.
 */
export async function eachLine(
  fs: LibraryFs,
  fd: number,
  onLine: (line: Buffer, start: number) => void,
): Promise<{ longLines: number }> {
  let from = 0;
  let skipping = false;
  let longLines = 0;
  for (;;) {
    const window = readLines({ fs, fd, from, budget: EACH_LINE_BYTES, skipping }, (line, start) => {
      onLine(line, start);
      return true;
    });
    longLines += window.longLines;
    if (window.eof) return { longLines };
    from = window.end;
    skipping = window.skipping;
    await nextTurn();
  }
}

/** Reads up to `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fs: LibraryFs, fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const got = fs.read(fd, buffer, filled, length - filled, position + filled);
    if (got <= 0) break;
    filled += got;
  }
  return buffer.subarray(0, filled);
}

/** An fs error's code, if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/** An fs error in words a person understands. */
export function describeError(error: unknown): string {
  switch (errorCode(error)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'it is not a folder';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOENT':
      return 'it does not exist';
    case 'EIO':
      return 'the disk reported an input/output error';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
