import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LibraryIndex } from './library-index';
import { LiveIndex } from './live';

/** An index that only records what the live loop asks of it. */
function recordingIndex() {
  const noticed: { at: number; paths: string[] }[] = [];
  const index = {
    transcriptsDir: '/nowhere/transcripts',
    projectsDir: '/nowhere/projects',
    scan: () => undefined,
    notice: (paths: Iterable<string>) => noticed.push({ at: performance.now(), paths: [...paths] }),
    step: () => false,
    takeChanged: () => false,
  };
  return { index: index as unknown as LibraryIndex, noticed };
}

const FILE = '/nowhere/transcripts/run.jsonl';

describe('LiveIndex: when a changed file is read', () => {
  let live: LiveIndex | undefined;
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'setInterval', 'performance'],
    });
  });
  afterEach(() => {
    live?.close();
    vi.useRealTimers();
  });

  async function startLive(options: { gatherMs: number; busyMs: number }) {
    const recorded = recordingIndex();
    live = new LiveIndex(recorded.index, { onChange: () => undefined, watch: false, ...options });
    live.start();
    // The first scan, which looks at everything, is done before the changes below.
    await vi.advanceTimersByTimeAsync(0);
    return recorded;
  }

  it('reads a file once its writes pause, not a line at a time while they go on', async () => {
    const { noticed } = await startLive({ gatherMs: 100, busyMs: 10_000 });
    const started = performance.now();
    // A conversation streaming into its transcript: a write every 10 ms for a second.
    for (let write = 0; write < 100; write++) {
      live?.changed([FILE]);
      await vi.advanceTimersByTimeAsync(10);
    }
    const lastWrite = performance.now();
    expect(noticed).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(noticed).toEqual([{ at: expect.any(Number) as number, paths: [FILE] }]);
    // Read after the pause, not before it.
    expect(noticed[0]!.at - lastWrite).toBeGreaterThanOrEqual(90);
    expect(noticed[0]!.at - started).toBeLessThan(1_300);
  });

  it('still reads a file that never pauses, every busyMs', async () => {
    const { noticed } = await startLive({ gatherMs: 100, busyMs: 2_000 });
    for (let write = 0; write < 500; write++) {
      live?.changed([FILE]);
      await vi.advanceTimersByTimeAsync(10);
    }
    // Five seconds of writes: read at about 2 s and 4 s, each time with the file.
    expect(noticed.map((notice) => notice.paths)).toEqual([[FILE], [FILE]]);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(noticed).toHaveLength(3);
  });

  it('reads a single change after gatherMs', async () => {
    const { noticed } = await startLive({ gatherMs: 100, busyMs: 2_000 });
    live?.changed([FILE]);
    await vi.advanceTimersByTimeAsync(99);
    expect(noticed).toEqual([]);
    await vi.advanceTimersByTimeAsync(10);
    expect(noticed.map((notice) => notice.paths)).toEqual([[FILE]]);
  });
});
