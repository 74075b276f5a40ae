import { describe, expect, it, vi } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import { eventFrame, eventJson } from './event-json';

const events: ConversationEvent[] = [
  { kind: 'title', title: 'Quoting "things" \u2028 and \\ slashes' },
  {
    kind: 'message',
    message: {
      type: 'stream_event',
      uuid: 'u1',
      session_id: 's1',
      parent_tool_use_id: null,
      event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'é\n😀' } },
    },
  },
] as ConversationEvent[];

describe('eventFrame', () => {
  it('writes what JSON.stringify of the frame would, for events and for other channels', () => {
    const payload = { conversationId: 'c-1', events, seq: 41 };
    expect(JSON.parse(eventFrame('conversationEvents', payload))).toEqual({
      event: 'conversationEvents',
      payload,
    });
    expect(JSON.parse(eventFrame('conversationEvents', { ...payload, events: [] }))).toEqual({
      event: 'conversationEvents',
      payload: { ...payload, events: [] },
    });
    expect(eventFrame('libraryChanged', {})).toBe(JSON.stringify({ event: 'libraryChanged', payload: {} }));
  });

  it('stringifies an event once, however often it is stored and sent', () => {
    const event: ConversationEvent = { kind: 'title', title: 'Once' };
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const text = eventJson(event);
      eventJson(event);
      eventFrame('conversationEvents', { conversationId: 'c-1', events: [event, event], seq: 1 });
      expect(stringify.mock.calls.filter(([value]) => value === event)).toHaveLength(1);
      expect(JSON.parse(text)).toEqual(event);
    } finally {
      stringify.mockRestore();
    }
  });

  it('writes a changed copy of an event from itself, not from the event it was copied from', () => {
    const event: ConversationEvent = { kind: 'title', title: 'First' };
    expect(JSON.parse(eventJson(event))).toEqual(event);
    expect(Object.keys(event)).toEqual(['kind', 'title']);
    const copy = { ...event, title: 'Second' };
    expect(JSON.parse(eventJson(copy))).toEqual({ kind: 'title', title: 'Second' });
    // A frozen event is written each time, and still right.
    const frozen = Object.freeze({ kind: 'title', title: 'Frozen' }) as ConversationEvent;
    expect(eventJson(frozen)).toBe(JSON.stringify(frozen));
  });
});
