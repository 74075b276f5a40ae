import {
  END_MARKER,
  frameStats,
  readStats,
  round,
  startUiRun,
  withTimeout,
  type Figure,
  type Figures,
} from './ui-harness';

/**
 * Streaming: one reply of 2,000 text_delta lines a second for 10 s (bench/fake-cli-stream.mjs), through the
 * browser host into Chromium. Measured in the page with the browser's own APIs while the reply streams:
 *
 * - commits per frame: MutationObserver callbacks on the log region (one callback ≈ one React commit that
 *   changed the DOM) per requestAnimationFrame frame; also React's own commit count, from a stand-in
 *   DevTools hook (every commit of the root, whether or not it touched the log);
 * - long tasks (`longtask`) and long animation frames (`long-animation-frame`, with script attribution);
 * - frames dropped: rAF intervals above 1.5 × 16.7 ms.
 *
 * The window runs from the first frame the Claude reply is in the DOM to the frame its "Turn finished" row is.
 */

const STREAM_SECONDS = 10;
const STREAM_RATE = 2_000;
const TASK_GOAL_MS = 50;
const TURN_TIMEOUT_MS = 45_000;

export const UI_STREAMING_GOALS = {
  maxCommitsPerFrame: 1,
  longTaskMs: TASK_GOAL_MS,
};

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
  deltas: number;
  deltaMs: number;
  text: string;
  ends: number[];
}

/** Installed before the app loads: counts React commits and the text_delta text that reaches the page. */
export function installCounters(): void {
  const counters = { reactCommits: 0, wsDeltaEvents: 0, wsDeltaText: [] as string[] };
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
        if (typeof data !== 'string' || !data.includes('"text_delta"')) return;
        const frame = JSON.parse(data) as {
          payload?: { events?: { message?: { event?: { delta?: { type?: string; text?: string } } } }[] };
        };
        for (const event of frame.payload?.events ?? []) {
          const delta = event.message?.event?.delta;
          if (delta?.type === 'text_delta' && typeof delta.text === 'string') {
            counters.wsDeltaEvents++;
            counters.wsDeltaText.push(delta.text);
          }
        }
      });
    }
  }
  window.WebSocket = CountingWebSocket;
}

interface Counters {
  reactCommits: number;
  wsDeltaEvents: number;
  wsDeltaText: string[];
}

/** Runs in the page: starts the probe, which resolves once the turn's "Turn finished" row is in the DOM. */
export function startProbe(endMarker: string): void {
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
      } else if (log.querySelector('article[aria-label="Claude"]')) {
        result.windowStart = now;
      }
      domCommits = 0;
      reactBefore = counters.reactCommits;
      previous = now;
      if (inWindow && log.querySelector('[aria-label="Turn finished"]')) {
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
          result.wsDeltaEvents = counters.wsDeltaEvents;
          result.wsDeltaText = counters.wsDeltaText.join('');
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

export async function measureUiStreaming(): Promise<Figures> {
  const run = await startUiRun({
    env: {
      BENCH_UI_MODE: 'stream',
      BENCH_STREAM_RATE: String(STREAM_RATE),
      BENCH_STREAM_SECONDS: String(STREAM_SECONDS),
    },
    initScripts: [installCounters],
  });
  try {
    const { page } = run;
    await page.evaluate(startProbe, END_MARKER);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('stream me a long reply');
    await box.press('Enter');
    const probe = await withTimeout(page.evaluate(awaitProbe), TURN_TIMEOUT_MS, 'the streamed turn');
    const stats = readStats<StreamStats>(run.statsPath);

    const inWindow = (start: number) => start >= probe.windowStart && start <= probe.windowEnd;
    const tasks = probe.longTasks.filter((task) => inWindow(task.start));
    const longFrames = probe.longFrames.filter((frame) => inWindow(frame.start));
    const overGoal = tasks.filter((task) => task.duration > TASK_GOAL_MS);
    const framesOver = longFrames.filter((frame) => frame.duration > TASK_GOAL_MS);
    const frames = frameStats(probe.intervals);
    const maxCommits = max(probe.domCommits);
    const longestTask = overGoal.length > 0 ? max(overGoal.map((task) => task.duration)) : 0;

    // Deltas whose text reached the page whole, in order: the longest common prefix with what was sent.
    let deltasReceived: Figure = 'unknown';
    if (stats) {
      let same = 0;
      const sent = stats.text;
      const got = probe.wsDeltaText;
      while (same < sent.length && same < got.length && sent.charCodeAt(same) === got.charCodeAt(same))
        same++;
      deltasReceived = stats.ends.filter((end) => end <= same).length;
    }

    const figures: Figures = {
      ui_streaming_deltas_sent: stats?.deltas ?? 'unknown',
      ui_streaming_delta_send_ms: stats ? round(stats.deltaMs) : 'unknown',
      ui_streaming_deltas_received: deltasReceived,
      ui_streaming_delta_batches_received: probe.wsDeltaEvents,
      ui_streaming_final_text_rendered: probe.lastWordRendered ? 'yes' : 'no',
      ui_streaming_window_ms: round(probe.windowEnd - probe.windowStart),
      ui_streaming_frames: frames.frames,
      ui_streaming_commits_per_frame_max: maxCommits,
      ui_streaming_commits_per_frame_mean: round(mean(probe.domCommits), 2),
      ui_streaming_frames_with_2plus_commits: probe.domCommits.filter((n) => n >= 2).length,
      ui_streaming_react_commits_per_frame_max: max(probe.reactCommits),
      ui_streaming_react_commits_per_frame_mean: round(mean(probe.reactCommits), 2),
      ui_streaming_longest_task_ms: round(longestTask),
      ui_streaming_tasks_over_50ms: overGoal.length,
      ui_streaming_longest_animation_frame_ms: probe.loafSupported
        ? round(max(longFrames.map((frame) => frame.duration)))
        : 'unsupported',
      ui_streaming_animation_frames_over_50ms: probe.loafSupported ? framesOver.length : 'unsupported',
      ui_streaming_frames_dropped: frames.dropped,
      ui_streaming_longest_frame_ms: frames.longestMs,
      ui_streaming_median_frame_ms: frames.medianMs,
    };
    if (overGoal.length > 0) {
      figures.ui_streaming_long_tasks = overGoal
        .map(
          (task) => `${Math.round(task.duration)} ms at +${round((task.start - probe.windowStart) / 1000)} s`,
        )
        .join(', ');
    }
    if (longFrames.length > 0) figures.ui_streaming_long_frame_scripts = topScripts(longFrames);
    figures.goal_streaming_one_commit_per_frame =
      maxCommits <= UI_STREAMING_GOALS.maxCommitsPerFrame ? 'pass' : 'fail';
    figures.goal_streaming_no_task_over_50ms = overGoal.length === 0 ? 'pass' : 'fail';
    if (probe.intervals.length === 0) figures.ui_streaming_note = 'no frames were recorded';
    return figures;
  } finally {
    await run.close();
  }
}
