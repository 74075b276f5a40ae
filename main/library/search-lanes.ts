/**
 * Search as the user types: each keystroke starts a search and cancels the one before it, in the worker
 * (not merely by ignoring its answer). A worker busy with a search cannot read its messages, so the news
 * that a search is no longer wanted travels through memory shared with it: each searcher (a window's search
 * box) has a lane, a slot holding the generation of its newest search. Main writes a new generation when a
 * newer search of that searcher arrives; the worker reads the slot between the steps of a search and gives
 * up one that is no longer its lane's newest (SearchSuperseded).
 */

/** Searchers (windows, each with its search box) kept at once; the longest unused lane is taken for a new one. */
export const SEARCH_LANES = 64;
const MAX_GENERATION = 0x7fffffff;

/** A search that a newer one of the same searcher replaced before it was done: nobody will read it. */
export class SearchSuperseded extends Error {
  override readonly name = 'SearchSuperseded';
}

/** Between a search's steps: stops it (SearchSuperseded) once `superseded` says a newer one replaced it. */
export function stopIfSuperseded(superseded: (() => boolean) | undefined): void {
  if (superseded?.()) throw new SearchSuperseded('A newer search replaced this one.');
}

/** Where one search runs: its lane, and the generation that lane holds while it is the newest. */
export interface SearchTicket {
  lane: number;
  generation: number;
}

interface Lane {
  slot: number;
  /** The searcher's own number for its newest search (several requests, e.g. titles then messages, share one). */
  seq: number;
  generation: number;
}

/** Main's side: the lanes, by searcher; `buffer` goes to the worker once, when it starts. */
export class SearchLanes {
  readonly buffer = new SharedArrayBuffer(SEARCH_LANES * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.buffer);
  /** By searcher, least recently used first (a Map keeps the order things were set in). */
  private readonly lanes = new Map<string, Lane>();
  private generation = 0;

  /**
   * The ticket of a searcher's search numbered `seq` (a searcher numbers its searches upward). A higher
   * number than its last supersedes every search it has running; the same number shares their ticket; a lower
   * one was superseded before it arrived, and gets null.
   */
  claim(searcher: string, seq: number): SearchTicket | null {
    const lane = this.lanes.get(searcher);
    if (lane && seq < lane.seq) return null;
    this.lanes.delete(searcher);
    if (lane && seq === lane.seq) {
      this.lanes.set(searcher, lane);
      return { lane: lane.slot, generation: lane.generation };
    }
    const slot = lane?.slot ?? this.freeSlot();
    // Never 0, which a slot holds before its first search.
    this.generation = this.generation >= MAX_GENERATION ? 1 : this.generation + 1;
    this.lanes.set(searcher, { slot, seq, generation: this.generation });
    Atomics.store(this.slots, slot, this.generation);
    return { lane: slot, generation: this.generation };
  }

  private freeSlot(): number {
    if (this.lanes.size < SEARCH_LANES) {
      const used = new Set([...this.lanes.values()].map((lane) => lane.slot));
      for (let slot = 0; slot < SEARCH_LANES; slot += 1) if (!used.has(slot)) return slot;
    }
    // The searcher not heard from the longest gives its lane up (its running search, if any, stops).
    const [oldest, lane] = this.lanes.entries().next().value as [string, Lane];
    this.lanes.delete(oldest);
    return lane.slot;
  }
}

/**
 * The worker's side: a function that says whether the search holding `ticket` has been superseded. Without
 * a ticket (a search nobody can supersede) it never has.
 */
export function supersededBy(
  buffer: SharedArrayBuffer | undefined,
  ticket: SearchTicket | undefined,
): () => boolean {
  if (!buffer || !ticket) return () => false;
  const slots = new Int32Array(buffer);
  return () => Atomics.load(slots, ticket.lane) !== ticket.generation;
}
