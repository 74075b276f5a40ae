import { describe, it, expect } from 'vitest';
import type { CliMessage, JsonObject } from '../../shared/protocol';
import { decodingLineSink, lineTextOf, SHOWN_STRING_BYTES, type BadLine } from './decode';

function decoder() {
  const messages: [CliMessage, string][] = [];
  const raws: [JsonObject, string, string][] = [];
  const bads: BadLine[] = [];
  const sink = decodingLineSink({
    message: (message, text) => messages.push([message, text]),
    raw: (line, problem, text) => raws.push([line, problem, text]),
    bad: (bad) => bads.push(bad),
  });
  return { sink, messages, raws, bads };
}

describe('decodingLineSink', () => {
  it('shows a 60 MB tool output cut, with a note, and gives the transcript the line whole', () => {
    const { sink, messages, bads } = decoder();
    const output = `${'é'.repeat(30 * 1024 * 1024)}END`;
    const line = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output }] },
      session_id: 's',
      uuid: '00000000-0000-4000-8000-000000000001',
      parent_tool_use_id: null,
    });
    sink.line(line);
    expect(bads).toEqual([]);
    const [[message, text]] = messages as [[CliMessage, string]];
    // The transcript's copy is the line as received.
    expect(text).toBe(line);
    const shown = JSON.stringify(message);
    expect(shown.length).toBeLessThan(SHOWN_STRING_BYTES + 2_000);
    expect(shown).not.toContain('END');
    expect(shown).toContain('[Byre cut 62.7 MB here: too large to show. The transcript has it whole.]');
    // What a window is sent (the line's text where it decoded unchanged) is the cut one too.
    const sent = lineTextOf(message) ?? shown;
    expect(sent.length).toBeLessThan(SHOWN_STRING_BYTES + 2_000);
    expect(JSON.parse(sent)).toEqual(JSON.parse(shown));
  });

  it('never cuts a permission request, whose input goes back to the CLI if allowed, nor image data', () => {
    const { sink, messages } = decoder();
    const content = 'x'.repeat(5 * 1024 * 1024);
    const request = JSON.stringify({
      type: 'control_request',
      request_id: 'r1',
      request: { subtype: 'can_use_tool', tool_name: 'Write', input: { file_path: '/tmp/f', content } },
    });
    sink.line(request);
    expect(JSON.stringify(messages[0]?.[0])).toContain(content);

    const image = 'A'.repeat(5 * 1024 * 1024);
    sink.line(
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } }],
            },
          ],
        },
        session_id: 's',
        uuid: '00000000-0000-4000-8000-000000000002',
        parent_tool_use_id: null,
      }),
    );
    expect(JSON.stringify(messages[1]?.[0])).toContain(image);
  });

  it('reports a non-JSON line as bad with its text', () => {
    const { sink, messages, raws, bads } = decoder();
    sink.line('Warning: something printed on stdout');
    expect(bads).toEqual([
      { problem: expect.stringContaining('not JSON'), text: 'Warning: something printed on stdout' },
    ]);
    expect(messages).toEqual([]);
    expect(raws).toEqual([]);
  });

  it('passes a system line of a subtype it does not know on raw, without calling it bad', () => {
    const { sink, messages, raws, bads } = decoder();
    const line = { type: 'system', subtype: 'something_new', session_id: 's', uuid: 'u' };
    sink.line(JSON.stringify(line));
    expect(raws).toEqual([[line, expect.stringContaining('system/something_new'), JSON.stringify(line)]]);
    expect(bads).toEqual([]);
    expect(messages).toEqual([]);
  });

  it('passes on raw a system line whose subtype is an object that cannot be made a string', () => {
    const { sink, messages, raws } = decoder();
    sink.line('{"type":"system","subtype":{"toString":1},"session_id":"s","uuid":"u"}');
    expect(raws).toEqual([
      [
        expect.anything(),
        'system/{"toString":1} is a kind of line this app does not know',
        expect.any(String),
      ],
    ]);
    expect(messages).toEqual([]);
  });

  it('cuts the text of a long non-JSON line to 1,000 characters', () => {
    const { sink, bads } = decoder();
    sink.line('x'.repeat(5_000));
    expect(bads[0]!.text).toHaveLength(1_000);
  });

  it.each(['[1,2]', '"a string"', '42', 'null', 'true'])(
    'reports JSON that is not an object (%s) as bad',
    (text) => {
      const { sink, messages, raws, bads } = decoder();
      sink.line(text);
      expect(bads).toEqual([{ problem: expect.stringContaining('not a JSON object'), text }]);
      expect(messages).toEqual([]);
      expect(raws).toEqual([]);
    },
  );

  // A newer CLI's new kind is news, not damage: the transcript keeps it for the protocol inspector, and
  // the chat says nothing of a line it "skipped".
  it('passes a line of an unknown (future) type on raw without reporting it as bad', () => {
    const { sink, messages, raws, bads } = decoder();
    sink.line('{"type":"bogus_type","n":1}');
    expect(bads).toEqual([]);
    expect(raws).toEqual([
      [{ type: 'bogus_type', n: 1 }, expect.stringContaining('bogus_type'), '{"type":"bogus_type","n":1}'],
    ]);
    expect(messages).toEqual([]);
  });

  it('reports a line whose type is not a string as bad', () => {
    const { sink, raws, bads } = decoder();
    sink.line('{"type":42}');
    expect(bads).toEqual([{ problem: expect.stringContaining('42'), line: { type: 42 } }]);
    expect(raws).toHaveLength(1);
  });

  it('reports a known type that fails its schema as bad and raw', () => {
    const { sink, messages, raws, bads } = decoder();
    sink.line('{"type":"result","subtype":"success"}');
    expect(bads).toHaveLength(1);
    expect(bads[0]!.problem).toMatch(/^result line does not match/);
    expect(raws).toHaveLength(1);
    expect(messages).toEqual([]);
  });

  it.each([
    ['zod', '{"type":"control_cancel_request","request_id":"r1","extra":{"kept":true}}'],
    [
      'the fast path',
      '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u","extra":1}',
    ],
  ])('passes a valid line on as a typed message (%s) with its text as received', (_path, text) => {
    const { sink, messages, raws, bads } = decoder();
    sink.line(text);
    expect(bads).toEqual([]);
    expect(raws).toEqual([]);
    expect(messages).toEqual([[JSON.parse(text), text]]);
  });

  it('leaves a hot kind that fails its schema to zod, which says why', () => {
    const { sink, messages, raws, bads } = decoder();
    sink.line(
      '{"type":"stream_event","event":{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"Hi"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}',
    );
    expect(messages).toEqual([]);
    expect(raws).toHaveLength(1);
    expect(bads[0]!.problem).toMatch(/^stream_event line does not match its schema/);
  });

  it('reports oversized and truncated lines as bad with their sizes', () => {
    const { sink, bads } = decoder();
    sink.oversized(70_000_000);
    sink.truncated(12);
    expect(bads.map((bad) => bad.problem)).toEqual([
      expect.stringContaining('70000000 bytes'),
      expect.stringContaining('12 bytes'),
    ]);
  });
});
