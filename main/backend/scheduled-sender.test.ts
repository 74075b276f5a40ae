import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScheduledSend } from '../../shared/ipc';
import { CUT_OFF, ScheduledSends } from '../data/scheduled-sends';
import { ScheduledSender, type Clock } from './scheduled-sender';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-sends-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const START = Date.UTC(2026, 11, 2, 13, 0);
const HOUR = 3_600_000;

/** A clock that moves only when told, firing what came due in time order. */
class FakeClock implements Clock {
  private time = START;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 0;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  };
  clearTimeout = (timer: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== timer);
  };
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
  }
}

function kept(overrides: Partial<ScheduledSend> = {}): ScheduledSend {
  return {
    id: '5d6c2b1a-0f9e-4d8c-b7a6-1e2d3c4b5a69',
    sessionId: 'c2f7a0b4-8d5e-4f1a-9b3c-2d4e5f6a7b8c',
    cwd: '/work/project',
    text: 'Carry on with the migration',
    sendAt: START + 2 * HOUR,
    createdAt: START,
    failed: null,
    ...overrides,
  };
}

/** A scheduler over the data folder, recording what it delivered and what it told the windows. */
function scheduler(clock: FakeClock, deliver: (send: ScheduledSend) => Promise<void> = async () => {}) {
  const delivered: string[] = [];
  const told: ScheduledSend[][] = [];
  const sender = new ScheduledSender(
    new ScheduledSends(dataDir),
    async (send) => {
      delivered.push(send.text);
      await deliver(send);
      return 'sent';
    },
    (sends) => told.push(sends),
    clock,
  );
  return { sender, delivered, told };
}

/** Lets the delivery's promise settle (the fake clock fires timers, not promises). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ScheduledSender', () => {
  it('sends a kept message at its time, once, and then it is gone', async () => {
    const clock = new FakeClock();
    const { sender, delivered } = scheduler(clock);
    sender.start();
    sender.add(kept());
    clock.advance(HOUR);
    expect(delivered).toEqual([]);
    clock.advance(HOUR);
    await settled();
    clock.advance(10 * HOUR);
    await settled();
    expect(delivered).toEqual(['Carry on with the migration']);
    expect(sender.all()).toEqual([]);
  });

  it('survives a restart: a new scheduler over the same folder sends it at its time', async () => {
    const clock = new FakeClock();
    const before = scheduler(clock);
    before.sender.start();
    before.sender.add(kept());
    await before.sender.stop();

    const after = scheduler(clock);
    after.sender.start();
    expect(after.sender.all()).toHaveLength(1);
    clock.advance(2 * HOUR);
    await settled();
    expect(before.delivered).toEqual([]);
    expect(after.delivered).toEqual(['Carry on with the migration']);
  });

  it('sends at start one whose time passed while Byre was closed', async () => {
    new ScheduledSends(dataDir).add(kept({ sendAt: START - HOUR }));
    const clock = new FakeClock();
    const { sender, delivered } = scheduler(clock);
    sender.start();
    clock.advance(0);
    await settled();
    expect(delivered).toEqual(['Carry on with the migration']);
  });

  it('never sends one that was cancelled, not even after a restart', async () => {
    const clock = new FakeClock();
    const { sender, delivered, told } = scheduler(clock);
    sender.start();
    sender.add(kept());
    expect(sender.cancel(kept().id)).toBe(true);
    expect(told.at(-1)).toEqual([]);
    clock.advance(3 * HOUR);
    const after = scheduler(clock);
    after.sender.start();
    clock.advance(3 * HOUR);
    await settled();
    expect([...delivered, ...after.delivered]).toEqual([]);
  });

  it('records a failure and does not try again on its own, nor after a restart', async () => {
    const clock = new FakeClock();
    const { sender, delivered } = scheduler(clock, async () => {
      throw new Error('That conversation is no longer in the library.');
    });
    sender.start();
    sender.add(kept());
    clock.advance(2 * HOUR);
    await settled();
    expect(sender.all()).toEqual([{ ...kept(), failed: 'That conversation is no longer in the library.' }]);
    const after = scheduler(clock);
    after.sender.start();
    clock.advance(5 * HOUR);
    await settled();
    expect([...delivered, ...after.delivered]).toEqual(['Carry on with the migration']);
  });

  it('does not send again one cut off mid-send (Byre closed), but shows it failed', async () => {
    const file = join(dataDir, 'scheduled-sends.json');
    new ScheduledSends(dataDir).add(kept({ sendAt: START - HOUR }));
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { sends: Record<string, unknown>[] };
    writeFileSync(file, JSON.stringify({ sends: raw.sends.map((s) => ({ ...s, sending: true })) }));
    const clock = new FakeClock();
    const { sender, delivered } = scheduler(clock);
    sender.start();
    clock.advance(HOUR);
    await settled();
    expect(delivered).toEqual([]);
    expect(sender.all()[0]?.failed).toBe(CUT_OFF);
  });

  it('does not send one cancelled while its session was still being resumed', async () => {
    const clock = new FakeClock();
    let resumed: () => void = () => {};
    const sent: string[] = [];
    const sender = new ScheduledSender(
      new ScheduledSends(dataDir),
      async (send, stillWanted) => {
        // As deliverScheduled: the session is found or resumed first, which takes a while.
        await new Promise<void>((resolve) => (resumed = resolve));
        if (!stillWanted()) return 'not wanted';
        sent.push(send.text);
        return 'sent';
      },
      () => {},
      clock,
    );
    sender.start();
    sender.add(kept());
    clock.advance(2 * HOUR);
    expect(sender.cancel(kept().id)).toBe(true);
    resumed();
    await sender.stop();
    expect(sent).toEqual([]);
    expect(sender.all()).toEqual([]);
  });

  it('keeps one Byre closed on while its session was still being resumed, and the next start sends it', async () => {
    const clock = new FakeClock();
    let resumed: () => void = () => {};
    const sender = new ScheduledSender(
      new ScheduledSends(dataDir),
      async (_send, stillWanted) => {
        await new Promise<void>((resolve) => (resumed = resolve));
        return stillWanted() ? 'sent' : 'not wanted';
      },
      () => {},
      clock,
    );
    sender.start();
    sender.add(kept());
    clock.advance(2 * HOUR);
    const stopping = sender.stop();
    resumed();
    await stopping;
    // Still kept, neither sent nor failed.
    expect(sender.all()).toEqual([kept()]);

    const after = scheduler(clock);
    after.sender.start();
    clock.advance(0);
    await settled();
    expect(after.delivered).toEqual(['Carry on with the migration']);
  });
});
