/**
 * Git worktrees for conversations (issue 28; DESIGN.md, "Worktrees"): the repository's local branches for
 * the "Base branch" list, making a worktree on a new branch from a base (a branch, or the commit of a
 * detached HEAD), how far it is ahead of and behind its base, what it holds uncommitted, removing it, and
 * making it again from its branch for a resume. Git runs as every caller runs it (main/machines/git.ts):
 * asynchronously, with no hooks, fsmonitor or filters of the repository's own.
 *
 * The worktrees live in the repository, `<top>/.claude/worktrees/<name>` as the CLI's `--worktree` makes
 * them (cli-facts 15), and that folder is excluded in `.git/info/exclude`, never the user's .gitignore, so
 * the main checkout's `git status` stays as it was.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { git as gitHere, type GitOptions, type GitRun } from '../machines/git';
import { thisMachine, type Machine } from '../machines/machine';
import { nameProblem } from './names';

/** Git on `machine` (this computer, or a host over ssh), as git.ts runs it here. */
export function gitOn(machine: Machine) {
  function git(args: readonly string[], options: GitOptions & { mayFail: true }): Promise<string | null>;
  function git(args: readonly string[], options: GitOptions): Promise<string>;
  function git(args: readonly string[], options: GitOptions): Promise<string | null> {
    return gitHere(args, { ...options, via: machine.git });
  }
  const gitRun = (args: readonly string[], options: GitOptions): Promise<GitRun> =>
    machine.git(args, options);
  return { git, gitRun };
}

/** Something asked of a worktree that cannot be done, in words the user can act on. */
export class WorktreeRefused extends Error {
  override name = 'WorktreeRefused';
}

/**
 * `git worktree` came with git 2.5, but finding a worktree's repository needs `rev-parse --path-format`
 * (2.31); merging needs 2.38 (main/worktrees/merge.ts says so when it is older).
 */
const OLDEST_GIT: [number, number] = [2, 31];

/** Where a repository's worktrees go, from its top level. */
export const WORKTREES_FOLDER = join('.claude', 'worktrees');
/** The same, as parts: joined by the path rules of the computer the repository is on. */
const WORKTREES_PARTS = ['.claude', 'worktrees'];

/** The git that runs here (or on a host), refused (with which version it is) when it is missing or too old. */
export async function gitForWorktrees(machine: Machine = thisMachine): Promise<string> {
  const found = await machine.git(['--version'], { cwd: machine.where ? '/' : process.cwd() });
  if (found.code === 'ENOENT') {
    throw new WorktreeRefused(
      `Git is not installed${machine.where ? ` on ${machine.where}` : ''}: worktrees need git 2.31 or later.`,
    );
  }
  const version = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(found.stdout);
  const [major, minor] = [Number(version?.[1] ?? 0), Number(version?.[2] ?? 0)];
  if (major < OLDEST_GIT[0] || (major === OLDEST_GIT[0] && minor < OLDEST_GIT[1])) {
    throw new WorktreeRefused(
      `This is git ${version?.[0] ?? found.stdout.trim()}: worktrees need git 2.31 or later.`,
    );
  }
  return version?.[0] ?? '';
}

export interface Repository {
  /** The main checkout's top level. */
  top: string;
  /** The git folder all its worktrees share. */
  commonDir: string;
  /** The computer it is on: this one unless said (a host's, over ssh). */
  machine?: Machine;
}

/** The repository `folder` is in, or null when it is in none. */
export async function repositoryOf(
  folder: string,
  machine: Machine = thisMachine,
): Promise<Repository | null> {
  const found = await gitOn(machine).git(
    ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'],
    { cwd: folder, mayFail: true },
  );
  const [top, commonDir] = (found ?? '').split('\n').filter(Boolean);
  if (!top || !commonDir) return null;
  return machine === thisMachine ? { top, commonDir } : { top, commonDir, machine };
}

export const machineOf = (repository: Repository): Machine => repository.machine ?? thisMachine;

export interface Branches {
  /** The branch checked out, or null for a detached HEAD. */
  current: string | null;
  /** The commit HEAD is at: the base of a worktree made from a detached HEAD. */
  head: string;
  /** Local branches, the current one first, then by name. */
  branches: string[];
}

export async function localBranches(repository: Repository): Promise<Branches> {
  const cwd = repository.top;
  const { git } = gitOn(machineOf(repository));
  const [listed, current, head] = await Promise.all([
    git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/'], { cwd }),
    git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd, mayFail: true }),
    git(['rev-parse', '--verify', 'HEAD'], { cwd, mayFail: true }),
  ]);
  const branches = listed.split('\n').filter(Boolean).sort();
  const checkedOut = current?.trim() || null;
  return {
    current: checkedOut,
    head: head?.trim() ?? '',
    branches: checkedOut ? [checkedOut, ...branches.filter((branch) => branch !== checkedOut)] : branches,
  };
}

export interface Worktree {
  path: string;
  branch: string;
  /** The commit it was made from. */
  baseCommit: string;
}

/**
 * A new worktree `name` on a new branch `name`, from `base` (a branch, or a commit for a detached HEAD).
 * Refused, saying why, when the name is not one git takes, the branch or the folder exists, or the base
 * is not a commit of the repository.
 */
export async function createWorktree(repository: Repository, base: string, name: string): Promise<Worktree> {
  const machine = machineOf(repository);
  await gitForWorktrees(machine);
  const problem = nameProblem(name);
  if (problem) throw new WorktreeRefused(problem);
  const cwd = repository.top;
  const { git, gitRun } = gitOn(machine);
  if (await branchExists(repository, name)) {
    throw new WorktreeRefused(`A branch named ${name} exists already: pick another name.`);
  }
  const commit = await git(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], { cwd, mayFail: true });
  if (!commit) throw new WorktreeRefused(`${base} is not a branch or commit of this repository.`);
  const path = machine.path.join(repository.top, ...WORKTREES_PARTS, name);
  await excludeWorktrees(repository);
  await worktreesFolder(repository);
  const made = await gitRun(['worktree', 'add', '--quiet', '-b', name, '--', path, commit.trim()], { cwd });
  if (made.code !== 0) {
    throw new WorktreeRefused(`The worktree could not be made: ${made.stderr.trim().split('\n')[0]}`);
  }
  return { path, branch: name, baseCommit: commit.trim() };
}

/**
 * The worktrees' folder, `<top>/.claude/worktrees`, made where it is missing. Refused when it, or `.claude`,
 * is a symbolic link or not a folder: a repository that commits one as a link would have git check the
 * worktree out wherever the link points (into `~/.claude`, say), outside the repository and unasked.
 */
async function worktreesFolder(repository: Repository): Promise<string> {
  const machine = machineOf(repository);
  const { join, relative } = machine.path;
  const top = await machine.realpath(repository.top);
  let folder = top;
  for (const part of WORKTREES_PARTS) {
    folder = join(folder, part);
    const [found] = await machine.kinds([folder]);
    if (found === 'file' || found === 'other') {
      throw new WorktreeRefused(
        `${join(repository.top, relative(top, folder))} is a link or a file, not a folder, so no worktree is made there: a worktree must stay inside its repository.`,
      );
    }
    if (!found) await machine.makeFolder(folder);
  }
  if ((await machine.realpath(folder)) !== join(top, ...WORKTREES_PARTS)) {
    throw new WorktreeRefused(`${folder} is not inside the repository, so no worktree is made there.`);
  }
  return folder;
}

/** Keeps the worktrees' folder out of the main checkout's status: one line in info/exclude, once. */
async function excludeWorktrees(repository: Repository): Promise<void> {
  const machine = machineOf(repository);
  const exclude = machine.path.join(repository.commonDir, 'info', 'exclude');
  const line = `/${WORKTREES_PARTS.join('/')}/`;
  const now = (await machine.readText(exclude)) ?? '';
  if (now.split('\n').includes(line)) return;
  await machine.makeFolder(machine.path.dirname(exclude));
  await machine.appendText(exclude, `${now === '' || now.endsWith('\n') ? '' : '\n'}${line}\n`);
}

/**
 * The commit where the worktree's branch parted from its base (a branch, or for a detached HEAD's worktree
 * its commit): what the base has not got yet is everything after it. A base branch deleted since falls back
 * to the commit the worktree was made from.
 */
export async function partedFrom(
  worktree: { path: string; base: string | null; baseCommit: string },
  cwd: string = worktree.path,
  machine: Machine = thisMachine,
): Promise<string> {
  const base = worktree.base ?? worktree.baseCommit;
  const found = await gitOn(machine).git(['merge-base', base, 'HEAD'], { cwd, mayFail: true });
  return found?.trim() || worktree.baseCommit;
}

/**
 * Why git would not make a commit, in words: most often it does not know whose it is (no user.name or
 * user.email anywhere), which the user can fix in one of two places.
 */
export function commitProblem(what: string, stderr: string): string {
  if (/Author identity unknown|Please tell me who you are|empty ident name/i.test(stderr)) {
    return `${what}: git does not know who commits are by. Set “Commit as” in the conversation's settings, or run git config --global user.name "Your Name" and git config --global user.email you@example.com.`;
  }
  return `${what}: ${stderr.trim().split('\n')[0]}`;
}

/** Who a commit is by, as git takes it from its environment. */
export function identityEnv(identity: { name: string; email: string } | null): Record<string, string> {
  return identity
    ? {
        GIT_AUTHOR_NAME: identity.name,
        GIT_AUTHOR_EMAIL: identity.email,
        GIT_COMMITTER_NAME: identity.name,
        GIT_COMMITTER_EMAIL: identity.email,
      }
    : {};
}

/**
 * Everything not committed in the worktree (`git add -A`: new files too, ignored ones not), as a commit on
 * top of its branch with `message`, WITHOUT moving the branch or touching the worktree's index: the commit is
 * written through an index of its own, so a merge that then conflicts leaves the worktree exactly as it was.
 * `moveBranchTo` makes it the branch's once the merge is done. Null when nothing is uncommitted. Git runs no
 * hook either way (git.ts).
 */
export async function commitOfUncommitted(
  worktree: { path: string; branch: string },
  message: string,
  identity: { name: string; email: string } | null,
  machine: Machine = thisMachine,
): Promise<string | null> {
  const cwd = worktree.path;
  const { git, gitRun } = gitOn(machine);
  const head = await git(['symbolic-ref', '--quiet', 'HEAD'], { cwd, mayFail: true });
  if (head?.trim() !== `refs/heads/${worktree.branch}`) {
    throw new WorktreeRefused(
      `The worktree has another branch checked out than its own ${worktree.branch}: check ${worktree.branch} out there again, or commit by hand.`,
    );
  }
  if ((await uncommitted(cwd, machine)).length === 0) return null;
  const index = (await git(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd })).trim();
  // A copy of the worktree's own index keeps git's stat cache, so unchanged files are not read again.
  // Its own name each time: two merges asked at once must never share (or delete) one index.
  const own = `${index}.byre-commit-${randomUUID()}`;
  try {
    await machine.copyIndex(index, own);
    const env = { GIT_INDEX_FILE: own };
    await git(['add', '--all', '--', '.'], { cwd, env });
    const tree = (await git(['write-tree'], { cwd, env })).trim();
    const parent = (await git(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd })).trim();
    const made = await gitRun(['commit-tree', tree, '-p', parent, '-m', message], {
      cwd,
      env: identityEnv(identity),
    });
    if (made.code !== 0) {
      throw new WorktreeRefused(commitProblem('What is uncommitted could not be committed', made.stderr));
    }
    return made.stdout.trim();
  } finally {
    await machine.remove(own);
  }
}

/**
 * The worktree's branch moved on to `commit` (one commitOfUncommitted made on top of it), and its index
 * with it: the working tree already holds what the commit does, so its status comes out clean.
 */
export async function moveBranchTo(
  worktree: { path: string; branch: string },
  commit: string,
  machine: Machine = thisMachine,
): Promise<void> {
  const cwd = worktree.path;
  const { git } = gitOn(machine);
  const parent = (await git(['rev-parse', '--verify', `${commit}^`], { cwd })).trim();
  await git(['update-ref', `refs/heads/${worktree.branch}`, commit, parent], { cwd });
  try {
    await git(['reset', '--quiet', '--mixed', 'HEAD'], { cwd });
  } catch (error) {
    // An index that could not follow (its lock held by a git of Claude's) would show the work staged in
    // reverse, and the next commit there would undo it: the branch goes back to where its index is.
    await git(['update-ref', `refs/heads/${worktree.branch}`, parent, commit], { cwd });
    throw error;
  }
}

/** Commits on the worktree's branch its base does not have, and the other way round. */
export async function aheadBehind(
  repository: Repository,
  branch: string,
  base: string,
): Promise<{ ahead: number; behind: number }> {
  const counted = await gitOn(machineOf(repository)).git(
    ['rev-list', '--left-right', '--count', `${base}...${branch}`],
    {
      cwd: repository.top,
    },
  );
  const [behind = 0, ahead = 0] = counted.trim().split(/\s+/).map(Number);
  return { ahead, behind };
}

/** What a worktree holds that is not committed: its paths, as `git status` names them. */
export async function uncommitted(path: string, machine: Machine = thisMachine): Promise<string[]> {
  const listed = await gitOn(machine).git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], {
    cwd: path,
  });
  const entries = listed.split('\0');
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] ?? '';
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    // A rename or copy is followed by the path it came from: not a path of its own.
    if (/[RC]/.test(entry.slice(0, 2))) index++;
  }
  return paths;
}

/**
 * Removes a worktree, uncommitted work and all (the user was asked, and told what that is), and its branch
 * too when `deleteBranch`. A worktree the CLI locked is unlocked first; one whose folder was deleted by hand
 * is pruned.
 */
export async function removeWorktree(
  repository: Repository,
  worktree: { path: string; branch: string },
  deleteBranch: boolean,
): Promise<void> {
  const cwd = repository.top;
  const { git, gitRun } = gitOn(machineOf(repository));
  mustBeOurs(repository, worktree.path);
  await git(['worktree', 'unlock', worktree.path], { cwd, mayFail: true });
  const removed = await gitRun(['worktree', 'remove', '--force', worktree.path], { cwd });
  if (removed.code !== 0) {
    // Gone already (deleted by hand): what git still keeps of this one goes, and of no other.
    await forgetGoneWorktree(repository, worktree.path);
  }
  if (deleteBranch) await git(['branch', '-D', '--quiet', worktree.branch], { cwd });
}

/** Makes a removed worktree again from its branch, where it was, for a resume. */
export async function recreateWorktree(
  repository: Repository,
  worktree: { path: string; branch: string },
): Promise<void> {
  const cwd = repository.top;
  const { gitRun } = gitOn(machineOf(repository));
  mustBeOurs(repository, worktree.path);
  if (!(await branchExists(repository, worktree.branch))) {
    throw new WorktreeRefused(
      `Its branch ${worktree.branch} is gone, so the worktree cannot be made again; the conversation opens read-only.`,
    );
  }
  await forgetGoneWorktree(repository, worktree.path);
  await excludeWorktrees(repository);
  await worktreesFolder(repository);
  const made = await gitRun(['worktree', 'add', '--quiet', '--', worktree.path, worktree.branch], { cwd });
  if (made.code !== 0) {
    throw new WorktreeRefused(`The worktree could not be made again: ${made.stderr.trim().split('\n')[0]}`);
  }
}

/**
 * What git keeps of a worktree whose folder is gone (`<common dir>/worktrees/<id>`), for this path only:
 * `git worktree prune` would also forget the user's own worktrees on a drive that is not mounted now.
 */
async function forgetGoneWorktree(repository: Repository, path: string): Promise<void> {
  const machine = machineOf(repository);
  const { join, resolve, dirname } = machine.path;
  const admin = join(repository.commonDir, 'worktrees');
  for (const id of await machine.list(admin)) {
    const gitdir = (await machine.readText(join(admin, id, 'gitdir'))) ?? '';
    if (resolve(dirname(gitdir.trim())) !== resolve(path)) continue;
    if ((await machine.kinds([path]))[0] !== null) return;
    await machine.remove(join(admin, id));
  }
}

async function branchExists(repository: Repository, branch: string): Promise<boolean> {
  const found = await machineOf(repository).git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], {
    cwd: repository.top,
  });
  return found.code === 0;
}

/** Only the worktrees' own folder: a path from anywhere else is never removed or written. */
function mustBeOurs(repository: Repository, path: string): void {
  const { join, relative, resolve, sep } = machineOf(repository).path;
  const inside = relative(join(repository.top, ...WORKTREES_PARTS), resolve(path));
  if (!inside || inside.startsWith('..') || inside.includes(sep)) {
    throw new WorktreeRefused(`${path} is not one of this repository's worktrees.`);
  }
}
