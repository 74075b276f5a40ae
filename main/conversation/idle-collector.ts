import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after a burst. Streaming a long turn, or reading pages of a long conversation, leaves
 * main's heap full of garbage that V8 collects only when the heap grows again, so an idle app would keep
 * hundreds of megabytes it no longer uses. Once nothing has happened for a while, and only if the heap has
 * grown past a threshold, this runs one full collection: a pause of a few milliseconds (the live heap is
 * small) at a moment nobody is waiting, never while a conversation streams.
 */

const IDLE_MS = 2_000;
const THRESHOLD_BYTES = 64 * 1024 * 1024;

type Collect = () => void;

let collect: Collect | null | undefined;

/** V8's full collection, made available once; null where the runtime refuses. */
function collector(): Collect | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const found: unknown = runInNewContext('gc');
      collect = typeof found === 'function' ? (found as Collect) : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}

export class IdleCollector {
  private timer: NodeJS.Timeout | undefined;
  /** Full collections run, for tests. */
  collections = 0;
  /** The heap in use after the last collection. */
  private liveBytes = 0;

  constructor(
    private readonly idleMs = IDLE_MS,
    private readonly thresholdBytes = THRESHOLD_BYTES,
  ) {}

  /** Something happened: the idle time starts again. */
  poke(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.collectIfLarge(), this.idleMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private collectIfLarge(): void {
    this.timer = undefined;
    // Past what was live after the last collection too: a heap that is large and live is left alone.
    if (process.memoryUsage().heapUsed < Math.max(this.thresholdBytes, 2 * this.liveBytes)) return;
    const gc = collector();
    if (!gc) return;
    gc();
    this.collections++;
    this.liveBytes = process.memoryUsage().heapUsed;
  }
}
