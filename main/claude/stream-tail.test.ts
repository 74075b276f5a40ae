import { describe, expect, it } from 'vitest';
import type { AssistantMessage, CliMessage, StreamEventMessage } from '../../shared/protocol';
import { StreamTail } from './stream-tail';

const base = { session_id: 's', uuid: 'u' };

function stream(event: StreamEventMessage['event'], parent: string | null = null): StreamEventMessage {
  return { type: 'stream_event', event, parent_tool_use_id: parent, ...base };
}
const start = (id: string, parent: string | null = null) =>
  stream({ type: 'message_start', message: { id, model: 'claude-test' } }, parent);
const text = (index: number) =>
  stream({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
const delta = (index: number, chunk: string, parent: string | null = null) =>
  stream({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: chunk } }, parent);
const assistant = (id: string, block: AssistantMessage['message']['content'][number]): AssistantMessage => ({
  type: 'assistant',
  message: { id, role: 'assistant', model: 'claude-test', content: [block] },
  parent_tool_use_id: null,
  ...base,
  uuid: 'saved-uuid',
});

function fed(...lines: CliMessage[]): StreamTail {
  const tail = new StreamTail();
  for (const line of lines) tail.note(line);
  return tail;
}

const deltaText = (line: StreamEventMessage | undefined): string | undefined =>
  line?.event.type === 'content_block_delta' && line.event.delta.type === 'text_delta'
    ? line.event.delta.text
    : undefined;

describe('StreamTail', () => {
  it('holds a reply in the middle of a block as its start, the block, and one merged delta', () => {
    const tail = fed(start('m1'), text(0), delta(0, 'Hel'), delta(0, 'lo, '), delta(0, 'world'));
    const lines = tail.lines();
    expect(lines.map((line) => line.event.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
    ]);
    expect(deltaText(lines[2])).toBe('Hello, world');
    expect(tail.cutLines()).toEqual(lines);
  });

  it('keeps only the start once a block is complete, and the next block as it streams', () => {
    const tail = fed(
      start('m1'),
      text(0),
      delta(0, 'First.'),
      assistant('m1', { type: 'text', text: 'First.' }),
    );
    expect(tail.lines().map((line) => line.event.type)).toEqual(['message_start']);
    expect(tail.cutLines()).toEqual([]);
    expect(tail.cutReplies()).toEqual([]);
    tail.note(text(1));
    tail.note(delta(1, 'Sec'));
    expect(tail.lines().map((line) => line.event.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
    ]);
    // Cut off here, the reply is named by its complete line's uuid, which the CLI saved.
    expect(tail.cutReplies()).toMatchObject([
      { uuid: 'saved-uuid', message: { content: [{ text: 'Sec' }] } },
    ]);
  });

  it('forgets a reply when it stops, and every reply when the turn ends', () => {
    expect(fed(start('m1'), text(0), delta(0, 'a'), stream({ type: 'message_stop' })).lines()).toEqual([]);
    const result = { type: 'result', subtype: 'success', is_error: false, ...base } as unknown as CliMessage;
    expect(fed(start('m1'), text(0), delta(0, 'a'), result).lines()).toEqual([]);
  });

  it('keeps a subagent’s stream apart from the main thread’s', () => {
    const tail = fed(
      start('m1'),
      text(0),
      delta(0, 'main '),
      start('m2', 'tool-1'),
      delta(0, 'sub', 'tool-1'),
    );
    tail.note(delta(0, 'thread'));
    expect(deltaText(tail.lines()[2])).toBe('main thread');
    expect(tail.lines()[3]).toMatchObject({ parent_tool_use_id: 'tool-1' });
  });

  it('gives a reply cut off mid-block as the assistant line it never got, marked aborted', () => {
    const tail = fed(
      start('m1'),
      stream({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      stream({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm, ' } }),
      stream({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'yes.' } }),
      text(1),
      delta(1, 'Running '),
      delta(1, 'it:'),
      stream({
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} },
      }),
      stream({
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{"comm' },
      }),
      stream({
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: 'and": "l' },
      }),
    );
    const [reply, ...others] = tail.cutReplies();
    expect(others).toEqual([]);
    expect(reply).toMatchObject({
      type: 'assistant',
      aborted: true,
      parent_tool_use_id: null,
      session_id: 's',
      message: {
        id: 'm1',
        model: 'claude-test',
        content: [
          { type: 'thinking', thinking: 'Hmm, yes.' },
          { type: 'text', text: 'Running it:' },
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { partial_input: '{"command": "l' } },
        ],
      },
    });
  });
});
