/**
 * How a worktree Byre made stands, for the sidebar and the header: how far its branch is ahead of and
 * behind its base, how many files differ from where it left the base (committed or not, new files too),
 * what removing it would lose, and whether its folder is there at all. Git failing is said in words on the
 * status, never thrown: one broken worktree must not hide how the others stand.
 */
import type { WorktreeStatus } from '../../shared/ipc';
import { git, GitFailed } from '../machines/git';
import { thisMachine, type Machine } from '../machines/machine';
import { aheadBehind, uncommitted } from './worktrees';

/** What Byre recorded of a worktree (main/data/worktree-records.ts), as far as its status needs. */
export interface RecordedWorktree {
  path: string;
  repository: string;
  commonDir: string;
  name: string;
  branch: string;
  base: string | null;
  baseCommit: string;
  createdAt: number;
  /** The host it is on; absent for this computer. */
  host?: string | undefined;
}

/** `machine`: the computer the worktree is on (its host's, over ssh, for one on a host). */
export async function worktreeStatus(
  record: RecordedWorktree,
  machine: Machine = thisMachine,
): Promise<WorktreeStatus> {
  const { files: _files, ...status } = await worktreeStanding(record, machine);
  return status;
}

/** What a record says of its worktree, before git is asked. */
function knownOf(record: RecordedWorktree) {
  return {
    path: record.path,
    repository: record.repository,
    name: record.name,
    branch: record.branch,
    base: record.base,
    baseCommit: record.baseCommit,
    createdAt: record.createdAt,
    ...(record.host ? { host: record.host } : {}),
  };
}

/** A worktree on a host whose git has not answered yet: its figures unknown, and why. */
export function askingStatus(record: RecordedWorktree & { host: string }): WorktreeStatus {
  return {
    ...knownOf(record),
    ahead: null,
    behind: null,
    filesChanged: null,
    uncommitted: [],
    removed: false,
    problem: `Asking ${record.host} how it stands…`,
  };
}

/** The status, with the paths that differ from the base (for a draft that names them). */
export async function worktreeStanding(
  record: RecordedWorktree,
  machine: Machine = thisMachine,
): Promise<WorktreeStatus & { files: string[] }> {
  const known = knownOf(record);
  const unknown = { ahead: null, behind: null, filesChanged: null, uncommitted: [], files: [] };
  const repository = {
    top: record.repository,
    commonDir: record.commonDir,
    ...(machine === thisMachine ? {} : { machine }),
  };
  try {
    if (!(await machine.isFolder(record.path))) return { ...known, ...unknown, removed: true, problem: null };
    const base = await baseRef(record, machine);
    const [counts, paths, files] = await Promise.all([
      aheadBehind(repository, record.branch, base),
      uncommitted(record.path, machine),
      filesChanged(record.path, base, machine),
    ]);
    return {
      ...known,
      ...counts,
      filesChanged: files.length,
      uncommitted: paths,
      files,
      removed: false,
      problem: null,
    };
  } catch (error) {
    return { ...known, ...unknown, removed: false, problem: inWords(error) };
  }
}

/** What the worktree is compared with: its base branch while it exists, else the commit it was made from. */
async function baseRef(record: RecordedWorktree, machine: Machine): Promise<string> {
  if (record.base === null) return record.baseCommit;
  const found = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${record.base}`], {
    cwd: record.repository,
    mayFail: true,
    via: machine.git,
  });
  if (found) return `refs/heads/${record.base}`;
  throw new StatusProblem(`Its base branch ${record.base} is gone.`);
}

/**
 * Files that differ between where the branch left its base (their merge-base) and the worktree as it is on
 * disk: committed on the branch, changed but not committed, and new files git does not ignore.
 */
async function filesChanged(path: string, base: string, machine: Machine): Promise<string[]> {
  const options = { cwd: path, via: machine.git };
  const since = (await git(['merge-base', base, 'HEAD'], options)).trim();
  const [tracked, untracked] = await Promise.all([
    git(['diff', '--name-only', '-z', '--no-renames', since, '--'], options),
    git(['ls-files', '--others', '--exclude-standard', '-z'], options),
  ]);
  const paths = new Set([...tracked.split('\0'), ...untracked.split('\0')].filter(Boolean));
  return [...paths].sort((a, b) => a.localeCompare(b));
}

class StatusProblem extends Error {}

function inWords(error: unknown): string {
  if (error instanceof StatusProblem) return error.message;
  if (error instanceof GitFailed) {
    const said = error.stderr.trim().split('\n')[0];
    return `Git could not say how it stands${said ? `: ${said}` : '.'}`;
  }
  return `Git could not say how it stands: ${error instanceof Error ? error.message : String(error)}`;
}
