import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from '@playwright/test';
import {
  awaitLoad,
  awaitScroll,
  scrollToBottom,
  startLoadProbe,
  startScrollProbe,
  LOG_SELECTOR,
  type LoadResult,
  type ScrollResult,
} from './ui-long-conversation';
import { awaitProbe, installCounters, startProbe } from './ui-streaming';
import { END_MARKER, REPO_ROOT, round, startUiRun, withTimeout } from './ui-harness';

/**
 * Where the UI benchmarks' time goes: `npx tsx bench/ui-profile.ts stream|long [--host]`.
 *
 * Runs one scenario of ui-streaming.ts or ui-long-conversation.ts with the V8 sampling profiler on the page
 * (CDP Profiler) and prints self time by function and by source module (the renderer bundle is not
 * minified; its `// node_modules/…` comments say which module each line came from). For `stream` it also
 * prints where React commits come from (the call stacks of onCommitFiberRoot, by origin). With --host the
 * browser host runs under `node --cpu-prof` and its profile is summarised too. Profiles are saved in
 * test-results/ui-profile/ for the DevTools Performance panel.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const OUT_DIR = join(REPO_ROOT, 'test-results', 'ui-profile');

/** Line → module, from the bundle's `// path/to/module.js` region comments. */
function moduleMap(bundle: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  bundle.split('\n').forEach((text, index) => {
    const match = /^\/\/ ((?:node_modules|shared|renderer|main)\/[\w@./+-]+\.(?:m?js|cjs|tsx?))$/.exec(text);
    if (match?.[1]) starts.push({ line: index, module: match[1].replace(/^node_modules\//, '') });
  });
  return (line) => {
    let found = '(bundle)';
    for (const start of starts) {
      if (start.line > line) break;
      found = start.module;
    }
    return found;
  };
}

function renderBundle(): string {
  const dir = join(REPO_ROOT, 'out', 'renderer', 'assets');
  const file = readdirSync(dir).find((name) => name.endsWith('.js'));
  return file ? readFileSync(join(dir, file), 'utf8') : '';
}

/** Self time per node from the samples and their time deltas. */
function selfTimes(profile: Profile): Map<number, number> {
  const times = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i] ?? 0;
    // A sample's time is the delta to the next one.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    times.set(id, (times.get(id) ?? 0) + ms);
  }
  return times;
}

/** Top functions and modules by self time; with `under`, only time spent below functions whose name matches. */
function summarise(profile: Profile, moduleOf: (url: string, line: number) => string, top = 18): string {
  const times = selfTimes(profile);
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = times.get(node.id) ?? 0;
    if (ms === 0) continue;
    total += ms;
    const frame = node.callFrame;
    const short = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);
    const module = frame.url
      ? moduleOf(frame.url, frame.lineNumber)
      : short(`(${frame.functionName || 'native'})`);
    const name = `${short(frame.functionName || '(anonymous)')} [${module}:${frame.lineNumber + 1}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    byModule.set(module, (byModule.get(module) ?? 0) + ms);
  }
  const lines = [`total sampled ${Math.round(total)} ms`, '  by module:'];
  for (const [module, ms] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 14)) {
    lines.push(`    ${String(Math.round(ms)).padStart(6)} ms  ${round((100 * ms) / total)}%  ${module}`);
  }
  lines.push('  by function (self):');
  for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`    ${String(Math.round(ms)).padStart(6)} ms  ${name}`);
  }
  return lines.join('\n');
}

/** Total time (self + below) under each function whose name is in `names`, counted once per stack. */
function inclusive(profile: Profile, names: readonly string[]): string {
  const times = selfTimes(profile);
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const totals = new Map<string, number>();
  for (const [id, ms] of times) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at)?.callFrame.functionName ?? '';
      if (names.includes(name) && !seen.has(name)) {
        seen.add(name);
        totals.set(name, (totals.get(name) ?? 0) + ms);
      }
    }
  }
  return names.map((name) => `${name} ${Math.round(totals.get(name) ?? 0)} ms`).join(', ');
}

/** Installed before the app: counts React commits by where they came from (the bottom of the stack). */
function installCommitOrigins(): void {
  const origins: Record<string, number> = {};
  Object.defineProperty(window, '__benchCommitOrigins', { value: origins });
  const hook = (window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__?: { onCommitFiberRoot: () => void } })
    .__REACT_DEVTOOLS_GLOBAL_HOOK__;
  if (!hook) return;
  const count = hook.onCommitFiberRoot;
  hook.onCommitFiberRoot = () => {
    count();
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const stack = (new Error().stack ?? '').split('\n').slice(2);
    Error.stackTraceLimit = limit;
    const names = stack.map((line) => /at (?:async )?([^\s(]+)/.exec(line.trim())?.[1] ?? '?');
    const key = names.slice(-4).join(' < ');
    origins[key] = (origins[key] ?? 0) + 1;
  };
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

const SCRIPT_EVENTS = new Set([
  'FunctionCall',
  'FireAnimationFrame',
  'TimerFire',
  'EventDispatch',
  'RunMicrotasks',
  'v8.callFunction',
]);

/** Time on the renderer's main thread by trace event: rendering work, and layout forced from script. */
function summariseTrace(buffer: Buffer): string {
  const { traceEvents } = JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] };
  const main = traceEvents.find(
    (event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain',
  );
  if (!main) return 'no CrRendererMain thread in the trace';
  const events = traceEvents
    .filter(
      (event) =>
        event.pid === main.pid && event.tid === main.tid && event.ph === 'X' && event.dur !== undefined,
    )
    .sort((a, b) => a.ts - b.ts);
  const totals = new Map<string, number>();
  let forcedLayout = 0;
  let forcedStyle = 0;
  const open: TraceEvent[] = [];
  for (const event of events) {
    while (
      open.length > 0 &&
      (open[open.length - 1]?.ts ?? 0) + (open[open.length - 1]?.dur ?? 0) <= event.ts
    )
      open.pop();
    const inScript = open.some((outer) => SCRIPT_EVENTS.has(outer.name));
    const ms = (event.dur ?? 0) / 1000;
    if (event.name === 'Layout' && inScript) forcedLayout += ms;
    if (event.name === 'UpdateLayoutTree' && inScript) forcedStyle += ms;
    // Count each name once per nesting (outermost only), so totals are inclusive times.
    if (!open.some((outer) => outer.name === event.name))
      totals.set(event.name, (totals.get(event.name) ?? 0) + ms);
    open.push(event);
  }
  const names = [
    'RunTask',
    'FunctionCall',
    'FireAnimationFrame',
    'RunMicrotasks',
    'TimerFire',
    'EventDispatch',
    'UpdateLayoutTree',
    'Layout',
    'PrePaint',
    'Paint',
    'Layerize',
    'MinorGC',
    'MajorGC',
    'ParseHTML',
  ];
  const lines = names.map(
    (name) => `    ${String(Math.round(totals.get(name) ?? 0)).padStart(6)} ms  ${name}`,
  );
  lines.push(
    `    ${String(Math.round(forcedLayout)).padStart(6)} ms  Layout forced from script (inside the above script events)`,
  );
  lines.push(`    ${String(Math.round(forcedStyle)).padStart(6)} ms  style recalc forced from script`);
  return lines.join('\n');
}

async function traced<T>(
  browser: Browser,
  page: Page,
  body: () => Promise<T>,
): Promise<{ result: T; summary: string }> {
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'],
  });
  const result = await body();
  const buffer = await browser.stopTracing();
  return { result, summary: summariseTrace(buffer) };
}

async function profiled<T>(
  cdp: CDPSession,
  name: string,
  body: () => Promise<T>,
): Promise<{ result: T; profile: Profile }> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Profiler.start');
  const result = await body();
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
  return { result, profile };
}

const STREAM_FUNCTIONS = [
  'flush',
  'applyEvents',
  'splitBlocks',
  'lex',
  'blockTokens',
  'inlineTokens',
  'createProcessor',
  'createLowlight',
  'rehypeHighlight',
  'remarkGfm',
  'runSync',
  'toJsxRuntime',
  'performWorkOnRoot',
  'commitRoot',
  'measureElement',
  'onScroll',
];
const LOAD_FUNCTIONS = [
  'flush',
  'applyConversationEvents',
  'applyEvents',
  'applyAssistant',
  'setMessage',
  'receive',
  'performWorkOnRoot',
  'commitRoot',
  'createProcessor',
  'createLowlight',
  'runSync',
];
const SCROLL_FUNCTIONS = [
  'performWorkOnRoot',
  'commitRoot',
  'splitBlocks',
  'createProcessor',
  'createLowlight',
  'rehypeHighlight',
  'remarkGfm',
  'parse',
  'runSync',
  'toJsxRuntime',
  'highlight',
  'measureElement',
  'onScroll',
];

async function main(): Promise<void> {
  const scenario = process.argv[2] === 'long' ? 'long' : 'stream';
  const profileHost = process.argv.includes('--host');
  const trace = process.argv.includes('--trace');
  const hostDir = join(OUT_DIR, `host-${scenario}`);
  rmSync(hostDir, { recursive: true, force: true });
  if (profileHost) mkdirSync(hostDir, { recursive: true });
  const bundle = renderBundle();
  const lineToModule = moduleMap(bundle);
  const moduleOf = (url: string, line: number) =>
    url.includes('/assets/index-') ? lineToModule(line) : url.split('/').slice(-2).join('/') || url;

  const run = await startUiRun({
    env: scenario === 'long' ? { BENCH_UI_MODE: 'long' } : { BENCH_UI_MODE: 'stream' },
    initScripts: [installCounters, installCommitOrigins],
    ...(profileHost ? { hostNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${hostDir}`] } : {}),
  });
  try {
    const { page, browser } = run;
    const cdp = await page.context().newCDPSession(page);
    /** Runs `body` under the tracer (--trace) or the sampling profiler, and prints where the time went. */
    const measure = async <T>(
      name: string,
      title: (result: T) => string,
      functions: string[],
      body: () => Promise<T>,
    ) => {
      if (trace) {
        const { result, summary } = await traced(browser, page, body);
        console.log(`${title(result)} — renderer main thread by trace event:\n${summary}`);
        return result;
      }
      const { result, profile } = await profiled(cdp, name, body);
      console.log(`${title(result)} — renderer main thread:\n${summarise(profile, moduleOf)}`);
      console.log(`  inclusive: ${inclusive(profile, functions)}`);
      return result;
    };
    const send = async (text: string) => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(text);
      await box.press('Enter');
    };
    if (scenario === 'stream') {
      await page.evaluate(startProbe, { endMarker: END_MARKER, kind: 'text' as const });
      await measure(
        'stream',
        () => 'stream',
        STREAM_FUNCTIONS,
        async () => {
          await send('stream me a long reply');
          return withTimeout(page.evaluate(awaitProbe), 60_000, 'the streamed turn');
        },
      );
      const origins = await page.evaluate(
        () => (window as unknown as { __benchCommitOrigins: Record<string, number> }).__benchCommitOrigins,
      );
      console.log('  React commits by origin (bottom of stack):');
      for (const [key, n] of Object.entries(origins)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)) {
        console.log(`    ${String(n).padStart(6)}  ${key}`);
      }
    } else {
      await page.evaluate(startLoadProbe, { endMarker: END_MARKER, idleFrames: 2, maxMs: 120_000 });
      await measure(
        'long-load',
        (load: LoadResult) =>
          `long — load (${Math.round(load.settledAt - load.firstMutationAt)} ms to first screen)`,
        LOAD_FUNCTIONS,
        async () => {
          await send('show me ten thousand messages');
          return withTimeout(page.evaluate(awaitLoad), 120_000, 'the long turn');
        },
      );
      await page.evaluate(scrollToBottom, LOG_SELECTOR);
      await page.evaluate(startScrollProbe, { stepPx: 1_500, driveScrollTop: true, maxMs: 6_000 });
      await measure(
        'long-scroll',
        (scroll: ScrollResult) =>
          `long — 6 s of scrollTop -1,500 px a frame (${scroll.intervals.filter((interval) => interval > 25).length}/${scroll.intervals.length} frames dropped)`,
        SCROLL_FUNCTIONS,
        () => page.evaluate(awaitScroll),
      );
    }
  } finally {
    await run.close();
  }
  if (profileHost) {
    const file = readdirSync(hostDir).find((name) => name.endsWith('.cpuprofile'));
    if (file) {
      const profile = JSON.parse(readFileSync(join(hostDir, file), 'utf8')) as Profile;
      const hostModule = (url: string) => {
        const path = url.replace(/^file:\/\//, '');
        const at = path.indexOf('node_modules/');
        return at >= 0 ? path.slice(at + 13) : path.replace(`${REPO_ROOT}/`, '');
      };
      console.log(`host (node out/main/web.js):\n${summarise(profile, (url) => hostModule(url))}`);
    } else {
      console.log('host: no profile was written');
    }
  }
}

await main();
