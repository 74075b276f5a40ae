import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, stopProcess, waitForAddress } from '../e2e/fixtures/host-process';

/**
 * What the UI benchmarks share: the built browser host started against bench/fake-cli-stream.mjs with a
 * fresh HOME, working folder and data folder; Chromium (headless, Debian's) on the address it printed; and
 * a bounded teardown of all of it.
 */

export const REPO_ROOT = resolve(import.meta.dirname, '..');
/** The browser host to measure; BENCH_WEB_HOST points at another build's web.js (e.g. to try a change). */
export const WEB_HOST_ENTRY = process.env.BENCH_WEB_HOST
  ? resolve(process.env.BENCH_WEB_HOST)
  : join(REPO_ROOT, 'out', 'main', 'web.js');
export const FAKE_CLI_STREAM = join(import.meta.dirname, 'fake-cli-stream.mjs');
/** The last word of every reply fake-cli-stream.mjs writes. */
export const END_MARKER = 'bench-final-word';
/** The display's frame interval at 60 Hz, and the interval above which a frame counts as dropped. */
export const FRAME_MS = 1000 / 60;
export const DROPPED_FRAME_MS = 1.5 * FRAME_MS;

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

export type Figure = number | string;
export type Figures = Record<string, Figure>;

export const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Builds the app (out/) unless the browser host is already there. */
export function ensureBuilt(): void {
  if (existsSync(WEB_HOST_ENTRY) && existsSync(join(WEB_HOST_ENTRY, '..', '..', 'renderer', 'index.html')))
    return;
  if (process.env.BENCH_WEB_HOST) throw new Error(`BENCH_WEB_HOST: no built host at ${WEB_HOST_ENTRY}`);
  console.error('bench: out/main/web.js is missing; running `npx electron-vite build`');
  // Build output goes to stderr: stdout is the benchmark's figures.
  const built = spawnSync('npx', ['electron-vite', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
  if (built.status !== 0 || !existsSync(WEB_HOST_ENTRY)) {
    throw new Error(`electron-vite build failed (exit ${built.status ?? built.signal})`);
  }
}

export interface UiRun {
  page: Page;
  browser: Browser;
  host: ChildProcess;
  /** The stats file the fake CLI writes when its turn is written. */
  statsPath: string;
  output(): string;
  close(): Promise<void>;
}

export interface UiRunOptions {
  /** Environment for the host and so for the fake CLI (BENCH_UI_MODE …). */
  env: Record<string, string>;
  viewport?: { width: number; height: number };
  /** Functions run in the page before the app's own scripts (serialized: they must be self-contained). */
  initScripts?: (() => void)[];
  /** Extra flags for the host's node, e.g. --cpu-prof. */
  hostNodeArgs?: string[];
  /** Writes what the run needs into its fresh folders before the host starts (session files, Byre's data). */
  prepare?: (folders: RunFolders) => void;
}

export interface RunFolders {
  /** HOME, with the CLI's config folder at `<home>/.claude`. */
  home: string;
  /** The working folder the host opens. */
  cwd: string;
  /** Byre's data folder. */
  dataDir: string;
}

/** The environment for the host: this process's, minus tsx's loader flags and a developer's Claude settings. */
export function hostEnv(
  home: string,
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const dropped = new Set([
    'NODE_OPTIONS',
    'CLAUDE_CONFIG_DIR',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'CLAUDECODE',
  ]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !dropped.has(key)) env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    BYRE_DATA_DIR: dataDir,
    BYRE_CLAUDE_PATH: FAKE_CLI_STREAM,
    ...extra,
  };
}

/**
 * Starts the host and opens its page; resolves once the conversation in the working folder is ready for a
 * message. On any failure everything started so far is stopped again.
 */
export async function startUiRun(options: UiRunOptions): Promise<UiRun> {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-ui-'));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  const dataDir = join(root, 'data');
  const statsPath = join(root, 'fake-cli-stats.json');
  for (const dir of [home, cwd, dataDir]) mkdirSync(dir);
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  try {
    options.prepare?.({ home, cwd, dataDir });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  const host = spawn(
    process.execPath,
    [...(options.hostNodeArgs ?? []), WEB_HOST_ENTRY, '--port', '0', cwd],
    {
      cwd: REPO_ROOT,
      env: hostEnv(home, dataDir, { BENCH_UI_STATS: statsPath, BYRE_BENCH_ELD: '1', ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  host.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  host.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let browser: Browser | undefined;
  // If the benchmark itself is stopped, the host (and through its stdin, the fake CLI) must not outlive it.
  // Playwright closes Chromium on these signals itself, and exits.
  const onSignal = (signal: NodeJS.Signals) => {
    host.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    setTimeout(() => process.exit(signal === 'SIGINT' ? 130 : 143), 3_000).unref();
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);

  const close = async (): Promise<void> => {
    if (browser) await withTimeout(browser.close(), 10_000, 'closing Chromium').catch(() => undefined);
    await stopProcess(host, STOP_GRACE_MS);
    for (const signal of signals) process.off(signal, onSignal);
    rmSync(root, { recursive: true, force: true });
  };

  try {
    const url = await waitForAddress(host, () => output, STARTUP_TIMEOUT_MS);
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await context.newPage();
    // tsx compiles with esbuild's keepNames, which wraps functions in __name(); functions handed to the page
    // (evaluate, addInitScript) carry those calls with them.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    for (const script of options.initScripts ?? []) await page.addInitScript(script);
    await page.goto(url);
    await appStarted(page);
    await page
      .getByRole('textbox', { name: 'Message' })
      .waitFor({ state: 'visible', timeout: STARTUP_TIMEOUT_MS });
    const started = browser;
    return { page, browser: started, host, statsPath, output: () => output, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What installPageClock gives the benchmarks' own timers in the page, as `window.__benchClock`. */
export interface PageClock {
  /** Forgets the reply noted so far; from now on the largest WebSocket reply (`{"id":…`) is noted. */
  mark(): void;
  /** The largest reply since the mark: when it came (performance.now()) and its length; NaN and 0 if none. */
  reply: { at: number; bytes: number };
  /** Calls `done` with the time of a task queued from the next animation frame: after that frame is painted. */
  afterPaint(done: (at: number) => void): void;
}

/** Installed before the app's scripts, and before the benchmarks' timers. Self-contained: it is serialized. */
export function installPageClock(): void {
  let marked = false;
  const clock: PageClock = {
    reply: { at: NaN, bytes: 0 },
    mark() {
      marked = true;
      clock.reply = { at: NaN, bytes: 0 };
    },
    afterPaint(done) {
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => done(performance.now());
        channel.port2.postMessage(null);
      });
    },
  };
  Object.defineProperty(window, '__benchClock', { value: clock });
  const Native = window.WebSocket;
  class TimedWebSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (message: MessageEvent<unknown>) => {
        const data = message.data;
        if (!marked || typeof data !== 'string' || !data.startsWith('{"id":')) return;
        if (data.length > clock.reply.bytes) clock.reply = { at: performance.now(), bytes: data.length };
      });
    }
  }
  window.WebSocket = TimedWebSocket;
}

export interface HostPage {
  page: Page;
  browser: Browser;
  host: ChildProcess;
  output(): string;
  /** Closes Chromium and stops the host (its folders are the caller's). */
  close(): Promise<void>;
}

/**
 * The browser host over folders already on disk (HOME with its `.claude`, Byre's data folder), no working
 * folder, and Chromium on its page, with installPageClock and then `initScripts` run before the app's own on
 * every load. On any failure
 * everything started so far is stopped again.
 */
export async function openHostPage(
  home: string,
  dataDir: string,
  initScripts: (() => void)[] = [],
  /** More environment for the host (and the CLI it starts). */
  env: Record<string, string> = {},
): Promise<HostPage> {
  ensureBuilt();
  const host = spawn(process.execPath, [WEB_HOST_ENTRY, '--port', '0'], {
    cwd: REPO_ROOT,
    env: hostEnv(home, dataDir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  host.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  host.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    if (browser) await withTimeout(browser.close(), 10_000, 'closing Chromium').catch(() => undefined);
    await stopProcess(host, STOP_GRACE_MS);
  };
  try {
    const url = await waitForAddress(host, () => output, STARTUP_TIMEOUT_MS);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // tsx compiles with esbuild's keepNames, which wraps functions in __name(); functions handed to the page
    // carry those calls with them.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    for (const script of [installPageClock, ...initScripts]) await page.addInitScript(script);
    await page.goto(url);
    await appStarted(page);
    const started = browser;
    return { page, browser: started, host, output: () => output, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Until the app's page has connected and its start has run (window.byre there): with a first screen drawn
 * into the page, the app starts after the page's first paint, which may be after its load.
 */
export async function appStarted(page: Page): Promise<void> {
  await page.waitForURL(/\/app\//, { timeout: STARTUP_TIMEOUT_MS });
  await page.waitForFunction(() => 'byre' in window, undefined, { timeout: STARTUP_TIMEOUT_MS });
}

/** Waits until the host's library has read every session file (its status says done), asking every 250 ms. */
export async function waitForIndex(page: Page, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await page.evaluate(async () => {
      const result = await window.byre.libraryStatus({});
      return result.ok && result.value.done;
    });
    if (done) return;
    if (Date.now() > deadline) throw new Error(`the host's index was not done after ${timeoutMs / 1000} s`);
    await page.waitForTimeout(250);
  }
}

/** Newest modification time under a folder (files only), ms. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Whether out/ is older than the sources it is built from; the figures then say so. */
export function buildNote(): string | null {
  try {
    const built = Math.min(
      statSync(WEB_HOST_ENTRY).mtimeMs,
      statSync(join(WEB_HOST_ENTRY, '..', 'library-worker.js')).mtimeMs,
    );
    const sources = Math.max(
      ...['main', 'renderer/src', 'shared'].map((dir) => newestMtime(join(REPO_ROOT, dir))),
    );
    return sources > built
      ? `out/ was built ${round((sources - built) / 1000, 0)} s before the newest source change; run npm run build for figures of the current code`
      : null;
  } catch {
    return null;
  }
}

/** The host's event-loop delay, in ms, over a stretch of a run (main/web.ts with BYRE_BENCH_ELD=1). */
export interface EventLoopDelay {
  /** How late the host's 10 ms timer ran, in ms: its interval less the 10 ms it was set for. */
  p50: number;
  p99: number;
  max: number;
  /** The p99 of the timer's raw interval, as monitorEventLoopDelay records it (10 ms more than the delay). */
  p99Interval?: number;
  /**
   * Over the same stretch, the host's main thread's time on a CPU and its time runnable but waiting for one
   * (Linux's /proc/<pid>/schedstat), in ms: a delay that is mostly waiting comes from the machine's other
   * processes, not from the host's own work. Undefined where there is no schedstat.
   */
  onCpuMs?: number;
  runQueueMs?: number;
}

/** A process that reports its event-loop delay on SIGUSR2: the host of a run, or an idle loop. */
export interface LoopProcess {
  host: ChildProcess;
  output(): string;
}

/** The main thread's cumulative time on a CPU and waiting for one, in ns, by process. */
const schedule = new WeakMap<LoopProcess, readonly [number, number]>();

function readSchedule(pid: number | undefined): readonly [number, number] | undefined {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return onCpu !== undefined && waiting !== undefined ? [onCpu, waiting] : undefined;
  } catch {
    return undefined;
  }
}

const ELD_LINE = /^byre-eld (\{.*\})$/gm;

/**
 * The host's event-loop delay since the last call (or since it started): it writes it to stderr when sent
 * SIGUSR2, and starts counting again. Undefined for a host built without that (BENCH_WEB_HOST), which the
 * signal would end, so it is not sent one.
 */
export async function hostEventLoopDelay(run: LoopProcess): Promise<EventLoopDelay | undefined> {
  if (!run.output().includes('byre-eld ready')) return undefined;
  const seen = [...run.output().matchAll(ELD_LINE)].length;
  run.host.kill('SIGUSR2');
  const now = readSchedule(run.host.pid);
  const before = schedule.get(run);
  if (now) schedule.set(run, now);
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const lines = [...run.output().matchAll(ELD_LINE)];
    const line = lines[seen]?.[1];
    if (line) {
      const delay = JSON.parse(line) as EventLoopDelay;
      if (now && before) {
        delay.onCpuMs = round((now[0] - before[0]) / 1e6);
        delay.runQueueMs = round((now[1] - before[1]) / 1e6);
      }
      return delay;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/**
 * Starts bench/idle-loop.ts, a Node process with no work of its own that reports its event-loop delay as the
 * host does (read it with hostEventLoopDelay): the machine's floor for the host's figure.
 */
export async function startIdleLoop(): Promise<LoopProcess & { close(): Promise<void> }> {
  const host = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'idle-loop.ts')], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let output = '';
  host.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const loop = {
    host,
    output: () => output,
    close: async () => {
      host.stdin.end();
      await stopProcess(host, STOP_GRACE_MS);
    },
  };
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!output.includes('byre-eld ready')) {
    if (Date.now() > deadline || host.exitCode !== null) {
      await loop.close();
      throw new Error(`the idle loop did not start: ${output.trim() || 'no output'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return loop;
}

/** Installed before the app loads: when the log first shows a finished turn whose reply ends with `marker`. */
export function watchFirstScreen(marker: string): void {
  const seen = { at: NaN };
  Object.defineProperty(window, '__benchFirstScreen', { value: seen });
  const check = () => {
    const log = document.querySelector('[role="log"][aria-label="Conversation"]');
    if (!log || !Number.isNaN(seen.at)) return;
    if (log.querySelector('[aria-label="Turn finished"]') && (log.textContent ?? '').includes(marker)) {
      seen.at = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { subtree: true, childList: true, characterData: true });
}

/**
 * Reloads the page and times it to its first screen of the conversation whose last reply ends with
 * END_MARKER: `performance.now()` of the new document when that reply is in the log (installs
 * watchFirstScreen for this and later page loads).
 */
export async function reloadToFirstScreen(run: UiRun, timeoutMs: number): Promise<number> {
  await run.page.addInitScript(watchFirstScreen, END_MARKER);
  await run.page.reload();
  await run.page.waitForFunction(
    () => !Number.isNaN((window as unknown as { __benchFirstScreen: { at: number } }).__benchFirstScreen.at),
    undefined,
    { timeout: timeoutMs, polling: 100 },
  );
  return run.page.evaluate(
    () => (window as unknown as { __benchFirstScreen: { at: number } }).__benchFirstScreen.at,
  );
}

/**
 * One figure set from several runs of a measurement: each number is the median of the runs' values; a text
 * figure is kept when all runs agree, or lists their values. `<name>_runs` lists each run's value of the
 * figures named in `spread`, for the ones that decide goals.
 */
export function medianFigures(runs: readonly Figures[], spread: readonly string[] = []): Figures {
  const figures: Figures = {};
  const names = [...new Set(runs.flatMap((run) => Object.keys(run)))];
  for (const name of names) {
    const values = runs.map((run) => run[name]).filter((value) => value !== undefined);
    if (values.every((value) => typeof value === 'number')) figures[name] = round(median(values), 2);
    else figures[name] = [...new Set(values.map(String))].join(' / ');
  }
  for (const name of spread) {
    if (names.includes(name)) figures[`${name}_runs`] = runs.map((run) => run[name] ?? 'n/a').join(', ');
  }
  return figures;
}

/** `measure` run `times` times, each from a fresh host and page; a run that fails is reported, not fatal. */
export async function repeatRuns(
  prefix: string,
  times: number,
  measure: () => Promise<Figures>,
): Promise<Figures[]> {
  const runs: Figures[] = [];
  const errors: string[] = [];
  for (let i = 0; i < times; i++) {
    try {
      runs.push(await measure());
    } catch (error) {
      errors.push((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '');
    }
  }
  if (runs.length === 0) throw new Error(errors.join('; '));
  if (errors.length > 0) runs.forEach((run) => (run[`${prefix}_failed_runs`] = errors.join('; ')));
  return runs;
}

/** The fake CLI's account of what it wrote, once it has finished its turn. */
export function readStats<T>(statsPath: string): T | undefined {
  try {
    return JSON.parse(readFileSync(statsPath, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Rounded ms, or 'n/a' when a timestamp was never taken. */
export function msFigure(value: number): number | string {
  return Number.isFinite(value) ? round(value) : 'n/a';
}

/** The promise, or a rejection after `ms`; a late rejection of the promise is then ignored, not unhandled. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------
// Frame statistics

export interface FrameStats {
  frames: number;
  dropped: number;
  longestMs: number;
  medianMs: number;
}

export function frameStats(intervals: readonly number[]): FrameStats {
  const sorted = [...intervals].sort((a, b) => a - b);
  return {
    frames: intervals.length,
    dropped: intervals.filter((interval) => interval > DROPPED_FRAME_MS).length,
    longestMs: round(sorted[sorted.length - 1] ?? 0),
    medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
  };
}
