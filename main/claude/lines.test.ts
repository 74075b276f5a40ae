import { describe, it, expect } from 'vitest';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, type LineSink } from './lines';

type Event = ['line', string] | ['oversized', number] | ['truncated', number];

function recorder(): { sink: LineSink; events: Event[]; lines: () => string[] } {
  const events: Event[] = [];
  return {
    sink: {
      line: (text) => events.push(['line', text]),
      oversized: (bytes) => events.push(['oversized', bytes]),
      truncated: (bytes) => events.push(['truncated', bytes]),
    },
    events,
    lines: () => events.flatMap((event) => (event[0] === 'line' ? [event[1]] : [])),
  };
}

function split(chunks: Buffer[], maxLineBytes?: number): Event[] {
  const { sink, events } = recorder();
  const splitter = new LineSplitter(sink, maxLineBytes);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return events;
}

// Two-, three- and four-byte UTF-8 characters, a CRLF line and an empty line.
const TEXT = '{"a":"héllo"}\n{"b":"日本語"}\r\n\n{"c":"🎉 done"}\n';
const BYTES = Buffer.from(TEXT, 'utf8');
const EXPECTED: Event[] = [
  ['line', '{"a":"héllo"}'],
  ['line', '{"b":"日本語"}'],
  ['line', '{"c":"🎉 done"}'],
];

describe('LineSplitter', () => {
  it('reads bytes that are not UTF-8 as U+FFFD, losing nothing else of the line or the ones after', () => {
    const bad = Buffer.concat([
      Buffer.from('{"a":"x'),
      Buffer.from([0xff, 0xe6, 0x97]),
      Buffer.from('y"}\n{"b":"fine"}\n'),
    ]);
    expect(split([bad])).toEqual([
      ['line', '{"a":"x\ufffd\ufffdy"}'],
      ['line', '{"b":"fine"}'],
    ]);
    expect(JSON.parse(split([bad])[0]![1] as string)).toEqual({ a: 'x\ufffd\ufffdy' });
  });

  it('reassembles lines split into two chunks at every byte position', () => {
    for (let i = 0; i <= BYTES.length; i++) {
      expect(split([BYTES.subarray(0, i), BYTES.subarray(i)]), `split at ${i}`).toEqual(EXPECTED);
    }
  });

  it('reassembles lines split into three chunks at every pair of positions', () => {
    const wrong: string[] = [];
    for (let i = 0; i <= BYTES.length; i++) {
      for (let j = i; j <= BYTES.length; j++) {
        const events = split([BYTES.subarray(0, i), BYTES.subarray(i, j), BYTES.subarray(j)]);
        if (JSON.stringify(events) !== JSON.stringify(EXPECTED)) wrong.push(`${i},${j}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reassembles lines fed one byte at a time', () => {
    const chunks = [...BYTES].map((byte) => Buffer.from([byte]));
    expect(split(chunks)).toEqual(EXPECTED);
  });

  it('copies a kept partial line, since the stream may reuse the chunk', () => {
    const { sink, lines } = recorder();
    const splitter = new LineSplitter(sink);
    const chunk = Buffer.from('{"part":"one');
    splitter.push(chunk);
    chunk.fill(0x78);
    splitter.push(Buffer.from('"}\n'));
    expect(lines()).toEqual(['{"part":"one"}']);
  });

  it('delivers many lines from one chunk, in order', () => {
    const want = Array.from({ length: 2_000 }, (_, i) => JSON.stringify({ i }));
    expect(split([Buffer.from(want.map((line) => `${line}\n`).join(''))])).toEqual(
      want.map((line) => ['line', line]),
    );
  });

  it('strips CR from CRLF endings, also when the CR and LF arrive in different chunks', () => {
    expect(split([Buffer.from('one\r\ntwo\r'), Buffer.from('\nthree\r\n')])).toEqual([
      ['line', 'one'],
      ['line', 'two'],
      ['line', 'three'],
    ]);
  });

  it('skips empty lines, bare CRLFs included', () => {
    expect(split([Buffer.from('\n\n\r\na\n\n\r\nb\n')])).toEqual([
      ['line', 'a'],
      ['line', 'b'],
    ]);
  });

  it('accepts a line exactly at the cap and reports one byte over it', () => {
    expect(split([Buffer.from('0123456789\n')], 10)).toEqual([['line', '0123456789']]);
    expect(split([Buffer.from('0123456789A\nnext\n')], 10)).toEqual([
      ['oversized', 11],
      ['line', 'next'],
    ]);
  });

  it('reports an oversized line that spans chunks once, then delivers the next line', () => {
    const events = split(
      [Buffer.from('ok\n0123'), Buffer.from('456789'), Buffer.from('ABCDEF'), Buffer.from('GH\nafter\n')],
      10,
    );
    expect(events).toEqual([
      ['line', 'ok'],
      ['oversized', 18],
      ['line', 'after'],
    ]);
  });

  it('does not buffer an oversized line while skipping it', () => {
    const { sink, events } = recorder();
    const splitter = new LineSplitter(sink, 1024);
    const mib = Buffer.alloc(1024 * 1024, 0x61);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 256; i++) splitter.push(mib);
    const grown = process.memoryUsage().arrayBuffers - before;
    // Keeping the line would hold 256 MiB; skipping holds nothing.
    expect(grown).toBeLessThan(32 * 1024 * 1024);
    expect(events).toEqual([]);
    splitter.push(Buffer.from('\n{"next":true}\n'));
    expect(events).toEqual([
      ['oversized', 256 * 1024 * 1024],
      ['line', '{"next":true}'],
    ]);
  });

  it('reports a truncated last line at end() and does not deliver it', () => {
    expect(split([Buffer.from('whole\npart'), Buffer.from('ial')])).toEqual([
      ['line', 'whole'],
      ['truncated', 7],
    ]);
  });

  it('reports nothing at end() when the last line was complete', () => {
    expect(split([Buffer.from('a\nb\n')])).toEqual([
      ['line', 'a'],
      ['line', 'b'],
    ]);
  });

  it('reports an unfinished oversized line at end() once and delivers nothing', () => {
    const events = split([Buffer.from('0123456789ABCDEF')], 10);
    expect(events).toHaveLength(1);
    expect(events[0]![0]).not.toBe('line');
  });

  it('accepts a line of 50 MB with the default cap', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBeGreaterThanOrEqual(50 * 1024 * 1024);
    const size = 50 * 1024 * 1024;
    const payload = Buffer.alloc(size, 0x61);
    payload.write('{"type":"big","data":"', 0);
    payload.write('"}', size - 2);
    const { sink, events } = recorder();
    const splitter = new LineSplitter(sink);
    // Pipe-sized chunks, as stdout delivers them.
    const step = 64 * 1024;
    for (let at = 0; at < size; at += step) splitter.push(payload.subarray(at, at + step));
    splitter.push(Buffer.from('\n'));
    splitter.end();
    expect(events).toHaveLength(1);
    const [kind, text] = events[0]!;
    expect(kind).toBe('line');
    expect(typeof text === 'string' && text.length).toBe(size);
    expect((JSON.parse(text as string) as { data: string }).data).toHaveLength(size - 24);
  });
});
