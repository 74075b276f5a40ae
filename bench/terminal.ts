import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { seedInteractiveCli } from '../e2e/fixtures/cli-env';
import type { Terminal as XtermTerminal } from '@xterm/xterm';
import {
  hostEventLoopDelay,
  median,
  openHostPage,
  percentile,
  REPO_ROOT,
  round,
  type Figures,
  type HostPage,
} from './ui-harness';

/**
 * The Terminal lane (issue 43) through the browser host into Chromium, against the same PTY and the same
 * xterm.js screen as the app, with the machine's floor measured beside each figure in the same run:
 *
 * - `terminal_echo_*`: a keystroke to its echo on the screen (the frame after the row changed), p50 and p95
 *   over 40 keys, in the real interactive CLI's input box, and with `cat` in the same PTY and terminal (the
 *   line discipline echoes it: the floor). Goal: the CLI within 16 ms of `cat` at p50 and p95;
 * - `terminal_flood_*`: 10 MB of output (bench/pty-flood.mjs) from the key that asks for it to its last
 *   line on the screen, beside xterm.js's own time to draw the same 10 MB written to it in the page (the
 *   floor), and main's event-loop delay meanwhile. Goals: within 2× of the floor, p99 < 20 ms;
 * - `terminal_ten_*`: ten Terminal conversations of the real CLI open: the host's RSS and the page's JS heap.
 */

const KEYS = 40;
const WARMUP_KEYS = 5;
const FLOOD_BYTES = 10_000_000;
const ECHO_GOAL_MS = 16;
const FLOOD_GOAL_RATIO = 2;
const ELD_GOAL_MS = 20;
const TEN = 10;
const PTY_CAT = join(import.meta.dirname, 'pty-cat.sh');
const PTY_FLOOD = join(import.meta.dirname, 'pty-flood.mjs');
const REAL_CLI = join(REPO_ROOT, 'node_modules', '.bin', 'claude');
const FAKE_KEY = 'sk-bench-terminal';

interface Folders {
  root: string;
  home: string;
  cwd: string;
  dataDir: string;
}

/** A HOME in which the interactive CLI starts without the network (cli-facts 19), and a working folder. */
function folders(): Folders {
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-terminal-'));
  const folders = { root, home: join(root, 'home'), cwd: join(root, 'work'), dataDir: join(root, 'data') };
  for (const dir of [folders.home, folders.cwd, folders.dataDir]) mkdirSync(dir);
  seedInteractiveCli(folders.home, [folders.cwd], FAKE_KEY);
  // Ask before acting: "Don't ask" would stand the CLI's own warning before its prompt.
  writeFileSync(join(folders.dataDir, 'settings.json'), JSON.stringify({ defaultPermissionMode: 'default' }));
  return folders;
}

/** The host over `program` as its claude (the real CLI, cat, the flood), with no model reachable. */
async function hostWith(
  where: Folders,
  program: string,
  env: Record<string, string> = {},
): Promise<HostPage> {
  return openHostPage(where.home, where.dataDir, [], {
    BYRE_CLAUDE_PATH: program,
    ANTHROPIC_API_KEY: FAKE_KEY,
    // Nothing listens there: the CLI asks nothing of a model before the first prompt.
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...env,
  });
}

const rows = (page: Page) => page.locator('[data-testid="terminal-screen"] .xterm-rows').first();

/** A Terminal conversation started from the form, as a person would; resolves once its screen shows `ready`. */
async function startTerminal(page: Page, cwd: string, ready: RegExp | null): Promise<void> {
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(cwd);
  await form.getByLabel('Runs in').selectOption('terminal');
  await form.getByRole('button', { name: 'Start' }).click();
  await rows(page).waitFor({ state: 'attached', timeout: 60_000 });
  if (ready) {
    await page.waitForFunction(
      (pattern) =>
        new RegExp(pattern).test(
          document.querySelector('[data-testid="terminal-screen"] .xterm-rows')?.textContent ?? '',
        ),
      ready.source,
      { timeout: 60_000 },
    );
  }
  await page.getByTestId('terminal-screen').click();
}

/**
 * Types `count` letters one at a time; each one's latency is from its keydown in the page to the frame after
 * the screen's rows first show it (what was typed so far, as the echo draws it).
 */
async function echoLatencies(page: Page, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let typed = '';
  for (let index = 0; index < count; index++) {
    const letter = String.fromCharCode(97 + (index % 26));
    typed += letter;
    const measured = page.evaluate(
      (expected) =>
        new Promise<number>((resolve, reject) => {
          const screen = document.querySelector('[data-testid="terminal-screen"] .xterm-rows');
          if (!screen) return reject(new Error('no terminal rows'));
          let downAt = NaN;
          const onDown = () => (downAt = performance.now());
          document.addEventListener('keydown', onDown, { capture: true, once: true });
          const text = () => (screen.textContent ?? '').replace(/\s/g, '');
          const observer = new MutationObserver(() => {
            if (!text().includes(expected)) return;
            observer.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - downAt));
          });
          observer.observe(screen, { childList: true, subtree: true, characterData: true });
          setTimeout(() => {
            observer.disconnect();
            reject(new Error(`"${expected}" was not echoed in 10 s`));
          }, 10_000);
        }),
      typed,
    );
    // Let the page's listeners be in place before the key.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    await page.keyboard.press(letter);
    latencies.push(await measured);
    await page.waitForTimeout(30);
  }
  return latencies;
}

async function measureEcho(program: string): Promise<number[]> {
  const where = folders();
  let run: HostPage | undefined;
  try {
    run = await hostWith(where, program);
    await startTerminal(run.page, where.cwd, program === REAL_CLI ? /for shortcuts|manual mode/ : null);
    await echoLatencies(run.page, WARMUP_KEYS);
    // What the warm-up typed goes: Ctrl+U clears the CLI's input, and cat's line alike.
    await run.page.keyboard.press('Control+U');
    return await echoLatencies(run.page, KEYS);
  } finally {
    await run?.close();
    rmSync(where.root, { recursive: true, force: true });
  }
}

/** 10 MB through the lane, from the key to the marker on the screen; main's event loop meanwhile. */
async function measureFlood(): Promise<{ ms: number; eldP99: number | null }> {
  const where = folders();
  let run: HostPage | undefined;
  try {
    run = await hostWith(where, PTY_FLOOD, { BENCH_FLOOD_BYTES: String(FLOOD_BYTES), BYRE_BENCH_ELD: '1' });
    const { page } = run;
    await startTerminal(page, where.cwd, null);
    await hostEventLoopDelay(run);
    const done = page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let downAt = NaN;
          document.addEventListener('keydown', () => (downAt = performance.now()), {
            capture: true,
            once: true,
          });
          const screen = document.querySelector('[data-testid="terminal-screen"] .xterm-rows');
          const observer = new MutationObserver(() => {
            if (!(screen?.textContent ?? '').includes('flood-done-marker')) return;
            observer.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - downAt));
          });
          if (screen) observer.observe(screen, { childList: true, subtree: true, characterData: true });
        }),
    );
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    await page.keyboard.press('Enter');
    const ms = await done;
    const eld = await hostEventLoopDelay(run);
    return { ms, eldP99: eld?.p99 ?? null };
  } finally {
    await run?.close();
    rmSync(where.root, { recursive: true, force: true });
  }
}

/** xterm.js alone, in a page of the same size: the same 10 MB written to it, to its last frame. The floor. */
async function measureXtermFloor(): Promise<number> {
  const where = folders();
  let run: HostPage | undefined;
  try {
    run = await hostWith(where, PTY_CAT);
    // A page of its own (the app's forbids scripts from elsewhere), as large as the app's.
    const page = await run.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.setContent(
      '<!doctype html><div id="t" style="width:1000px;height:700px;font-size:13px"></div>',
    );
    await page.addStyleTag({ path: join(REPO_ROOT, 'node_modules/@xterm/xterm/css/xterm.css') });
    await page.addScriptTag({ path: join(REPO_ROOT, 'node_modules/@xterm/xterm/lib/xterm.js') });
    // tsx's keepNames wraps the functions handed to the page in __name() (ui-harness.ts says more).
    await page.evaluate('globalThis.__name = (target) => target;');
    return await page.evaluate(async (total) => {
      // The UMD build puts its exports on the page's global object.
      const { Terminal } = window as unknown as { Terminal: typeof XtermTerminal };
      const terminal = new Terminal({ scrollback: 10_000, fontSize: 13 });
      terminal.open(document.getElementById('t') as HTMLElement);
      const line = (n: number) =>
        `${String(n).padStart(8, '0')} ${'the quick brown fox jumps over the lazy dog '.repeat(2)}\r\n`;
      const chunks: string[] = [];
      let size = 0;
      for (let n = 0; size < total; n++) {
        chunks.push(line(n));
        size += chunks[chunks.length - 1]?.length ?? 0;
      }
      const body = chunks.join('') + 'flood-done-marker\r\n';
      const start = performance.now();
      // In pieces as the PTY gives them, each written when xterm has taken the one before.
      for (let at = 0; at < body.length; at += 64 * 1024) {
        await new Promise<void>((resolve) => terminal.write(body.slice(at, at + 64 * 1024), resolve));
      }
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return performance.now() - start;
    }, FLOOD_BYTES);
  } finally {
    await run?.close();
    rmSync(where.root, { recursive: true, force: true });
  }
}

/** Ten Terminal conversations of the real CLI: the host's resident memory and the page's heap. */
async function measureTen(): Promise<{ hostRssMb: number; heapMb: number; hostRssBeforeMb: number }> {
  const where = folders();
  let run: HostPage | undefined;
  try {
    run = await hostWith(where, REAL_CLI);
    const rss = () => {
      const status = readFileSync(`/proc/${run?.host.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
    };
    const hostRssBeforeMb = rss();
    for (let index = 0; index < TEN; index++) {
      await startTerminal(run.page, where.cwd, /for shortcuts|manual mode/);
    }
    const client = await run.page.context().newCDPSession(run.page);
    await client.send('HeapProfiler.collectGarbage');
    await client.send('Performance.enable');
    const { metrics } = await client.send('Performance.getMetrics');
    const heap = metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? NaN;
    return { hostRssMb: rss(), heapMb: heap / 1e6, hostRssBeforeMb };
  } finally {
    await run?.close();
    rmSync(where.root, { recursive: true, force: true });
  }
}

export async function measureTerminal(): Promise<Figures> {
  if (process.platform !== 'linux') return { terminal_error: 'the Terminal bench reads /proc: Linux only' };
  const cat = await measureEcho(PTY_CAT);
  const cli = await measureEcho(REAL_CLI);
  const echo = {
    catP50: median(cat),
    catP95: percentile(cat, 95),
    cliP50: median(cli),
    cliP95: percentile(cli, 95),
  };
  const floods = [await measureFlood(), await measureFlood(), await measureFlood()];
  const floors = [await measureXtermFloor(), await measureXtermFloor(), await measureXtermFloor()];
  const floodMs = median(floods.map((flood) => flood.ms));
  const floorMs = median(floors);
  const eldP99 = Math.max(...floods.map((flood) => flood.eldP99 ?? NaN));
  const ten = await measureTen();
  const pass = (ok: boolean) => (ok ? 'pass' : 'fail');
  return {
    terminal_echo_cli_p50_ms: round(echo.cliP50),
    terminal_echo_cli_p95_ms: round(echo.cliP95),
    terminal_echo_cat_floor_p50_ms: round(echo.catP50),
    terminal_echo_cat_floor_p95_ms: round(echo.catP95),
    terminal_echo_above_floor_p50_ms: round(echo.cliP50 - echo.catP50),
    terminal_echo_above_floor_p95_ms: round(echo.cliP95 - echo.catP95),
    goal_terminal_echo_within_16ms: pass(
      echo.cliP50 - echo.catP50 < ECHO_GOAL_MS && echo.cliP95 - echo.catP95 < ECHO_GOAL_MS,
    ),
    terminal_flood_10mb_ms: round(floodMs),
    terminal_flood_10mb_runs_ms: floods.map((flood) => round(flood.ms)).join(', '),
    terminal_flood_xterm_floor_ms: round(floorMs),
    terminal_flood_ratio: round(floodMs / floorMs, 2),
    terminal_flood_host_eld_p99_ms: round(eldP99),
    goal_terminal_flood_within_2x: pass(floodMs / floorMs <= FLOOD_GOAL_RATIO),
    goal_terminal_flood_host_eld_p99_under_20ms: pass(eldP99 < ELD_GOAL_MS),
    terminal_ten_host_rss_mb: round(ten.hostRssMb),
    terminal_ten_host_rss_before_mb: round(ten.hostRssBeforeMb),
    terminal_ten_page_heap_mb: round(ten.heapMb),
  };
}
