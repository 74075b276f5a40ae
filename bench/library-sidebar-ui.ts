import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/fixtures/host-process';
import { APP_CSP, securityHeaders } from '../main/hosts/web-bridge';
import type { CorpusManifest } from './library-corpus';
import {
  SCROLL_STEP_PX,
  awaitScroll,
  scrollToBottom,
  startScrollProbe,
  staticScrollPass,
} from './ui-long-conversation';
import {
  frameStats,
  installPageClock,
  median,
  openHostPage,
  percentile,
  round,
  waitForIndex,
  withTimeout,
  type Figures,
  type HostPage,
  type PageClock,
} from './ui-harness';

/**
 * The library's sidebar in Chromium through the browser host, over the whole corpus (HOME at the corpus's
 * home, a fresh data folder):
 *
 * - the first page, navigation start to the first row painted: cold (`library_first_page_cold_ms`) from a
 *   fresh data folder, three times (the first run goes on to the rest), and warm (`…_warm_ms`) from a new
 *   host on the complete index, as after a restart, three times; each the median of its runs; beside them
 *   the machine's floor (`library_first_page_floor_ms`): a fresh Chromium's first paint of a page of one
 *   row, served as the app's page is (the redirect, the same headers: a cross-origin-opener policy costs
 *   this Chromium a new renderer process) and timed the same way, without any of the app's code or styles;
 * - search: the corpus's queries typed into the search box one at a time (filled at once, one input
 *   event), from that input event to the first frame painted after the whole answer (titles and messages:
 *   the results no longer busy, or "No conversations mention …") appears (`library_search_p50_ms`,
 *   `_p95_ms`), and to the first frame after the first results (the titles, which come first: `…_first_…`);
 *   the box is emptied, and the rows are back, before each;
 * - the host's RSS once the index is settled and searched (`library_host_rss_mb`), and its high-water mark,
 *   which holds the indexing (the library's worker is a thread of the host);
 * - scrolling the sidebar from its bottom to its top by 1,500 px a frame (`library_sidebar_scroll_frames_dropped`),
 *   beside the chat benchmark's floor for the same pass (a static page scrolled as long, as far each frame:
 *   what it drops is the machine's).
 */

const STARTUP_TIMEOUT_MS = 30_000;
const SEARCH_TIMEOUT_MS = 30_000;
const SCROLL_PASS_MS = 10_000;
const FIRST_PAGE_RUNS = 3;
const SIDEBAR_LIST = 'nav[aria-label="Conversations"] .sidebar-list';

interface FirstRows {
  paintedAt: number;
}

interface SearchTiming {
  query: string;
  inputAt: number;
  /** The first results (or the answer that there are none) painted. */
  firstPaintedAt: number;
  shownAt: number;
  /** The whole answer painted. */
  paintedAt: number;
}

/** Installed after installPageClock, before the app's scripts on every load. Self-contained: it is serialized. */
function installSidebarTimers(): void {
  const clock = (window as unknown as { __benchClock: PageClock }).__benchClock;
  const rows = { paintedAt: NaN };
  const search = {
    query: '',
    inputAt: NaN,
    firstShownAt: NaN,
    firstPaintedAt: NaN,
    shownAt: NaN,
    paintedAt: NaN,
  };
  Object.defineProperty(window, '__benchFirstRows', { value: rows });
  Object.defineProperty(window, '__benchSearch', { value: search });
  let rowSeen = false;
  const check = () => {
    const nav = document.querySelector('nav[aria-label="Conversations"]');
    if (!nav) return;
    if (!rowSeen && nav.querySelector('.sidebar-list .library-row-title')) {
      rowSeen = true;
      clock.afterPaint((at) => (rows.paintedAt = at));
    }
    if (Number.isNaN(search.inputAt) || !Number.isNaN(search.shownAt) || !search.query.trim()) return;
    const results = nav.querySelector('[aria-label="Search results"]');
    const none = [...nav.querySelectorAll('.sidebar-empty')].find((p) =>
      p.textContent?.startsWith('No conversations mention'),
    );
    if (!results && !none) return;
    if (Number.isNaN(search.firstShownAt)) {
      search.firstShownAt = performance.now();
      clock.afterPaint((at) => (search.firstPaintedAt = at));
    }
    // Titles come first; the results are busy until the messages are in.
    if (results?.getAttribute('aria-busy') === 'true') return;
    search.shownAt = performance.now();
    clock.afterPaint((at) => (search.paintedAt = at));
  };
  document.addEventListener(
    'input',
    (event) => {
      const target = event.target;
      if (!(target instanceof HTMLInputElement)) return;
      if (target.getAttribute('aria-label') !== 'Search conversations') return;
      search.query = target.value;
      // The event's time, not the listener's: the same clock as performance.now().
      search.inputAt = event.timeStamp;
      search.firstShownAt = NaN;
      search.firstPaintedAt = NaN;
      search.shownAt = NaN;
      search.paintedAt = NaN;
      check();
    },
    true,
  );
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
}

/** A page of one row, timed as the app's first page is: what this machine's Chromium costs, and no more. */
const FLOOR_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><title>Byre</title></head><body>' +
  '<nav aria-label="Conversations"><div class="sidebar-list"><span class="library-row-title">A row</span></div></nav>' +
  '</body></html>';

/**
 * The first page's floor: a fresh Chromium (as each first page has) navigated through the printed address's
 * redirect to FLOOR_PAGE, served with the headers the app's page has, to the frame after its row;
 * FIRST_PAGE_RUNS times.
 */
async function firstPageFloor(): Promise<number[]> {
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(308, { ...securityHeaders(APP_CSP), Location: '/app/', 'Content-Length': '0' });
      res.end();
      return;
    }
    res.writeHead(200, { ...securityHeaders(APP_CSP), 'Content-Type': 'text/html; charset=utf-8' });
    res.end(FLOOR_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const runs: number[] = [];
  try {
    for (let i = 0; i < FIRST_PAGE_RUNS; i++) {
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      try {
        const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
        await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
        for (const script of [installPageClock, installSidebarTimers]) await page.addInitScript(script);
        await page.goto(url);
        runs.push(await firstRowsPainted(page));
      } finally {
        await withTimeout(browser.close(), 10_000, 'closing Chromium').catch(() => undefined);
      }
    }
  } finally {
    server.close();
  }
  return runs;
}

async function firstRowsPainted(page: Page): Promise<number> {
  await page.waitForFunction(
    () => !Number.isNaN((window as unknown as { __benchFirstRows: FirstRows }).__benchFirstRows.paintedAt),
    undefined,
    { timeout: STARTUP_TIMEOUT_MS },
  );
  return page.evaluate(
    () => (window as unknown as { __benchFirstRows: FirstRows }).__benchFirstRows.paintedAt,
  );
}

/** Types one query into an empty search box; the input event to the first results and to all of them painted, in ms. */
async function searchOnce(page: Page, query: string): Promise<{ first: number; all: number }> {
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill('');
  // Back to the rows: no answer of the last query on screen to be taken for this one's.
  await page.waitForFunction(
    (list) => {
      const nav = document.querySelector('nav[aria-label="Conversations"]');
      return (
        !!nav &&
        !nav.querySelector('[aria-label="Search results"]') &&
        !!document.querySelector(`${list} .library-row-title`)
      );
    },
    SIDEBAR_LIST,
    { timeout: SEARCH_TIMEOUT_MS },
  );
  await box.fill(query);
  await page.waitForFunction(
    (expected) => {
      const timing = (window as unknown as { __benchSearch: SearchTiming }).__benchSearch;
      return timing.query === expected && !Number.isNaN(timing.paintedAt);
    },
    query,
    { timeout: SEARCH_TIMEOUT_MS, polling: 'raf' },
  );
  const timing = await page.evaluate(
    () => (window as unknown as { __benchSearch: SearchTiming }).__benchSearch,
  );
  return { first: timing.firstPaintedAt - timing.inputAt, all: timing.paintedAt - timing.inputAt };
}

/** A field of /proc/<pid>/status in MB (Linux), or 'n/a'. */
function procStatusMb(pid: number | undefined, field: string): number | string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] ? round((Number(match[1]) * 1024) / 1e6) : 'n/a';
  } catch {
    return 'n/a';
  }
}

export async function measureLibrarySidebarUi(manifest: CorpusManifest): Promise<Figures> {
  const figures: Figures = {};
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-library-sidebar-'));
  const dataDir = join(root, 'data');
  // The host indexes the whole corpus; give it two minutes a GB, and never less than three.
  const indexTimeoutMs = Math.max(180_000, (manifest.sessionBytes / 1e6) * 120);
  let run: HostPage | undefined;
  try {
    run = await openHostPage(manifest.home, dataDir, [installSidebarTimers]);
    const { page } = run;
    const cold = [await firstRowsPainted(page)];

    const indexing = performance.now();
    await waitForIndex(page, indexTimeoutMs);
    figures.library_ui_index_settled_s = round((performance.now() - indexing) / 1000);

    for (const query of manifest.warmupQueries) await searchOnce(page, query);
    const times: number[] = [];
    const firstTimes: number[] = [];
    const slowest: { query: string; ms: number }[] = [];
    for (const query of manifest.queries) {
      const { first, all } = await searchOnce(page, query);
      times.push(all);
      firstTimes.push(first);
      slowest.push({ query, ms: all });
    }
    figures.library_search_p50_ms = round(percentile(times, 50));
    figures.library_search_p95_ms = round(percentile(times, 95));
    figures.library_search_max_ms = round(Math.max(...times));
    figures.library_search_first_p50_ms = round(percentile(firstTimes, 50));
    figures.library_search_first_p95_ms = round(percentile(firstTimes, 95));
    figures.library_search_slowest = slowest
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 4)
      .map((entry) => `"${entry.query}" ${round(entry.ms)} ms`)
      .join('; ');
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    await page.locator(`${SIDEBAR_LIST} .library-row-title`).first().waitFor({ timeout: SEARCH_TIMEOUT_MS });

    // From the bottom to the top, as the chat's pass does, so that the floor is the same pass.
    await page.evaluate(scrollToBottom, SIDEBAR_LIST);
    await page.evaluate(startScrollProbe, {
      stepPx: SCROLL_STEP_PX,
      driveScrollTop: true,
      maxMs: SCROLL_PASS_MS,
      selector: SIDEBAR_LIST,
      rowSelector: '.sidebar-item',
    });
    const scroll = await withTimeout(page.evaluate(awaitScroll), SCROLL_PASS_MS + 10_000, 'the sidebar pass');
    const frames = frameStats(scroll.intervals);
    figures.library_sidebar_rows = manifest.sessions;
    figures.library_sidebar_scroll_height_px = scroll.scrollHeight;
    figures.library_sidebar_scroll_frames = frames.frames;
    figures.library_sidebar_scroll_frames_dropped = frames.dropped;
    figures.library_sidebar_scroll_longest_frame_ms = frames.longestMs;
    figures.library_sidebar_scroll_reached_top = scroll.reachedTop ? 'yes' : 'no';
    figures.library_sidebar_scroll_rows_in_dom = scroll.rowsInDom;
    const floor = await withTimeout(
      staticScrollPass(run, scroll.durationMs),
      SCROLL_PASS_MS + 10_000,
      'the floor pass',
    );
    figures.library_sidebar_scroll_floor_frames = floor.frames;
    figures.library_sidebar_scroll_floor_frames_dropped = floor.dropped;

    figures.library_host_rss_mb = procStatusMb(run.host.pid, 'VmRSS');
    figures.library_host_peak_rss_mb = procStatusMb(run.host.pid, 'VmHWM');
    await run.close();
    run = undefined;

    /** The first page of a new host (and page) on `dir`, which is then stopped. */
    const firstPage = async (dir: string): Promise<number> => {
      run = await openHostPage(manifest.home, dir, [installSidebarTimers]);
      const at = await firstRowsPainted(run.page);
      await run.close();
      run = undefined;
      return at;
    };
    for (let i = 1; i < FIRST_PAGE_RUNS; i++) cold.push(await firstPage(join(root, `cold-${i}`)));
    const warm: number[] = [];
    for (let i = 0; i < FIRST_PAGE_RUNS; i++) warm.push(await firstPage(dataDir));
    figures.library_first_page_cold_ms = round(median(cold));
    figures.library_first_page_cold_runs = cold.map((ms) => round(ms)).join(', ');
    figures.library_first_page_warm_ms = round(median(warm));
    figures.library_first_page_warm_runs = warm.map((ms) => round(ms)).join(', ');
    const pageFloor = await firstPageFloor();
    figures.library_first_page_floor_ms = round(median(pageFloor));
    figures.library_first_page_floor_runs = pageFloor.map((ms) => round(ms)).join(', ');
  } catch (error) {
    figures.library_sidebar_ui_error =
      (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  } finally {
    await run?.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}
