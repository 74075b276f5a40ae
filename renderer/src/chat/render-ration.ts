/**
 * While the reader scrolls fast, each frame mounts several rows, and parsing their Markdown (a few ms a row)
 * would make it miss its deadline. A ration gives such work a few ms of each frame while scrolling goes
 * on; what does not fit is left for a later frame. Outside a scroll nothing is rationed unless asked (work
 * left over from a scroll), so a conversation opens and streams fully formatted.
 */
export interface Ration {
  /** Called for each scroll event the reader makes: work is rationed for a moment. */
  noteScrolling(): void;
  /** Runs `work` and returns its result, or returns undefined if this frame's ration is spent. */
  run<T>(work: () => T, rationed: boolean): T | undefined;
}

export interface RationOptions {
  /** Time each frame may spend. */
  budgetMs: number;
  /** A frame's length; frames are told apart by time, not by requestAnimationFrame (a hidden page has none). */
  frameMs: number;
  /** Scrolling counts as going on this long after the last scroll event. */
  scrollingMs: number;
  now: () => number;
}

export function createRation({ budgetMs, frameMs, scrollingMs, now }: RationOptions): Ration {
  let scrollingUntil = -Infinity;
  let frameStart = -Infinity;
  let spent = 0;
  return {
    noteScrolling() {
      scrollingUntil = now() + scrollingMs;
    },
    run(work, rationed) {
      const start = now();
      if (!rationed && start >= scrollingUntil) return work();
      if (start - frameStart >= frameMs) {
        frameStart = start;
        spent = 0;
      }
      if (spent >= budgetMs) return undefined;
      const result = work();
      spent += now() - start;
      return result;
    },
  };
}
