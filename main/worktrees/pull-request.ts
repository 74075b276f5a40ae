/**
 * "Create pull request" for a worktree's branch (issue 28): whether it can work here (the GitHub CLI, gh,
 * on the PATH Byre's processes get, signed in, and a remote to push to), and doing it: the branch pushed
 * with its upstream set, then `gh pr create` against the base with the title and the body the user edited
 * (the body on stdin, so no length or quoting limit of a command line applies). Neither git nor gh may ever
 * wait on a terminal nobody sees: git runs with GIT_TERMINAL_PROMPT=0 (git.ts) and gh with prompts off.
 */
import { execFile } from 'node:child_process';
import { findProgram } from '../disk/programs';
import { git, gitRun } from '../machines/git';
import { WorktreeRefused } from './worktrees';

export const GH_MISSING =
  'GitHub CLI (gh) is not installed: get it from https://cli.github.com, then sign in with gh auth login.';
export const GH_SIGNED_OUT = 'gh is not signed in: run gh auth login.';
export const NO_REMOTE = 'This repository has no remote to push to.';

export type PullRequestReadiness = { ready: true; remote: string } | { ready: false; reason: string };

/** gh's full path on `env`'s PATH (never one in the worktree: findProgram), or null when it is not there. */
export function findGh(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  return findProgram('gh', env, platform);
}

/** The remote a worktree's branch is pushed to: `origin` when there is one, else the first; null: none. */
export async function remoteOf(cwd: string): Promise<string | null> {
  const remotes = (await git(['remote'], { cwd, mayFail: true }))?.split('\n').filter(Boolean) ?? [];
  return remotes.includes('origin') ? 'origin' : (remotes[0] ?? null);
}

/** Whether "Create pull request" can work in the worktree at `cwd`, and if not, what to do. */
export async function pullRequestReadiness(
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<PullRequestReadiness> {
  const gh = findGh(env);
  if (!gh) return { ready: false, reason: GH_MISSING };
  const [signedIn, remote] = await Promise.all([
    run(gh, ['auth', 'status'], { cwd, env }).then((done) => done.code === 0),
    remoteOf(cwd),
  ]);
  if (!signedIn) return { ready: false, reason: GH_SIGNED_OUT };
  if (!remote) return { ready: false, reason: NO_REMOTE };
  return { ready: true, remote };
}

export interface PullRequest {
  /** The worktree's folder, where git and gh run. */
  cwd: string;
  branch: string;
  base: string;
  title: string;
  body: string;
}

/** Pushes the branch, then opens the pull request; gh's address for it (null if it printed none) and what it said. */
export async function createPullRequest(
  request: PullRequest,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string | null; output: string }> {
  const gh = findGh(env);
  if (!gh) throw new WorktreeRefused(GH_MISSING);
  const { cwd, branch, base } = request;
  const remote = await remoteOf(cwd);
  if (!remote) throw new WorktreeRefused(NO_REMOTE);
  const pushed = await gitRun(['push', '--quiet', '--set-upstream', remote, branch], { cwd });
  if (pushed.code !== 0) {
    throw new WorktreeRefused(
      `The branch ${branch} could not be pushed to ${remote}: ${said(pushed.stderr)}`,
    );
  }
  const created = await run(
    gh,
    ['pr', 'create', '--base', base, '--head', branch, '--title', request.title, '--body-file', '-'],
    { cwd, env: { ...env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1' }, input: request.body },
  );
  const output = [created.stdout.trim(), created.stderr.trim()].filter(Boolean).join('\n');
  if (created.code === 'ENOENT') throw new WorktreeRefused(GH_MISSING);
  if (created.code !== 0) {
    throw new WorktreeRefused(
      `The branch is pushed to ${remote}, but gh could not create the pull request: ${said(output)}`,
    );
  }
  const urls = created.stdout.match(/https?:\/\/\S+/g);
  return { url: urls?.at(-1) ?? null, output };
}

interface Ran {
  stdout: string;
  stderr: string;
  code: number | string | null;
}

/** Runs a program and says how it ended, never throwing; nothing on its stdin but `input`. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      [...args],
      {
        cwd: options.cwd,
        env: options.env,
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const code = error
          ? ((error as NodeJS.ErrnoException).code ?? (error as { code?: number }).code ?? null)
          : 0;
        resolve({ stdout, stderr, code: typeof code === 'number' || typeof code === 'string' ? code : null });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** What a program said, in a line or a few, for a message. */
function said(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean);
  return lines.length > 0 ? lines.slice(0, 3).join(' ') : 'it gave no reason.';
}
