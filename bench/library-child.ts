import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Library } from '../main/library/library';
import { readLastPage } from '../main/library/read-session';
import { applyEvents, initialConversation } from '../shared/conversation';
import { loadAgentSdk } from './agent-sdk';

/**
 * One measurement of the library benchmark in a process of its own (bench/library.ts bundles this file with
 * esbuild and runs it with plain node, so neither tsx nor the bench runner's memory counts): it starts the
 * library the way main does (`Library.start`, its worker thread in this process) and reports on stdout, as
 * one JSON line, what it timed. Every time is from just before `Library.start`.
 *
 * Like the renderer, it lists (list + status) once at start and again on every change notice (at most ~4 a
 * second); that is also how it sees that indexing is done, as the sidebar does. A status poll every
 * STATUS_POLL_MS is only a safety net: each status() costs the worker a few ms of queries, and polling it
 * often would slow the index it measures.
 *
 * Modes:
 * - `start`: until the first page of rows (stop: 'first-page'), or until the index is complete
 *   (stop: 'done'), sampling RSS; with `queries`, then runs them through `Library.search` and times each.
 * - `sdk`: the Agent SDK's `listSessions` over the same config folder ($CLAUDE_CONFIG_DIR).
 * - `open`: `readLastPage` of one session file, then the reduce the renderer runs on it.
 */

export interface StartArgs {
  mode: 'start';
  dataDir: string;
  configDir: string;
  workerPath: string;
  /** Rows that make a first page (a screenful). */
  pageRows: number;
  /** Rows the library should list once complete. */
  expectedRows: number;
  stop: 'first-page' | 'done';
  timeoutMs: number;
  /** Run after the index is complete: each timed through Library.search. */
  queries?: string[];
  warmupQueries?: string[];
}

export interface SdkArgs {
  mode: 'sdk';
  limit?: number;
}

export interface OpenArgs {
  mode: 'open';
  file: string;
  runs: number;
}

export type ChildArgs = StartArgs | SdkArgs | OpenArgs;

export interface StartReport {
  mode: 'start';
  /** The first list with any row, with a screenful, with every expected row. */
  firstRowsMs: number | null;
  firstPageMs: number | null;
  allRowsMs: number | null;
  /** status().done first seen. */
  doneMs: number | null;
  timedOut: boolean;
  /** The first page's session ids, in order, and the final list's first ones, to compare. */
  firstPageIds: string[];
  finalTopIds: string[];
  finalRows: number;
  lastStatus: { indexed: number; total: number; done: boolean; problems: number } | null;
  /** Of the whole process: before Library.start, the largest sample, and the kernel's high-water mark. */
  baselineRssMb: number;
  sampledPeakRssMb: number;
  peakRssMb: number | null;
  cpuSeconds: number;
  searches?: { query: string; ms: number; hits: number }[];
  error?: string;
}

export interface SdkReport {
  mode: 'sdk';
  importMs: number;
  ms: number;
  sessions: number;
}

export interface OpenReport {
  mode: 'open';
  ms: number[];
  readMs: number[];
  events: number;
  messages: number;
  pageBytes: number;
  before: boolean;
}

const STATUS_POLL_MS = 1000;
const RSS_SAMPLE_MS = 100;

const mb = (bytes: number) => Number((bytes / 1e6).toFixed(1));

/** A field of /proc/self/status in MB (Linux), or null. */
function procStatusMb(field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return match?.[1] ? mb(Number(match[1]) * 1024) : null;
  } catch {
    return null;
  }
}

async function start(args: StartArgs): Promise<StartReport> {
  const baselineRssMb = mb(process.memoryUsage.rss());
  const cpuStart = process.cpuUsage();
  let sampledPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  }, RSS_SAMPLE_MS);
  const t0 = performance.now();
  const library = Library.start({
    dataDir: args.dataDir,
    env: { CLAUDE_CONFIG_DIR: args.configDir },
    workerPath: args.workerPath,
  });
  const report: StartReport = {
    mode: 'start',
    firstRowsMs: null,
    firstPageMs: null,
    allRowsMs: null,
    doneMs: null,
    timedOut: false,
    firstPageIds: [],
    finalTopIds: [],
    finalRows: 0,
    lastStatus: null,
    baselineRssMb,
    sampledPeakRssMb: 0,
    peakRssMb: null,
    cpuSeconds: 0,
  };
  const since = () => Number((performance.now() - t0).toFixed(1));
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  /** A list answered once the status said done: the rows as they end up. */
  let listedDone = false;
  const check = () => {
    if (args.stop === 'first-page' && report.firstPageMs !== null) finish();
    if (args.stop === 'done' && report.doneMs !== null && listedDone) finish();
  };

  let listing = false;
  let again = false;
  let closing = false;
  const refresh = async (): Promise<void> => {
    if (listing) {
      again = true;
      return;
    }
    listing = true;
    try {
      do {
        again = false;
        const [rows, status] = await Promise.all([library.list(), library.status()]);
        const at = since();
        if (rows.length > 0) report.firstRowsMs ??= at;
        if (report.firstPageMs === null && rows.length >= Math.min(args.pageRows, args.expectedRows)) {
          report.firstPageMs = at;
          report.firstPageIds = rows.slice(0, args.pageRows).map((row) => row.sessionId);
        }
        if (rows.length >= args.expectedRows) report.allRowsMs ??= at;
        report.finalRows = rows.length;
        report.finalTopIds = rows.slice(0, args.pageRows).map((row) => row.sessionId);
        if (status.done) {
          report.doneMs ??= at;
          listedDone = true;
        }
        check();
      } while (again);
    } catch (error) {
      // A list still on its way when the measurement ends is cut off by the close: not an error.
      if (!closing) report.error ??= error instanceof Error ? error.message : String(error);
    } finally {
      listing = false;
    }
  };
  library.onChange(() => void refresh());
  void refresh();
  const poll = setInterval(() => {
    library.status().then(
      (status) => {
        report.lastStatus = {
          indexed: status.indexed,
          total: status.total,
          done: status.done,
          problems: status.problems.length,
        };
        if (status.done && report.doneMs === null) {
          report.doneMs = since();
          // The rows as they are once done.
          void refresh();
        }
        check();
      },
      (error: unknown) => {
        if (!closing) report.error ??= error instanceof Error ? error.message : String(error);
      },
    );
  }, STATUS_POLL_MS);
  const progress = setInterval(() => {
    const status = report.lastStatus;
    if (status)
      process.stderr.write(
        `  library: ${status.indexed}/${status.total} indexed (${(since() / 1000).toFixed(0)} s)\n`,
      );
  }, 15_000);
  const timer = setTimeout(() => {
    report.timedOut = true;
    finish();
  }, args.timeoutMs);
  await finished;
  clearTimeout(timer);
  clearInterval(poll);
  clearInterval(progress);

  if (args.queries && !report.timedOut) {
    for (const query of args.warmupQueries ?? []) await library.search({ query });
    report.searches = [];
    for (const query of args.queries) {
      const started = performance.now();
      const hits = await library.search({ query });
      report.searches.push({
        query,
        ms: Number((performance.now() - started).toFixed(2)),
        hits: hits.length,
      });
    }
  }
  clearInterval(sampler);
  sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  report.sampledPeakRssMb = mb(sampledPeak);
  report.peakRssMb = procStatusMb('VmHWM');
  const cpu = process.cpuUsage(cpuStart);
  report.cpuSeconds = Number(((cpu.user + cpu.system) / 1e6).toFixed(1));
  closing = true;
  await library.close();
  return report;
}

async function sdk(args: SdkArgs): Promise<SdkReport> {
  const importStart = performance.now();
  const { listSessions } = await loadAgentSdk();
  const importMs = performance.now() - importStart;
  const started = performance.now();
  const sessions = await listSessions(args.limit ? { limit: args.limit } : undefined);
  const ms = performance.now() - started;
  return {
    mode: 'sdk',
    importMs: Number(importMs.toFixed(1)),
    ms: Number(ms.toFixed(1)),
    sessions: sessions.length,
  };
}

async function open(args: OpenArgs): Promise<OpenReport> {
  const report: OpenReport = {
    mode: 'open',
    ms: [],
    readMs: [],
    events: 0,
    messages: 0,
    pageBytes: 0,
    before: false,
  };
  for (let run = 0; run < args.runs; run++) {
    const started = performance.now();
    const page = await readLastPage({ cliFile: args.file, transcripts: [] });
    const read = performance.now();
    const state = applyEvents(initialConversation(), page.events);
    const done = performance.now();
    report.ms.push(Number((done - started).toFixed(1)));
    report.readMs.push(Number((read - started).toFixed(1)));
    report.events = page.events.length;
    report.messages = state.order.length;
    report.pageBytes = JSON.stringify(page).length;
    report.before = page.before !== null;
  }
  return report;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
  const report =
    args.mode === 'start' ? await start(args) : args.mode === 'sdk' ? await sdk(args) : await open(args);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // The worker is unref'd and closed; nothing else should keep the process, but a stray handle must not.
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `library bench child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
