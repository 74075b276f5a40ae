import { describe, expect, it } from 'vitest';
import { readLines, type LibraryFs, type LineWindow } from './files';

/** A file in memory, read through the LibraryFs interface; every read's length is recorded. */
function memoryFile(content: Buffer | string) {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const reads: number[] = [];
  const fs: LibraryFs = {
    readdir: () => [],
    stat: () => ({ size: bytes.length, mtimeMs: 0, isFile: () => true }),
    open: () => 3,
    close: () => undefined,
    read(_fd, buffer, offset, length, position) {
      reads.push(length);
      return bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length));
    },
  };
  return { fs, reads };
}

function collect(window: Omit<LineWindow, 'fd'>) {
  const lines: string[] = [];
  const end = readLines({ fd: 3, ...window }, (line) => {
    lines.push(line.toString('utf8'));
    return true;
  });
  return { lines, ...end };
}

describe('readLines', () => {
  it('reassembles lines across chunks and stops at the last newline', () => {
    const { fs } = memoryFile('one\ntwo two\nthree three three\npartial');
    const read = collect({ fs, from: 0, budget: 1000, skipping: false, chunkBytes: 5 });
    expect(read.lines).toEqual(['one', 'two two', 'three three three']);
    expect(read.end).toBe('one\ntwo two\nthree three three\n'.length);
    expect(read.eof).toBe(true);
  });

  it('resumes from an offset and ends a window at a line end after the budget', () => {
    const text = 'aaaa\nbbbb\ncccc\ndddd\n';
    const { fs } = memoryFile(text);
    const first = collect({ fs, from: 0, budget: 6, skipping: false, chunkBytes: 4 });
    expect(first.lines).toEqual(['aaaa', 'bbbb']);
    expect(first.eof).toBe(false);
    const second = collect({ fs, from: first.end, budget: 100, skipping: false, chunkBytes: 4 });
    expect(second.lines).toEqual(['cccc', 'dddd']);
    expect(second.end).toBe(text.length);
  });

  it('skips a line over the cap without buffering it, even across windows', () => {
    const long = 'x'.repeat(100);
    const { fs } = memoryFile(`short\n${long}\nafter\n`);
    const window = { fs, skipping: false, chunkBytes: 16, maxLineBytes: 32 };
    const first = collect({ ...window, from: 0, budget: 40 });
    expect(first.lines).toEqual(['short']);
    expect(first.skipping).toBe(true);
    expect(first.longLines).toBe(1);
    const rest = collect({ ...window, from: first.end, budget: 1000, skipping: true });
    expect(rest.lines).toEqual(['after']);
    expect(rest.skipping).toBe(false);
    expect(rest.longLines).toBe(0);
  });

  it('reads a long line under the cap whole', () => {
    const long = 'y'.repeat(12 * 1024);
    const { fs } = memoryFile(`${long}\nnext\n`);
    const read = collect({ fs, from: 0, budget: 10, skipping: false, chunkBytes: 1024 });
    expect(read.lines.map((line) => line.length)).toEqual([long.length]);
  });

  it('only ever asks for one chunk at a time, however big the file', () => {
    // "3 GB": a file that is generated as it is read, never held anywhere.
    const size = 3 * 1024 ** 3;
    const line = Buffer.from(`${JSON.stringify({ type: 'user', message: { content: 'z'.repeat(200) } })}\n`);
    const reads: number[] = [];
    const fs: LibraryFs = {
      readdir: () => [],
      stat: () => ({ size, mtimeMs: 0, isFile: () => true }),
      open: () => 3,
      close: () => undefined,
      read(_fd, buffer, offset, length, position) {
        reads.push(length);
        const end = Math.min(size, position + length);
        for (let at = position; at < end; at += 1) buffer[offset + at - position] = line[at % line.length]!;
        return end - position;
      },
    };
    let from = 0;
    let lines = 0;
    for (let window = 0; window < 3; window += 1) {
      const end = readLines({ fs, fd: 3, from, budget: 2 * 1024 * 1024, skipping: false }, () => {
        lines += 1;
        return true;
      });
      expect(end.end - from).toBeLessThanOrEqual(3 * 1024 * 1024);
      from = end.end;
    }
    expect(Math.max(...reads)).toBeLessThanOrEqual(1024 * 1024);
    expect(lines).toBe(from / line.length);
  });
});
