import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { git } from '../main/machines/git';
import { createWorktree, localBranches, repositoryOf } from '../main/worktrees/worktrees';
import { committedRepository, projectFiles } from './changes';
import { median, round } from './ui-harness';

/**
 * Making a conversation's worktree (main/worktrees/worktrees.ts createWorktree: a new branch, its folder
 * checked out, the worktrees' folder excluded) in a committed repository of 10,000 files, the corpus the
 * Changes bench uses, without a setup command: the median of a few, each from the current branch, after
 * one untimed. Each worktree is checked to have every file, so a fast but wrong one can never pass. Beside
 * each, in turn, a bare `git worktree add` of the same: the floor, writing 10,000 files on this machine.
 */

const RUNS = 5;
const GOAL_MS = 2_000;

export async function measureWorktrees(): Promise<Record<string, number | string>> {
  const root = mkdtempSync(join(tmpdir(), 'byre-bench-worktrees-'));
  try {
    const files = projectFiles();
    const count = files.size;
    const sample = [...files.keys()].at(-1) ?? '';
    const repository = await repositoryOf(committedRepository(join(root, 'project'), files));
    files.clear();
    if (!repository) throw new Error('the corpus is not a repository');
    const base = (await localBranches(repository)).current ?? 'HEAD';
    const times: number[] = [];
    const floor: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const bare = performance.now();
      await git(['worktree', 'add', '--quiet', '-b', `floor-${run}`, join(root, `floor-${run}`), base], {
        cwd: repository.top,
      });
      if (run > 0) floor.push(performance.now() - bare);
      const start = performance.now();
      const made = await createWorktree(repository, base, `bench-${run}`);
      const ms = performance.now() - start;
      const listed = (await git(['ls-files', '-z'], { cwd: made.path })).split('\0').filter(Boolean).length;
      if (listed !== count || !existsSync(join(made.path, sample))) {
        throw new Error(`worktree ${run} holds ${listed} of the ${count} files`);
      }
      // The first one warms git's caches and the folder's disk, as a repository in use has them.
      if (run > 0) times.push(ms);
    }
    const ms = median(times);
    return {
      worktree_repo_files: count,
      worktree_create_ms: round(ms),
      worktree_create_runs_ms: times.map(Math.round).join(' '),
      worktree_git_add_floor_ms: round(median(floor)),
      goal_worktree_create_under_2s: ms < GOAL_MS ? 'pass' : 'fail',
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
