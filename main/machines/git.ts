/**
 * Git as Byre runs it, for every caller (snapshots, worktrees, merge, status, pull requests, `@`):
 * asynchronously (a snapshot never blocks main's event loop), the git found by its absolute path on the
 * PATH (never one in the working folder), with nothing of the repository's own that could run code or
 * change what git does (no hooks, no fsmonitor, no bare repository found inside it, none of the programs
 * its own config names: filters, diff and merge drivers, ssh command, credential helpers, signing), and
 * with an environment of our choosing rather than whatever GIT_* variables Byre inherited.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { copyFile, stat, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { findProgram } from '../disk/programs';
import { PROGRAM_KEYS } from './git-config';

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
  // A bare repository inside a clone (its config names any program) is used only when named.
  '-c',
  'safe.bareRepository=explicit',
  '-c',
  'protocol.ext.allow=never',
];

/** The overrides for one key a repository's config sets (lower-cased, as git prints it). */
function neutral(key: string, userValues: readonly string[]): [string, string][] {
  if (key.startsWith('filter.')) {
    // Off, and not required: a required driver left without a command would fail the command.
    const driver = key.slice(0, key.lastIndexOf('.'));
    return [
      [`${driver}.clean`, ''],
      [`${driver}.smudge`, ''],
      [`${driver}.process`, ''],
      [`${driver}.required`, 'false'],
    ];
  }
  // A textconv of `cat` shows the bytes; an empty one would fail the diff.
  if (/^diff\..*\.textconv$/.test(key)) return [[key, 'cat']];
  if (/^merge\..*\.driver$/.test(key)) return [[key, 'false']];
  if (/^(commit|tag)\.gpgsign$/.test(key)) return [[key, userValues.at(-1) ?? 'false']];
  if (/^protocol\./.test(key)) return [[key, userValues.at(-1) ?? 'user']];
  if (/^credential\./.test(key))
    return [[key, ''], ...userValues.map((value): [string, string] => [key, value])];
  return [[key, userValues.at(-1) ?? '']];
}

/** What `git config --show-scope --get-regexp PROGRAM_KEYS` says, as the overrides of the repository's own. */
export function programOverrides(listing: string): [string, string][] {
  // Each entry is two NUL-ended fields: its scope, then "<key>\n<value>".
  const entries = listing.split('\0').filter(Boolean);
  const found: { scope: string; key: string; value: string }[] = [];
  for (let at = 0; at + 1 < entries.length; at += 2) {
    const scope = entries[at] ?? '';
    const [key = '', ...rest] = (entries[at + 1] ?? '').split('\n');
    found.push({ scope, key, value: rest.join('\n') });
  }
  const own = new Set(
    found.filter((entry) => entry.scope === 'local' || entry.scope === 'worktree').map((entry) => entry.key),
  );
  const overrides: [string, string][] = [];
  for (const key of own) {
    const userValues = found
      .filter((entry) => entry.key === key && (entry.scope === 'global' || entry.scope === 'system'))
      .map((entry) => entry.value);
    overrides.push(...neutral(key, userValues));
  }
  return overrides;
}

/**
 * Git's absolute path on the PATH (findProgram), found once for each PATH, and looked for again while there
 * is none, so a git installed meanwhile is found.
 */
const gitPaths = new Map<string, string>();
export function findGit(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | null {
  const key = `${platform}\0${env.PATH ?? env.Path ?? ''}`;
  const known = gitPaths.get(key);
  if (known) return known;
  const found = findProgram(platform === 'win32' ? 'git.exe' : 'git', env, platform);
  if (found) gitPaths.set(key, found);
  return found;
}

/**
 * The files a repository's own config is read from, for `cwd` (its .git folder, or the one a worktree's
 * .git file names, and its common folder): what the overrides are kept by, with their sizes and times.
 */
function repositoryConfigStamp(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    try {
      const kind = statSync(dotGit);
      let gitDir = dotGit;
      if (kind.isFile()) {
        const named = /^gitdir: (.*)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
        if (!named) return '';
        gitDir = resolve(dir, named);
      }
      let common = gitDir;
      try {
        common = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
      } catch {
        // Not a linked worktree.
      }
      return [join(common, 'config'), join(gitDir, 'config.worktree')]
        .map((file) => {
          try {
            const at = statSync(file);
            return `${file}:${at.size}:${at.mtimeMs}:${at.ino}`;
          } catch {
            return `${file}:-`;
          }
        })
        .join('|');
    } catch {
      if (dirname(dir) === dir) return '';
    }
  }
}

/** The overrides of a repository's own config, by the folder git runs in and the config files' stamps. */
const overridesCache = new Map<string, { stamp: string; overrides: [string, string][] }>();

const SAFE = safeSettings(process.platform);

/** Config settings as GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n: keys taken whole. */
export function configEnv(pairs: readonly [string, string][]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/** The settings an environment already gives git through GIT_CONFIG_*. */
export function configPairs(env: Readonly<Record<string, string | undefined>>): [string, string][] {
  const count = Number(env.GIT_CONFIG_COUNT ?? 0);
  return Array.from({ length: count }, (_, index): [string, string] => [
    env[`GIT_CONFIG_KEY_${index}`] ?? '',
    env[`GIT_CONFIG_VALUE_${index}`] ?? '',
  ]);
}

/**
 * Whether the user trusts a folder (on this computer, or on the host named), so that git there runs the
 * programs its repository's own config names, as git itself would: a git-crypt filter, a diff driver. Hooks,
 * fsmonitor and the rest of safeSettings stay off either way: Byre's git is its own plumbing, never the
 * user's command. Nothing is trusted until the backend says how to know (main/data/trust.ts, trustsTree).
 */
let trustedFolder: (folder: string, host: string | null) => boolean = () => false;

export function trustForGit(check: (folder: string, host: string | null) => boolean): void {
  trustedFolder = check;
}

/** Whether git in `folder` (on `host`) runs its repository's programs: the folder is trusted. */
export function runsRepositoryPrograms(folder: string, host: string | null): boolean {
  try {
    return trustedFolder(folder, host);
  } catch {
    return false;
  }
}

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
  /** Where git runs: this computer's git unless given (a host's, over ssh: machine.ts). */
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
export async function gitRun(args: readonly string[], options: GitOptions): Promise<GitRun> {
  const program = findGit();
  if (!program)
    return { stdout: '', stderr: 'git is not installed: there is no git on the PATH.', code: 'ENOENT' };
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!REDIRECTS.test(key)) env[key] = value;
  Object.assign(
    env,
    { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_COUNT: '0' },
    options.env,
  );
  const overrides = await repositoryOverrides(program, options.cwd, env);
  return run(program, [...SAFE, ...args], options, { ...env, ...withOverrides(env, overrides) });
}

/** The GIT_CONFIG_* of `env` with `overrides` before its own settings, which come after and so win. */
export function withOverrides(
  env: Readonly<Record<string, string | undefined>>,
  overrides: readonly [string, string][],
): Record<string, string> {
  return overrides.length > 0 ? configEnv([...overrides, ...configPairs(env)]) : {};
}

/** The overrides of what the repository's own config at `cwd` would run (programOverrides), kept until it changes. */
async function repositoryOverrides(
  program: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<[string, string][]> {
  // A run with GIT_DIR of its own (Byre's private repository) reads that repository's config, which is Byre's.
  if (env.GIT_DIR) return [];
  if (runsRepositoryPrograms(cwd, null)) return [];
  const stamp = repositoryConfigStamp(cwd);
  if (!stamp) return [];
  const key = resolve(cwd);
  const kept = overridesCache.get(key);
  if (kept?.stamp === stamp) return kept.overrides;
  const listed = await run(
    program,
    [...SAFE, 'config', '-z', '--show-scope', '--get-regexp', PROGRAM_KEYS],
    { cwd },
    { ...env, GIT_CONFIG_COUNT: '0' },
  );
  // Exit 1: none of them is set anywhere.
  const overrides = listed.code === 0 ? programOverrides(listed.stdout) : [];
  if (listed.code === 0 || listed.code === 1) overridesCache.set(key, { stamp, overrides });
  return overrides;
}

function run(
  program: string,
  args: readonly string[],
  options: Pick<GitOptions, 'cwd' | 'input'>,
  env: NodeJS.ProcessEnv,
): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = execFile(
      program,
      args,
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
