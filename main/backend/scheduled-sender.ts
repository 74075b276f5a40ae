import type { ScheduledSend } from '../../shared/ipc';
import type { ScheduledSends } from '../data/scheduled-sends';

/** What became of a delivery: the text went, or it was no longer wanted (cancelled, or Byre closing). */
export type Delivery = 'sent' | 'not wanted';

/** The clock the scheduler reads and waits on: the real one, or a test's fake. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    // A message waiting for hours must not keep a closing process alive.
    timer.unref?.();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** Node fires a timer longer than about 24.8 days at once: a longer wait is taken in steps. */
const LONGEST_WAIT_MS = 2_000_000_000;

/**
 * Sends each kept message at its time, once: taken (marked in the store) before it goes, removed after; a
 * failure is recorded and not tried again on its own. What waits is the store's, so a new scheduler over the
 * same folder (Byre started again) picks up what the last one left, and sends at once what came due while
 * Byre was closed.
 */
export class ScheduledSender {
  private readonly timers = new Map<string, unknown>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: ScheduledSends,
    /**
     * Sends it. `stillWanted` is asked last thing before the text goes: resuming a session can take a while,
     * and a message cancelled meanwhile, or with Byre closing, must not be sent. Says whether it went.
     */
    private readonly deliver: (send: ScheduledSend, stillWanted: () => boolean) => Promise<Delivery>,
    private readonly changed: (sends: ScheduledSend[]) => void,
    private readonly clock: Clock = realClock,
  ) {}

  /** Arms a timer for each that waits; call once, at backend start. */
  start(): void {
    this.store.recover();
    for (const send of this.store.pending()) this.arm(send);
  }

  all(): ScheduledSend[] {
    return this.store.all();
  }

  add(send: ScheduledSend): void {
    this.store.add(send);
    this.arm(send);
    this.tell();
  }

  /** Cancelled: it is never sent. Whether it was there. */
  cancel(id: string): boolean {
    this.disarm(id);
    const found = this.store.remove(id);
    if (found) this.tell();
    return found;
  }

  /** No more sends from this process; resolves when those going now are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const id of [...this.timers.keys()]) this.disarm(id);
    await Promise.all([...this.inFlight]);
  }

  private arm(send: ScheduledSend): void {
    if (this.stopped) return;
    this.disarm(send.id);
    const wait = Math.max(0, send.sendAt - this.clock.now());
    const step = Math.min(wait, LONGEST_WAIT_MS);
    const timer = this.clock.setTimeout(() => {
      this.timers.delete(send.id);
      if (step < wait) this.arm(send);
      else this.fire(send.id);
    }, step);
    this.timers.set(send.id, timer);
  }

  private disarm(id: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    this.clock.clearTimeout(timer);
    this.timers.delete(id);
  }

  private fire(id: string): void {
    if (this.stopped) return;
    // Read again: it may have been cancelled, or taken by another Byre on the same folder.
    const send = this.store.all().find((s) => s.id === id);
    if (!send || !this.store.take(id)) return;
    const stillWanted = () => !this.stopped && this.store.all().some((s) => s.id === id);
    const going = this.deliver(send, stillWanted).then(
      // Not sent because Byre is closing: it waits again, and the next start sends it (a cancelled one is
      // already gone from the store, and removing it again is nothing).
      (delivery) =>
        delivery === 'sent' || !this.stopped ? void this.store.remove(id) : this.store.release(id),
      (error: unknown) => this.store.fail(id, error instanceof Error ? error.message : String(error)),
    );
    const done = going
      .catch((error: unknown) => console.error(`Byre could not record a kept message: ${String(error)}`))
      .finally(() => {
        this.inFlight.delete(done);
        this.tell();
      });
    this.inFlight.add(done);
  }

  private tell(): void {
    this.changed(this.store.all());
  }
}
