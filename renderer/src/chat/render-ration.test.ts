import { describe, expect, it } from 'vitest';
import { createRation } from './render-ration';

/** A ration on a clock the test moves; each piece of work takes `cost` ms of it. */
function setUp() {
  let clock = 1_000;
  const ration = createRation({ budgetMs: 6, frameMs: 16, scrollingMs: 150, now: () => clock });
  const work = (cost: number) => () => {
    clock += cost;
    return cost;
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { ration, work, advance };
}

describe('rationing Markdown work while the reader scrolls', () => {
  it('runs everything when nobody scrolls', () => {
    const { ration, work } = setUp();
    for (let i = 0; i < 10; i++) expect(ration.run(work(5), false)).toBe(5);
  });

  it('gives a scrolling frame its budget, leaves the rest for the next frame, and stops once scrolling does', () => {
    const { ration, work, advance } = setUp();
    ration.noteScrolling();
    // One frame: work runs until 6 ms are spent; what comes after waits.
    expect(ration.run(work(4), false)).toBe(4);
    expect(ration.run(work(4), false)).toBe(4);
    expect(ration.run(work(1), false)).toBeUndefined();
    // The next frame has its budget again.
    advance(16);
    expect(ration.run(work(1), false)).toBe(1);
    // Each scroll event keeps the ration on; 150 ms after the last one it is off.
    advance(100);
    ration.noteScrolling();
    expect(ration.run(work(10), false)).toBe(10);
    expect(ration.run(work(1), false)).toBeUndefined();
    advance(150);
    expect(ration.run(work(10), false)).toBe(10);
    expect(ration.run(work(10), false)).toBe(10);
  });

  it('rations work left over from a scroll even after the scroll, so it does not all land in one frame', () => {
    const { ration, work, advance } = setUp();
    expect(ration.run(work(7), true)).toBe(7);
    expect(ration.run(work(1), true)).toBeUndefined();
    // Unrationed work still runs, and counts against nothing.
    expect(ration.run(work(1), false)).toBe(1);
    advance(16);
    expect(ration.run(work(1), true)).toBe(1);
  });
});
