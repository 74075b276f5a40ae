/**
 * "Merge into <base>" for a worktree's branch (issue 28), done where it cannot disturb anyone's working
 * tree: git merge-tree computes the result in the object store alone (git 2.38+), so a conflict leaves
 * nothing half-merged anywhere. A clean result becomes a commit (a merge, or a squash on the base alone),
 * and the base branch moves to it: by its ref when no checkout has it, or by a fast-forward of the checkout
 * that has it when that checkout is clean; refused, saying why, when it has local changes. One merge at a
 * time per repository: a second one asked meanwhile waits.
 */
import { commitProblem, gitOn, identityEnv, machineOf, WorktreeRefused, type Repository } from './worktrees';

export type MergeResult =
  | { merged: true; commit: string }
  /** Nothing was changed: the paths that conflict, for the user to resolve in the worktree. */
  | { merged: false; conflicts: string[] };

export interface MergeRequest {
  branch: string;
  base: string;
  /**
   * What of the branch is merged, when not its tip: a commit on top of it that holds what was uncommitted
   * (commitOfUncommitted), which the branch moves to only once the merge is done.
   */
  tip?: string;
  /** One commit on the base with the branch's changes, rather than a merge commit. */
  squash: boolean;
  message: string;
  /** Who the commit is by (Byre's commit identity); absent: git's own setting. */
  identity?: { name: string; email: string };
}

const merging = new Map<string, Promise<unknown>>();

export function mergeIntoBase(repository: Repository, request: MergeRequest): Promise<MergeResult> {
  // By the repository's common folder (on its host, for one on another computer).
  const key = `${repository.machine?.where ?? ''}:${repository.commonDir}`;
  const before = merging.get(key) ?? Promise.resolve();
  const next = before.then(
    () => mergeNow(repository, request),
    () => mergeNow(repository, request),
  );
  const settled = next.catch(() => undefined);
  merging.set(key, settled);
  void settled.then(() => {
    if (merging.get(key) === settled) merging.delete(key);
  });
  return next;
}

async function mergeNow(repository: Repository, request: MergeRequest): Promise<MergeResult> {
  const cwd = repository.top;
  // In the repository's own computer: a host's repository is merged by git there.
  const { git, gitRun } = gitOn(machineOf(repository));
  const { branch, base } = request;
  const baseCommit = (await git(['rev-parse', '--verify', `refs/heads/${base}^{commit}`], { cwd })).trim();
  const branchCommit = (
    await git(['rev-parse', '--verify', `${request.tip ?? `refs/heads/${branch}`}^{commit}`], { cwd })
  ).trim();
  const checkout = await checkoutOf(repository, base);
  if (checkout) {
    const local = await git(['status', '--porcelain=v1', '--untracked-files=no'], { cwd: checkout });
    if (local.trim() !== '') {
      throw new WorktreeRefused(
        `${base} is checked out in ${checkout} with changes not committed there: commit or stash them first, so the merge does not touch them.`,
      );
    }
  }
  const result = await gitRun(
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', baseCommit, branchCommit],
    {
      cwd,
    },
  );
  const lines = result.stdout.split('\n');
  if (result.code === 1) {
    return { merged: false, conflicts: [...new Set(lines.slice(1).filter(Boolean))] };
  }
  if (result.code !== 0) {
    // An older git does not know merge-tree --write-tree: say which one is there.
    const why = /unknown option|usage: git merge-tree/.test(result.stderr)
      ? `merging a worktree needs git 2.38 or later, and this is ${(await git(['--version'], { cwd })).trim()}.`
      : result.stderr.trim().split('\n')[0];
    throw new WorktreeRefused(`The merge could not be worked out: ${why}`);
  }
  const tree = lines[0]?.trim() ?? '';
  const parents = request.squash ? ['-p', baseCommit] : ['-p', baseCommit, '-p', branchCommit];
  const made = await gitRun(['commit-tree', tree, ...parents, '-m', request.message], {
    cwd,
    env: identityEnv(request.identity ?? null),
  });
  if (made.code !== 0) {
    throw new WorktreeRefused(commitProblem('The merge commit could not be made', made.stderr));
  }
  const commit = made.stdout.trim();
  if (checkout) {
    // Clean, so a fast-forward to the new commit only brings its files in.
    await git(['merge', '--ff-only', '--quiet', commit], { cwd: checkout });
  } else {
    // Only if the base is still where the merge began: another change to it in between is not lost.
    await git(['update-ref', `refs/heads/${base}`, commit, baseCommit], { cwd });
  }
  return { merged: true, commit };
}

/** The checkout (the main one, or a worktree) that has `branch` checked out, or null. */
async function checkoutOf(repository: Repository, branch: string): Promise<string | null> {
  const { git } = gitOn(machineOf(repository));
  const listed = await git(['worktree', 'list', '--porcelain'], { cwd: repository.top });
  for (const entry of listed.split('\n\n')) {
    const path = /^worktree (.+)$/m.exec(entry)?.[1];
    if (path && new RegExp(`^branch refs/heads/${escape(branch)}$`, 'm').test(entry)) return path;
  }
  return null;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
