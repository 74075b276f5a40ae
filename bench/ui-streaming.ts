import {
  END_MARKER,
  frameStats,
  hostEventLoopDelay,
  medianFigures,
  readStats,
  repeatRuns,
  round,
  startUiRun,
  withTimeout,
  type Figure,
  type Figures,
  type UiRun,
} from './ui-harness';

/**
 * Streaming, two ways, through the browser host into Chromium (bench/fake-cli-stream.mjs), each run three
 * times from a fresh host and page and reported as the median of the runs:
 *
 * - `ui_streaming_*`: one reply of 2,000 text_delta lines a second for 10 s, in a new conversation;
 * - `ui_thinking_*`: 2,000 thinking_delta lines a second for 10 s, each followed by a system/thinking_tokens
 *   line, in a conversation that already holds 10,000 messages.
 *
 * Measured in the page with the browser's own APIs while the reply streams:
 *
 * - commits per frame: React's commits of the root, counted by a stand-in DevTools hook, per
 *   requestAnimationFrame frame; this decides the one-commit-per-frame goal. Also MutationObserver callbacks
 *   on the log region per frame (`*_dom_updates_per_frame_*`), which a commit that did not touch the log
 *   does not make and a commit with a layout effect can make twice;
 * - long tasks (`longtask`) and long animation frames (`long-animation-frame`, with script attribution);
 * - frames dropped: rAF intervals above 1.5 × 16.7 ms;
 * - the host's event-loop delay (`monitorEventLoopDelay`) from Enter to the end of the turn.
 *
 * The window runs from the first frame the streaming reply is in the DOM to the frame its "Turn finished"
 * row is.
 */

const STREAM_SECONDS = 10;
const STREAM_RATE = 2_000;
const TASK_GOAL_MS = 50;
const TURN_TIMEOUT_MS = 45_000;
const LONG_MESSAGES = 10_000;
const LOAD_TIMEOUT_MS = 90_000;
const RUNS = 3;

export const UI_STREAMING_GOALS = {
  maxCommitsPerFrame: 1,
  longTaskMs: TASK_GOAL_MS,
  hostEventLoopDelayP99Ms: 20,
};

type StreamKind = 'text' | 'thinking';

interface ScriptAttribution {
  invoker: string;
  source: string;
  durationMs: number;
  forcedLayoutMs: number;
}

interface LongFrame {
  start: number;
  duration: number;
  blocking: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: ScriptAttribution[];
}

interface ProbeResult {
  enterAt: number;
  windowStart: number;
  windowEnd: number;
  intervals: number[];
  domCommits: number[];
  reactCommits: number[];
  longTasks: { start: number; duration: number }[];
  longFrames: LongFrame[];
  loafSupported: boolean;
  wsDeltaEvents: number;
  wsDeltaText: string;
  lastWordRendered: boolean;
  claudeTextChars: number;
}

interface StreamStats {
  kind: StreamKind;
  deltas: number;
  deltaMs: number;
  text: string;
  ends: number[];
}

/** Installed before the app loads: counts React commits and the delta text that reaches the page, by kind. */
export function installCounters(): void {
  const counters: Counters = {
    reactCommits: 0,
    deltas: { text: { events: 0, text: [] }, thinking: { events: 0, text: [] } },
  };
  Object.defineProperty(window, '__benchCounters', { value: counters });
  // A minimal stand-in for React DevTools: react-dom calls onCommitFiberRoot once per commit.
  Object.defineProperty(window, '__REACT_DEVTOOLS_GLOBAL_HOOK__', {
    value: {
      supportsFiber: true,
      isDisabled: false,
      renderers: new Map(),
      inject: () => 1,
      onCommitFiberRoot: () => {
        counters.reactCommits++;
      },
      onCommitFiberUnmount: () => undefined,
      onPostCommitFiberRoot: () => undefined,
      checkDCE: () => undefined,
    },
  });
  const Native = window.WebSocket;
  class CountingWebSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (message: MessageEvent<unknown>) => {
        const data = message.data;
        if (typeof data !== 'string' || !/"(text|thinking)_delta"/.test(data)) return;
        const frame = JSON.parse(data) as {
          payload?: {
            events?: {
              message?: { event?: { delta?: { type?: string; text?: string; thinking?: string } } };
            }[];
          };
        };
        for (const event of frame.payload?.events ?? []) {
          const delta = event.message?.event?.delta;
          const text = delta?.type === 'text_delta' ? delta.text : delta?.thinking;
          const kind = delta?.type === 'text_delta' ? counters.deltas.text : counters.deltas.thinking;
          if (typeof text === 'string' && /^(text|thinking)_delta$/.test(delta?.type ?? '')) {
            kind.events++;
            kind.text.push(text);
          }
        }
      });
    }
  }
  window.WebSocket = CountingWebSocket;
}

interface Counters {
  reactCommits: number;
  deltas: Record<StreamKind, { events: number; text: string[] }>;
}

/**
 * Runs in the page: starts the probe, which resolves once the streamed turn's "Turn finished" row is the last
 * in the log. `kind`: which deltas to account for.
 */
export function startProbe({ endMarker, kind }: { endMarker: string; kind: StreamKind }): void {
  const log = document.querySelector<HTMLElement>('[role="log"][aria-label="Conversation"]');
  if (!log) throw new Error('no Conversation log in the page');
  const counters = (window as unknown as { __benchCounters: Counters }).__benchCounters;
  const result: ProbeResult = {
    enterAt: NaN,
    windowStart: NaN,
    windowEnd: NaN,
    intervals: [],
    domCommits: [],
    reactCommits: [],
    longTasks: [],
    longFrames: [],
    loafSupported: PerformanceObserver.supportedEntryTypes.includes('long-animation-frame'),
    wsDeltaEvents: 0,
    wsDeltaText: '',
    lastWordRendered: false,
    claudeTextChars: 0,
  };
  document.addEventListener(
    'keydown',
    (event) => {
      if (event.key === 'Enter' && Number.isNaN(result.enterAt)) result.enterAt = performance.now();
    },
    { capture: true },
  );
  let domCommits = 0;
  const mutations = new MutationObserver(() => {
    domCommits++;
  });
  mutations.observe(log, { subtree: true, childList: true, characterData: true, attributes: true });
  const tasks = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      result.longTasks.push({ start: entry.startTime, duration: entry.duration });
  });
  tasks.observe({ type: 'longtask', buffered: true });
  let frames: PerformanceObserver | null = null;
  if (result.loafSupported) {
    frames = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const loaf = entry as PerformanceEntry & {
          blockingDuration: number;
          renderStart: number;
          styleAndLayoutStart: number;
          scripts: {
            invoker: string;
            sourceURL: string;
            sourceFunctionName: string;
            duration: number;
            forcedStyleAndLayoutDuration: number;
          }[];
        };
        result.longFrames.push({
          start: loaf.startTime,
          duration: loaf.duration,
          blocking: loaf.blockingDuration,
          renderStart: loaf.renderStart,
          styleAndLayoutStart: loaf.styleAndLayoutStart,
          scripts: loaf.scripts.map((script) => ({
            invoker: script.invoker,
            source: `${script.sourceFunctionName || '?'}@${script.sourceURL.split('/').pop() ?? ''}`,
            durationMs: script.duration,
            forcedLayoutMs: script.forcedStyleAndLayoutDuration,
          })),
        });
      }
    });
    frames.observe({ type: 'long-animation-frame', buffered: true });
  }

  let previous = NaN;
  let reactBefore = counters.reactCommits;
  const done = new Promise<ProbeResult>((resolve) => {
    const frame = (now: number) => {
      const inWindow = !Number.isNaN(result.windowStart);
      if (inWindow) {
        result.intervals.push(now - previous);
        result.domCommits.push(domCommits);
        result.reactCommits.push(counters.reactCommits - reactBefore);
      } else if (log.querySelector('article[aria-label="Claude"][aria-busy="true"]')) {
        result.windowStart = now;
      }
      domCommits = 0;
      reactBefore = counters.reactCommits;
      previous = now;
      const rows = log.querySelectorAll('.message-row');
      if (inWindow && rows[rows.length - 1]?.querySelector('[aria-label="Turn finished"]')) {
        result.windowEnd = now;
        mutations.disconnect();
        // Let the observers deliver what is still queued.
        setTimeout(() => {
          tasks.disconnect();
          frames?.disconnect();
          const articles = log.querySelectorAll('article[aria-label="Claude"]');
          const last = articles[articles.length - 1];
          const text = last?.textContent ?? '';
          result.lastWordRendered = text.includes(endMarker);
          result.claudeTextChars = text.length;
          result.wsDeltaEvents = counters.deltas[kind].events;
          result.wsDeltaText = counters.deltas[kind].text.join('');
          resolve(result);
        }, 250);
        return;
      }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  Object.defineProperty(window, '__benchStreamDone', { value: done });
}

export function awaitProbe(): Promise<ProbeResult> {
  return (window as unknown as { __benchStreamDone: Promise<ProbeResult> }).__benchStreamDone;
}

const max = (values: readonly number[]): number => values.reduce((a, b) => Math.max(a, b), 0);
const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

/** The scripts that took longest across long animation frames, summed by source. */
function topScripts(frames: readonly LongFrame[], count = 4): string {
  const bySource = new Map<string, number>();
  for (const frame of frames) {
    for (const script of frame.scripts) {
      const key = `${script.invoker} → ${script.source}`;
      bySource.set(key, (bySource.get(key) ?? 0) + script.durationMs);
    }
  }
  return [...bySource.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${key} ${Math.round(ms)} ms`)
    .join('; ');
}

/** Sends a prompt from the composer. */
async function send(run: UiRun, text: string): Promise<void> {
  const box = run.page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** One run: a fresh host and page, a streamed reply of `kind`; figures named `<prefix>_…`. */
async function streamOnce(kind: StreamKind, prefix: string): Promise<Figures> {
  const run = await startUiRun({
    env: {
      BENCH_UI_MODE: kind === 'text' ? 'stream' : 'thinking',
      BENCH_STREAM_RATE: String(STREAM_RATE),
      BENCH_STREAM_SECONDS: String(STREAM_SECONDS),
      BENCH_LONG_MESSAGES: String(LONG_MESSAGES),
    },
    initScripts: [installCounters],
  });
  try {
    const { page } = run;
    if (kind === 'thinking') {
      // The conversation the thinking streams into: 10,000 messages, settled.
      await send(run, 'show me ten thousand messages');
      await page.waitForFunction(
        (marker) => {
          const rows = document.querySelectorAll('[role="log"] .message-row');
          const last = rows[rows.length - 1];
          return (
            !!last?.querySelector('[aria-label="Turn finished"]') &&
            !!document.body.textContent?.includes(marker)
          );
        },
        END_MARKER,
        { timeout: LOAD_TIMEOUT_MS, polling: 100 },
      );
    }
    await page.evaluate(startProbe, { endMarker: END_MARKER, kind });
    await hostEventLoopDelay(run);
    await send(run, kind === 'text' ? 'stream me a long reply' : 'think it over at length');
    const probe = await withTimeout(page.evaluate(awaitProbe), TURN_TIMEOUT_MS, 'the streamed turn');
    const eld = await hostEventLoopDelay(run);
    const stats = readStats<StreamStats>(run.statsPath);
    return {
      ...streamFigures(prefix, probe, stats?.kind === kind ? stats : undefined, eld?.p99),
      [`${prefix}_host_eld_p99_interval_ms`]: eld?.p99Interval ?? 'n/a',
    };
  } finally {
    await run.close();
  }
}

function streamFigures(
  prefix: string,
  probe: ProbeResult,
  stats: StreamStats | undefined,
  hostEldP99: number | undefined,
): Figures {
  const inWindow = (start: number) => start >= probe.windowStart && start <= probe.windowEnd;
  const tasks = probe.longTasks.filter((task) => inWindow(task.start));
  const longFrames = probe.longFrames.filter((frame) => inWindow(frame.start));
  const overGoal = tasks.filter((task) => task.duration > TASK_GOAL_MS);
  const framesOver = longFrames.filter((frame) => frame.duration > TASK_GOAL_MS);
  const frames = frameStats(probe.intervals);
  const longestTask = overGoal.length > 0 ? max(overGoal.map((task) => task.duration)) : 0;

  // Deltas whose text reached the page whole, in order: the longest common prefix with what was sent.
  let deltasReceived: Figure = 'unknown';
  if (stats) {
    let same = 0;
    const sent = stats.text;
    const got = probe.wsDeltaText;
    while (same < sent.length && same < got.length && sent.charCodeAt(same) === got.charCodeAt(same)) same++;
    deltasReceived = stats.ends.filter((end) => end <= same).length;
  }

  const figures: Figures = {
    [`${prefix}_deltas_sent`]: stats?.deltas ?? 'unknown',
    [`${prefix}_delta_send_ms`]: stats ? round(stats.deltaMs) : 'unknown',
    [`${prefix}_deltas_received`]: deltasReceived,
    [`${prefix}_delta_batches_received`]: probe.wsDeltaEvents,
    [`${prefix}_final_text_rendered`]: probe.lastWordRendered ? 'yes' : 'no',
    [`${prefix}_window_ms`]: round(probe.windowEnd - probe.windowStart),
    [`${prefix}_frames`]: frames.frames,
    [`${prefix}_commits_per_frame_max`]: max(probe.reactCommits),
    [`${prefix}_commits_per_frame_mean`]: round(mean(probe.reactCommits), 2),
    [`${prefix}_frames_with_2plus_commits`]: probe.reactCommits.filter((n) => n >= 2).length,
    [`${prefix}_react_commits_per_frame_max`]: max(probe.reactCommits),
    [`${prefix}_react_commits_per_frame_mean`]: round(mean(probe.reactCommits), 2),
    [`${prefix}_dom_updates_per_frame_max`]: max(probe.domCommits),
    [`${prefix}_dom_updates_per_frame_mean`]: round(mean(probe.domCommits), 2),
    [`${prefix}_longest_task_ms`]: round(longestTask),
    [`${prefix}_tasks_over_50ms`]: overGoal.length,
    [`${prefix}_longest_animation_frame_ms`]: probe.loafSupported
      ? round(max(longFrames.map((frame) => frame.duration)))
      : 'unsupported',
    [`${prefix}_animation_frames_over_50ms`]: probe.loafSupported ? framesOver.length : 'unsupported',
    [`${prefix}_frames_dropped`]: frames.dropped,
    [`${prefix}_longest_frame_ms`]: frames.longestMs,
    [`${prefix}_median_frame_ms`]: frames.medianMs,
    [`${prefix}_host_eld_p99_ms`]: hostEldP99 ?? 'n/a',
  };
  if (overGoal.length > 0) {
    figures[`${prefix}_long_tasks`] = overGoal
      .map(
        (task) => `${Math.round(task.duration)} ms at +${round((task.start - probe.windowStart) / 1000)} s`,
      )
      .join(', ');
  }
  if (longFrames.length > 0) figures[`${prefix}_long_frame_scripts`] = topScripts(longFrames);
  if (probe.intervals.length === 0) figures[`${prefix}_note`] = 'no frames were recorded';
  return figures;
}

/** The median of RUNS runs of one kind of stream, with its goals (`goal_<goal>_…`). */
async function streamGoals(kind: StreamKind, prefix: string, goal: string): Promise<Figures> {
  const runs = await repeatRuns(prefix, RUNS, () => streamOnce(kind, prefix));
  const decisive = ['commits_per_frame_max', 'tasks_over_50ms', 'longest_task_ms', 'host_eld_p99_ms'];
  const figures = medianFigures(
    runs,
    decisive.map((name) => `${prefix}_${name}`),
  );
  const below = (name: string, limit: number) => {
    const value = figures[`${prefix}_${name}`];
    return typeof value === 'number' && value <= limit ? 'pass' : 'fail';
  };
  figures[`goal_${goal}_one_commit_per_frame`] = below(
    'commits_per_frame_max',
    UI_STREAMING_GOALS.maxCommitsPerFrame,
  );
  figures[`goal_${goal}_no_task_over_50ms`] = below('tasks_over_50ms', 0);
  figures[`goal_${goal}_host_eld_p99_under_20ms`] =
    typeof figures[`${prefix}_host_eld_p99_ms`] === 'number'
      ? below('host_eld_p99_ms', UI_STREAMING_GOALS.hostEventLoopDelayP99Ms - 0.01)
      : 'not measured';
  return figures;
}

export async function measureUiStreaming(): Promise<Figures> {
  const text = await streamGoals('text', 'ui_streaming', 'streaming');
  let thinking: Figures;
  try {
    thinking = await streamGoals('thinking', 'ui_thinking', 'thinking');
  } catch (error) {
    thinking = {
      ui_thinking_error: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '',
    };
  }
  return { ...text, ...thinking };
}
