import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FileRewind } from '../shared/ipc';
import { cli, type Entry } from '../main/test-support/library';
import { DiffWorker, type LineCounter } from '../main/intake/rewind-diff';
import { countLines, fileChanges } from '../main/intake/rewind-preview';
import { hostEventLoopDelay, round, startIdleLoop } from './ui-harness';

/**
 * The Rewind dialog's per-file preview (main/rewind-preview.ts) of a turn that changed 50 files of 1 MB each:
 * main's event-loop delay while it is worked out, as the app does it (the diffs in a worker thread,
 * main/rewind-diff.ts), and, for comparison, with the diffs on main's own loop as before. This process plays
 * the host: the session's CLI file is read and each file's text sent from its main thread.
 *
 * Each file is 1.3 MB of 25,000 source-like lines, of which the turn changed one in 100 (an Edit's worth, spread
 * through the file); the CLI file holds each file's text before the turn (`originalFile`), 65 MB in all.
 * The delay is measured as the host measures it (main/event-loop-report.ts: a 10 ms timer, its lateness),
 * and the same stretch is read from an idle Node process beside it (bench/idle-loop.ts): the machine's floor.
 */

const FILES = 50;
const LINES = 25_000;
const CHANGED_EVERY = 100;
const RESOLUTION_MS = 10;
const GOAL_P99_MS = 20;

function fileText(file: number, changed: boolean): string {
  const lines = Array.from({ length: LINES }, (_, at) => {
    const edited = changed && at % CHANGED_EVERY === 0;
    return `  const value${at} = compute(${file}, ${at}, "${edited ? 'changed by the turn' : 'as it was'}");`;
  });
  return `${lines.join('\n')}\n`;
}

interface Delay {
  p99: number;
  max: number;
  ms: number;
}

/** Main's event-loop delay while `work` runs, as the host measures its own. */
async function delayDuring(work: () => Promise<unknown>): Promise<Delay> {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const late = (ns: number) => Math.max(0, round(ns / 1e6 - RESOLUTION_MS, 2));
  delay.enable();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  delay.disable();
  return { p99: late(delay.percentile(99)), max: late(delay.max), ms: Math.round(ms) };
}

export async function measureRewindPreview(): Promise<Record<string, number | string>> {
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-rewind-preview-'));
  const idle = await startIdleLoop();
  try {
    const configDir = join(root, '.claude');
    const work = join(root, 'work');
    mkdirSync(join(configDir, 'projects', '-work'), { recursive: true });
    mkdirSync(work);
    const sessionId = randomUUID();
    const message = cli.user(sessionId, 'Rename compute’s argument in every module');
    const entries: Entry[] = [message];
    const paths: string[] = [];
    let insertions = 0;
    let deletions = 0;
    for (let file = 0; file < FILES; file++) {
      const path = join(work, `module${file}.ts`);
      const before = fileText(file, false);
      const now = fileText(file, true);
      writeFileSync(path, now);
      paths.push(path);
      const counts = countLines(now, before);
      if (!counts) throw new Error('a file of the corpus takes too long to diff');
      insertions += counts.insertions;
      deletions += counts.deletions;
      entries.push(
        cli.user(sessionId, [{ type: 'tool_result', tool_use_id: `t${file}`, content: 'ok' }], {
          toolUseResult: {
            type: 'update',
            filePath: path,
            content: now,
            structuredPatch: [],
            originalFile: before,
          },
        }),
      );
    }
    let parent: string | null = null;
    const lines = entries.map((entry) => {
      const linked = { ...entry, parentUuid: parent };
      parent = entry.uuid as string;
      return JSON.stringify(linked);
    });
    writeFileSync(join(configDir, 'projects', '-work', `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
    const preview: FileRewind = {
      canRewind: true,
      filesChanged: paths,
      insertions,
      deletions,
      fileChanges: null,
      byCommand: [],
      reason: null,
    };
    const run = async (count: LineCounter) => {
      const changes = await fileChanges(configDir, sessionId, message.uuid as string, preview, count);
      if (changes?.length !== FILES) throw new Error('the preview gave no per-file figures');
    };

    const inWorker = async () => {
      const diffs = new DiffWorker(
        join(import.meta.dirname, '..', 'main', 'intake', 'rewind-diff-worker.ts'),
      );
      try {
        await run(diffs.count);
      } finally {
        await diffs.close();
      }
    };
    // Untimed: the worker's first start compiles its TypeScript; the files reach the page cache.
    await inWorker();
    await hostEventLoopDelay(idle);
    const worker = await delayDuring(inWorker);
    const floor = await hostEventLoopDelay(idle);
    const onMain = await delayDuring(() => run(async (now, before) => countLines(now, before)));
    return {
      rewind_preview_files: FILES,
      rewind_preview_ms: worker.ms,
      rewind_preview_host_eld_p99_ms: worker.p99,
      rewind_preview_host_eld_max_ms: worker.max,
      rewind_preview_idle_loop_eld_p99_ms: floor?.p99 ?? 'n/a',
      rewind_preview_on_main_host_eld_p99_ms: onMain.p99,
      rewind_preview_on_main_host_eld_max_ms: onMain.max,
      goal_rewind_preview_host_eld_p99_under_20ms: worker.p99 < GOAL_P99_MS ? 'pass' : 'fail',
    };
  } finally {
    await idle.close();
    rmSync(root, { recursive: true, force: true });
  }
}
