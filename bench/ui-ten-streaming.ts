import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { awaitProbe, installCounters, startProbe } from './ui-streaming';
import {
  END_MARKER,
  hostEventLoopDelay,
  medianFigures,
  repeatRuns,
  round,
  startUiRun,
  withTimeout,
  type Figures,
} from './ui-harness';

/**
 * Ten conversations streaming at once (`npm run bench -- ui_ten_streaming`): ten conversations, each in a
 * folder of its own, are opened from the New conversation form, as a person would, and each is sent a prompt in the same moment
 * (through the page's own `window.byre.send`, so that none starts seconds after another); each replies with
 * text deltas at STREAM_RATE a second for STREAM_SECONDS (bench/fake-cli-stream.mjs), 2,000 a second in all,
 * as the one-stream bench sends alone. The tenth is on screen. Measured from the moment they are sent until the
 * tenth has finished: the page's longest task (goal under 50 ms) and the host's event-loop delay p99 (goal
 * under 20 ms); while the tenth streams, React commits in a frame (at most, goal 1). Each of the ten must finish its whole reply, or the run is an error. Median of RUNS
 * runs, each run's figure listed when they differ; the goals hold in every run.
 */

const CONVERSATIONS = 10;
const STREAM_RATE = 200;
const STREAM_SECONDS = 10;
const RUNS = 2;
const TURN_TIMEOUT_MS = 90_000;
const OPEN_TIMEOUT_MS = 60_000;
const TASK_GOAL_MS = 50;
const ELD_GOAL_MS = 20;

async function tenOnce(): Promise<Figures> {
  let cwd = '';
  const run = await startUiRun({
    env: {
      BENCH_UI_MODE: 'stream',
      BENCH_STREAM_RATE: String(STREAM_RATE),
      BENCH_STREAM_SECONDS: String(STREAM_SECONDS),
    },
    initScripts: [installCounters],
    prepare: (folders) => {
      cwd = folders.cwd;
    },
  });
  try {
    const { page } = run;
    const tabs = page.getByRole('tab');
    for (let opened = 1; opened < CONVERSATIONS; opened++) {
      await page.getByRole('button', { name: 'New conversation' }).click();
      const form = page.getByRole('form', { name: 'New conversation' });
      // A folder each, as ten conversations usually are (ten in one folder share its snapshots' git, one
      // turn's snapshot at a time).
      const folder = join(cwd, `project-${opened}`);
      mkdirSync(folder);
      await form.getByLabel('Working folder').fill(folder);
      await form.getByRole('button', { name: 'Start' }).click();
      await page.waitForFunction(
        (count) => document.querySelectorAll('[role="tab"]').length === count,
        opened + 1,
        { timeout: OPEN_TIMEOUT_MS },
      );
      await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: OPEN_TIMEOUT_MS });
    }
    await tabs.nth(CONVERSATIONS - 1).click();
    const ids = await page.evaluate(async () => {
      const listed = await window.byre.listConversations({});
      if (!listed.ok) throw new Error(listed.error.message);
      return listed.value.conversations.map((conversation) => conversation.snapshot.conversationId);
    });
    if (ids.length !== CONVERSATIONS)
      throw new Error(`${ids.length} conversations open, not ${CONVERSATIONS}`);
    await page.evaluate(startProbe, { endMarker: END_MARKER, kind: 'text' as const });
    await hostEventLoopDelay(run);
    // From the moment they are sent: the long tasks observed (buffered) go back to the page's load, and the
    // ten conversations' opening is not their streaming.
    const sentAt = await page.evaluate(async (all) => {
      const at = performance.now();
      const sent = await Promise.all(
        all.map((conversationId) =>
          window.byre.send({ conversationId, text: 'stream me a long reply', images: [] }),
        ),
      );
      const failed = sent.find((result) => !result.ok);
      if (failed && !failed.ok) throw new Error(failed.error.message);
      return at;
    }, ids);
    const probe = await withTimeout(page.evaluate(awaitProbe), TURN_TIMEOUT_MS, 'the ten streamed turns');
    const eld = await hostEventLoopDelay(run);
    // Each of the ten streamed its whole reply: its last events hold the final word and the turn's result.
    const finished = await page
      .waitForFunction(
        async ({ marker, wanted }) => {
          const listed = await window.byre.listConversations({});
          if (!listed.ok) return false;
          const done = listed.value.conversations.filter((conversation) => {
            const events = JSON.stringify(conversation.events);
            return events.includes(marker) && events.includes('"type":"result"');
          }).length;
          return done >= wanted ? done : false;
        },
        { marker: END_MARKER, wanted: CONVERSATIONS },
        { timeout: TURN_TIMEOUT_MS, polling: 500 },
      )
      .then((handle) => handle.jsonValue() as Promise<number>);
    const streaming = probe.longTasks.filter((task) => task.start >= sentAt && task.start <= probe.windowEnd);
    const longest = streaming.reduce((most, task) => Math.max(most, task.duration), 0);
    return {
      ui_ten_conversations: CONVERSATIONS,
      ui_ten_turns_finished: finished,
      ui_ten_window_ms: round(probe.windowEnd - sentAt),
      ui_ten_commits_per_frame_max: probe.reactCommits.reduce((most, n) => Math.max(most, n), 0),
      ui_ten_longest_task_ms: round(longest),
      ui_ten_tasks_over_50ms: streaming.filter((task) => task.duration > TASK_GOAL_MS).length,
      ui_ten_host_eld_p99_ms: eld?.p99 ?? 'n/a',
      // Where to look next: when each long task came, from the moment the ten were sent.
      ui_ten_long_tasks:
        streaming
          .filter((task) => task.duration > TASK_GOAL_MS)
          .map((task) => `${Math.round(task.duration)} ms at +${round((task.start - sentAt) / 1000)} s`)
          .join(' / ') || 'none',
    };
  } finally {
    await run.close();
  }
}

export async function measureUiTenStreaming(): Promise<Figures> {
  const runs = await repeatRuns('ui_ten', RUNS, tenOnce);
  const decisive = ['commits_per_frame_max', 'longest_task_ms', 'tasks_over_50ms', 'host_eld_p99_ms'].map(
    (name) => `ui_ten_${name}`,
  );
  const figures = medianFigures(runs, decisive);
  const worst = (name: string): number =>
    runs.reduce((most, run) => {
      const value = run[name];
      return Math.max(most, typeof value === 'number' ? value : Infinity);
    }, 0);
  figures.goal_ten_one_commit_per_frame = worst('ui_ten_commits_per_frame_max') <= 1 ? 'pass' : 'fail';
  figures.goal_ten_no_task_over_50ms = worst('ui_ten_tasks_over_50ms') === 0 ? 'pass' : 'fail';
  figures.goal_ten_host_eld_p99_under_20ms = worst('ui_ten_host_eld_p99_ms') < ELD_GOAL_MS ? 'pass' : 'fail';
  return figures;
}
