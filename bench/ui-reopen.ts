import { readFileSync } from 'node:fs';
import {
  hostEventLoopDelay,
  median,
  reloadToFirstScreen,
  readStats,
  round,
  startUiRun,
  withTimeout,
  type Figures,
} from './ui-harness';

/**
 * Reopening a conversation built from a 100 MB transcript: one prompt answered by Bash calls with long
 * outputs until 100 MB of lines are written (bench/fake-cli-stream.mjs, BENCH_UI_MODE=big), watched live in
 * the page; then the page is reloaded three times, each timed from the reload to the first screen (the last
 * reply and its "Turn finished" row in the log), as `performance.now()` of the new document. Afterwards,
 * the host's resident memory, at once and (the figure with the goal) after 5 s idle.
 */

const BIG_BYTES = 100_000_000;
const BUILD_TIMEOUT_MS = 300_000;
const RELOAD_TIMEOUT_MS = 60_000;
const RUNS = 3;
const FIRST_SCREEN_GOAL_MS = 1_000;
const RSS_GOAL_MB = 250;
/** How long the host is left idle before its memory is read. */
const SETTLE_MS = 5_000;

interface BigStats {
  bytes: number;
  lines: number;
}

function rssMb(pid: number | undefined): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: round(kb('VmRSS') / 1024), peak: round(kb('VmHWM') / 1024) };
}

export async function measureReopen100mb(): Promise<Figures> {
  const run = await startUiRun({ env: { BENCH_UI_MODE: 'big', BENCH_BIG_BYTES: String(BIG_BYTES) } });
  try {
    const { page } = run;
    await page.getByRole('textbox', { name: 'Message' }).fill('build a big conversation');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    // Written when the fake CLI has written the turn; the page has it when the turn ends there (the view
    // need not follow it to the end).
    const deadline = Date.now() + BUILD_TIMEOUT_MS;
    let stats = readStats<BigStats>(run.statsPath);
    while (!stats && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stats = readStats<BigStats>(run.statsPath);
    }
    if (!stats) throw new Error('the 100 MB conversation was not written in time');
    await withTimeout(
      page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: BUILD_TIMEOUT_MS }),
      BUILD_TIMEOUT_MS + 5_000,
      'the end of the 100 MB turn',
    );
    const built = rssMb(run.host.pid);
    await hostEventLoopDelay(run);
    const times: number[] = [];
    for (let index = 0; index < RUNS; index++) times.push(await reloadToFirstScreen(run, RELOAD_TIMEOUT_MS));
    const delay = await hostEventLoopDelay(run);
    const atFirstScreen = rssMb(run.host.pid);
    // What the host keeps: once it has been idle a few seconds (main/idle-collector.ts).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const after = rssMb(run.host.pid);
    const ms = round(median(times));
    return {
      reopen_100mb_transcript_mb: round(stats.bytes / 1e6),
      reopen_100mb_lines: stats.lines,
      reopen_100mb_first_screen_ms: ms,
      reopen_100mb_first_screen_runs_ms: times.map((time) => round(time)).join(', '),
      reopen_100mb_host_eld_p99_ms: delay ? round(delay.p99) : 'not measured',
      reopen_100mb_host_rss_mb: after.rss,
      reopen_100mb_host_rss_at_first_screen_mb: atFirstScreen.rss,
      reopen_100mb_host_rss_before_reload_mb: built.rss,
      reopen_100mb_host_peak_rss_mb: after.peak,
      goal_reopen_100mb_under_1s: ms < FIRST_SCREEN_GOAL_MS ? 'pass' : 'fail',
      goal_reopen_100mb_host_under_250mb: after.rss < RSS_GOAL_MB ? 'pass' : 'fail',
    };
  } finally {
    await run.close();
  }
}
