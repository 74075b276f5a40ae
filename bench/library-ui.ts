import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from '@playwright/test';
import type { CorpusManifest } from './library-corpus';
import {
  appStarted,
  buildNote,
  median,
  openHostPage,
  round,
  waitForIndex,
  type Figures,
  type HostPage,
  type PageClock,
} from './ui-harness';

/**
 * Opening the 100 MB session in Chromium through the browser host: "from the click to the first messages
 * painted". The host (out/main/web.js) runs with HOME at the corpus's small `ui/` folder (the 100 MB session
 * and a few small ones) and a fresh data folder. In the page: the time of the click on the session's row in
 * the sidebar, and the first animation frame after an `article` first appears in the conversation log (taken
 * in a task queued from that frame's rAF callback, i.e. after the frame is painted); also when the largest
 * WebSocket frame after the click (the openSaved reply) arrived, and its size.
 *
 * First once while the host is still indexing the corpus (the row is clicked as soon as it is listed), then,
 * once the index is complete, three times, reloading the page before each: their median is the figure.
 */

const RUNS = 3;
const ROW_TIMEOUT_MS = 30_000;
const OPEN_TIMEOUT_MS = 30_000;
const INDEX_TIMEOUT_MS = 180_000;

interface OpenTiming {
  clickAt: number;
  articleAt: number;
  paintedAt: number;
  replyAt: number;
  replyBytes: number;
}

/** Installed after installPageClock, before the app's scripts on every load. Self-contained: it is serialized. */
function installOpenTimer(): void {
  const clock = (window as unknown as { __benchClock: PageClock }).__benchClock;
  const timing = { clickAt: NaN, articleAt: NaN, paintedAt: NaN };
  Object.defineProperty(window, '__benchOpen', { value: timing });
  document.addEventListener(
    'click',
    (event) => {
      const target = event.target;
      if (!Number.isNaN(timing.clickAt) || !(target instanceof Element)) return;
      if (!target.closest('nav[aria-label="Conversations"]')) return;
      timing.clickAt = performance.now();
      clock.mark();
    },
    true,
  );
  const check = () => {
    if (Number.isNaN(timing.clickAt) || !Number.isNaN(timing.articleAt)) return;
    if (!document.querySelector('[role="log"][aria-label="Conversation"] article')) return;
    timing.articleAt = performance.now();
    clock.afterPaint((at) => (timing.paintedAt = at));
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Closes every tab and waits until main keeps none: a conversation opened in a run comes back as a kept tab
 * after the reload, and the next click would then find it already on screen.
 */
async function closeTabs(page: Page): Promise<void> {
  const close = page.locator('.tab .tab-close');
  const confirm = page.getByRole('button', { name: 'Close conversation' });
  for (let left = await close.count(); left > 0; left = await close.count()) {
    await close.first().click();
    // A conversation with something at stake asks first.
    if (await confirm.isVisible()) await confirm.click();
    await page.waitForFunction((before) => document.querySelectorAll('.tab').length < before, left, {
      timeout: OPEN_TIMEOUT_MS,
    });
  }
  await page.waitForFunction(
    async () => {
      const kept = await window.byre.openTabs({});
      return kept.ok && kept.value.tabs.length === 0;
    },
    undefined,
    { timeout: OPEN_TIMEOUT_MS, polling: 100 },
  );
}

/** Clicks the big session's row and waits for its first message to be painted. */
async function openOnce(page: Page, title: string): Promise<OpenTiming> {
  const sidebar = page.getByRole('navigation', { name: 'Conversations' });
  const row = sidebar.getByRole('button', { name: new RegExp(escapeRegExp(title)) }).first();
  await row.waitFor({ state: 'visible', timeout: ROW_TIMEOUT_MS });
  const log = page.getByRole('log', { name: 'Conversation' });
  if ((await log.locator('article').count()) > 0)
    throw new Error('a conversation was already on screen before the click');
  await row.click();
  await log.locator('article').first().waitFor({ state: 'visible', timeout: OPEN_TIMEOUT_MS });
  const deadline = performance.now() + 5_000;
  for (;;) {
    const timing = await page.evaluate(() => {
      const page = window as unknown as { __benchOpen: OpenTiming; __benchClock: PageClock };
      const { at, bytes } = page.__benchClock.reply;
      return { ...page.__benchOpen, replyAt: at, replyBytes: bytes };
    });
    if (!Number.isNaN(timing.paintedAt)) return timing;
    if (performance.now() > deadline) throw new Error('the first message was never painted');
    await page.waitForTimeout(20);
  }
}

export async function measureLibraryOpenUi(manifest: CorpusManifest): Promise<Figures> {
  const figures: Figures = {};
  const note = buildNote();
  if (note) figures.library_ui_build_note = note;
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-library-ui-'));
  let run: HostPage | undefined;
  try {
    run = await openHostPage(manifest.uiHome, join(root, 'data'), [installOpenTimer]);
    const { page } = run;

    // While the host indexes the corpus (the 100 MB file takes a while).
    const first = await openOnce(page, manifest.big.title);
    figures.library_open_100mb_first_paint_indexing_ms = round(first.paintedAt - first.clickAt);

    await waitForIndex(page, INDEX_TIMEOUT_MS);

    const runs: OpenTiming[] = [];
    for (let run = 0; run < RUNS; run++) {
      await closeTabs(page);
      await page.reload();
      await appStarted(page);
      runs.push(await openOnce(page, manifest.big.title));
    }
    const paints = runs.map((timing) => timing.paintedAt - timing.clickAt);
    const replies = runs.map((timing) => timing.replyAt - timing.clickAt);
    figures.library_open_100mb_first_paint_ms = round(median(paints));
    figures.library_open_100mb_first_paint_runs = paints.map((ms) => round(ms)).join(', ');
    figures.library_open_100mb_reply_ms = round(median(replies));
    figures.library_open_100mb_reply_kb = round(Math.max(...runs.map((timing) => timing.replyBytes)) / 1000);
    figures.library_open_100mb_article_to_paint_ms = round(
      median(runs.map((timing) => timing.paintedAt - timing.articleAt)),
    );
  } catch (error) {
    figures.library_ui_error = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  } finally {
    await run?.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}
