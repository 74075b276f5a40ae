import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { shardFiles } from '../main/library/worker/text-store';
import { AGENT_SDK_ENTRY, loadAgentSdk } from './agent-sdk';
import type { ChildArgs, OpenReport, SdkReport, StartArgs, StartReport } from './library-child';
import { CORPUS_SCALE, corpusRoot, ensureCorpus, type CorpusManifest } from './library-corpus';
import { measureLibraryOpenUi } from './library-ui';
import { median, REPO_ROOT, round, type Figure, type Figures } from './ui-harness';

/**
 * The library over a corpus shaped like real CLI session files (bench/library-corpus.ts: 1,000 sessions of
 * 1 GB together, plus one of 100 MB). Each measurement runs `Library.start` in a fresh node process
 * (bench/library-child.ts, bundled from the current sources with esbuild, the worker too), so its RSS is the
 * library's and not the bench runner's:
 *
 * - cold: a fresh data folder; the first page of rows (a screenful, PAGE_ROWS), and the whole index with its
 *   peak RSS (VmHWM) — one full run, plus two more runs stopped at the first page (median of the three);
 * - warm: the same data folder, index complete, new process: the first page and the rescan until
 *   status().done with nothing changed (median of three);
 * - search: 50 queries of one to three words (every word in the corpus), each timed through Library.search
 *   after a few other queries as a warm-up; also a piece of base64 image data, which must find nothing;
 * - the 100 MB session opened in Chromium through the browser host (bench/library-ui.ts), and, for
 *   reference, readLastPage plus the reduce on it in a bare process;
 * - the Agent SDK's listSessions over the same config folder, whole and first 50 (median of three each).
 *
 * The corpus files are in the OS file cache (they were just written or read): "cold" is the data folder,
 * not the disk.
 */

const PAGE_ROWS = 30;
const WARM_RUNS = 3;
const COLD_PAGE_RUNS = 3;
const SDK_RUNS = 3;
const INDEX_TIMEOUT_MS = Number(process.env.BENCH_LIBRARY_INDEX_TIMEOUT_S ?? 360) * 1000;
const SHORT_TIMEOUT_MS = 90_000;
const BUNDLE_DIR = join(import.meta.dirname, 'data');

interface Goal {
  key: string;
  below: number;
  unit: string;
  what: string;
}

/** The issue's goals, each an upper bound. */
export const LIBRARY_GOALS: Goal[] = [
  {
    key: 'library_first_page_cold_ms',
    below: 1000,
    unit: 'ms',
    what: 'first page of rows, fresh data folder',
  },
  { key: 'library_first_page_warm_ms', below: 300, unit: 'ms', what: 'first page of rows, index up to date' },
  { key: 'library_index_cold_s', below: 20, unit: 's', what: 'full-text index of the whole corpus' },
  { key: 'library_index_peak_rss_mb', below: 300, unit: 'MB', what: 'peak RSS of the process that indexes' },
  {
    key: 'library_open_100mb_first_paint_ms',
    below: 1000,
    unit: 'ms',
    what: 'click to first messages painted, 100 MB session (Chromium, browser host)',
  },
  { key: 'library_search_p95_ms', below: 100, unit: 'ms', what: 'p95 of 50 searches of 1–3 words' },
  {
    key: 'library_reindex_unchanged_ms',
    below: 500,
    unit: 'ms',
    what: 'restart until indexed, nothing changed',
  },
];

const goalKey = (key: string) => `goal_${key.replace(/_(ms|s|mb)$/, '')}`;

export function libraryVerdicts(figures: Record<string, Figure>): string[] {
  return LIBRARY_GOALS.flatMap(({ key, below, unit, what }) => {
    const verdict = figures[goalKey(key)];
    if (verdict !== 'pass' && verdict !== 'fail') return [];
    return [
      `${verdict === 'pass' ? 'PASS' : 'FAIL'}: ${key} ${figures[key]} ${unit} (goal < ${below} ${unit}): ${what}`,
    ];
  });
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The child script and the library's worker, bundled from the current sources into bench/data/ (gitignored;
 * from there node_modules resolves as from the repository). BENCH_LIBRARY_WORKER runs another worker
 * script instead, e.g. out/main/library-worker.js.
 */
async function bundle(): Promise<{ child: string; worker: string }> {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const child = join(BUNDLE_DIR, 'library-child.mjs');
  const worker = process.env.BENCH_LIBRARY_WORKER
    ? resolve(process.env.BENCH_LIBRARY_WORKER)
    : join(BUNDLE_DIR, 'library-worker.mjs');
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: 'node20',
    logLevel: 'warning' as const,
    // As electron-vite builds main: packages are imported from node_modules, not bundled.
    packages: 'external' as const,
  };
  await build({ ...common, entryPoints: [join(import.meta.dirname, 'library-child.ts')], outfile: child });
  if (!process.env.BENCH_LIBRARY_WORKER) {
    await build({
      ...common,
      entryPoints: [join(REPO_ROOT, 'main', 'library', 'worker', 'worker.ts')],
      outfile: worker,
    });
  }
  return { child, worker };
}

function childEnv(configDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'NODE_OPTIONS' && key !== 'CLAUDE_CONFIG_DIR') env[key] = value;
  }
  // The SDK reads $CLAUDE_CONFIG_DIR; the library is given it explicitly. HOME too, so nothing of the
  // developer's own ~/.claude is read.
  return {
    ...env,
    CLAUDE_CONFIG_DIR: configDir,
    HOME: join(configDir, '..'),
    BENCH_AGENT_SDK_ENTRY: AGENT_SDK_ENTRY,
  };
}

async function runChild<T>(
  script: string,
  args: ChildArgs,
  configDir: string,
  timeoutMs: number,
): Promise<T> {
  const child = spawn(process.execPath, [script, JSON.stringify(args)], {
    cwd: REPO_ROOT,
    env: childEnv(configDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (chunk.startsWith('  library:')) process.stderr.write(chunk);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  clearTimeout(timer);
  const last = stdout.trim().split('\n').at(-1);
  if (code !== 0 || !last) {
    throw new Error(
      `the ${args.mode} child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
    );
  }
  return JSON.parse(last) as T;
}

function startArgs(
  dataDir: string,
  manifest: CorpusManifest,
  worker: string,
  extra: Partial<StartArgs>,
): StartArgs {
  return {
    mode: 'start',
    dataDir,
    configDir: manifest.configDir,
    workerPath: worker,
    pageRows: PAGE_ROWS,
    expectedRows: manifest.sessions,
    stop: 'done',
    timeoutMs: INDEX_TIMEOUT_MS,
    ...extra,
  };
}

/** The index's databases: the main one and its text shards. */
function indexFiles(dataDir: string): string[] {
  return [join(dataDir, 'library.sqlite'), ...shardFiles(dataDir)];
}

/** Bytes of the index on disk (each database and its WAL). */
function indexBytes(dataDir: string): number {
  return indexFiles(dataDir)
    .flatMap((path) => [path, `${path}-wal`])
    .reduce((sum, path) => sum + (existsSync(path) ? statSync(path).size : 0), 0);
}

function indexedMessages(dataDir: string): number | string {
  try {
    return indexFiles(dataDir)
      .slice(1)
      .reduce((sum, path) => {
        const db = new Database(path, { readonly: true, fileMustExist: true });
        try {
          return sum + (db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
        } finally {
          db.close();
        }
      }, 0);
  } catch (error) {
    return `n/a (${error instanceof Error ? error.message : String(error)})`;
  }
}

const ms = (value: number | null | undefined): Figure =>
  value === null || value === undefined ? 'n/a' : round(value);

export async function measureLibrary(): Promise<Figures> {
  const figures: Figures = {};
  const started = performance.now();
  const { manifest, generated } = ensureCorpus(progress);
  figures.library_corpus_sessions = manifest.sessions;
  figures.library_corpus_mb = round((manifest.sessionBytes + manifest.big.bytes) / 1e6);
  figures.library_corpus_big_session_mb = round(manifest.big.bytes / 1e6);
  figures.library_corpus_subagent_files = manifest.subagentFiles;
  figures.library_corpus_subagent_mb = round(manifest.subagentBytes / 1e6);
  figures.library_corpus_image_blocks = manifest.imageBlocks;
  figures.library_corpus_lines = manifest.lines;
  figures.library_corpus_lines_over_1mb = manifest.linesOver1Mb;
  figures.library_corpus_longest_line_mb = round(manifest.maxLineBytes / 1e6);
  figures.library_corpus_note =
    `${generated ? `generated in ${manifest.generateSeconds} s` : `reused (generated ${manifest.createdAt})`} at ${corpusRoot()}` +
    (CORPUS_SCALE === 1
      ? ''
      : `; SCALED by BENCH_LIBRARY_SCALE=${CORPUS_SCALE}, figures are not comparable with the goals`);

  const { child, worker } = await bundle();
  const runs = mkdtempSync(join(tmpdir(), 'byre-bench-library-run-'));
  try {
    // Cold: the whole index once, from a fresh data folder.
    const indexed = join(runs, 'indexed');
    progress('library: indexing the corpus from a fresh data folder…');
    const cold = await runChild<StartReport>(
      child,
      startArgs(indexed, manifest, worker, {}),
      manifest.configDir,
      INDEX_TIMEOUT_MS + 30_000,
    );
    if (cold.error) figures.library_index_error = cold.error;
    figures.library_first_rows_cold_ms = ms(cold.firstRowsMs);
    figures.library_all_rows_cold_ms = ms(cold.allRowsMs);
    figures.library_index_cold_s =
      cold.timedOut || cold.doneMs === null
        ? `timeout (${INDEX_TIMEOUT_MS / 1000} s)`
        : round(cold.doneMs / 1000);
    if (cold.timedOut && cold.lastStatus)
      figures.library_index_cold_progress = `${cold.lastStatus.indexed}/${cold.lastStatus.total} sessions indexed`;
    figures.library_index_peak_rss_mb = cold.peakRssMb ?? cold.sampledPeakRssMb;
    figures.library_index_baseline_rss_mb = cold.baselineRssMb;
    figures.library_index_cpu_s = cold.cpuSeconds;
    figures.library_index_db_mb = round(indexBytes(indexed) / 1e6);
    figures.library_index_messages = indexedMessages(indexed);
    figures.library_rows_listed = cold.finalRows;
    if (cold.lastStatus && cold.lastStatus.problems > 0)
      figures.library_index_problems = cold.lastStatus.problems;

    // Cold first pages: two more fresh data folders, each stopped at its first page.
    const coldPages = [cold.firstPageMs];
    for (let run = 1; run < COLD_PAGE_RUNS; run++) {
      const dir = join(runs, `cold-${run}`);
      const report = await runChild<StartReport>(
        child,
        startArgs(dir, manifest, worker, { stop: 'first-page', timeoutMs: SHORT_TIMEOUT_MS }),
        manifest.configDir,
        SHORT_TIMEOUT_MS + 30_000,
      );
      coldPages.push(report.firstPageMs);
      rmSync(dir, { recursive: true, force: true });
    }
    const coldPageTimes = coldPages.filter((value): value is number => value !== null);
    figures.library_first_page_cold_ms =
      coldPageTimes.length === COLD_PAGE_RUNS ? round(median(coldPageTimes)) : 'n/a';
    figures.library_first_page_cold_runs = coldPages.map((value) => ms(value)).join(', ');
    const top = new Set(cold.finalTopIds);
    figures.library_first_page_cold_newest_share = round(
      cold.firstPageIds.filter((id) => top.has(id)).length / Math.max(1, cold.firstPageIds.length),
      2,
    );

    if (cold.doneMs !== null && !cold.timedOut) {
      // Warm: new processes on the complete index.
      const warm: StartReport[] = [];
      for (let run = 0; run < WARM_RUNS; run++) {
        warm.push(
          await runChild<StartReport>(
            child,
            startArgs(indexed, manifest, worker, { timeoutMs: SHORT_TIMEOUT_MS }),
            manifest.configDir,
            SHORT_TIMEOUT_MS + 30_000,
          ),
        );
      }
      const warmPages = warm.map((report) => report.firstPageMs ?? NaN);
      const warmDone = warm.map((report) => report.doneMs ?? NaN);
      figures.library_first_page_warm_ms = round(median(warmPages));
      figures.library_first_page_warm_runs = warmPages.map((value) => round(value)).join(', ');
      figures.library_reindex_unchanged_ms = round(median(warmDone));
      figures.library_reindex_unchanged_runs = warmDone.map((value) => round(value)).join(', ');
      figures.library_warm_peak_rss_mb = Math.max(
        ...warm.map((report) => report.peakRssMb ?? report.sampledPeakRssMb),
      );

      // Search: one more warm process, the queries once the index is complete.
      progress('library: searching…');
      const search = await runChild<StartReport>(
        child,
        startArgs(indexed, manifest, worker, {
          timeoutMs: SHORT_TIMEOUT_MS,
          queries: [...manifest.queries, manifest.imageProbe],
          warmupQueries: manifest.warmupQueries,
        }),
        manifest.configDir,
        SHORT_TIMEOUT_MS + 120_000,
      );
      const searches = search.searches ?? [];
      const timed = searches.slice(0, manifest.queries.length);
      const times = timed.map((entry) => entry.ms);
      if (times.length === manifest.queries.length) {
        figures.library_search_p95_ms = round(percentile(times, 95));
        figures.library_search_p50_ms = round(percentile(times, 50));
        figures.library_search_max_ms = round(Math.max(...times));
        figures.library_search_slowest = [...timed]
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 4)
          .map((entry) => `"${entry.query}" ${round(entry.ms)} ms`)
          .join('; ');
        const empty = timed.filter((entry) => entry.hits === 0);
        figures.library_search_queries_without_hits = empty.length;
        if (empty.length > 0)
          figures.library_search_without_hits = empty.map((entry) => `"${entry.query}"`).join(', ');
        figures.library_search_image_data_hits = searches.at(-1)?.hits ?? 'n/a';
      } else {
        figures.library_search_error = search.error ?? 'the searches did not run';
      }
    } else {
      figures.library_warm_note = 'skipped: the cold index did not finish';
    }

    // For reference: the main-side read of the 100 MB session's last page, and the reduce, in a bare process.
    const open = await runChild<OpenReport>(
      child,
      { mode: 'open', file: manifest.big.path, runs: 3 },
      manifest.configDir,
      120_000,
    );
    figures.library_open_100mb_read_last_page_ms = round(median(open.readMs));
    figures.library_open_100mb_read_and_reduce_ms = round(median(open.ms));
    figures.library_open_100mb_page_messages = open.messages;
    figures.library_open_100mb_page_kb = round(open.pageBytes / 1000);

    // The peer: the Agent SDK's listSessions over the same folder (installed here, in bench/, if need be).
    await loadAgentSdk();
    const sdkAll: SdkReport[] = [];
    const sdkPage: SdkReport[] = [];
    for (let run = 0; run < SDK_RUNS; run++) {
      sdkAll.push(await runChild<SdkReport>(child, { mode: 'sdk' }, manifest.configDir, 180_000));
      sdkPage.push(await runChild<SdkReport>(child, { mode: 'sdk', limit: 50 }, manifest.configDir, 180_000));
    }
    const sdkMs = median(sdkAll.map((report) => report.ms));
    figures.library_sdk_list_sessions_ms = round(sdkMs);
    figures.library_sdk_list_sessions_limit50_ms = round(median(sdkPage.map((report) => report.ms)));
    figures.library_sdk_sessions = sdkAll[0]?.sessions ?? 'n/a';
    figures.library_sdk_import_ms = round(median(sdkAll.map((report) => report.importMs)));
    const ratio = (key: string, sdk: number) => {
      const byre = figures[key];
      return typeof byre === 'number' && byre > 0 ? round(sdk / byre, 2) : 'n/a';
    };
    figures.library_first_page_cold_vs_sdk_ratio = ratio('library_first_page_cold_ms', sdkMs);
    figures.library_first_page_warm_vs_sdk_ratio = ratio('library_first_page_warm_ms', sdkMs);
    figures.library_all_rows_cold_vs_sdk_ratio = ratio('library_all_rows_cold_ms', sdkMs);
    // Its first 50 (it stats every file, then reads the newest 50): the peer of a first page.
    const sdkPageMs = median(sdkPage.map((report) => report.ms));
    figures.library_first_page_cold_vs_sdk_limit50_ratio = ratio('library_first_page_cold_ms', sdkPageMs);
    figures.library_first_page_warm_vs_sdk_limit50_ratio = ratio('library_first_page_warm_ms', sdkPageMs);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }

  progress('library: opening the 100 MB session in Chromium…');
  Object.assign(figures, await measureLibraryOpenUi(manifest));

  for (const { key, below } of LIBRARY_GOALS) {
    const value = figures[key];
    if (value === undefined) continue;
    figures[goalKey(key)] = typeof value === 'number' && value < below ? 'pass' : 'fail';
  }
  figures.library_bench_s = round((performance.now() - started) / 1000);
  return figures;
}
