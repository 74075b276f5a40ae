import type { StateCreator } from 'zustand';

/**
 * Store updates that come from main rather than from the user (events, a list read again, a reading of
 * the context window) wait for the next animation frame and are applied there together, in one task: React
 * makes one commit for them, however many arrived. A hidden page gets no frames; a timer stands in.
 * Outside a browser (unit tests of the store) an update is applied at once.
 */

const queue: (() => void)[] = [];
let scheduled = false;
/** While the frame's updates are being applied. */
let running = false;

export function inNextFrame(update: () => void): void {
  if (typeof document === 'undefined' || typeof window === 'undefined') {
    update();
    return;
  }
  queue.push(update);
  if (scheduled) return;
  scheduled = true;
  if (document.hidden) window.setTimeout(run, 100);
  else requestAnimationFrame(run);
}

function run(): void {
  scheduled = false;
  running = true;
  try {
    // Updates queued while these run wait for the next frame.
    for (const update of queue.splice(0)) {
      try {
        update();
      } catch (error) {
        reportError(error);
      }
    }
  } finally {
    running = false;
  }
}

/** While a user's input event is dispatched: its updates are shown at once (a controlled input needs it). */
function inUserEvent(): boolean {
  // Deprecated but kept by every engine: the event being dispatched, if any.
  const event = (window as { event?: Event }).event;
  if (event === undefined) return false;
  return (
    event instanceof UIEvent ||
    event instanceof ClipboardEvent ||
    event.type === 'input' ||
    event.type === 'change' ||
    event.type === 'submit'
  );
}

type Listener<T> = (state: T, previous: T) => void;

/**
 * zustand middleware: a store update made outside the user's input and outside the frame's run (an answer
 * from main arriving, a timer) is told to the store's listeners, React's among them, in the next frame's
 * run with the rest, so it shares that frame's one commit instead of making a second. The state itself
 * changes at once; only the notice waits.
 */
export function notifiedInFrame<T>(initializer: StateCreator<T>): StateCreator<T> {
  return (set, get, api) => {
    const subscribe = api.subscribe;
    const waiting = new Map<Listener<T>, T>();
    const notify = () => {
      const state = api.getState();
      const due = [...waiting];
      waiting.clear();
      for (const [listener, previous] of due) listener(state, previous);
    };
    api.subscribe = (listener: Listener<T>) => {
      const unsubscribe = subscribe((state, previous) => {
        if (typeof window === 'undefined' || running || inUserEvent()) {
          waiting.delete(listener);
          listener(state, previous);
          return;
        }
        if (waiting.has(listener)) return;
        if (waiting.size === 0) inNextFrame(notify);
        waiting.set(listener, previous);
      });
      return () => {
        waiting.delete(listener);
        unsubscribe();
      };
    };
    return initializer(set, get, api);
  };
}
