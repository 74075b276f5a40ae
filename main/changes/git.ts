/**
 * Git as the Changes room runs it: asynchronously (a snapshot never blocks main's event loop), with nothing
 * of the repository's own that could run code or change what git does (no hooks, no fsmonitor, paths as
 * they are), and with an environment of our choosing rather than whatever GIT_* variables Byre inherited.
 */
import { execFile } from 'node:child_process';
import { copyFile, stat, utimes } from 'node:fs/promises';

/** What git was asked to do and what it said, for an error a person can act on. */
export class GitFailed extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly code: number | string | null,
  ) {
    super(`git ${args.join(' ')} failed${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
    this.name = 'GitFailed';
  }
}

/**
 * Settings that keep a repository's config from running anything or reshaping the output we read, for git on
 * a computer of this platform.
 */
export const safeSettings = (platform: NodeJS.Platform): string[] => [
  '-c',
  'core.fsmonitor=false',
  '-c',
  `core.hooksPath=${platform === 'win32' ? 'NUL' : '/dev/null'}`,
  '-c',
  'core.quotepath=off',
  // Never into a submodule: a revert of the superproject's files leaves a submodule's checkout alone.
  '-c',
  'submodule.recurse=false',
  // The user's line-ending settings stand (a snapshot and a revert convert as their checkout does), but a
  // conversion git cannot undo never fails a snapshot.
  '-c',
  'core.safecrlf=false',
  '-c',
  'gc.auto=0',
];

const SAFE = safeSettings(process.platform);

/** The inherited variables that would point git somewhere else than where we say. */
const REDIRECTS =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|COMMON_DIR|CEILING_DIRECTORIES|CONFIG.*)$/;

export interface GitOptions {
  cwd: string;
  /** GIT_* variables for this run (the private index, a private repository). */
  env?: Record<string, string>;
  /** Allowed to fail: resolves with null instead of throwing. */
  mayFail?: boolean;
  /** What git reads on its stdin (`--pathspec-from-file=-`); nothing otherwise. */
  input?: string;
  /** Where git runs: this computer's git unless given (a host's, over ssh: changes/machine.ts). */
  via?: (args: readonly string[], options: GitOptions) => Promise<GitRun>;
}

/** The code of a git run on a host that never reached git there (ssh failed, or it timed out). */
export const UNREACHED = 'ENOHOST';

/** How a run of git ended, for the few commands whose failure still did work (`add --ignore-errors`). */
export interface GitRun {
  stdout: string;
  stderr: string;
  /** The exit code, or the spawn error's code (ENOENT: git is not installed). */
  code: number | string | null;
}

export function git(args: readonly string[], options: GitOptions): Promise<string>;
export function git(args: readonly string[], options: GitOptions & { mayFail: true }): Promise<string | null>;
export async function git(args: readonly string[], options: GitOptions): Promise<string | null> {
  const run = await (options.via ?? gitRun)(args, options);
  if (run.code === 0) return run.stdout;
  // A host that could not be asked (ssh failed, or the run timed out) said nothing of the repository: never
  // taken for git's own "no", which would skip a safeguard or drop what Byre knew.
  if (options.mayFail && run.code !== UNREACHED) return null;
  throw new GitFailed(args, run.stderr, run.code);
}

/** Runs git and says how it ended, never throwing for a failure. */
export function gitRun(args: readonly string[], options: GitOptions): Promise<GitRun> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!REDIRECTS.test(key)) env[key] = value;
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' }, options.env);
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      [...SAFE, ...args],
      { cwd: options.cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const code = error
          ? ((error as NodeJS.ErrnoException).code ?? (error as { code?: number }).code ?? null)
          : 0;
        resolve({ stdout, stderr, code: typeof code === 'number' || typeof code === 'string' ? code : null });
      },
    );
    // Nothing to read otherwise: git must never wait on a terminal or a pipe left open.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/**
 * A copy of an index file (the user's, a worktree's) for git to work from with a private GIT_INDEX_FILE,
 * dated as the original is. Git trusts an entry whose size and mtime match the file on disk unless the entry
 * is as new as the index itself ("racily clean"): a copy dated now would make a file edited in the second
 * the original was written, to the same size, look unchanged, and a snapshot or a commit would miss it.
 */
export async function copyIndex(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  const dated = await stat(from);
  await utimes(to, dated.atime, dated.mtime);
}

/**
 * Words in runs of at most `count` words and `bytes` bytes of UTF-8 each (a word costing `weight` times its
 * bytes, and `extra` more), for command lines of bounded length; a word longer than the bound has a run
 * of its own.
 */
export function inRuns(
  words: readonly string[],
  limits: { count?: number; bytes: number; weight?: number; extra?: number },
): string[][] {
  const { count = Infinity, bytes, weight = 1, extra = 1 } = limits;
  const runs: string[][] = [];
  let run: string[] = [];
  let size = 0;
  for (const word of words) {
    const cost = Buffer.byteLength(word) * weight + extra;
    if (run.length > 0 && (run.length >= count || size + cost > bytes)) {
      runs.push(run);
      run = [];
      size = 0;
    }
    run.push(word);
    size += cost;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
