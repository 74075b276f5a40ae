import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LibraryProblem } from '../../../shared/library';
import { MAX_LINE_BYTES } from '../../disk/files';
import type { FileRow, IndexStore } from './store';

/**
 * What the library's status says besides counts: files it could not read whole (and why, in words), CLI
 * files that share a session id, and how long the CLI keeps its files (its `cleanupPeriodDays`).
 */

const MAX_PROBLEMS = 200;
export const DEFAULT_CLEANUP_PERIOD_DAYS = 30;

/** The scan's problems, then each file's, then shared session ids: at most MAX_PROBLEMS. */
export function libraryProblems(store: IndexStore, scanProblems: LibraryProblem[]): LibraryProblem[] {
  return [...scanProblems, ...fileProblems(store), ...sharedSessionProblems(store)].slice(0, MAX_PROBLEMS);
}

function fileProblems(store: IndexStore): LibraryProblem[] {
  return store.problemFiles(MAX_PROBLEMS).map((file) => {
    const reasons: string[] = [];
    if (file.state === 'empty') reasons.push('The file is empty; it was skipped.');
    if (file.problem) reasons.push(file.problem);
    if (file.bad_lines > 0) reasons.push(`${lines(file.bad_lines)} not JSON; skipped.`);
    if (file.non_utf8_lines > 0) {
      reasons.push(`${lines(file.non_utf8_lines)} not valid UTF-8; the unreadable bytes were replaced.`);
    }
    if (file.long_lines > 0) {
      reasons.push(`${lines(file.long_lines)} longer than ${MAX_LINE_BYTES / 1024 / 1024} MB; skipped.`);
    }
    return { path: file.path, reason: reasons.join(' ') };
  });
}

/** Two CLI files with one session id make one row; the one not in use is reported. */
function sharedSessionProblems(store: IndexStore): LibraryProblem[] {
  const bySession = new Map<string, FileRow[]>();
  for (const row of store.sharedSessionFiles()) {
    if (row.session_id !== null)
      bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row]);
  }
  return [...bySession.values()].flatMap((rows) => {
    const [used, ...others] = rows.sort((a, b) => b.mtime - a.mtime);
    if (!used) return [];
    return others.map((row) => ({
      path: row.path,
      reason: `Another file, ${used.path}, has the same session id (${row.session_id}); only that newer one is used.`,
    }));
  });
}

function lines(count: number): string {
  return count === 1 ? '1 line is' : `${count} lines are`;
}

/** The CLI's `cleanupPeriodDays` from its settings.json: how long it keeps session files. */
export function readCleanupPeriodDays(configDir: string): number {
  try {
    const settings: unknown = JSON.parse(readFileSync(join(configDir, 'settings.json'), 'utf8'));
    const parsed = z.object({ cleanupPeriodDays: z.number().nonnegative() }).safeParse(settings);
    return parsed.success ? parsed.data.cleanupPeriodDays : DEFAULT_CLEANUP_PERIOD_DAYS;
  } catch {
    return DEFAULT_CLEANUP_PERIOD_DAYS;
  }
}
