import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * For the benchmarks (BYRE_BENCH_ELD=1): each SIGUSR2 writes the event loop's delay since the one before to
 * stderr, as `byre-eld {"p50":…,"p99":…,"max":…,"p99Interval":…}` in ms, and starts counting again.
 *
 * monitorEventLoopDelay records the interval between ticks of a timer that should tick every `resolution`
 * ms, so an idle loop reads 10.1 ms at resolution 10. The delay is what an interval took beyond that (as
 * Node's own later per-iteration mode, Elastic's APM agent and OpenTelemetry's runtime metrics take it);
 * the raw p99 interval is reported beside it.
 */
export function reportEventLoopDelay(): void {
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const late = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);
    const figures = {
      p50: late(delay.percentile(50)),
      p99: late(delay.percentile(99)),
      max: late(delay.max),
      p99Interval: ms(delay.percentile(99)),
    };
    process.stderr.write(`byre-eld ${JSON.stringify(figures)}\n`);
    delay.reset();
  });
  process.stderr.write('byre-eld ready\n');
}
