import type { ConversationEvent, EventChannel, EventPayload } from '../../shared/ipc';
import { lineTextOf } from '../lanes/stream';

/**
 * Events as JSON, each written once: the open conversation's log (event-log.ts) stores it and the browser
 * host sends it, and a 10,000-message burst is 10 MB of it. An event is never changed once it is emitted
 * (a changed one, such as an event with its images by reference, is a new object), so the text is kept
 * on the object, under a symbol that is not enumerable (no copy, key list or JSON sees it), for as long as
 * the object lives. Not in a WeakMap: each streamed event would be an entry the collector must trace.
 */
const EVENT_JSON = Symbol('event JSON');

export function eventJson(event: ConversationEvent): string {
  let text = (event as { [EVENT_JSON]?: string })[EVENT_JSON];
  if (text === undefined) {
    // A line from the CLI, shown as it came: its JSON is the text it came as.
    const line = event.kind === 'message' && Object.keys(event).length === 2 && lineTextOf(event.message);
    text = line ? `{"kind":"message","message":${line}}` : JSON.stringify(event);
    if (Object.isExtensible(event)) Object.defineProperty(event, EVENT_JSON, { value: text });
  }
  return text;
}

/** The bridge's frame for an event, as `JSON.stringify({ event: channel, payload })` would write it. */
export function eventFrame<C extends EventChannel>(channel: C, payload: EventPayload<C>): string {
  if (channel !== 'conversationEvents') return JSON.stringify({ event: channel, payload });
  const { events, ...rest } = payload as EventPayload<'conversationEvents'>;
  const head = JSON.stringify(rest).slice(0, -1);
  return `{"event":"conversationEvents","payload":${head},"events":[${events.map(eventJson).join(',')}]}}`;
}
