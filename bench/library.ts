import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { shardFiles } from '../main/library/worker/text-store';
import { loadAgentSdk } from './agent-sdk';
import { MIN_NOISE } from './compare';
import type { ChildArgs, OpenReport, SdkReport, StartArgs, StartReport } from './library-child';
import {
  CORPUS_5G,
  CORPUS_SCALE,
  corpusRoot,
  corpusSizeLabel,
  DEFAULT_CORPUS,
  ensureCorpus,
  type CorpusManifest,
  type CorpusSize,
} from './library-corpus';
import { measureLibrarySidebarUi } from './library-sidebar-ui';
import { measureLibraryOpenUi } from './library-ui';
import { median, percentile, REPO_ROOT, round, type Figure, type Figures } from './ui-harness';

/**
 * The library over a corpus shaped like real CLI session files (bench/library-corpus.ts: 1,000 sessions of
 * 1 GB together, plus one of 100 MB; or 5,000 of 5 GB, or the size --sessions and --total-mb ask for). Each measurement runs `Library.start` in a fresh node process
 * (bench/library-child.ts, bundled from the current sources with esbuild, the worker too), so its RSS is the
 * library's and not the bench runner's:
 *
 * - cold: a fresh data folder; the first page of rows (a screenful, PAGE_ROWS; `library_start_first_page_cold_ms`,
 *   from Library.start), and the whole index with its peak RSS (VmHWM) — one full run, plus two more runs
 *   stopped at the first page (median of the three);
 * - warm: the same data folder, index complete, new process: the first page and the rescan until
 *   status().done with nothing changed (median of three);
 * - the first page as the user sees it (`library_first_page_cold_ms`, `_warm_ms`): in Chromium, from
 *   navigation start to the first row painted (bench/library-sidebar-ui.ts);
 * - search: 50 queries of one to three words (every word in the corpus), each timed through Library.search
 *   after a few other queries as a warm-up (`library_search_query_*`: the query alone); also a piece of
 *   base64 image data, which must find nothing;
 * - in Chromium over the whole corpus (bench/library-sidebar-ui.ts): the same queries typed into the
 *   sidebar's search box, input event to results painted (`library_search_p50_ms`, `_p95_ms`), the host's
 *   RSS, and the sidebar scrolled through every row beside the machine's floor for that;
 * - the 100 MB session opened in Chromium through the browser host (bench/library-ui.ts), and, for
 *   reference, readLastPage plus the reduce on it in a bare process;
 * - the Agent SDK's listSessions over the same config folder, whole and first 50 (median of three each).
 *
 * The corpus files are in the OS file cache (they were just written or read): "cold" is the data folder,
 * not the disk.
 *
 * BENCH_LIBRARY_INDEX_ONLY=1 measures the cold index and the reindex only (the figures say so), and
 * BENCH_LIBRARY_CPU_PROF=<dir> writes CPU profiles of the cold index's process and its threads there.
 */

const PAGE_ROWS = 30;
const WARM_RUNS = 3;
const COLD_PAGE_RUNS = 3;
const SDK_RUNS = 3;
const INDEX_TIMEOUT_MS = Number(process.env.BENCH_LIBRARY_INDEX_TIMEOUT_S ?? 360) * 1000;
const SHORT_TIMEOUT_MS = 90_000;
const BUNDLE_DIR = join(import.meta.dirname, 'data');
/** BENCH_LIBRARY_INDEX_ONLY=1: only the cold index and the reindex (no search, first pages, SDK or Chromium). */
const INDEX_ONLY = process.env.BENCH_LIBRARY_INDEX_ONLY === '1';
/** BENCH_LIBRARY_CPU_PROF=<dir>: a CPU profile of the cold index's process and its threads, written there. */
const CPU_PROF_DIR = process.env.BENCH_LIBRARY_CPU_PROF;

interface Goal {
  key: string;
  below: number;
  unit: string;
  what: string;
}

/** What each goal's figure is, and its unit. */
const GOAL_FIGURES: Record<string, { unit: string; what: string }> = {
  library_first_page_cold_ms: {
    unit: 'ms',
    what: 'navigation start to the first row painted, fresh data folder (Chromium)',
  },
  library_first_page_warm_ms: {
    unit: 'ms',
    what: 'navigation start to the first row painted, new host on the complete index (Chromium)',
  },
  library_index_cold_s: { unit: 's', what: 'full-text index of the whole corpus' },
  library_index_peak_rss_mb: { unit: 'MB', what: 'peak RSS of the process that indexes' },
  library_host_rss_mb: { unit: 'MB', what: 'RSS of the browser host once its index is settled and searched' },
  library_open_100mb_first_paint_ms: {
    unit: 'ms',
    what: 'click to first messages painted, 100 MB session (Chromium, browser host)',
  },
  library_search_p95_ms: {
    unit: 'ms',
    what: 'p95 of 50 searches of 1–3 words, input event to the whole answer painted (Chromium)',
  },
  library_reindex_unchanged_ms: { unit: 'ms', what: 'restart until indexed, nothing changed' },
};

/** Goals from upper bounds by figure. */
const goals = (bounds: Record<string, number>): Goal[] =>
  Object.entries(bounds).map(([key, below]) => ({
    key,
    below,
    ...(GOAL_FIGURES[key] ?? { unit: '', what: key }),
  }));

/** The issue's goals at 1 GB, each an upper bound. */
const GOALS_1G = goals({
  library_first_page_cold_ms: 1000,
  library_first_page_warm_ms: 200,
  library_index_cold_s: 20,
  library_index_peak_rss_mb: 300,
  library_open_100mb_first_paint_ms: 1000,
  library_search_p95_ms: 80,
  library_reindex_unchanged_ms: 500,
});

/** The issue's goals at 5,000 sessions / 5 GB. */
const GOALS_5G = goals({
  library_first_page_cold_ms: 1000,
  library_first_page_warm_ms: 300,
  library_index_cold_s: 60,
  library_index_peak_rss_mb: 400,
  library_host_rss_mb: 300,
  library_reindex_unchanged_ms: 1000,
  library_open_100mb_first_paint_ms: 300,
  library_search_p95_ms: 100,
});

/** One size of the benchmark: its corpus, the prefix of its figures, its goals. */
export interface LibraryCase {
  size: CorpusSize;
  /** `library`, or `library_5g`: the figures of both sizes can be in one run's JSON. */
  prefix: string;
  goals: Goal[];
  /** The sidebar's scroll has a goal (no more frames dropped than the machine's floor). */
  scrollGoal: boolean;
}

export const LIBRARY_1G: LibraryCase = {
  size: DEFAULT_CORPUS,
  prefix: 'library',
  goals: GOALS_1G,
  scrollGoal: false,
};
export const LIBRARY_5G: LibraryCase = {
  size: CORPUS_5G,
  prefix: 'library_5g',
  goals: GOALS_5G,
  scrollGoal: true,
};

const goalKey = (key: string) => `goal_${key.replace(/_(ms|s|mb)$/, '')}`;

/** A figure's name in a case: `library_…` becomes the case's prefix. */
const named = (libraryCase: LibraryCase, key: string) => key.replace(/library_/, `${libraryCase.prefix}_`);

export function libraryVerdicts(libraryCase: LibraryCase, figures: Record<string, Figure>): string[] {
  const at = (key: string) => figures[named(libraryCase, key)];
  const lines = libraryCase.goals.flatMap(({ key, below, unit, what }) => {
    const verdict = at(goalKey(key));
    if (verdict !== 'pass' && verdict !== 'fail' && verdict !== 'pass (at the floor)') return [];
    const own = OWN_FLOORS[key];
    const floor =
      own && typeof at(own.floor) === 'number' ? `; the machine's floor ${at(own.floor)} ${unit}` : '';
    return [
      `${verdict === 'fail' ? 'FAIL' : 'PASS'}: ${named(libraryCase, key)} ${at(key)} ${unit} (goal < ${below} ${unit}${floor}${verdict === 'fail' ? '' : verdict.slice(4)}): ${what}`,
    ];
  });
  const scroll = at('goal_library_sidebar_scroll_within_floor');
  if (scroll === 'pass' || scroll === 'fail') {
    lines.push(
      `${scroll === 'pass' ? 'PASS' : 'FAIL'}: ${named(libraryCase, 'library_sidebar_scroll_frames_dropped')} ` +
        `${at('library_sidebar_scroll_frames_dropped')} frames dropped scrolling ${at('library_sidebar_rows')} rows ` +
        `(the machine's floor: ${at('library_sidebar_scroll_floor_frames_dropped')}) (goal: no more than the floor)`,
    );
  }
  return lines;
}

/** The figures the issue asks for at every size: a run that ends without one of them is an error. */
const REQUIRED = [
  'library_first_page_cold_ms',
  'library_first_page_warm_ms',
  'library_index_cold_s',
  'library_index_peak_rss_mb',
  'library_host_rss_mb',
  'library_search_p50_ms',
  'library_search_p95_ms',
  'library_reindex_unchanged_ms',
  'library_open_100mb_first_paint_ms',
  'library_sidebar_scroll_frames_dropped',
  'library_sidebar_scroll_floor_frames_dropped',
  'library_sdk_list_sessions_ms',
];

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
  };
}

async function runChild<T>(
  script: string,
  args: ChildArgs,
  configDir: string,
  timeoutMs: number,
  nodeFlags: string[] = [],
): Promise<T> {
  const child = spawn(process.execPath, [...nodeFlags, script, JSON.stringify(args)], {
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

export async function measureLibrary(libraryCase: LibraryCase): Promise<Figures> {
  const figures: Figures = {};
  const started = performance.now();
  const { manifest, generated } = ensureCorpus(progress, libraryCase.size);
  figures.library_size = corpusSizeLabel(libraryCase.size);
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
    `${generated ? `generated in ${manifest.generateSeconds} s` : `reused (generated ${manifest.createdAt})`} at ${corpusRoot(libraryCase.size)}` +
    (CORPUS_SCALE === 1
      ? ''
      : `; SCALED by BENCH_LIBRARY_SCALE=${CORPUS_SCALE}, figures are not comparable with the goals`);

  const { child, worker } = await bundle();
  const sdk = { all: NaN, page: NaN };
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
      CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF_DIR)}`] : [],
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
    for (let run = 1; run < (INDEX_ONLY ? 1 : COLD_PAGE_RUNS); run++) {
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
    figures.library_start_first_page_cold_ms =
      coldPageTimes.length === (INDEX_ONLY ? 1 : COLD_PAGE_RUNS) ? round(median(coldPageTimes)) : 'n/a';
    figures.library_start_first_page_cold_runs = coldPages.map((value) => ms(value)).join(', ');
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
      figures.library_start_first_page_warm_ms = round(median(warmPages));
      figures.library_start_first_page_warm_runs = warmPages.map((value) => round(value)).join(', ');
      figures.library_reindex_unchanged_ms = round(median(warmDone));
      figures.library_reindex_unchanged_runs = warmDone.map((value) => round(value)).join(', ');
      figures.library_warm_peak_rss_mb = Math.max(
        ...warm.map((report) => report.peakRssMb ?? report.sampledPeakRssMb),
      );

      if (INDEX_ONLY) return indexOnly(libraryCase, figures, started);
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
        figures.library_search_query_p95_ms = round(percentile(times, 95));
        figures.library_search_query_p50_ms = round(percentile(times, 50));
        figures.library_search_query_max_ms = round(Math.max(...times));
        figures.library_search_query_slowest = [...timed]
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
      if (INDEX_ONLY) return indexOnly(libraryCase, figures, started);
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
    sdk.all = sdkMs;
    // Its first 50 (it stats every file, then reads the newest 50): the peer of a first page.
    sdk.page = median(sdkPage.map((report) => report.ms));
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }

  progress('library: opening the 100 MB session in Chromium…');
  Object.assign(figures, await measureLibraryOpenUi(manifest));
  progress('library: searching and scrolling the whole corpus in Chromium…');
  Object.assign(figures, await measureLibrarySidebarUi(manifest));

  // Byre's first page in Chromium (navigation start to the first row painted) beside the SDK's list.
  const ratio = (key: string, sdkMs: number) => {
    const byre = figures[key];
    return typeof byre === 'number' && byre > 0 && Number.isFinite(sdkMs) ? round(sdkMs / byre, 2) : 'n/a';
  };
  figures.library_first_page_cold_vs_sdk_ratio = ratio('library_first_page_cold_ms', sdk.all);
  figures.library_first_page_warm_vs_sdk_ratio = ratio('library_first_page_warm_ms', sdk.all);
  figures.library_all_rows_cold_vs_sdk_ratio = ratio('library_all_rows_cold_ms', sdk.all);
  figures.library_first_page_cold_vs_sdk_limit50_ratio = ratio('library_first_page_cold_ms', sdk.page);
  figures.library_first_page_warm_vs_sdk_limit50_ratio = ratio('library_first_page_warm_ms', sdk.page);

  judge(libraryCase, figures);
  const dropped = figures.library_sidebar_scroll_frames_dropped;
  const floor = figures.library_sidebar_scroll_floor_frames_dropped;
  if (libraryCase.scrollGoal && typeof dropped === 'number' && typeof floor === 'number')
    figures.goal_library_sidebar_scroll_within_floor = dropped <= floor ? 'pass' : 'fail';
  const missing = REQUIRED.filter((key) => typeof figures[key] !== 'number');
  if (missing.length > 0) {
    figures.library_incomplete_error = `not measured: ${missing
      .map((key) => `${key} (${figures[key] ?? 'absent'})`)
      .join(', ')}`;
  }
  return finished(libraryCase, figures, started);
}

/**
 * Figures with a floor of their own, measured in the same run: where the floor itself misses the goal (a
 * fresh Chromium's first paint of a page of one row, on a slow machine), being at the floor, within its
 * runs' spread (at least MIN_NOISE), meets it, and the verdict says so.
 */
const OWN_FLOORS: Record<string, { floor: string; runs: string }> = {
  library_first_page_warm_ms: { floor: 'library_first_page_floor_ms', runs: 'library_first_page_floor_runs' },
};

/** Each goal whose figure was measured: pass or fail. */
function judge(libraryCase: LibraryCase, figures: Figures): void {
  for (const { key, below } of libraryCase.goals) {
    const value = figures[key];
    if (value === undefined) continue;
    const own = OWN_FLOORS[key];
    const floor = own ? figures[own.floor] : undefined;
    const floorRuns = own
      ? String(figures[own.runs] ?? '')
          .split(', ')
          .map(Number)
      : [];
    const spread =
      typeof floor === 'number' && floorRuns.length > 1 && floorRuns.every(Number.isFinite)
        ? (Math.max(...floorRuns) - Math.min(...floorRuns)) / floor
        : 0;
    const atFloor =
      typeof value === 'number' &&
      typeof floor === 'number' &&
      floor >= below &&
      value <= floor * (1 + Math.max(MIN_NOISE, spread));
    if (typeof value === 'number' && value < below) figures[goalKey(key)] = 'pass';
    else figures[goalKey(key)] = atFloor ? 'pass (at the floor)' : 'fail';
  }
}

function finished(libraryCase: LibraryCase, figures: Figures, started: number): Figures {
  figures.library_bench_s = round((performance.now() - started) / 1000);
  return libraryCase.prefix === 'library'
    ? figures
    : Object.fromEntries(Object.entries(figures).map(([key, value]) => [named(libraryCase, key), value]));
}

/** BENCH_LIBRARY_INDEX_ONLY: the figures of the index alone, said to be so. */
function indexOnly(libraryCase: LibraryCase, figures: Figures, started: number): Figures {
  figures.library_index_only_note =
    'BENCH_LIBRARY_INDEX_ONLY=1: only the cold index and the reindex were measured (one cold first page)';
  judge(libraryCase, figures);
  return finished(libraryCase, figures, started);
}
