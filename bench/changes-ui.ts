import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { applyPanelTurn, PANEL_CORPUS, writePanelStart } from './changes';
import { median, round, startUiRun, withTimeout, type Figures } from './ui-harness';

/**
 * `changes_panel_first_paint_ms`: the Changes panel opened on a conversation whose folder differs from its
 * start in 1,000 files by 100,000 diff lines (bench/changes.ts's panel corpus, a real git repository), timed
 * in Chromium from the click on "Changes" to the frame after its list of files is on screen, as the page's
 * `performance.now()`. The conversation's first snapshot is taken when it starts (the host waits for it);
 * the corpus's changes are then written to the folder during a turn (the fake CLI's reply), whose end
 * takes the turn's snapshot, as after any turn. The panel is then opened three times (closed between),
 * each a fresh read of the folder "now": a panel opened again shows the list it had at once, but the figure
 * waits for the list read now (the list no longer busy). The median is the figure.
 */

const GOAL_MS = 300;
const RUNS = 3;
const OPEN_TIMEOUT_MS = 60_000;
const PANEL = 'section[aria-label="Changes"]';
const LIST = 'ul[aria-label="Changed files"]';

interface PanelTiming {
  clickAt: number;
  paintedAt: number;
}

/** Runs in the page: times the next click on "Changes" to the frame after the panel lists `files` files. */
function armPanelTimer({ panel, list, files }: { panel: string; list: string; files: string }): void {
  const timing: PanelTiming = { clickAt: Number.NaN, paintedAt: Number.NaN };
  const onClick = (event: Event) => {
    const target = event.target instanceof Element ? event.target.closest('button') : null;
    if (target?.getAttribute('aria-label') === 'Changes') timing.clickAt = performance.now();
  };
  document.addEventListener('click', onClick, true);
  const painted = new Promise<PanelTiming>((resolve) => {
    const frame = () => {
      const shown = document.querySelector(panel);
      const listed = shown?.querySelector(list);
      const ready =
        !Number.isNaN(timing.clickAt) &&
        !!listed &&
        // The folder read now, not the list the panel kept from its last open.
        listed.getAttribute('aria-busy') !== 'true' &&
        listed.querySelectorAll('li').length > 0 &&
        !!shown?.textContent?.includes(files);
      if (!ready) {
        requestAnimationFrame(frame);
        return;
      }
      // After the frame that drew it: the next task after the paint.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        timing.paintedAt = performance.now();
        document.removeEventListener('click', onClick, true);
        resolve(timing);
      };
      channel.port2.postMessage(null);
    };
    requestAnimationFrame(frame);
  });
  Object.defineProperty(window, '__benchChanges', { value: painted, configurable: true });
}

async function openPanel(page: Page): Promise<number> {
  const files = `${PANEL_CORPUS.files.toLocaleString('en-US')} files changed`;
  await page.evaluate(armPanelTimer, { panel: PANEL, list: LIST, files });
  await page.getByRole('button', { name: 'Changes', exact: true }).click();
  const timing = await withTimeout(
    page.evaluate(() => (window as unknown as { __benchChanges: Promise<PanelTiming> }).__benchChanges),
    OPEN_TIMEOUT_MS,
    'the Changes panel listing its files',
  );
  return timing.paintedAt - timing.clickAt;
}

/** Resolves once the conversation's Changes record (in the data folder) has a step: its turn's snapshot. */
async function turnSnapshotTaken(dataDir: string): Promise<void> {
  const records = join(dataDir, 'changes');
  const deadline = Date.now() + OPEN_TIMEOUT_MS;
  for (;;) {
    const steps = (() => {
      try {
        return readdirSync(records)
          .filter((name) => name.endsWith('.json'))
          .map(
            (name) =>
              (JSON.parse(readFileSync(join(records, name), 'utf8')) as { steps: unknown[] }).steps.length,
          );
      } catch {
        return [];
      }
    })();
    if (steps.some((count) => count >= 1)) return;
    if (Date.now() > deadline) throw new Error("the turn's snapshot was not recorded within a minute");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function measureChangesPanel(): Promise<Figures> {
  let folder = '';
  let dataDir = '';
  const run = await startUiRun({
    env: { BENCH_UI_MODE: 'stream', BENCH_STREAM_SECONDS: '1' },
    prepare: (folders) => {
      folder = writePanelStart(folders.cwd);
      dataDir = folders.dataDir;
    },
  });
  try {
    const { page } = run;
    // The button is in the conversation's header, which shows once its first snapshot is taken.
    await page.getByRole('button', { name: 'Changes', exact: true }).waitFor({ timeout: OPEN_TIMEOUT_MS });
    applyPanelTurn(folder);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('change the thousand files');
    await box.press('Enter');
    await turnSnapshotTaken(dataDir);
    const runs: number[] = [];
    for (let time = 0; time < RUNS; time++) {
      runs.push(await openPanel(page));
      await page.getByRole('button', { name: 'Close changes' }).click();
      await page.locator(PANEL).waitFor({ state: 'detached', timeout: OPEN_TIMEOUT_MS });
    }
    const ms = median(runs);
    return {
      changes_panel_files: PANEL_CORPUS.files,
      changes_panel_diff_lines: PANEL_CORPUS.diffLines,
      changes_panel_first_paint_ms: round(ms),
      changes_panel_first_paint_runs: runs.map((time) => round(time)).join(', '),
      goal_changes_panel_first_paint_under_300ms: ms < GOAL_MS ? 'pass' : 'fail',
    };
  } finally {
    await run.close();
  }
}
