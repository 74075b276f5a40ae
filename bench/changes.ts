import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { git } from '../main/machines/git';
import { Snapshots, type FileChange, type Snapshot } from '../main/changes/snapshots';
import { Random } from './library-corpus';
import { z } from 'zod';
import { median, round } from './ui-harness';

/**
 * The Changes panel's snapshots (main/changes/snapshots.ts) in a committed git repository of 10,000 source
 * files in nested folders (sizes spread as a real project's are, 54 MB in all): how long a snapshot takes
 * once a turn changed 3 files, against what `git status` alone takes on the same tree (git has to look at
 * every file's stat either way: the machine's floor); main's event-loop delay while snapshots run back to
 * back, against the same loop idle and an idle Node process's beside it meanwhile (the floor: on a shared
 * machine, waiting for a CPU); and how long listing what a round changed takes.
 *
 * The files are dated an hour back before they are committed, as a user's files are older than their
 * index: otherwise every file would be "racily clean" and git would re-read them all, which no real
 * snapshot pays. This process plays the host: Snapshots runs git asynchronously from its main thread.
 *
 * buildChangesPanelCorpus is the repository the panel's first-paint figure opens (1,000 changed files,
 * 100,000 diff lines); this measurement lists its changes too, so the corpus is checked on every run.
 */

const PACKAGES = 10;
const AREAS = 10;
const PARTS = 10;
const PER_PART = 10;
const FILES = PACKAGES * AREAS * PARTS * PER_PART;
const CHANGED_PER_ROUND = 3;
const ROUNDS = 7;
const FLOOR_RUNS = 7;
/** How long snapshots run back to back, and the loop is watched idle. */
const LOOP_STRETCH_MS = 4_000;
/** Fine enough to see a single blocked stretch of a few ms, which a 10 ms timer would blur. */
const RESOLUTION_MS = 2;
const GOAL_SNAPSHOT_MS = 300;
const GOAL_P99_MS = 20;
const CONVERSATION = 'bench-changes';
const COMMITTER = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com'];

/** The same corpus on every run, so figures compare across runs and machines. */
function random(seed: number): () => number {
  const generator = new Random(seed);
  return () => generator.next();
}

/** Lines of a file, log-normally many (median 100, a few in the thousands), as files in a real project are. */
function lineCount(next: () => number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return Math.min(3_000, Math.max(5, Math.round(Math.exp(Math.log(100) + 0.8 * normal))));
}

/** A short tag for a file, so that each of its lines names it. */
function fileTag(path: string): string {
  return createHash('sha1').update(path).digest('hex').slice(0, 6);
}

/**
 * A source-like line of about 40 bytes that names its file, so no two files share lines and git finds no
 * false renames.
 */
function sourceLine(tag: string, at: number, note = 'kept'): string {
  return `  const v${at} = f(0x${tag}, "${note}");${' '.repeat(at % 9)}`;
}

function fileText(path: string, lines: number): string {
  const tag = fileTag(path);
  return `${Array.from({ length: lines }, (_, at) => sourceLine(tag, at)).join('\n')}\n`;
}

function runGit(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

/** Writes `files` (path → text) under `folder`, commits them dated an hour back, and returns the folder. */
export function committedRepository(folder: string, files: ReadonlyMap<string, string>): string {
  mkdirSync(folder, { recursive: true });
  const anHourAgo = new Date(Date.now() - 3_600_000);
  for (const [path, text] of files) {
    const full = join(folder, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    utimesSync(full, anHourAgo, anHourAgo);
  }
  runGit(folder, 'init', '-q');
  runGit(folder, 'add', '-A');
  runGit(folder, ...COMMITTER, 'commit', '-qm', 'the project');
  return folder;
}

/** The 10,000 files: packages/pkgN/src/areaN/partN/moduleN.ts, with a README and a JSON file in each part. */
export function projectFiles(): Map<string, string> {
  const next = random(27);
  const files = new Map<string, string>();
  for (let p = 0; p < PACKAGES; p++) {
    for (let a = 0; a < AREAS; a++) {
      for (let part = 0; part < PARTS; part++) {
        const dir = `packages/pkg${p}/src/area${a}/part${part}`;
        for (let m = 0; m < PER_PART; m++) {
          const name = m === 0 ? 'README.md' : m === 1 ? 'schema.json' : `module${m}.ts`;
          files.set(`${dir}/${name}`, fileText(`${dir}/${name}`, lineCount(next)));
        }
      }
    }
  }
  return files;
}

/** What a turn does to a file: one line in its middle rewritten. */
async function editLine(folder: string, path: string, note: string): Promise<void> {
  const full = join(folder, path);
  const lines = (await readFile(full, 'utf8')).split('\n');
  const at = Math.floor((lines.length - 1) / 2);
  lines[at] = sourceLine(fileTag(path), at, note);
  await writeFile(full, lines.join('\n'));
}

/** A check that the snapshots saw the turn, so a fast but wrong snapshot can never pass. */
function expectEdited(changes: readonly FileChange[], paths: readonly string[], what: string): void {
  const seen = changes.map((change) => `${change.status} ${change.path} +${change.added} -${change.removed}`);
  const wanted = [...paths].sort((a, b) => a.localeCompare(b)).map((path) => `modified ${path} +1 -1`);
  if (seen.join('\n') !== wanted.join('\n')) {
    throw new Error(`${what}: the diff listed [${seen.join('; ')}], not [${wanted.join('; ')}]`);
  }
}

interface Delay {
  p99: number;
  max: number;
}

/** Main's event-loop delay while `work` runs: how late a RESOLUTION_MS timer ran, in ms. */
async function delayDuring(work: () => Promise<unknown>): Promise<Delay> {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  await work();
  delay.disable();
  const late = (ns: number) => Math.max(0, round(ns / 1e6 - RESOLUTION_MS, 2));
  return { p99: late(delay.percentile(99)), max: late(delay.max) };
}

/**
 * This process's main thread's time on a CPU and runnable but waiting for one (Linux's schedstat): a loop
 * delay that is mostly waiting came from the machine's other processes, not from blocking work here.
 */
function mainThreadSchedule(): { onCpuNs: number; waitingNs: number } | undefined {
  try {
    const [onCpuNs, waitingNs] = readFileSync(`/proc/${process.pid}/schedstat`, 'utf8')
      .split(' ')
      .map(Number);
    return onCpuNs !== undefined && waitingNs !== undefined ? { onCpuNs, waitingNs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Node process with no work of its own that measures its event-loop delay as delayDuring does, at the same
 * resolution: run beside this one, it is the machine's floor for the same stretch (on a shared machine the
 * load from other processes comes and goes). Each line sent to it answers the delay since the last one.
 */
const BESIDE_LOOP = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const delay = monitorEventLoopDelay({ resolution: ${RESOLUTION_MS} });
delay.enable();
process.stdin.setEncoding('utf8').on('data', () => {
  process.stdout.write(JSON.stringify({ p99: delay.percentile(99), max: delay.max }) + '\\n');
  delay.reset();
});`;

interface BesideLoop {
  /** The idle process's delay since the last read. */
  read(): Promise<Delay>;
  close(): void;
}

function startBesideLoop(): BesideLoop {
  const child = spawn(process.execPath, ['-e', BESIDE_LOOP], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const late = (ns: number) => Math.max(0, round(ns / 1e6 - RESOLUTION_MS, 2));
  return {
    async read() {
      child.stdin.write('read\n');
      const line = await lines.next();
      if (line.done) throw new Error('the idle loop beside the benchmark ended');
      const figures = z.object({ p99: z.number(), max: z.number() }).parse(JSON.parse(line.value));
      return { p99: late(figures.p99), max: late(figures.max) };
    },
    close: () => child.stdin.end(),
  };
}

export async function measureChanges(): Promise<Record<string, number | string>> {
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-changes-'));
  const beside = startBesideLoop();
  try {
    const files = projectFiles();
    const paths = [...files.keys()].filter((path) => path.endsWith('.ts'));
    const started = performance.now();
    const folder = committedRepository(join(root, 'project'), files);
    const setupMs = performance.now() - started;
    const megabytes = [...files.values()].reduce((sum, text) => sum + text.length, 0) / 1e6;
    files.clear();

    const snapshots = await Snapshots.open(folder, join(root, 'store'));
    let taken = 0;
    let edited = 0;
    /** Edits 3 files no earlier round touched and takes a snapshot on top of `parent`. */
    const turn = async (parent: Snapshot) => {
      const changed = Array.from(
        { length: CHANGED_PER_ROUND },
        // A stride prime to the count spreads each round's files across the tree.
        () => paths[(edited++ * 7_919) % paths.length] ?? '',
      );
      for (const path of changed) await editLine(folder, path, `turn ${taken}`);
      const start = performance.now();
      const snapshot = await snapshots.take(CONVERSATION, `turn-${taken++}`, parent);
      return { snapshot, changed, ms: performance.now() - start };
    };

    // Untimed: the first snapshot seeds the private index from the user's and writes every tree.
    let last = await snapshots.take(CONVERSATION, 'start', null);
    const snapshotTimes: number[] = [];
    const diffTimes: number[] = [];
    for (let at = 0; at < ROUNDS; at++) {
      const { snapshot, changed, ms } = await turn(last);
      snapshotTimes.push(ms);
      const start = performance.now();
      const changes = await snapshots.diff(last, snapshot);
      diffTimes.push(performance.now() - start);
      expectEdited(changes, changed, `round ${at + 1}`);
      last = snapshot;
    }

    const statusTimes: number[] = [];
    for (let run = 0; run < FLOOR_RUNS; run++) {
      const start = performance.now();
      await git(['status', '--porcelain'], { cwd: folder });
      statusTimes.push(performance.now() - start);
    }

    // The floors: this loop idle for as long, then an idle process beside it while snapshots run.
    const idleFloor = await delayDuring(() => new Promise((done) => setTimeout(done, LOOP_STRETCH_MS)));
    await beside.read();
    const before = taken;
    const cpuBefore = mainThreadSchedule();
    const busy = await delayDuring(async () => {
      const until = performance.now() + LOOP_STRETCH_MS;
      while (performance.now() < until) last = (await turn(last)).snapshot;
    });
    const cpuAfter = mainThreadSchedule();
    const besideFloor = await beside.read();

    const panel = await buildChangesPanelCorpus();
    let panelDiffMs: number;
    try {
      // The folder's snapshots opened anew: the corpus's own keep the diff it checked, as the app's keep it.
      const fresh = await Snapshots.open(panel.folder, panel.store);
      const start = performance.now();
      await fresh.diff(panel.before, panel.after);
      panelDiffMs = performance.now() - start;
    } finally {
      await panel.remove();
    }

    const snapshotMs = median(snapshotTimes);
    return {
      changes_repo_files: FILES,
      changes_repo_mb: round(megabytes),
      changes_repo_setup_ms: Math.round(setupMs),
      changes_snapshot_ms: round(snapshotMs),
      changes_snapshot_runs_ms: snapshotTimes.map(Math.round).join(' '),
      changes_git_status_floor_ms: round(median(statusTimes)),
      changes_diff_ms: round(median(diffTimes)),
      changes_event_loop_p99_ms: busy.p99,
      changes_event_loop_max_ms: busy.max,
      changes_event_loop_snapshots: taken - before,
      ...(cpuBefore && cpuAfter
        ? {
            changes_event_loop_on_cpu_ms: round((cpuAfter.onCpuNs - cpuBefore.onCpuNs) / 1e6),
            changes_event_loop_run_queue_ms: round((cpuAfter.waitingNs - cpuBefore.waitingNs) / 1e6),
          }
        : {}),
      changes_idle_loop_p99_ms: idleFloor.p99,
      changes_beside_loop_p99_ms: besideFloor.p99,
      changes_beside_loop_max_ms: besideFloor.max,
      changes_panel_corpus_diff_ms: round(panelDiffMs),
      goal_changes_snapshot_under_300ms: snapshotMs < GOAL_SNAPSHOT_MS ? 'pass' : 'fail',
      goal_changes_event_loop_p99_under_20ms: busy.p99 < GOAL_P99_MS ? 'pass' : 'fail',
    };
  } finally {
    beside.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The corpus of the panel's first paint: what it opens, and what two of its snapshots differ by. */
export interface ChangesPanelCorpus {
  /** The repository's working tree, as the conversation's folder. */
  folder: string;
  /** Where Snapshots keeps its private index (Snapshots.open's `store`). */
  store: string;
  snapshots: Snapshots;
  conversation: string;
  /** The conversation's start and the turn's end: 1,000 files and 100,000 diff lines apart. */
  before: Snapshot;
  after: Snapshot;
  files: number;
  diffLines: number;
  /** Removes the repository and the store. */
  remove(): Promise<void>;
}

const PANEL_UNCHANGED = 500;
const PANEL_MODIFIED = 800;
const PANEL_ADDED = 100;
const PANEL_DELETED = 100;
/** Each changed file is 100 diff lines: a modified one has 5 blocks of 10 lines rewritten (−50 +50). */
const PANEL_LINES_PER_FILE = 100;
const PANEL_MODIFIED_LINES = 300;

const panelPath = (kind: string, n: number) => `src/${kind}/group${n % 20}/${kind}${n}.ts`;

/** The panel corpus's repository as the conversation finds it: 1,400 files, committed in `folder`. */
export function writePanelStart(folder: string): string {
  const start = new Map<string, string>();
  for (let n = 0; n < PANEL_UNCHANGED; n++)
    start.set(panelPath('kept', n), fileText(panelPath('kept', n), 200));
  for (let n = 0; n < PANEL_MODIFIED; n++) {
    start.set(panelPath('edited', n), fileText(panelPath('edited', n), PANEL_MODIFIED_LINES));
  }
  for (let n = 0; n < PANEL_DELETED; n++) {
    start.set(panelPath('removed', n), fileText(panelPath('removed', n), PANEL_LINES_PER_FILE));
  }
  return committedRepository(folder, start);
}

/** What the panel corpus's turn does: 800 files modified in 5 hunks each, 100 deleted, 100 added. */
export function applyPanelTurn(folder: string): void {
  for (let n = 0; n < PANEL_MODIFIED; n++) {
    const full = join(folder, panelPath('edited', n));
    const tag = fileTag(panelPath('edited', n));
    const lines = readFileSync(full, 'utf8').split('\n');
    for (let block = 0; block < 5; block++) {
      for (let at = block * 60 + 20; at < block * 60 + 30; at++) {
        lines[at] = sourceLine(tag, at, 'changed by the turn');
      }
    }
    writeFileSync(full, lines.join('\n'));
  }
  for (let n = 0; n < PANEL_DELETED; n++) rmSync(join(folder, panelPath('removed', n)));
  for (let n = 0; n < PANEL_ADDED; n++) {
    const full = join(folder, panelPath('added', n));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, fileText(panelPath('added', n), PANEL_LINES_PER_FILE));
  }
}

/** The panel corpus's size: files changed and diff lines, as the UI figure names them. */
export const PANEL_CORPUS = {
  files: PANEL_MODIFIED + PANEL_ADDED + PANEL_DELETED,
  diffLines: (PANEL_MODIFIED + PANEL_ADDED + PANEL_DELETED) * PANEL_LINES_PER_FILE,
};

/**
 * For `changes_panel_first_paint_ms`: a committed repository whose working tree then changed in 1,000 files
 * (800 modified in 5 hunks each, 100 added, 100 deleted, and 500 left alone) by 100,000 diff lines in all,
 * with a snapshot before and after. Checked against Snapshots.diff, so a figure is never taken on a
 * corpus that is not what it says. The caller removes it.
 */
export async function buildChangesPanelCorpus(): Promise<ChangesPanelCorpus> {
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-changes-panel-'));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    const folder = writePanelStart(join(root, 'project'));
    const store = join(root, 'store');
    const snapshots = await Snapshots.open(folder, store);
    const conversation = 'bench-changes-panel';
    const before = await snapshots.take(conversation, 'start', null);
    applyPanelTurn(folder);
    const after = await snapshots.take(conversation, 'turn-1', before);

    const changes = await snapshots.diff(before, after);
    const diffLines = changes.reduce((sum, change) => sum + (change.added ?? 0) + (change.removed ?? 0), 0);
    const files = PANEL_MODIFIED + PANEL_ADDED + PANEL_DELETED;
    const count = (status: FileChange['status']) =>
      changes.filter((change) => change.status === status).length;
    if (
      changes.length !== files ||
      diffLines !== files * PANEL_LINES_PER_FILE ||
      count('modified') !== PANEL_MODIFIED ||
      count('added') !== PANEL_ADDED ||
      count('deleted') !== PANEL_DELETED
    ) {
      throw new Error(
        `the panel's corpus differs by ${changes.length} files (${count('modified')} modified, ` +
          `${count('added')} added, ${count('deleted')} deleted) and ${diffLines} lines, not ${files} and ` +
          `${files * PANEL_LINES_PER_FILE}`,
      );
    }
    return { folder, store, snapshots, conversation, before, after, files, diffLines, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
