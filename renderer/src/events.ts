import type { ConversationEvent } from '../../shared/ipc';
import { useStore } from './store';

/**
 * Carries events from main into the store, applying whatever arrived since the last frame in one update:
 * at most one store update (and so one React commit) per animation frame, however fast deltas come.
 */
export function connectEvents(): () => void {
  let pending = new Map<string, ConversationEvent[]>();
  let frame: number | null = null;

  const flush = () => {
    frame = null;
    const batches = pending;
    pending = new Map();
    useStore.getState().applyConversationEvents(batches);
  };

  const offEvents = window.byre.on('conversationEvents', ({ conversationId, events }) => {
    const list = pending.get(conversationId);
    if (list) list.push(...events);
    else pending.set(conversationId, [...events]);
    // A hidden page gets no animation frames; a timer keeps it current for when it is shown again.
    frame ??= document.hidden ? window.setTimeout(flush, 100) : requestAnimationFrame(flush);
  });
  const offNotification = window.byre.on('notification', ({ title, message }) => {
    if (document.hasFocus() || typeof Notification === 'undefined') return;
    if (Notification.permission === 'granted') new Notification(title, { body: message });
  });
  return () => {
    offEvents();
    offNotification();
  };
}
