import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ensureCorpus } from './library-corpus';
import {
  appStarted,
  buildNote,
  median,
  openHostPage,
  round,
  waitForIndex,
  type Figure,
  type Figures,
  type HostPage,
  type PageClock,
} from './ui-harness';

/**
 * The Usage view over the 1 GB corpus (bench/library-corpus.ts: a year of sessions on five models in 12
 * folders), in Chromium through the browser host (out/main/web.js) with HOME at the corpus and a fresh data
 * folder. Each figure is from the user's action to the frame after the view shows its answer: installed
 * timers in the page take the time of the click (or of the select's change), and, once the DOM shows the
 * result, a task queued from the next animation frame's callback, i.e. after that frame is painted.
 *
 * - cold: the first open after the host started, as soon as its index has settled (status done): once on the
 *   fresh data folder it has just indexed, then from two more host starts on that folder; the median;
 * - warm: the page reloaded, the host and its index as they were: the median of three;
 * - switching the range (each of the others, and back) and the grouping, three rounds; each target's median,
 *   the figure the slowest of them;
 * - the floors beside them, on this machine in the same page: a click on something that does nothing to the
 *   frame after it, and a round trip to the host (libraryStatus).
 *
 * "Shown" means: for an open, the chart's bars and the table's rows are in the DOM; for a range, the chart's
 * summary names the new range (or the view says the range has no usage); for a grouping, its chart is there.
 */

const COLD_RUNS = 3;
const WARM_RUNS = 3;
const SWITCH_ROUNDS = 3;
const FLOOR_RUNS = 5;
const ROUND_TRIPS = 10;
const INDEX_TIMEOUT_MS = Number(process.env.BENCH_LIBRARY_INDEX_TIMEOUT_S ?? 360) * 1000;
const SHOWN_TIMEOUT_MS = 30_000;

/** The view opens on 30 days by day; the switches go through every other choice and back. */
const RANGES = [
  ['7d', '7 days'],
  ['90d', '90 days'],
  ['all', 'All time'],
  ['today', 'Today'],
  ['30d', '30 days'],
] as const;
const GROUPINGS = ['folder', 'model', 'day'] as const;

export const USAGE_GOALS = [
  { key: 'usage_view_first_paint_warm_ms', below: 300, what: 'the view with its report, page reloaded' },
  {
    key: 'usage_view_first_paint_cold_ms',
    below: 1000,
    what: 'the first open after the host started, its index just settled',
  },
  { key: 'usage_range_switch_ms', below: 100, what: 'a range chosen to its report painted (the slowest)' },
  {
    key: 'usage_grouping_switch_ms',
    below: 100,
    what: 'a grouping chosen to its chart painted (the slowest)',
  },
] as const;

const goalKey = (key: string) => `goal_${key.replace(/_ms$/, '')}`;

export function usageVerdicts(figures: Record<string, Figure>): string[] {
  return USAGE_GOALS.flatMap(({ key, below, what }) => {
    const verdict = figures[goalKey(key)];
    if (verdict !== 'pass' && verdict !== 'fail') return [];
    return [
      `${verdict === 'pass' ? 'PASS' : 'FAIL'}: ${key} ${figures[key]} ms (goal < ${below} ms; the floor: a frame after a click ${figures.usage_floor_frame_ms} ms, a round trip ${figures.usage_floor_round_trip_ms} ms): ${what}`,
    ];
  });
}

/** What the page waits to see after an action. */
type Wanted =
  | { kind: 'open' }
  | { kind: 'range'; words: string }
  | { kind: 'grouping'; grouping: (typeof GROUPINGS)[number] }
  | { kind: 'floor' };

interface Timing {
  wanted: Wanted | null;
  startAt: number;
  shownAt: number;
  paintedAt: number;
}

/** A Timing as read back, with the largest WebSocket reply after the action (the report): when, and its size. */
interface Timed extends Timing {
  replyAt: number;
  replyBytes: number;
}

/** Installed after installPageClock, before the app's scripts on every load. Self-contained: it is serialized. */
function installUsageTimer(): void {
  const clock = (window as unknown as { __benchClock: PageClock }).__benchClock;
  const timing: Timing = { wanted: null, startAt: NaN, shownAt: NaN, paintedAt: NaN };
  Object.defineProperty(window, '__benchUsage', { value: timing });
  const start = () => {
    timing.startAt = performance.now();
    clock.mark();
  };
  const paintAfter = () => {
    timing.shownAt = performance.now();
    clock.afterPaint((at) => (timing.paintedAt = at));
  };
  const started = () => timing.wanted !== null && !Number.isNaN(timing.startAt);
  document.addEventListener(
    'click',
    (event) => {
      const target = event.target;
      if (!timing.wanted || started() || !(target instanceof Element)) return;
      if (timing.wanted.kind === 'open' && target.closest('button.sidebar-usage')) {
        start();
      } else if (timing.wanted.kind === 'floor' && target.closest('.usage-header h2')) {
        start();
        paintAfter();
      }
    },
    true,
  );
  // A select's choice: Playwright's selectOption fires input, then change.
  for (const type of ['input', 'change']) {
    document.addEventListener(
      type,
      (event) => {
        if (!timing.wanted || started() || !(event.target instanceof HTMLSelectElement)) return;
        if (timing.wanted.kind === 'range' || timing.wanted.kind === 'grouping') start();
      },
      true,
    );
  }
  const region = () => document.querySelector('section.usage[role="region"]');
  const shown = (wanted: Wanted): boolean => {
    const view = region();
    if (!view) return false;
    switch (wanted.kind) {
      case 'open':
        return (
          view.querySelector('svg[role="img"][aria-label="Usage by day"] .usage-bar') !== null &&
          view.querySelector('table[aria-label="Usage by folder"] tbody tr') !== null
        );
      case 'range': {
        const summary = view.querySelector('.usage-summary')?.textContent ?? '';
        const empty = view.querySelector('.usage-empty')?.textContent ?? '';
        return summary.startsWith(`${wanted.words}:`) || empty.includes(wanted.words.toLowerCase());
      }
      case 'grouping':
        return wanted.grouping === 'day'
          ? view.querySelector('svg[role="img"][aria-label="Usage by day"] .usage-bar') !== null
          : view.querySelector(`ul.usage-groups[aria-label="Usage by ${wanted.grouping}"] li`) !== null;
      case 'floor':
        return false;
    }
  };
  const check = () => {
    const wanted = timing.wanted;
    if (!wanted || !started() || !Number.isNaN(timing.shownAt)) return;
    if (shown(wanted)) paintAfter();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
}

async function expect(page: Page, wanted: Wanted): Promise<void> {
  await page.evaluate((next) => {
    const timing = (window as unknown as { __benchUsage: Timing }).__benchUsage;
    Object.assign(timing, { wanted: next, startAt: NaN, shownAt: NaN, paintedAt: NaN });
  }, wanted);
}

async function painted(page: Page, what: string): Promise<Timed> {
  await page
    .waitForFunction(
      () => !Number.isNaN((window as unknown as { __benchUsage: Timing }).__benchUsage.paintedAt),
      undefined,
      { timeout: SHOWN_TIMEOUT_MS, polling: 50 },
    )
    .catch(() => {
      throw new Error(`${what} was not painted within ${SHOWN_TIMEOUT_MS / 1000} s`);
    });
  return page.evaluate(() => {
    const page = window as unknown as { __benchUsage: Timing; __benchClock: PageClock };
    const { at, bytes } = page.__benchClock.reply;
    return { ...page.__benchUsage, replyAt: at, replyBytes: bytes };
  });
}

/** Clicks "Usage" in the sidebar and waits for the chart and the table to be painted. */
async function openView(page: Page): Promise<Timed> {
  if ((await page.getByRole('region', { name: 'Usage' }).count()) > 0)
    throw new Error('the Usage view was already open before the click');
  await expect(page, { kind: 'open' });
  await page.getByRole('button', { name: 'Usage', exact: true }).click();
  return painted(page, 'the Usage view');
}

/** A click on the view's heading, which does nothing: the machine's floor for a click to a painted frame. */
async function floorFrame(page: Page): Promise<number> {
  await expect(page, { kind: 'floor' });
  await page.getByRole('heading', { name: 'Usage', exact: true }).click();
  const timing = await painted(page, 'the frame after a click on the heading');
  return timing.paintedAt - timing.startAt;
}

/** The page's round trip to the host for the smallest question it has: the floor for a report's reply. */
async function roundTrip(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const start = performance.now();
    await window.byre.libraryStatus({});
    return performance.now() - start;
  });
}

const paintMs = (timing: Timed) => timing.paintedAt - timing.startAt;
const replyMs = (timing: Timed) => timing.replyAt - timing.startAt;
const list = (values: number[]) => values.map((value) => round(value)).join(', ');

/** Each switch of the range and of the grouping, SWITCH_ROUNDS times, into `figures`. */
async function measureSwitches(page: Page, figures: Figures): Promise<void> {
  const ranges = new Map<string, Timed[]>();
  const groupings = new Map<string, Timed[]>();
  for (let round = 0; round < SWITCH_ROUNDS; round++) {
    for (const [range, words] of RANGES) {
      await expect(page, { kind: 'range', words });
      await page.getByRole('combobox', { name: 'Range' }).selectOption(range);
      ranges.set(range, [...(ranges.get(range) ?? []), await painted(page, `the range ${words}`)]);
    }
    for (const grouping of GROUPINGS) {
      await expect(page, { kind: 'grouping', grouping });
      await page.getByRole('combobox', { name: 'Group by' }).selectOption(grouping);
      groupings.set(grouping, [
        ...(groupings.get(grouping) ?? []),
        await painted(page, `the grouping by ${grouping}`),
      ]);
    }
  }
  const slowest = (prefix: string, runs: Map<string, Timed[]>) => {
    let worst = 0;
    for (const [target, timings] of runs) {
      const ms = median(timings.map(paintMs));
      worst = Math.max(worst, ms);
      figures[`${prefix}_${target}_ms`] = round(ms);
      figures[`${prefix}_${target}_runs`] = list(timings.map(paintMs));
    }
    figures[`${prefix}_ms`] = round(worst);
  };
  slowest('usage_range_switch', ranges);
  slowest('usage_grouping_switch', groupings);
  // Where the slowest switch's time goes: to its reply, from the reply to the DOM, from the DOM to the frame.
  const all = ranges.get('all') ?? [];
  // The view reads the other ranges ahead once one is shown, so a switch usually asks main nothing: then
  // there is no reply to time, and the count of switches that had to wait for one says so.
  const asked = all.filter((timing) => Number.isFinite(timing.replyAt));
  figures.usage_range_switch_all_asked_main = asked.length;
  if (asked.length > 0) {
    figures.usage_range_switch_all_reply_ms = round(median(asked.map(replyMs)));
    figures.usage_range_switch_all_render_ms = round(
      median(asked.map((timing) => timing.shownAt - timing.replyAt)),
    );
  }
  figures.usage_range_switch_all_paint_ms = round(
    median(all.map((timing) => timing.paintedAt - timing.shownAt)),
  );
  figures.usage_range_switch_all_reply_kb = round(
    Math.max(0, ...all.map((timing) => timing.replyBytes)) / 1000,
  );
}

/**
 * What the corpus's report holds for all time, to show that the figures are over a year of real usage; and
 * how long the page waits for it when nothing else is going on (the view closed), ROUND_TRIPS times.
 */
async function reportShape(page: Page): Promise<Figures> {
  const shape = await page.evaluate(async (times) => {
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const waits: number[] = [];
    let result: Awaited<ReturnType<typeof window.byre.usageReport>> | undefined;
    for (let i = 0; i < times; i++) {
      const start = performance.now();
      result = await window.byre.usageReport({ range: 'all', folder: null, timeZone });
      waits.push(performance.now() - start);
    }
    if (!result?.ok) return null;
    const report = result.value;
    return {
      waits,
      days: report.days.length,
      first: report.days[0]?.day ?? 'none',
      models: report.models.length,
      folders: report.folders.length,
      conversations: report.totals.conversations,
      tokens: Object.values(report.totals.tokens).reduce((sum, count) => sum + count, 0),
    };
  }, ROUND_TRIPS);
  if (!shape) throw new Error('the usage report for all time could not be read');
  return {
    usage_report_all_round_trip_ms: round(median(shape.waits)),
    usage_report_all_days: shape.days,
    usage_report_all_first_day: shape.first,
    usage_report_all_models: shape.models,
    usage_report_all_folders: shape.folders,
    usage_report_all_conversations: shape.conversations,
    usage_report_all_tokens_m: round(shape.tokens / 1e6),
  };
}

async function reloadPage(page: Page): Promise<void> {
  await page.reload();
  await appStarted(page);
}

export async function measureUsageView(): Promise<Figures> {
  const { manifest } = ensureCorpus((line) => process.stderr.write(`${line}\n`));
  const figures: Figures = {};
  const note = buildNote();
  if (note) figures.usage_ui_build_note = note;
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-usage-'));
  const dataDir = join(root, 'data');
  let run: HostPage | undefined;
  try {
    const cold: Timed[] = [];
    const warm: Timed[] = [];
    const floors: number[] = [];
    const trips: number[] = [];
    for (let start = 0; start < COLD_RUNS; start++) {
      run = await openHostPage(manifest.home, dataDir, [installUsageTimer]);
      const { page } = run;
      const indexing = performance.now();
      await waitForIndex(page, INDEX_TIMEOUT_MS);
      if (start === 0) figures.usage_index_settled_s = round((performance.now() - indexing) / 1000);
      cold.push(await openView(page));
      if (start === 0) {
        for (let i = 0; i < WARM_RUNS; i++) {
          await reloadPage(page);
          warm.push(await openView(page));
        }
        for (let i = 0; i < FLOOR_RUNS; i++) floors.push(await floorFrame(page));
        for (let i = 0; i < ROUND_TRIPS; i++) trips.push(await roundTrip(page));
        await measureSwitches(page, figures);
        await page.getByRole('button', { name: 'Close', exact: true }).click();
        Object.assign(figures, await reportShape(page));
      }
      await run.close();
      run = undefined;
    }
    figures.usage_view_first_paint_cold_ms = round(median(cold.map(paintMs)));
    figures.usage_view_first_paint_cold_runs = list(cold.map(paintMs));
    figures.usage_view_first_paint_cold_reply_ms = round(median(cold.map(replyMs)));
    figures.usage_view_first_paint_warm_ms = round(median(warm.map(paintMs)));
    figures.usage_view_first_paint_warm_runs = list(warm.map(paintMs));
    figures.usage_view_first_paint_warm_reply_ms = round(median(warm.map(replyMs)));
    figures.usage_view_report_kb = round(Math.max(...warm.map((timing) => timing.replyBytes)) / 1000);
    figures.usage_floor_frame_ms = round(median(floors));
    figures.usage_floor_round_trip_ms = round(median(trips), 2);
    for (const { key, below } of USAGE_GOALS) {
      const value = figures[key];
      figures[goalKey(key)] = typeof value === 'number' && value < below ? 'pass' : 'fail';
    }
  } finally {
    await run?.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}
