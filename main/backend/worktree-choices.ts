/**
 * The backend's side of starting and keeping worktrees, between the git layer (main/worktrees) and the
 * records (main/data/worktree-records.ts): which repository a folder belongs to (a worktree's is its main
 * checkout's, so settings keyed by folder and the setup command are the repository's), what the
 * new-conversation form can offer, the name a new worktree gets, and making a gone worktree again so a
 * saved conversation of it can resume where its CLI saved it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_SUBMODULES_LISTED, type NewWorktree, type WorktreeChoices } from '../../shared/ipc';
import { parseGitConfig } from '../machines/git-config';
import { thisMachine, type Machine } from '../machines/machine';
import { HERE, settingsKey, type On } from '../machines/where';
import { worktreeLayout } from '../../shared/worktrees';
import type { SettingsStore } from '../data/settings';
import type { WorktreeRecord, WorktreeRecords } from '../data/worktree-records';
import { nameProblem, worktreeName } from '../worktrees/names';
import {
  gitForWorktrees,
  localBranches,
  recreateWorktree,
  repositoryOf,
  WORKTREES_FOLDER,
  WorktreeRefused,
  type Repository,
} from '../worktrees/worktrees';

export const NOT_A_REPOSITORY = 'This folder is not in a git repository.';

/**
 * The repository `folder` is in, as its main checkout: a folder in one of its worktrees (Byre's, or the
 * CLI's `--worktree` ones) counts as in the repository itself. Null when it is in none.
 */
export async function mainRepositoryOf(
  folder: string,
  records: WorktreeRecords,
  on: On = HERE,
): Promise<Repository | null> {
  // A folder on a host is taken as typed (~/… is its home there): git there says where it is.
  const found = await repositoryOf(on.host ? folder : on.machine.path.resolve(folder), on.machine);
  if (!found) return null;
  const recorded = records.at(found.top, on.host);
  if (recorded) {
    const repository = { top: recorded.repository, commonDir: recorded.commonDir };
    return on.host ? { ...repository, machine: on.machine } : repository;
  }
  const layout = worktreeLayout(found.top);
  return layout ? ((await repositoryOf(layout.repository, on.machine)) ?? found) : found;
}

/** What the new-conversation form offers for `cwd`: the repository and its branches, or why not. */
export async function worktreeChoices(
  cwd: string,
  settings: SettingsStore,
  records: WorktreeRecords,
  on: On = HERE,
): Promise<WorktreeChoices> {
  try {
    await gitForWorktrees(on.machine);
  } catch (error) {
    if (error instanceof WorktreeRefused) return { available: false, reason: error.message };
    throw error;
  }
  const repository = await mainRepositoryOf(cwd, records, on);
  if (!repository) return { available: false, reason: NOT_A_REPOSITORY };
  const branches = await localBranches(repository);
  return {
    available: true,
    repository: repository.top,
    branches: branches.branches,
    current: branches.current,
    head: branches.head,
    setupCommand: settings.worktreeSetupFor(settingsKey(on, repository.top)),
    notes: [],
    submodules: (await submodulesOf(repository.top, on.machine)).slice(0, MAX_SUBMODULES_LISTED),
  };
}

/**
 * The submodules a checkout's .gitmodules names, with the URL each would be fetched from, read as text (a
 * regular file only, as git takes it): a fetch is the repository's choice of server, so the form shows them
 * and fetches only when asked.
 */
export async function submodulesOf(
  checkout: string,
  machine: Machine = thisMachine,
): Promise<{ path: string; url: string }[]> {
  const file = machine.path.join(checkout, '.gitmodules');
  if ((await machine.kinds([file]))[0] !== 'file') return [];
  const text = await machine.readText(file);
  if (text === null) return [];
  const named = new Map<string, { path: string; url: string }>();
  for (const { key, value } of parseGitConfig(text)) {
    const match = /^submodule\.(.*)\.(path|url)$/.exec(key);
    if (!match || value === null) continue;
    const name = match[1] ?? '';
    const entry = named.get(name) ?? { path: name, url: '' };
    entry[match[2] === 'path' ? 'path' : 'url'] = value;
    named.set(name, entry);
  }
  // A URL the repository's own config sets (as `submodule init` copies it there, or by hand) is the one
  // fetched: it wins over .gitmodules'.
  const local = await machine.git(['config', '-z', '--local', '--get-regexp', '^submodule\\..*\\.url$'], {
    cwd: checkout,
  });
  if (local.code === 0) {
    for (const entry of local.stdout.split('\0')) {
      const newline = entry.indexOf('\n');
      const match = /^submodule\.(.*)\.url$/.exec(newline < 0 ? entry : entry.slice(0, newline));
      const known = match ? named.get(match[1] ?? '') : undefined;
      if (known && newline >= 0) known.url = entry.slice(newline + 1);
    }
  }
  return [...named.values()];
}

/** A checkout with submodules: the main one (for the form's note), or a new worktree's (its base's own). */
export async function hasSubmodules(checkout: string, machine: Machine = thisMachine): Promise<boolean> {
  return (await machine.kinds([machine.path.join(checkout, '.gitmodules')]))[0] !== null;
}

/**
 * The new worktree's name: the user's, checked (refused, saying why, when git would not take it or it is
 * taken), or one made from the first message that nothing has yet.
 */
export async function newWorktreeName(
  repository: Repository,
  records: WorktreeRecords,
  worktree: NewWorktree,
  firstMessage: string,
  host: string | null = null,
): Promise<string> {
  const taken = await takenNames(repository, records, host);
  if (worktree.name === undefined) return worktreeName(firstMessage, taken);
  const problem = nameProblem(worktree.name);
  if (problem) throw new WorktreeRefused(problem);
  if (taken.has(worktree.name)) {
    throw new WorktreeRefused(
      `The name ${worktree.name} is taken (by a branch or a worktree of this repository): pick another.`,
    );
  }
  return worktree.name;
}

/** Names a new worktree must not have: the repository's branches, its worktree folders, Byre's records. */
async function takenNames(
  repository: Repository,
  records: WorktreeRecords,
  host: string | null,
): Promise<Set<string>> {
  const { branches } = await localBranches(repository);
  const machine = repository.machine;
  const folders = machine
    ? await machine.list(machine.path.join(repository.top, '.claude', 'worktrees'))
    : (() => {
        try {
          return readdirSync(join(repository.top, WORKTREES_FOLDER));
        } catch {
          return [];
        }
      })();
  const recorded = records
    .all()
    .filter((record) => record.repository === repository.top && (record.host ?? null) === host)
    .map((record) => record.name);
  return new Set([...branches, ...folders, ...recorded]);
}

/**
 * Before a saved conversation resumes in `cwd`: when that is a worktree whose folder is gone, it is made
 * again from its branch, where it was, so the CLI finds its session under the same project folder. A
 * worktree Byre recorded, or one the CLI made with `--worktree` (branch `worktree-<name>`). Refused, saying
 * so, when its branch is gone. True when it was made again.
 */
export async function recreateIfGone(
  cwd: string | null,
  records: WorktreeRecords,
  on: On = HERE,
): Promise<boolean> {
  const { machine, host } = on;
  if (!cwd || (await machine.isFolder(cwd))) return false;
  const recorded: WorktreeRecord | undefined = records.at(cwd, host);
  if (recorded) {
    await recreateWorktree(
      { top: recorded.repository, commonDir: recorded.commonDir, ...(host ? { machine } : {}) },
      recorded,
    );
    records.setRemoved(recorded.path, null, host);
    return true;
  }
  const layout = worktreeLayout(cwd);
  if (!layout || !(await machine.isFolder(layout.repository))) return false;
  const repository = await repositoryOf(layout.repository, machine);
  if (!repository) return false;
  await recreateWorktree(repository, { path: cwd, branch: `worktree-${layout.name}` });
  return true;
}
