import { describe, expect, it } from 'vitest';
import { shortenStrings } from './shorten';

/** Every string of `value`, depth first, in order. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, v]) => [key, ...strings(v)]);
  return [];
}

const PIECES = ['a', 'é', '€', '😀', '\\', '"', '\n', '\t', '\u0001', 'x'.repeat(7), '\\u', '\\\\"'];

/** A pseudo-random string of pieces that escape in every way JSON has, from a seed. */
function tricky(seed: number, length: number): string {
  let state = seed;
  let out = '';
  while (out.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += PIECES[(state >>> 16) % PIECES.length];
  }
  return out;
}

describe('shortenStrings', () => {
  it('cuts long strings to a prefix and keeps the JSON valid, whatever falls at the cut', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const value = {
        type: 'user',
        message: { content: [{ type: 'tool_result', content: tricky(seed, 300 + seed) }] },
        short: 'kept "as" is',
        toolUseResult: { stdout: tricky(seed * 7, 200), n: seed },
      };
      const line = Buffer.from(JSON.stringify(value));
      const keep = 40 + (seed % 60);
      const parsed: unknown = JSON.parse(shortenStrings(line, keep).toString('utf8'));
      const before = strings(value);
      const after = strings(parsed);
      expect(after).toHaveLength(before.length);
      after.forEach((text, n) => {
        const original = before[n]!;
        expect(original.startsWith(text)).toBe(true);
        if (Buffer.byteLength(JSON.stringify(original)) - 2 <= keep) expect(text).toBe(original);
        else expect(text.length).toBeGreaterThan(keep / 6 - 2);
      });
      expect((parsed as typeof value).toolUseResult.n).toBe(seed);
    }
  });

  it('returns the line itself when nothing is long, and leaves malformed JSON malformed', () => {
    const line = Buffer.from('{"a":"short","b":[1,2,"x"]}');
    expect(shortenStrings(line, 100)).toBe(line);
    const broken = Buffer.from(`{"a":"${'y'.repeat(500)}`);
    expect(() => JSON.parse(shortenStrings(broken, 100).toString('utf8'))).toThrow();
  });
});
