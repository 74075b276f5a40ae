/**
 * Store updates that come from main rather than from the user (events, a list read again, a reading of
 * the context window) wait for the next animation frame and are applied there together, in one task: React
 * makes one commit for them, however many arrived. A hidden page gets no frames; a timer stands in.
 * Outside a browser (unit tests of the store) an update is applied at once.
 */

const queue: (() => void)[] = [];
let scheduled = false;

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
  // Updates queued while these run wait for the next frame.
  for (const update of queue.splice(0)) {
    try {
      update();
    } catch (error) {
      reportError(error);
    }
  }
}
