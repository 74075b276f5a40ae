/**
 * How one worktree stands, for the finishing dialogs' draft: ahead of and behind its base, the files that
 * differ from where it parted from the base (committed on its branch or not, new files too, ignored ones
 * not), and what is uncommitted. The smallest such reading; figures it cannot have are null, with why.
 */
import { existsSync } from 'node:fs';
import type { WorktreeStatus } from '../../shared/ipc';
import { git } from '../changes/git';
import { aheadBehind, partedFrom, uncommitted } from './worktrees';

/** What a record of Byre's says of a worktree (main/data/worktree-records.ts). */
export interface WorktreeOnRecord {
  path: string;
  repository: string;
  commonDir: string;
  name: string;
  branch: string;
  base: string | null;
  baseCommit: string;
  createdAt: number;
  removedAt: number | null;
}

export async function statusOf(record: WorktreeOnRecord): Promise<WorktreeStatus & { files: string[] }> {
  const known = {
    path: record.path,
    repository: record.repository,
    name: record.name,
    branch: record.branch,
    base: record.base,
    baseCommit: record.baseCommit,
    createdAt: record.createdAt,
  };
  const gone = {
    ...known,
    ahead: null,
    behind: null,
    filesChanged: null,
    uncommitted: [],
    files: [],
  };
  if (record.removedAt !== null || !existsSync(record.path)) {
    return { ...gone, removed: true, problem: 'Its folder is gone.' };
  }
  try {
    const repository = { top: record.repository, commonDir: record.commonDir };
    const [counts, open, files] = await Promise.all([
      aheadBehind(repository, record.branch, record.base ?? record.baseCommit),
      uncommitted(record.path),
      changedFiles(record),
    ]);
    return {
      ...known,
      removed: false,
      ...counts,
      filesChanged: files.length,
      uncommitted: open,
      files,
      problem: null,
    };
  } catch (error) {
    return { ...gone, removed: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The paths that differ between where the branch parted from its base and the worktree's files now. */
async function changedFiles(record: WorktreeOnRecord): Promise<string[]> {
  const cwd = record.path;
  const parted = await partedFrom(record);
  const [tracked, untracked] = await Promise.all([
    git(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', parted], { cwd }),
    git(['ls-files', '-z', '--others', '--exclude-standard'], { cwd }),
  ]);
  const paths = new Set([...tracked.split('\0'), ...untracked.split('\0')].filter(Boolean));
  return [...paths].sort((a, b) => a.localeCompare(b));
}
