import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import { applyEvents, initialConversation } from '../../shared/conversation';
import type { ConversationEvent } from '../../shared/ipc';
import { decodeCliMessage, type JsonObject } from '../../shared/protocol';
import { EventBatcher } from './event-batcher';

const SID = '5f0c2a9e-3b7d-4c1e-9a55-0d8e6f1b2c34';
let lineCount = 0;
const lineUuid = (): string => `00000000-0000-4000-8000-${String(++lineCount).padStart(12, '0')}`;

function cli(line: JsonObject): ConversationEvent {
  const decoded = decodeCliMessage(line);
  if (!decoded.ok) throw new Error(`test line does not decode: ${decoded.problem}`);
  return { kind: 'message', message: decoded.message };
}

const streamEvent = (event: JsonObject, parent: string | null = null) =>
  cli({ type: 'stream_event', event, session_id: SID, parent_tool_use_id: parent, uuid: lineUuid() });

const textDelta = (text: string, index = 0, parent: string | null = null) =>
  streamEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, parent);

const thinkingDelta = (thinking: string, index = 0) =>
  streamEvent({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });

const jsonDelta = (partialJson: string, index = 0) =>
  streamEvent({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: partialJson },
  });

const blockStart = (index: number, block: JsonObject) =>
  streamEvent({ type: 'content_block_start', index, content_block: block });

const blockStop = (index: number) => streamEvent({ type: 'content_block_stop', index });

const thinkingTokens = (estimated: number) =>
  cli({
    type: 'system',
    subtype: 'thinking_tokens',
    estimated_tokens: estimated,
    estimated_tokens_delta: 1,
    session_id: SID,
    uuid: lineUuid(),
  });

const requesting = () =>
  cli({ type: 'system', subtype: 'status', status: 'requesting', session_id: SID, uuid: lineUuid() });

/** What a delta event says, or what kind of event it is: enough to read a delivered batch at a glance. */
function summary(event: ConversationEvent): string {
  if (event.kind !== 'message') return event.kind;
  const message = event.message;
  if (message.type === 'system' && message.subtype === 'thinking_tokens')
    return `tokens ${message.estimated_tokens}`;
  if (message.type !== 'stream_event') return message.type;
  const inner = message.event;
  if (inner.type !== 'content_block_delta') return inner.type;
  const where = `${message.parent_tool_use_id ?? 'main'}#${inner.index}`;
  switch (inner.delta.type) {
    case 'text_delta':
      return `text ${where} "${inner.delta.text}"`;
    case 'thinking_delta':
      return `thinking ${where} "${inner.delta.thinking}"`;
    case 'input_json_delta':
      return `json ${where} ${inner.delta.partial_json}`;
    default:
      return inner.delta.type;
  }
}

function collector() {
  const deliver = vi.fn<(conversationId: string, events: ConversationEvent[]) => void>();
  const batcher = new EventBatcher(deliver);
  /** Each delivery as [conversation, summaries of its events]. */
  const delivered = () =>
    deliver.mock.calls.map(([conversationId, events]) => [conversationId, events.map(summary)]);
  return { batcher, deliver, delivered };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('EventBatcher', () => {
  it('delivers each conversation’s events in one batch per 16 ms interval', () => {
    const { batcher, deliver, delivered } = collector();
    batcher.push('c1', requesting());
    batcher.push('c2', { kind: 'title', title: 'Other' });
    batcher.push('c1', textDelta('Hi'));
    vi.advanceTimersByTime(15);
    expect(deliver).not.toHaveBeenCalled();

    vi.advanceTimersByTime(1);
    expect(delivered()).toEqual([
      ['c1', ['system', 'text main#0 "Hi"']],
      ['c2', ['title']],
    ]);

    batcher.push('c2', { kind: 'bad_line', problem: 'x' });
    vi.advanceTimersByTime(16);
    expect(delivered().slice(2)).toEqual([['c2', ['bad_line']]]);

    vi.advanceTimersByTime(1000);
    expect(deliver).toHaveBeenCalledTimes(3);
  });

  it('counts the interval from the first event of a batch, not the last', () => {
    const { batcher, deliver } = collector();
    batcher.push('c1', textDelta('a'));
    vi.advanceTimersByTime(10);
    batcher.push('c1', textDelta('b', 1));
    vi.advanceTimersByTime(6);
    expect(deliver).toHaveBeenCalledTimes(1);
    expect(deliver.mock.calls[0]![1]).toHaveLength(2);
  });

  it('merges consecutive text deltas of one block into one', () => {
    const { batcher, delivered } = collector();
    for (const piece of ['Hel', 'lo, ', 'world']) batcher.push('c1', textDelta(piece));
    batcher.flush();
    expect(delivered()).toEqual([['c1', ['text main#0 "Hello, world"']]]);
  });

  it('merges consecutive thinking deltas of one block into one', () => {
    const { batcher, delivered } = collector();
    batcher.push('c1', thinkingDelta('Let me '));
    batcher.push('c1', thinkingDelta('think.'));
    batcher.flush();
    expect(delivered()).toEqual([['c1', ['thinking main#0 "Let me think."']]]);
  });

  it('merges thinking deltas with thinking_tokens lines between them, keeping the latest estimate after', () => {
    const { batcher, delivered } = collector();
    for (const [at, piece] of ['Let ', 'me ', 'think.'].entries()) {
      batcher.push('c1', thinkingDelta(piece));
      batcher.push('c1', thinkingTokens(at + 1));
    }
    batcher.push('c1', textDelta('Done', 1));
    batcher.push('c1', thinkingTokens(9));
    batcher.flush();
    expect(delivered()).toEqual([
      ['c1', ['thinking main#0 "Let me think."', 'tokens 3', 'text main#1 "Done"', 'tokens 9']],
    ]);
  });

  it('keeps apart deltas of other blocks, other parents, other kinds and other conversations', () => {
    const { batcher, delivered } = collector();
    batcher.push('c1', textDelta('a', 0));
    batcher.push('c1', textDelta('b', 1));
    batcher.push('c1', textDelta('c', 1, 'toolu_A'));
    batcher.push('c1', thinkingDelta('d', 1));
    batcher.push('c1', jsonDelta('{"a"', 1));
    batcher.push('c1', jsonDelta(':1}', 1));
    batcher.push('c2', textDelta('e', 1));
    batcher.flush();
    expect(delivered()).toEqual([
      [
        'c1',
        [
          'text main#0 "a"',
          'text main#1 "b"',
          'text toolu_A#1 "c"',
          'thinking main#1 "d"',
          'json main#1 {"a"',
          'json main#1 :1}',
        ],
      ],
      ['c2', ['text main#1 "e"']],
    ]);
  });

  it('keeps every other event, in order, and merges only deltas that are next to each other', () => {
    const { batcher, delivered } = collector();
    const events: ConversationEvent[] = [
      requesting(),
      blockStart(0, { type: 'text', text: '' }),
      textDelta('One '),
      textDelta('two'),
      { kind: 'notify', message: 'between' },
      textDelta(' three'),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      textDelta('Four', 1),
      { kind: 'exit' },
    ];
    for (const event of events) batcher.push('c1', event);
    batcher.flush();
    expect(delivered()).toEqual([
      [
        'c1',
        [
          'system',
          'content_block_start',
          'text main#0 "One two"',
          'notify',
          'text main#0 " three"',
          'content_block_stop',
          'content_block_start',
          'text main#1 "Four"',
          'exit',
        ],
      ],
    ]);
  });

  it('leaves the events it was given untouched', () => {
    const { batcher, deliver } = collector();
    const first = Object.freeze(textDelta('a'));
    const second = Object.freeze(textDelta('b'));
    const before = structuredClone([first, second]);
    batcher.push('c1', first);
    batcher.push('c1', second);
    batcher.flush();
    expect([first, second]).toEqual(before);
    expect(deliver.mock.calls[0]![1][0]).not.toBe(first);
  });

  it('delivers at once on flush, and not again when the interval ends', () => {
    const { batcher, deliver, delivered } = collector();
    batcher.flush();
    expect(deliver).not.toHaveBeenCalled();

    batcher.push('c1', { kind: 'title', title: 'Now' });
    batcher.flush();
    expect(delivered()).toEqual([['c1', ['title']]]);

    vi.advanceTimersByTime(100);
    expect(deliver).toHaveBeenCalledTimes(1);

    batcher.push('c1', { kind: 'title', title: 'Later' });
    vi.advanceTimersByTime(16);
    expect(delivered()).toEqual([
      ['c1', ['title']],
      ['c1', ['title']],
    ]);
  });

  it('waits for its own interval when given one', () => {
    const deliver = vi.fn();
    const batcher = new EventBatcher(deliver, 50);
    batcher.push('c1', { kind: 'title', title: 'Slow' });
    vi.advanceTimersByTime(49);
    expect(deliver).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(deliver).toHaveBeenCalledTimes(1);
  });

  it('changes nothing the conversation shows: batched events give the state the raw ones give', () => {
    const events: ConversationEvent[] = [
      { kind: 'prompt', uuid: '11111111-1111-4111-8111-111111111111', text: 'Think, then answer' },
      requesting(),
      streamEvent({ type: 'message_start', message: { id: 'msg_1' } }),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      ...['Think', 'ing ', 'hard.'].flatMap((piece, at) => [thinkingDelta(piece), thinkingTokens(at + 1)]),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      ...['The ', 'answer ', 'is ', '42.'].map((piece) => textDelta(piece, 1)),
      blockStop(1),
      streamEvent({ type: 'message_stop' }),
    ];
    const deliver = vi.fn<(conversationId: string, events: ConversationEvent[]) => void>();
    const batcher = new EventBatcher(deliver);
    for (const [at, event] of events.entries()) {
      batcher.push('c1', event);
      if (at % 4 === 3) vi.advanceTimersByTime(16);
    }
    batcher.flush();

    const batched = deliver.mock.calls.reduce(
      (state, [, batch]) => applyEvents(state, batch),
      initialConversation(),
    );
    expect(deliver.mock.calls.flatMap(([, batch]) => batch).length).toBeLessThan(events.length);
    expect(batched).toStrictEqual(applyEvents(initialConversation(), events));
    expect(batched.messages['a:msg_1']).toMatchObject({
      parts: [
        { kind: 'thinking', text: 'Thinking hard.' },
        { kind: 'text', text: 'The answer is 42.' },
      ],
    });
  });
});
