import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TranscriptWriter } from './transcript';

// writeSync is watched, to count the writes and to make one fail.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  return { ...fs, writeSync: vi.fn(fs.writeSync) };
});
const writes = vi.mocked(writeSync);

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-transcript-'));
  path = join(dir, 'run.jsonl');
  writes.mockClear();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function readLines(file = path): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

describe('TranscriptWriter', () => {
  it('writes one {dir,msg} JSON line per record, creating missing folders', () => {
    const nested = join(dir, 'nested', 'deeper', 'run.jsonl');
    const writer = new TranscriptWriter(nested);
    writer.record('send', {
      type: 'control_request',
      request_id: 'req_1',
      request: { subtype: 'interrupt' },
    });
    writer.record('recv', { type: 'result', subtype: 'success' });
    writer.close();
    const text = readFileSync(nested, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(3);
    expect(readLines(nested)).toEqual([
      {
        dir: 'send',
        msg: { type: 'control_request', request_id: 'req_1', request: { subtype: 'interrupt' } },
      },
      { dir: 'recv', msg: { type: 'result', subtype: 'success' } },
    ]);
  });

  it('writes the text of a line as it came, byte for byte', () => {
    const text = '{ "type":"assistant",  "n":1.0, "s":"caf\\u00e9 \\/ \\"q\\"", "e":1E3 }';
    const writer = new TranscriptWriter(path);
    writer.record('recv', JSON.parse(text) as { type: string }, text);
    writer.close();
    expect(readFileSync(path, 'utf8')).toBe(`{"dir":"recv","msg":${text}}\n`);
  });

  it('leaves telemetry out: stream_event and system/thinking_tokens lines', () => {
    const writer = new TranscriptWriter(path);
    writer.record('recv', { type: 'stream_event', event: { type: 'message_stop' } });
    writer.record('recv', { type: 'system', subtype: 'thinking_tokens', estimated_tokens: 3 });
    writer.record('recv', { type: 'system', subtype: 'status', status: null });
    writer.record('recv', { type: 'assistant' });
    writer.close();
    expect(readLines()).toEqual([
      { dir: 'recv', msg: { type: 'system', subtype: 'status', status: null } },
      { dir: 'recv', msg: { type: 'assistant' } },
    ]);
  });

  it('writes the lines of one turn of the event loop at once, in one write', async () => {
    const writer = new TranscriptWriter(path);
    writer.record('recv', { type: 'system', subtype: 'init' });
    writer.record('send', { type: 'user' });
    writer.record('recv', { type: 'assistant' });
    expect(readFileSync(path, 'utf8')).toBe('');
    await nextTurn();
    expect(writes).toHaveBeenCalledTimes(1);
    expect(readLines()).toHaveLength(3);
    writer.record('recv', { type: 'user' });
    await nextTurn();
    expect(writes).toHaveBeenCalledTimes(2);
    expect(readLines()).toHaveLength(4);
    writer.close();
  });

  it("writes at once on a turn's result, at 64 KB, and on close", () => {
    const writer = new TranscriptWriter(path);
    writer.record('recv', { type: 'assistant' });
    writer.record('recv', { type: 'result', subtype: 'success' });
    expect(readLines()).toHaveLength(2);
    writer.record('recv', { type: 'user', text: 'x'.repeat(64 * 1024) });
    expect(readLines()).toHaveLength(3);
    writer.record('recv', { type: 'assistant' });
    writer.close();
    expect(readLines()).toHaveLength(4);
    expect(writes).toHaveBeenCalledTimes(3);
  });

  it('tells of a failed write once, keeps the lines, and writes them when it can again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const errors: Error[] = [];
      const resumed: number[] = [];
      const writer = new TranscriptWriter(
        path,
        (error) => errors.push(error),
        (dropped) => resumed.push(dropped),
      );
      const full = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      };
      writes.mockImplementationOnce(full).mockImplementationOnce(full);
      writer.record('recv', { type: 'result', n: 1 });
      writer.record('recv', { type: 'result', n: 2 });
      expect(errors.map((error) => error.message)).toEqual(['ENOSPC: no space left on device, write']);
      expect(readFileSync(path, 'utf8')).toBe('');
      // The next try fails too, and says nothing more; the one after writes everything, in order.
      vi.advanceTimersByTime(2_000);
      expect(errors).toHaveLength(1);
      expect(resumed).toEqual([]);
      vi.advanceTimersByTime(2_000);
      expect(resumed).toEqual([0]);
      expect(readLines()).toEqual([
        { dir: 'recv', msg: { type: 'result', n: 1 } },
        { dir: 'recv', msg: { type: 'result', n: 2 } },
      ]);
      writer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('says how many lines it could not write when it is closed while writing still fails', () => {
    const lost: number[] = [];
    const writer = new TranscriptWriter(
      path,
      () => undefined,
      () => undefined,
      (lines) => lost.push(lines),
    );
    const original = writes.getMockImplementation()!;
    writes.mockImplementation(() => {
      throw new Error('ENOSPC: no space left on device, write');
    });
    try {
      writer.record('recv', { type: 'result', n: 1 });
      writer.record('recv', { type: 'result', n: 2 });
      writer.record('recv', { type: 'assistant', n: 3 });
      writer.close();
    } finally {
      writes.mockImplementation(original);
    }
    expect(lost).toEqual([3]);
  });

  it('never leaves half a line: a write that fails part way is cut back', () => {
    const writer = new TranscriptWriter(path);
    writer.record('recv', { type: 'result', n: 1 });
    expect(readLines()).toHaveLength(1);
    // The disk fills up in the middle of the next write: half of it lands, then ENOSPC.
    const real = vi.mocked(writeSync).getMockImplementation() as unknown as (
      fd: number,
      buffer: Buffer,
      offset: number,
      length: number,
    ) => number;
    writes.mockImplementationOnce(((fd: number, buffer: Buffer, offset: number, length: number) =>
      real(fd, buffer, offset, Math.floor(length / 2))) as typeof writeSync);
    writes.mockImplementationOnce(() => {
      throw new Error('ENOSPC: no space left on device, write');
    });
    writer.record('recv', { type: 'result', n: 2, pad: 'x'.repeat(1_000) });
    // Only whole lines: the first, and nothing of the second.
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    expect(readLines()).toEqual([{ dir: 'recv', msg: { type: 'result', n: 1 } }]);
    writer.close();
  });

  it('drops the oldest lines it holds past its limit while it cannot write, and says how many', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const resumed: number[] = [];
      const writer = new TranscriptWriter(
        path,
        () => undefined,
        (dropped) => resumed.push(dropped),
      );
      writes.mockImplementationOnce(() => {
        throw new Error('ENOSPC: no space left on device, write');
      });
      // 10 lines of 1 MB each while the disk is full: 8 MB are kept.
      for (let n = 0; n < 10; n++) writer.record('recv', { type: 'result', n, pad: 'x'.repeat(1024 * 1024) });
      vi.advanceTimersByTime(2_000);
      expect(resumed).toHaveLength(1);
      expect(resumed[0]).toBeGreaterThan(0);
      const kept = readLines() as { msg: { n: number } }[];
      expect(kept.length + resumed[0]!).toBe(10);
      // The newest are the ones kept.
      expect(kept.at(-1)?.msg.n).toBe(9);
      writer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('appends when the same file is opened again', () => {
    const first = new TranscriptWriter(path);
    first.record('recv', { type: 'result', n: 1 });
    first.close();
    const second = new TranscriptWriter(path);
    second.record('recv', { type: 'result', n: 2 });
    second.close();
    expect(readLines()).toEqual([
      { dir: 'recv', msg: { type: 'result', n: 1 } },
      { dir: 'recv', msg: { type: 'result', n: 2 } },
    ]);
  });

  it('ignores records after close', async () => {
    const writer = new TranscriptWriter(path);
    writer.close();
    writer.record('recv', { type: 'result' });
    writer.record('recv', { type: 'assistant' });
    writer.close();
    await nextTurn();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  describe('redaction', () => {
    const email = 'ada.lovelace@example.com';

    it('replaces every occurrence of the email, in values and keys, from then on', () => {
      const writer = new TranscriptWriter(path);
      writer.redact(email);
      writer.record('recv', {
        type: 'control_response',
        response: { response: { account: { email, note: `${email} / ${email}` } } },
        [email]: [email],
      });
      writer.close();
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain(email);
      expect(readLines()).toEqual([
        {
          dir: 'recv',
          msg: {
            type: 'control_response',
            response: { response: { account: { email: '[redacted]', note: '[redacted] / [redacted]' } } },
            '[redacted]': ['[redacted]'],
          },
        },
      ]);
    });

    it('replaces it in the text as received, leaving the rest of the text as it was', () => {
      const text = `{"type":"assistant", "text":"I am \\"${email}\\".\\n${email}\\t", "n": 1.50}`;
      const writer = new TranscriptWriter(path);
      writer.redact(email);
      writer.record('recv', JSON.parse(text) as { type: string }, text);
      writer.close();
      expect(readFileSync(path, 'utf8')).toBe(
        `{"dir":"recv","msg":{"type":"assistant", "text":"I am \\"[redacted]\\".\\n[redacted]\\t", "n": 1.50}}\n`,
      );
    });

    it.each([
      ['\\u0040 for the @', email, `to ${email.replace('@', '\\u0040')}`],
      ['\\/ for a slash', 'ada/x@example.com', 'to ada\\/x@example.com'],
    ])('finds the secret spelled with %s (by parsing the line)', (_name, secret, spelled) => {
      const text = `{"type":"user","text":"${spelled}"}`;
      const writer = new TranscriptWriter(path);
      writer.redact(secret);
      writer.record('recv', JSON.parse(text) as { type: string }, text);
      writer.close();
      expect(readLines()).toEqual([{ dir: 'recv', msg: { type: 'user', text: 'to [redacted]' } }]);
    });

    it.each([
      ['a quote', 'o"neil@example.com'],
      ['a backslash', 'back\\slash@example.com'],
      ['both', '"we\\ird"@example.com'],
      ['no @ (so it could match outside a string)', 'true'],
    ])('redacts a secret containing %s and the file still parses', (_name, secret) => {
      const writer = new TranscriptWriter(path);
      writer.redact(secret);
      writer.record('recv', { type: 'x', ok: true, account: { email: secret }, text: `mail ${secret} now` });
      writer.close();
      const [entry] = readLines();
      expect(entry).toEqual({
        dir: 'recv',
        msg: { type: 'x', ok: true, account: { email: '[redacted]' }, text: 'mail [redacted] now' },
      });
    });

    // The escaped secret is searched in the escaped line, so a match could start in the middle of an escape:
    // text "\n" + "obody@example.com" is JSON `\nobody@example.com`, which contains `nobody@example.com`.
    it.each([
      ['\\n', 'first line\nobody@example.com'],
      ['\\\\ then \\n', 'a\\\nobody@example.com'],
    ])('does not match the email across a JSON escape (%s)', (_name, text) => {
      const writer = new TranscriptWriter(path);
      writer.redact('nobody@example.com');
      writer.record('recv', { type: 'x', text });
      writer.close();
      expect(readLines()).toEqual([{ dir: 'recv', msg: { type: 'x', text } }]);
    });

    it('matches right after an escaped backslash', () => {
      const writer = new TranscriptWriter(path);
      writer.redact('nobody@example.com');
      writer.record('recv', { type: 'x', text: 'C:\\nobody@example.com' });
      writer.close();
      expect(readLines()).toEqual([{ dir: 'recv', msg: { type: 'x', text: 'C:\\[redacted]' } }]);
    });

    it('does not redact before redact() is called, nor for an empty secret', () => {
      const writer = new TranscriptWriter(path);
      writer.record('recv', { type: 'x', email: 'a@example.com' });
      writer.redact('');
      writer.record('recv', { type: 'y', email: 'a@example.com' });
      writer.close();
      expect(readLines()).toEqual([
        { dir: 'recv', msg: { type: 'x', email: 'a@example.com' } },
        { dir: 'recv', msg: { type: 'y', email: 'a@example.com' } },
      ]);
    });
  });
});
