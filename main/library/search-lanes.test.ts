import { describe, expect, it } from 'vitest';
import { SEARCH_LANES, SearchLanes, supersededBy } from './search-lanes';

/** Search as you type: which searches a newer one stops, as the worker reads it from the shared lanes. */

describe('search lanes', () => {
  it("stops a searcher's running searches when its next one arrives, and no one else's", () => {
    const lanes = new SearchLanes();
    const mine = lanes.claim('window-1', 1);
    const theirs = lanes.claim('window-2', 7);
    if (!mine || !theirs) throw new Error('each first search has a ticket');
    const mineStopped = supersededBy(lanes.buffer, mine);
    const theirsStopped = supersededBy(lanes.buffer, theirs);
    expect(mineStopped()).toBe(false);

    const next = lanes.claim('window-1', 2);
    expect(mineStopped()).toBe(true);
    expect(next && supersededBy(lanes.buffer, next)()).toBe(false);
    expect(theirsStopped()).toBe(false);
  });

  it('gives the titles and the whole of one search the same ticket, and none to a search already overtaken', () => {
    const lanes = new SearchLanes();
    const titles = lanes.claim('box', 3);
    expect(lanes.claim('box', 3)).toEqual(titles);
    lanes.claim('box', 4);
    expect(lanes.claim('box', 3)).toBeNull();
  });

  it('never confuses a new searcher with the one whose lane it took over', () => {
    const lanes = new SearchLanes();
    const first = lanes.claim('searcher-0', 100);
    if (!first) throw new Error('a ticket');
    for (let n = 1; n <= SEARCH_LANES; n += 1) lanes.claim(`searcher-${n}`, 1);
    // searcher-0 was heard from the longest ago: its lane went to the last one, and its search stopped.
    expect(supersededBy(lanes.buffer, first)()).toBe(true);
    // Coming back, it searches again, on some lane, with a ticket of its own.
    const again = lanes.claim('searcher-0', 101);
    expect(again && supersededBy(lanes.buffer, again)()).toBe(false);
  });

  it('lets a search without a ticket run to its end', () => {
    expect(supersededBy(new SearchLanes().buffer, undefined)()).toBe(false);
    expect(supersededBy(undefined, { lane: 0, generation: 1 })()).toBe(false);
  });
});
