import type { ConversationEvent, EventChannel, EventPayload } from '../../shared/ipc';
import { lineTextOf } from '../lanes/stream';

/**
 * Events as JSON, each written once: the open conversation's log (event-log.ts) stores it and the browser
 * host sends it, and a 10,000-message burst is 10 MB of it. An event is never changed once it is emitted
 * (a changed one, such as an event with its images by reference, is a new object), so the text is kept
 * with the object for as long as the object lives.
 */
const texts = new WeakMap<ConversationEvent, string>();

export function eventJson(event: ConversationEvent): string {
  let text = texts.get(event);
  if (text === undefined) {
    // A line from the CLI, shown as it came: its JSON is the text it came as.
    const line = event.kind === 'message' && Object.keys(event).length === 2 && lineTextOf(event.message);
    text = line ? `{"kind":"message","message":${line}}` : JSON.stringify(event);
    texts.set(event, text);
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
