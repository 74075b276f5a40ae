/**
 * Git as Byre runs it, for every caller (snapshots, worktrees, merge, status, pull requests, `@`):
 * asynchronously (a snapshot never blocks main's event loop), the git found by its absolute path on the
 * PATH (never one in the working folder), with nothing of the repository's own that could run code or
 * change what git does (no hooks, no fsmonitor, no bare repository found inside it, none of the programs
 * its own config names: filters, diff and merge drivers, ssh command, credential helpers, signing), and
 * with an environment of our choosing rather than whatever GIT_* variables Byre inherited.
 */
import { readFileSync, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { copyFile, stat, utimes } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { findProgram } from '../disk/programs';
import { homedir } from 'node:os';
import { LAUNCHED_NICE, LAUNCHER_FAILED, launch, type Launched } from './launch';
import { INCLUDE_KEY, isProgramEntry, LISTED_KEYS, type ConfigEntry } from './git-config';

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
function neutral(key: string, user: (key: string) => string[]): [string, string][] {
  if (key.startsWith('filter.')) {
    // Off, and not required (a required driver left without a command would fail the command), unless the
    // user's own config defines the same driver (git-lfs's): then theirs.
    const driver = key.slice(0, key.lastIndexOf('.'));
    return (['clean', 'smudge', 'process', 'required'] as const).map((part): [string, string] => [
      `${driver}.${part}`,
      user(`${driver}.${part}`).at(-1) ?? (part === 'required' ? 'false' : ''),
    ]);
  }
  const userValues = user(key);
  // A textconv of `cat` shows the bytes; an empty one would fail the diff.
  if (/^diff\..*\.textconv$/.test(key)) return [[key, userValues.at(-1) ?? 'cat']];
  if (/^merge\..*\.driver$/.test(key)) return [[key, userValues.at(-1) ?? 'false']];
  if (/^(commit|tag)\.gpgsign$/.test(key)) return [[key, userValues.at(-1) ?? 'false']];
  if (/^protocol\./.test(key)) return [[key, userValues.at(-1) ?? 'user']];
  if (/^submodule\..*\.update$/.test(key)) return [[key, 'checkout']];
  if (/^remote\..*\.receivepack$/.test(key)) return [[key, 'git-receive-pack']];
  if (/^remote\..*\.uploadpack$/.test(key)) return [[key, 'git-upload-pack']];
  if (/^credential\./.test(key))
    return [[key, ''], ...userValues.map((value): [string, string] => [key, value])];
  return [[key, userValues.at(-1) ?? '']];
}

/** What a repository's own config makes git run, as Byre's git sets it back (or runs it, when trusted). */
export interface RepositoryPrograms {
  /** The settings that set back what the repository's own config (local and worktree scope) names. */
  overrides: [string, string][];
  /** What its own config names: the trust question lists these, and trust is given for these. */
  own: ConfigEntry[];
  /** The files it was read from, and those they include (absolute, or relative to the folder git ran in). */
  files: string[];
}

/**
 * What `git config -z --show-scope --show-origin --get-regexp LISTED_KEYS` printed (its bytes), as the
 * repository's programs; a reason instead when they cannot be set back: a key in bytes that are not UTF-8
 * (git takes any byte in a driver's name, and no environment variable can carry them), or a control byte.
 */
export function readListing(
  listing: Buffer,
  home: string = homedir(),
  /** Where git reports a relative origin from: the repository's top folder (git's own files are named from there). */
  top = '',
): { programs: RepositoryPrograms } | { refused: string } {
  const raw: Buffer[] = [];
  for (let at = 0; at < listing.length;) {
    const end = listing.indexOf(0, at);
    if (end < 0) break;
    raw.push(listing.subarray(at, end));
    at = end + 1;
  }
  const fields = raw.map((field) => field.toString('utf8'));
  const found: { scope: string; origin: string; entry: ConfigEntry }[] = [];
  for (let at = 0; at + 2 < fields.length; at += 3) {
    const text = fields[at + 2] ?? '';
    // The repository's own settings only: a byte of the user's own config that is not UTF-8 is theirs.
    if ((fields[at] === 'local' || fields[at] === 'worktree') && !isUtf8(raw[at + 2] ?? Buffer.alloc(0))) {
      return { refused: "the repository's git config names a program in bytes Byre cannot read (not UTF-8)" };
    }
    const newline = text.indexOf('\n');
    const key = newline < 0 ? text : text.slice(0, newline);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(key)) {
      return { refused: "the repository's git config names a program under a key Byre cannot set back" };
    }
    const named = (fields[at + 1] ?? '').replace(/^file:/, '');
    const origin = named && !isAbsolute(named) && top ? join(top, named) : named;
    found.push({
      scope: fields[at] ?? '',
      origin,
      entry: { key, value: newline < 0 ? null : text.slice(newline + 1) },
    });
  }
  const ownScope = (scope: string) => scope === 'local' || scope === 'worktree';
  const files = new Set<string>();
  for (const { scope, origin, entry } of found) {
    if (!ownScope(scope)) continue;
    if (origin) files.add(origin);
    if (INCLUDE_KEY.test(entry.key) && entry.value) {
      const target = entry.value.startsWith('~/') ? join(home, entry.value.slice(2)) : entry.value;
      files.add(isAbsolute(target) ? target : join(dirname(origin), target));
    }
  }
  const own = found
    .filter(({ scope, entry }) => ownScope(scope) && isProgramEntry(entry))
    .map(({ entry }) => entry);
  const user = (key: string) =>
    found
      .filter(({ scope, entry }) => entry.key === key && (scope === 'global' || scope === 'system'))
      .map(({ entry }) => entry.value ?? 'true');
  const overrides: [string, string][] = [];
  for (const key of new Set(own.map((entry) => entry.key))) overrides.push(...neutral(key, user));
  return { programs: { overrides, own, files: [...files] } };
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
 * .git file names, and its common folder), and its HEAD (an `includeIf "onbranch:…"` follows it); none
 * outside a repository. A `.git` folder without a HEAD is no repository to git, which looks further up.
 */
function repositoryFiles(cwd: string): { files: string[]; top: string } | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    try {
      const kind = statSync(dotGit);
      let gitDir = dotGit;
      if (kind.isFile()) {
        const named = /^gitdir: (.*)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
        if (!named) throw new Error('no gitdir');
        gitDir = resolve(dir, named);
      }
      if (!statSync(join(gitDir, 'HEAD')).isFile()) throw new Error('no HEAD');
      let common = gitDir;
      try {
        common = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
      } catch {
        // Not a linked worktree.
      }
      return {
        files: [join(common, 'config'), join(gitDir, 'config.worktree'), join(gitDir, 'HEAD')],
        top: dir,
      };
    } catch {
      if (dirname(dir) === dir) return null;
    }
  }
}

/** Each file's size, times and inode (ctime too: an mtime can be set back), or that it is not there. */
function stampOf(files: readonly string[], cwd: string): string {
  return files
    .map((file) => {
      try {
        const at = statSync(resolve(cwd, file));
        return `${file}:${at.size}:${at.mtimeMs}:${at.ctimeMs}:${at.ino}`;
      } catch {
        return `${file}:-`;
      }
    })
    .join('|');
}

/**
 * What a repository's own config names, by the folder git runs in: kept while none of the files it was read
 * from (its config, config.worktree, HEAD, every file they include) has changed since.
 */
const programsCache = new Map<
  string,
  { files: string[]; stamp: string | null; programs: RepositoryPrograms }
>();

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
type TrustCheck = (folder: string, host: string | null, programs: readonly ConfigEntry[]) => boolean;
let trustedFolder: TrustCheck = () => false;

export function trustForGit(check: TrustCheck): void {
  trustedFolder = check;
}

/**
 * Whether git in `folder` (on `host`) runs these programs its repository's config names: the user trusted
 * the folder with them.
 */
export function runsRepositoryPrograms(
  folder: string,
  host: string | null,
  programs: readonly ConfigEntry[],
): boolean {
  try {
    return trustedFolder(folder, host, programs);
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
  // A host that could not be asked (ssh failed, or the run timed out), or a git Byre's launcher never
  // started, said nothing of the repository: never taken for git's own "no", which would skip a safeguard
  // or drop what Byre knew.
  if (options.mayFail && run.code !== UNREACHED && run.code !== LAUNCHER_FAILED) return null;
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
  // A run with GIT_DIR of its own (Byre's private repository) reads that repository's config, which is Byre's.
  const found = env.GIT_DIR ? null : await repositoryPrograms(program, options.cwd, env);
  if (found && 'refused' in found) {
    return { stdout: '', stderr: `Byre runs no git here: ${found.refused}.`, code: 'EREFUSED' };
  }
  const programs = found?.programs;
  // In a folder the user trusted with these very programs, they run, as git itself would run them.
  const overrides =
    programs && programs.overrides.length > 0 && !runsRepositoryPrograms(options.cwd, null, programs.own)
      ? programs.overrides
      : [];
  if (overrides.length === 0) return run(program, [...SAFE, ...args], options, env);
  if (await takesConfigFromEnv(program)) {
    return run(program, [...SAFE, ...args], options, { ...env, ...withOverrides(env, overrides) });
  }
  // A git before 2.31 reads no GIT_CONFIG_*: `-c`, which cannot carry a key with `=` in it (it would end the
  // key there), so such a config runs no git at all.
  if (overrides.some(([key]) => key.includes('='))) {
    return {
      stdout: '',
      stderr:
        "Byre runs no git here: the repository's config names a driver this git (before 2.31) cannot set back.",
      code: 'EREFUSED',
    };
  }
  // Before Byre's own settings: with -c the last one wins, and Byre's (protocol.ext.allow=never) must.
  const settings = overrides.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  return run(program, [...settings, ...SAFE, ...args], options, env);
}

/** The GIT_CONFIG_* of `env` with `overrides` before its own settings, which come after and so win. */
export function withOverrides(
  env: Readonly<Record<string, string | undefined>>,
  overrides: readonly [string, string][],
): Record<string, string> {
  return overrides.length > 0 ? configEnv([...overrides, ...configPairs(env)]) : {};
}

/** Whether a git reads GIT_CONFIG_COUNT (2.31 and later), by its version, asked once for each git. */
const envConfigSupport = new Map<string, Promise<boolean>>();
function takesConfigFromEnv(program: string): Promise<boolean> {
  let known = envConfigSupport.get(program);
  if (!known) {
    known = run(program, ['version'], { cwd: homedir() }, { ...process.env, GIT_CONFIG_COUNT: '0' }).then(
      (ran) => {
        // Not kept: a run the launcher never started says nothing of this git's version.
        if (ran.code === LAUNCHER_FAILED) envConfigSupport.delete(program);
        const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(ran.stdout) ?? []).slice(1).map(Number);
        return major > 2 || (major === 2 && minor >= 31);
      },
    );
    envConfigSupport.set(program, known);
  }
  return known;
}

/**
 * What the repository's own config at `cwd` names (readListing), kept until a file it was read from changes;
 * a refusal when git cannot list it (a git before 2.26 has no --show-scope): git then runs nowhere there,
 * rather than with whatever the config names.
 */
async function repositoryPrograms(
  program: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ programs: RepositoryPrograms } | { refused: string } | null> {
  const found = repositoryFiles(cwd);
  if (!found) return null;
  const { files: base, top } = found;
  const key = resolve(cwd);
  const kept = programsCache.get(key);
  const watched = [...new Set([...base, ...(kept?.files ?? [])])];
  const stamp = stampOf(watched, cwd);
  if (kept && kept.stamp === stamp) return { programs: kept.programs };
  const listed = await execGit(
    program,
    [...SAFE, 'config', '-z', '--show-scope', '--show-origin', '--get-regexp', LISTED_KEYS],
    {
      cwd,
      // Byte by byte: in a UTF-8 locale the pattern's `.` matches no byte that is not UTF-8, so a driver
      // named in such bytes would not be listed, and git would still run it.
      env: { ...env, GIT_CONFIG_COUNT: '0', LC_ALL: 'C' },
      bytes: true,
    },
  );
  // Exit 1: none of them is set anywhere.
  if (listed.code !== 0 && listed.code !== 1) {
    return {
      refused: `its config could not be listed (git 2.26 or later is needed): ${listed.stderr.trim()}`,
    };
  }
  const read = readListing(listed.stdout, homedir(), top);
  if ('refused' in read) return read;
  const files = [...new Set([...base, ...read.programs.files])];
  // Stamped before the listing: a file changed while it was listed is read again next time. A file the
  // listing named for the first time is stamped by the next run, which lists again.
  const covered = files.every((file) => watched.includes(file));
  programsCache.set(key, { files, stamp: covered ? stamp : null, programs: read.programs });
  return read;
}

/** How far Byre's own git gives way: it runs at the launcher's nice value (launch.ts). */
export const GIT_NICE = LAUNCHED_NICE;

/**
 * Runs git and takes all its output: as text, or as bytes (a config listing, whose names may be any bytes).
 * Its stdin is given `input`, or closed: git must never wait on a terminal or a pipe left open.
 */
function execGit(
  program: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; bytes: true },
): Promise<Launched<Buffer>>;
function execGit(
  program: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; bytes?: false },
): Promise<Launched<string>>;
function execGit(
  program: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; bytes?: boolean },
): Promise<Launched<string | Buffer>> {
  return launch(program, args, {
    cwd: options.cwd,
    env: options.env,
    bytes: options.bytes === true,
    maxBuffer: (options.bytes ? 16 : 256) * 1024 * 1024,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

function run(
  program: string,
  args: readonly string[],
  options: Pick<GitOptions, 'cwd' | 'input'>,
  env: NodeJS.ProcessEnv,
): Promise<GitRun> {
  return execGit(program, args, {
    cwd: options.cwd,
    env,
    ...(options.input === undefined ? {} : { input: options.input }),
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
