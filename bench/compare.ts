import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { median, round, type Figure, type Figures } from './ui-harness';

/**
 * `npm run bench -- compare`: the guard. It runs the short measurements (decode, streaming alone and ten at
 * once, the library at 1 GB, Changes, the worktree, Usage), and compares each of their key figures with bench/baseline.json:
 *
 * - **Ratio to the floor.** Each figure is divided by a floor measured in the same run, so that a slower or
 *   busier machine does not read as a regression. A figure with a floor of its own is divided by it (a
 *   snapshot by `git status`, a worktree by `git worktree add`; decode is already a ratio to `JSON.parse`).
 *   The others are divided by the machine floor: a fixed piece of JavaScript work (JSON, sorting, strings)
 *   timed in a fresh node process, nine times before the measurements and nine after.
 * - **Noise, measured.** Each figure's noise is the spread of its own runs (max − min over the median), and
 *   the machine floor's is that of its median: the interquartile range of its 18 runs over their median,
 *   divided by √18. A figure has regressed when its ratio is worse than
 *   the baseline's by more than the largest of: its spread now, its spread in the baseline, the floor's
 *   spread now and in the baseline, and 5% (three runs can all agree by chance); and the figure itself, as
 *   measured, is worse by as much. Both, because the floor drifts between runs more than within one (the
 *   machine floor here read 94 ms in one run and 67 ms in the next, while the Usage view took the same):
 *   worse only as a ratio is the floor's doing, worse only as measured is the machine's.
 * - **Goals.** Each figure has the issue's goal. Where a figure's own floor misses the goal (git itself on
 *   a slow disk), being at the floor, within the noise, meets it.
 *
 * It prints every figure, its goal, its baseline and the change, and exits 1 when a figure misses its goal,
 * regressed, or could not be measured. `--update` writes the run's figures into bench/baseline.json, only if
 * every figure of the run met its goal; figures of measurements not run are kept. Names after `compare`
 * (`npm run bench -- compare decode changes`) run only those groups.
 */

export const BASELINE_PATH = join(import.meta.dirname, 'baseline.json');
/** The least a figure may move without being called a regression. */
export const MIN_NOISE = 0.05;
const FLOOR_RUNS = 9;

export interface ComparedFigure {
  /** The figure's name in the bench's output. */
  key: string;
  /** The bench measurement that produces it. */
  measurement: string;
  /** The group that `compare <group>` names. */
  group: string;
  what: string;
  unit: string;
  better: 'lower' | 'higher';
  /** lower: the figure must be below it; higher: at least it. */
  goal: number;
  /** A figure of the same run that is this one's own floor (same unit); else the machine floor. */
  floor?: string;
  /** The figure is already a ratio to its floor (decode to JSON.parse): compared as it is. */
  isRatio?: boolean;
  /** A figure listing the runs (", " or " " between them), for the noise. */
  runs?: string;
  /** The goal holds in every run: judged on the worst. */
  everyRun?: boolean;
  /** A count (of frames, of tasks): judged against the goal only; none of its runs may be worse. */
  count?: boolean;
}

/** What the guard runs and compares, in the order printed. */
export const COMPARED: ComparedFigure[] = [
  {
    key: 'ratio_byre_vs_json_parse',
    measurement: 'byre_decode',
    group: 'decode',
    what: 'the bare decoder, as a fraction of JSON.parse',
    unit: '×',
    better: 'higher',
    goal: 0.6,
    isRatio: true,
  },
  {
    key: 'decode_real_path_vs_json_parse',
    measurement: 'decode_real_path',
    group: 'decode',
    what: 'decode with the transcript and redaction, as a fraction of JSON.parse',
    unit: '×',
    better: 'higher',
    goal: 0.5,
    isRatio: true,
  },
  {
    key: 'ui_streaming_longest_task_ms',
    measurement: 'ui_streaming',
    group: 'streaming',
    what: 'the longest task in the page while text streams (every run)',
    unit: 'ms',
    better: 'lower',
    goal: 50,
    runs: 'ui_streaming_longest_task_ms_runs',
    everyRun: true,
  },
  {
    key: 'ui_streaming_commits_per_frame_max',
    measurement: 'ui_streaming',
    group: 'streaming',
    what: 'React commits in a frame while text streams, at most (every run)',
    unit: 'commits',
    better: 'lower',
    goal: 1.01,
    runs: 'ui_streaming_commits_per_frame_max_runs',
    everyRun: true,
    count: true,
  },
  {
    key: 'ui_ten_host_eld_p99_ms',
    measurement: 'ui_ten_streaming',
    group: 'streaming',
    what: "main's event-loop delay p99 while ten conversations stream at once (every run)",
    unit: 'ms',
    better: 'lower',
    goal: 20,
    runs: 'ui_ten_host_eld_p99_ms_runs',
    everyRun: true,
  },
  {
    key: 'ui_ten_commits_per_frame_max',
    measurement: 'ui_ten_streaming',
    group: 'streaming',
    what: 'React commits in a frame while ten conversations stream at once, at most (every run)',
    unit: 'commits',
    better: 'lower',
    goal: 1.01,
    runs: 'ui_ten_commits_per_frame_max_runs',
    everyRun: true,
    count: true,
  },
  {
    key: 'ui_ten_longest_task_ms',
    measurement: 'ui_ten_streaming',
    group: 'streaming',
    what: 'the longest task in the page while ten conversations stream at once (every run)',
    unit: 'ms',
    better: 'lower',
    goal: 50,
    runs: 'ui_ten_longest_task_ms_runs',
    everyRun: true,
  },
  {
    key: 'library_first_page_warm_ms',
    measurement: 'library',
    group: 'library',
    what: 'first rows painted after a restart, 1.1 GB, from navigation start',
    unit: 'ms',
    better: 'lower',
    goal: 200,
    floor: 'library_first_page_floor_ms',
    runs: 'library_first_page_warm_runs',
  },
  {
    key: 'library_first_page_cold_ms',
    measurement: 'library',
    group: 'library',
    what: 'first rows painted on a fresh data folder, 1.1 GB',
    unit: 'ms',
    better: 'lower',
    goal: 1000,
    runs: 'library_first_page_cold_runs',
  },
  {
    key: 'library_search_p95_ms',
    measurement: 'library',
    group: 'library',
    what: 'search p95, typed to the whole answer painted, 1.1 GB',
    unit: 'ms',
    better: 'lower',
    goal: 80,
  },
  {
    key: 'changes_snapshot_ms',
    measurement: 'changes',
    group: 'changes',
    what: 'a snapshot of 10,000 files with 3 changed',
    unit: 'ms',
    better: 'lower',
    goal: 300,
    floor: 'changes_git_status_floor_ms',
    runs: 'changes_snapshot_runs_ms',
  },
  {
    key: 'changes_event_loop_p99_ms',
    measurement: 'changes',
    group: 'changes',
    what: "main's event-loop delay p99 while snapshots run",
    unit: 'ms',
    better: 'lower',
    goal: 20,
    floor: 'changes_beside_loop_p99_ms',
  },
  {
    key: 'changes_panel_first_paint_ms',
    measurement: 'changes_panel',
    group: 'changes',
    what: 'the Changes panel on 1,000 files, click to first paint',
    unit: 'ms',
    better: 'lower',
    goal: 300,
    runs: 'changes_panel_first_paint_runs',
  },
  {
    key: 'worktree_create_ms',
    measurement: 'worktrees',
    group: 'worktree',
    what: "a conversation's worktree of 10,000 files",
    unit: 'ms',
    better: 'lower',
    goal: 2000,
    floor: 'worktree_git_add_floor_ms',
    runs: 'worktree_create_runs_ms',
  },
  {
    key: 'usage_view_first_paint_warm_ms',
    measurement: 'usage_view',
    group: 'usage',
    what: 'the Usage view painted, page reloaded',
    unit: 'ms',
    better: 'lower',
    goal: 300,
    runs: 'usage_view_first_paint_warm_runs',
  },
  {
    key: 'usage_view_first_paint_cold_ms',
    measurement: 'usage_view',
    group: 'usage',
    what: 'the Usage view painted, first open after start',
    unit: 'ms',
    better: 'lower',
    goal: 1000,
    runs: 'usage_view_first_paint_cold_runs',
  },
];

export const GROUPS = [...new Set(COMPARED.map((figure) => figure.group))];

const BaselineFigure = z.object({
  value: z.number(),
  /** What it was divided by (1 for a figure that is a ratio already). */
  floor: z.number(),
  ratio: z.number(),
  /** Its runs' spread: (max − min) / median. */
  spread: z.number(),
});
type BaselineFigure = z.infer<typeof BaselineFigure>;

const Baseline = z.object({
  /** The commit and machine the figures were measured on, for the reader. */
  commit: z.string(),
  written: z.string(),
  machine: z.string(),
  machineFloorMs: z.number(),
  machineFloorSpread: z.number(),
  figures: z.record(z.string(), BaselineFigure),
});
export type Baseline = z.infer<typeof Baseline>;

export function readBaseline(path = BASELINE_PATH): Baseline | null {
  if (!existsSync(path)) return null;
  const parsed = Baseline.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a baseline: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** (max − min) / median of the numbers; 0 for fewer than two. */
export function spreadOf(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mid = median(values);
  return mid > 0 ? (Math.max(...values) - Math.min(...values)) / mid : 0;
}

/** The runs a figure lists ("1, 2, 3" or "1 2 3"), or the figure alone. */
export function runsOf(figures: Figures, spec: ComparedFigure): number[] {
  const listed = spec.runs === undefined ? undefined : figures[spec.runs];
  if (typeof listed === 'string') {
    const values = listed
      .split(/[,\s]+/)
      .filter(Boolean)
      .map(Number)
      .filter(Number.isFinite);
    if (values.length > 0) return values;
  }
  const value = figures[spec.key];
  return typeof value === 'number' && Number.isFinite(value) ? [value] : [];
}

export interface MachineFloor {
  ms: number;
  spread: number;
}

export type Verdict = 'pass' | 'fail';

export interface Judged {
  spec: ComparedFigure;
  /** The figure (the worst run for an every-run goal); null if it was not measured. */
  value: number | null;
  floor: number | null;
  ratio: number | null;
  spread: number;
  baseline: BaselineFigure | null;
  /** The ratio's change from the baseline's, as a fraction (+0.1: 10% worse), or null without one. */
  change: number | null;
  /** The figure's own change from the baseline's, as measured (not divided by a floor). */
  measuredChange: number | null;
  /** How much worse than the baseline it may be before it is a regression. */
  tolerance: number;
  goal: Verdict;
  /** The goal is met by being at its own floor, which misses it. */
  atFloor: boolean;
  regressed: boolean;
  why: string[];
}

/** Judges one figure of a run against its goal and its baseline. */
export function judge(
  spec: ComparedFigure,
  figures: Figures,
  machine: MachineFloor,
  baseline: Baseline | null,
): Judged {
  const runs = runsOf(figures, spec);
  const spread = spreadOf(runs);
  const base = baseline?.figures[spec.key] ?? null;
  const measured = figures[spec.key];
  const why: string[] = [];
  const ownFloor = spec.floor === undefined ? undefined : figures[spec.floor];
  const floor = spec.isRatio || spec.count ? 1 : spec.floor === undefined ? machine.ms : ownFloor;
  if (
    typeof measured !== 'number' ||
    !Number.isFinite(measured) ||
    typeof floor !== 'number' ||
    !Number.isFinite(floor) ||
    floor <= 0
  ) {
    return {
      spec,
      value: null,
      floor: null,
      ratio: null,
      spread,
      baseline: base,
      change: null,
      measuredChange: null,
      tolerance: 0,
      goal: 'fail',
      atFloor: false,
      regressed: false,
      why: [
        `not measured (${String(measured ?? 'absent')}${spec.floor && typeof ownFloor !== 'number' ? `; its floor ${spec.floor}: ${String(ownFloor ?? 'absent')}` : ''})`,
      ],
    };
  }
  const worst = spec.better === 'lower' ? Math.max(...runs, measured) : Math.min(...runs, measured);
  const value = spec.everyRun ? worst : measured;
  const ratio = value / floor;
  const floorSpread = spec.floor === undefined && !spec.isRatio && !spec.count ? machine.spread : 0;
  const tolerance = Math.max(
    MIN_NOISE,
    spread,
    base?.spread ?? 0,
    floorSpread,
    floorSpread > 0 ? (baseline?.machineFloorSpread ?? 0) : 0,
  );
  const meets = spec.better === 'lower' ? value < spec.goal : value >= spec.goal;
  // Git itself above the goal (a slow disk): at the floor, within the noise, is as fast as it can be.
  const atFloor =
    !meets &&
    spec.floor !== undefined &&
    spec.better === 'lower' &&
    floor >= spec.goal &&
    value <= floor * (1 + tolerance);
  const goal: Verdict = meets || atFloor ? 'pass' : 'fail';
  if (goal === 'fail') why.push(`misses its goal (${spec.better === 'lower' ? '<' : '≥'} ${spec.goal})`);
  let change: number | null = null;
  let measuredChange: number | null = null;
  let regressed = false;
  if (base && !spec.count) {
    change = spec.better === 'lower' ? ratio / base.ratio - 1 : base.ratio / ratio - 1;
    measuredChange = spec.better === 'lower' ? value / base.value - 1 : base.value / value - 1;
    // Worse both ways: as a ratio (so not the machine being slower) and as measured (so not the floor being
    // faster this time: a floor drifts between runs more than within one).
    regressed = change > tolerance && measuredChange > tolerance;
    if (regressed) {
      why.push(
        `${round(change * 100)}% worse than its baseline as a ratio to its floor and ${round(measuredChange * 100)}% as measured, beyond the noise of ${round(tolerance * 100)}%`,
      );
    }
  }
  return {
    spec,
    value,
    floor,
    ratio,
    spread,
    baseline: base,
    change,
    measuredChange,
    tolerance,
    goal,
    atFloor,
    regressed,
    why,
  };
}

/**
 * The machine floor's runs: a fixed piece of single-threaded work of the kind the app does (JSON, strings,
 * sorting; bench/machine-floor.mjs), timed in a fresh node process (no heap of the bench's own), after
 * warm-ups.
 */
export function machineFloorRuns(runs = FLOOR_RUNS): number[] {
  const output = execFileSync(
    process.execPath,
    [join(import.meta.dirname, 'machine-floor.mjs'), String(runs)],
    {
      encoding: 'utf8',
    },
  );
  const times = z.array(z.number()).parse(JSON.parse(output));
  if (times.length !== runs) throw new Error(`the machine floor ran ${times.length} times, not ${runs}`);
  return times;
}

/** The spread of many runs, robust to one slow run: the interquartile range over the median. */
export function quartileSpread(values: readonly number[]): number {
  if (values.length < 4) return spreadOf(values);
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))] ?? 0;
  const mid = median(sorted);
  return mid > 0 ? (at(0.75) - at(0.25)) / mid : 0;
}

const format = (value: number | null, unit: string): string =>
  value === null ? 'n/a' : `${round(value, unit === '×' ? 3 : 1)} ${unit}`;

/** The lines printed for a judged run, and whether it failed. */
export function report(judged: Judged[], machine: MachineFloor, baseline: Baseline | null): string[] {
  const lines = [
    '',
    `compare: machine floor ${round(machine.ms, 2)} ms (spread ${round(machine.spread * 100)}%)` +
      (baseline
        ? `; baseline ${baseline.commit.slice(0, 7)} of ${baseline.written.slice(0, 10)}, floor ${round(baseline.machineFloorMs, 2)} ms`
        : '; no baseline (bench/baseline.json): goals only'),
  ];
  for (const entry of judged) {
    const { spec } = entry;
    const floorName = spec.isRatio
      ? 'JSON.parse'
      : spec.count
        ? '—'
        : spec.floor !== undefined
          ? `${spec.floor} ${format(entry.floor, spec.unit)}`
          : 'machine floor';
    const base = entry.baseline
      ? `baseline ${format(entry.baseline.value, spec.unit)} (ratio ${round(entry.baseline.ratio, 3)})`
      : 'no baseline';
    const signed = (fraction: number) => `${fraction >= 0 ? '+' : ''}${round(fraction * 100)}%`;
    const change =
      entry.change === null || entry.measuredChange === null
        ? ''
        : `, change ${signed(entry.change)} as a ratio, ${signed(entry.measuredChange)} as measured (noise ±${round(entry.tolerance * 100)}%)`;
    const verdict = entry.why.length === 0 ? 'PASS' : 'FAIL';
    lines.push(
      `${verdict}: ${spec.key} ${format(entry.value, spec.unit)} (goal ${spec.better === 'lower' ? '<' : '≥'} ${spec.goal} ${spec.unit}${entry.atFloor ? ', met at its floor' : ''}); ` +
        `ratio ${entry.ratio === null ? 'n/a' : round(entry.ratio, 3)} to ${floorName}; ${base}${change}: ${spec.what}` +
        (entry.why.length > 0 ? ` — ${entry.why.join('; ')}` : ''),
    );
  }
  return lines;
}

export function failed(judged: Judged[]): boolean {
  return judged.some((entry) => entry.why.length > 0);
}

/**
 * The baseline with this run's figures in it (others kept), if every figure of the run met its goal and none
 * regressed or went unmeasured.
 */
export function updatedBaseline(
  judged: Judged[],
  machine: MachineFloor,
  previous: Baseline | null,
  commit: string,
  now: Date,
): Baseline | { refused: string[] } {
  // A figure that missed its goal, was not measured or regressed is never what the next run is held to.
  const misses = judged.filter((entry) => entry.why.length > 0);
  if (misses.length > 0) return { refused: misses.map((entry) => entry.spec.key) };
  const figures: Record<string, BaselineFigure> = { ...previous?.figures };
  for (const entry of judged) {
    if (entry.value === null || entry.floor === null || entry.ratio === null) continue;
    figures[entry.spec.key] = {
      value: entry.value,
      floor: entry.floor,
      ratio: entry.ratio,
      spread: entry.spread,
    };
  }
  return {
    commit,
    written: now.toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    machineFloorMs: machine.ms,
    machineFloorSpread: machine.spread,
    figures,
  };
}

export interface CompareArguments {
  update: boolean;
  groups: string[];
}

export function parseCompareArguments(args: string[]): CompareArguments {
  const update = args.includes('--update');
  const groups = args.filter((arg) => arg !== '--update');
  const unknown = groups.filter((group) => !GROUPS.includes(group));
  if (unknown.length > 0) {
    throw new Error(`compare knows the groups ${GROUPS.join(', ')}; not ${unknown.join(', ')}.`);
  }
  return { update, groups: groups.length > 0 ? groups : GROUPS };
}

/** The measurements a set of groups needs, in the bench's order of COMPARED. */
export function measurementsFor(groups: string[]): string[] {
  return [...new Set(COMPARED.filter((spec) => groups.includes(spec.group)).map((spec) => spec.measurement))];
}

/**
 * The guard: the machine floor, the groups' measurements (run by `measure`, which prints their figures as
 * the bench does), the floor again, then the comparison. Returns the exit code.
 */
export async function runCompare(
  args: string[],
  measure: (names: string[]) => Promise<Figures>,
  /** What went wrong in the measurements (a run that failed, a figure that is not a number). */
  errorsOf: (figures: Figures) => string[] = () => [],
): Promise<number> {
  const { update, groups } = parseCompareArguments(args);
  const baseline = readBaseline();
  const before = machineFloorRuns();
  const figures = await measure(measurementsFor(groups));
  const after = machineFloorRuns();
  const floorRuns = [...before, ...after];
  // The noise of the floor's median, not of one run: its runs' interquartile range over √n.
  const machine: MachineFloor = {
    ms: median(floorRuns),
    spread: quartileSpread(floorRuns) / Math.sqrt(floorRuns.length),
  };
  const judged = COMPARED.filter((spec) => groups.includes(spec.group)).map((spec) =>
    judge(spec, figures, machine, baseline),
  );
  for (const line of report(judged, machine, baseline)) console.log(line);
  const errors = errorsOf(figures);
  if (update && errors.length > 0) {
    console.error(`compare: bench/baseline.json not updated: ${errors.length} measurement(s) went wrong`);
    return 1;
  }
  if (update) {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: import.meta.dirname,
      encoding: 'utf8',
    }).trim();
    const next = updatedBaseline(judged, machine, baseline, commit, new Date());
    if ('refused' in next) {
      console.error(
        `compare: bench/baseline.json not updated: ${next.refused.join(', ')} missed their goals, regressed or were not measured (a baseline is only taken from a run that met every goal)`,
      );
      return 1;
    }
    writeFileSync(BASELINE_PATH, `${JSON.stringify(next, null, 2)}\n`);
    console.log(`compare: bench/baseline.json updated with ${judged.length} figures`);
  }
  const bad = judged.filter((entry) => entry.why.length > 0).length;
  console.log(
    bad === 0
      ? `compare: all ${judged.length} figures met their goals and their baseline`
      : `compare: ${bad} of ${judged.length} figures FAILED`,
  );
  return failed(judged) || errors.length > 0 ? 1 : 0;
}

export type { Figure };
