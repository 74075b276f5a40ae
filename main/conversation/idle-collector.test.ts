import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleCollector } from './idle-collector';

afterEach(() => {
  vi.useRealTimers();
});

describe('IdleCollector', () => {
  it('collects once the app has been idle for a while, not while things keep happening', () => {
    vi.useFakeTimers();
    const collector = new IdleCollector(1_000, 0);
    collector.poke();
    vi.advanceTimersByTime(900);
    collector.poke();
    vi.advanceTimersByTime(900);
    expect(collector.collections).toBe(0);
    vi.advanceTimersByTime(200);
    expect(collector.collections).toBe(1);
    // Nothing new happened: nothing more to do.
    vi.advanceTimersByTime(10_000);
    expect(collector.collections).toBe(1);
  });

  it('leaves a small heap alone', () => {
    vi.useFakeTimers();
    const collector = new IdleCollector(1_000, Number.MAX_SAFE_INTEGER);
    collector.poke();
    vi.advanceTimersByTime(5_000);
    expect(collector.collections).toBe(0);
  });

  it('gives the garbage of a burst back', () => {
    vi.useFakeTimers();
    const made = { count: 0 };
    (() => {
      // Dropped when this returns.
      const garbage = Array.from({ length: 300_000 }, (_, index) => ({ index, text: `line ${index}` }));
      made.count = garbage.length;
    })();
    expect(made.count).toBe(300_000);
    const before = process.memoryUsage().heapUsed;
    const collector = new IdleCollector(1_000, 0);
    collector.poke();
    vi.advanceTimersByTime(1_000);
    expect(collector.collections).toBe(1);
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 10_000_000);
  });

  it('does nothing once stopped', () => {
    vi.useFakeTimers();
    const collector = new IdleCollector(1_000, 0);
    collector.poke();
    collector.stop();
    vi.advanceTimersByTime(5_000);
    expect(collector.collections).toBe(0);
  });
});
