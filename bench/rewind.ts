import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { sessionLines, writeCliSession, type SessionTurn } from '../e2e/fixtures/session-files';
import { FORK_RECORDS_FILE } from '../main/data/fork-records';
import type { ForkRecordsFile } from '../shared/branches';
import {
  buildNote,
  median,
  round,
  startUiRun,
  withTimeout,
  type Figures,
  type RunFolders,
} from './ui-harness';

/**
 * Switching branches (issue 9): in a conversation of 1,000 messages and 20 branches, the time from a click on
 * "Next branch" to the branch painted.
 *
 * The corpus, written into the run's fresh HOME and data folder: one session of 500 turns (1,000 messages),
 * and 19 forks of it made where Byre makes them, after a reply (turn 450's). Each fork's file repeats the
 * root's lines up to that reply (the same uuids, its own session id), then has turns of its own; branches.json
 * records the forks, oldest first. In Chromium through the browser host, the root is opened from the sidebar,
 * and once its family is loaded the log is scrolled up to the switcher (on the message after the fork point).
 * Then "Next branch" is clicked until the last branch, 19 times, each branch read for the first time.
 *
 * Each click is timed in the page: from the click (a capture listener) to the first animation frame whose
 * DOM has the switcher reading "Branch k of 20" and the new branch's first message (checked in a rAF
 * callback every frame; the time is taken in a task queued from that callback, i.e. after the frame is
 * painted). The figure is the median of the 19.
 */

const TURNS = 500;
/** The fork point is this turn's reply: the switcher is on the next prompt, 100 messages from the end. */
const FORK_TURN = 450;
const FORKS = 19;
const BRANCHES = FORKS + 1;
const FORK_OWN_TURNS = 3;
const ROOT_TITLE = 'Bench: a conversation of twenty branches';
const GOAL_MS = 100;
const FAMILY_TIMEOUT_MS = 30_000;
const SWITCH_TIMEOUT_MS = 10_000;
/** Frames left between clicks, for what a switch leaves to later frames (row measuring) to finish. */
const SETTLE_FRAMES = 5;

const LOG = '[role="log"][aria-label="Conversation"]';
const SWITCHER = '[role="group"][aria-label="Branches here"]';

/** What only branch `number` (2 … 20) says first; zero-padded so that no marker is part of another. */
const branchMarker = (number: number) => `bench-branch-${String(number).padStart(2, '0')}`;

function rootTurns(): SessionTurn[] {
  return Array.from({ length: TURNS }, (_, index) => {
    const turn = index + 1;
    return {
      prompt: `Question ${turn}: how does the parser handle input number ${turn} when the buffer is split?`,
      reply:
        turn % 5 === 0
          ? `Answer ${turn}. Three cases:\n\n- a whole line\n- a line split across two chunks\n- a trailing line with no newline\n\n\`\`\`ts\nconst line = buffer.subarray(start, newline);\n\`\`\``
          : `Answer ${turn}. The splitter keeps the partial line until the next chunk brings its newline, then hands the whole line on; nothing is parsed twice.`,
    };
  });
}

function forkTurns(number: number): SessionTurn[] {
  return Array.from({ length: FORK_OWN_TURNS }, (_, index) => ({
    prompt:
      index === 0
        ? `${branchMarker(number)}: instead, what if the splitter gave up on lines over 1 MB?`
        : `And in branch ${number}, follow-up ${index}?`,
    reply: `Branch ${number}, reply ${index + 1}: then a long line is reported and skipped, and the stream goes on.`,
  }));
}

/**
 * The root, its forks and branches.json, as Byre leaves them after forking 19 times at one reply. The forks are
 * made (seconds apart) soon after that reply and the root carries on afterwards, so the root stays the
 * family's most recently active branch: the one the sidebar lists.
 */
function writeFamily({ home, cwd, dataDir }: RunFolders): void {
  const configDir = join(home, '.claude');
  const root = writeCliSession({
    configDir,
    cwd,
    turns: rootTurns(),
    start: new Date(Date.now() - 6 * 3_600_000),
    customTitle: ROOT_TITLE,
  });
  const rootLines = readFileSync(root.path, 'utf8').trimEnd().split('\n');
  let replies = 0;
  const forkIndex = rootLines.findIndex(
    (line) => (JSON.parse(line) as { type?: string }).type === 'assistant' && ++replies === FORK_TURN,
  );
  const forkPoint = JSON.parse(rootLines[forkIndex] ?? '{}') as { uuid?: string; timestamp?: string };
  const forkPointUuid = forkPoint.uuid;
  if (!forkPointUuid || !forkPoint.timestamp) throw new Error(`the root has no reply ${FORK_TURN}`);
  const forkedAt = Date.parse(forkPoint.timestamp);

  const records: ForkRecordsFile = { version: 1, forks: [] };
  for (let fork = 0; fork < FORKS; fork++) {
    const createdAt = forkedAt + (fork + 1) * 5_000;
    const own = sessionLines({ configDir, cwd, turns: forkTurns(fork + 2), start: new Date(createdAt) });
    const shared = rootLines
      .slice(0, forkIndex + 1)
      .map((line) => JSON.stringify({ ...(JSON.parse(line) as object), sessionId: own.sessionId }));
    // The fork's first entry carries on from the fork point.
    const carried = own.lines.map((line) => {
      const entry = JSON.parse(line) as { parentUuid?: string | null };
      return entry.parentUuid === null ? JSON.stringify({ ...entry, parentUuid: forkPointUuid }) : line;
    });
    writeFileSync(
      join(dirname(root.path), `${own.sessionId}.jsonl`),
      `${[...shared, ...carried].join('\n')}\n`,
    );
    records.forks.push({
      sessionId: own.sessionId,
      parentSessionId: root.sessionId,
      forkPointUuid,
      createdAt,
    });
  }
  writeFileSync(join(dataDir, FORK_RECORDS_FILE), JSON.stringify(records, null, 2));
}

interface SwitchWatch {
  /** The switcher's text once switched ("Branch 3 of 20"). */
  count: string;
  /** Text of the new branch's first message. */
  marker: string;
  /** Selectors of the log and the switcher. */
  log: string;
  switcher: string;
}

interface SwitchTiming {
  clickAt: number;
  paintedAt: number;
}

/**
 * In the page, before a click: resolves `window.__benchSwitch` once a frame after a click on "Next branch"
 * shows `count` in the switcher and `marker` in a message, and has been painted. Self-contained: it is
 * serialized into the page.
 */
function armSwitchTimer({ count, marker, log, switcher }: SwitchWatch): void {
  const timing: SwitchTiming = { clickAt: NaN, paintedAt: NaN };
  const onClick = (event: MouseEvent) => {
    if (event.target instanceof Element && event.target.closest('button[aria-label="Next branch"]'))
      timing.clickAt = performance.now();
  };
  document.addEventListener('click', onClick, true);
  const painted = new Promise<SwitchTiming>((resolve) => {
    const frame = () => {
      const view = document.querySelector(log);
      const shown =
        !Number.isNaN(timing.clickAt) &&
        !!view?.querySelector(switcher)?.textContent?.includes(count) &&
        [...view.querySelectorAll('article')].some((article) => article.textContent?.includes(marker));
      if (!shown) {
        requestAnimationFrame(frame);
        return;
      }
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
  Object.defineProperty(window, '__benchSwitch', { value: painted, configurable: true });
}

/**
 * Scrolls the log up half a screen a frame until the switcher is in the DOM (at the top, the log fetches the
 * page before), then brings it to the middle.
 */
async function scrollToSwitcher(page: Page): Promise<void> {
  await page.evaluate(
    async ({ log, switcher, timeout }) => {
      const view = document.querySelector(log);
      if (!view) throw new Error('there is no conversation log');
      const deadline = performance.now() + timeout;
      while (!view.querySelector(switcher)) {
        if (performance.now() > deadline) throw new Error('the log has no "Branches here" switcher');
        view.scrollTop = Math.max(0, view.scrollTop - view.clientHeight / 2);
        await new Promise(requestAnimationFrame);
      }
      view.querySelector(switcher)?.scrollIntoView({ block: 'center' });
    },
    { log: LOG, switcher: SWITCHER, timeout: FAMILY_TIMEOUT_MS },
  );
}

/** Clicks "Next branch" and resolves with the ms from the click to branch `number` painted. */
async function switchTo(page: Page, number: number): Promise<number> {
  const count = `Branch ${number} of ${BRANCHES}`;
  await page.evaluate(armSwitchTimer, { count, marker: branchMarker(number), log: LOG, switcher: SWITCHER });
  await page
    .getByRole('log', { name: 'Conversation' })
    .getByRole('group', { name: 'Branches here' })
    .getByRole('button', { name: 'Next branch' })
    .click();
  const timing = await withTimeout(
    page.evaluate(() => (window as unknown as { __benchSwitch: Promise<SwitchTiming> }).__benchSwitch),
    SWITCH_TIMEOUT_MS,
    `showing "${count}"`,
  );
  await page.evaluate(async (frames) => {
    for (let frame = 0; frame < frames; frame++) await new Promise(requestAnimationFrame);
  }, SETTLE_FRAMES);
  return timing.paintedAt - timing.clickAt;
}

export async function measureRewindSwitch(): Promise<Figures> {
  const figures: Figures = {};
  const note = buildNote();
  if (note) figures.rewind_build_note = note;
  const run = await startUiRun({ env: {}, prepare: writeFamily });
  try {
    const { page } = run;
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button', { name: ROOT_TITLE })
      .click({ timeout: FAMILY_TIMEOUT_MS });
    await page
      .getByRole('tree', { name: 'Branches' })
      .getByRole('treeitem')
      .nth(BRANCHES - 1)
      .waitFor({ timeout: FAMILY_TIMEOUT_MS });
    await scrollToSwitcher(page);
    const runs: number[] = [];
    for (let number = 2; number <= BRANCHES; number++) runs.push(await switchTo(page, number));
    const ms = median(runs);
    figures.rewind_switch_branch_ms = round(ms);
    figures.rewind_switch_branch_max_ms = round(Math.max(...runs));
    figures.rewind_switch_branch_runs = runs.map((time) => round(time)).join(', ');
    figures.goal_rewind_switch_branch_under_100ms = ms < GOAL_MS ? 'pass' : 'fail';
    return figures;
  } finally {
    await run.close();
  }
}
