import { describe, expect, it } from 'vitest';
import { MAX_PREAMBLE_BYTES, Preamble, withoutPreamble } from './preamble';

/** What a host's shell prints before Byre's command, dropped up to the marker line. */

const MARK = 'byre-mark';

/** Feeds `chunks` through one Preamble, as a pipe would, and gives what came out. */
function through(chunks: string[]): string {
  const preamble = new Preamble(MARK);
  const out = chunks.map((chunk) => preamble.take(Buffer.from(chunk)).toString());
  return out.join('') + preamble.end().toString();
}

describe('a command’s output after what the host’s shell printed', () => {
  it('drops the greeting and the marker line, however the chunks fall', () => {
    const stream = `Welcome\n{"type":"system"}\nno newline\n${MARK}\n{"type":"result"}\nmore\n`;
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(through([stream.slice(0, cut), stream.slice(cut)]), `cut at ${cut}`).toBe(
        '{"type":"result"}\nmore\n',
      );
    }
    // Byte by byte.
    expect(through([...stream])).toBe('{"type":"result"}\nmore\n');
  });

  it('finds the marker on the very first line, and only as a line of its own', () => {
    expect(through([`${MARK}\nout\n`])).toBe('out\n');
    expect(through([`x${MARK}\nno\n${MARK}\nout\n`])).toBe('out\n');
  });

  it('passes on what came when the marker never does (ssh’s own failure, say)', () => {
    expect(through(['ssh: connect to host refused\n'])).toBe('ssh: connect to host refused\n');
    expect(withoutPreamble(Buffer.from(''), MARK).toString()).toBe('');
    expect(withoutPreamble(Buffer.from('plain\n'), MARK).toString()).toBe('plain\n');
    expect(withoutPreamble(Buffer.from(`hi\n${MARK}\n/srv\n`), MARK).toString()).toBe('/srv\n');
  });

  it('holds nothing back for good: past its bound, the stream goes on whole', () => {
    const preamble = new Preamble(MARK);
    const big = 'x'.repeat(MAX_PREAMBLE_BYTES / 2);
    expect(preamble.take(Buffer.from(big)).length).toBe(0);
    const out = preamble.take(Buffer.from(`${big}yy`));
    expect(out.length).toBe(MAX_PREAMBLE_BYTES + 2);
    expect(preamble.take(Buffer.from('z')).toString()).toBe('z');
  });
});
