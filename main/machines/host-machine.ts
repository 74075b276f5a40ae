/**
 * A host as the computer a folder's snapshots are taken on (machines/machine.ts): git and the few file
 * operations Snapshots need, each one ssh run over the host's multiplexed connection, in POSIX sh and the
 * tools every Unix has (git itself, du, xargs -0, cp -p). Nothing is installed there; Byre's files there are
 * its private index and, for a folder outside a repository, a private repository, under the store folder.
 */
import { posix } from 'node:path';
import type { GitOptions, GitRun } from './git';
import { LISTED_KEYS } from './git-config';
import {
  inRuns,
  readListing,
  runsRepositoryPrograms,
  safeSettings,
  UNREACHED,
  withOverrides,
  type RepositoryPrograms,
} from './git';
import type { Machine, PathKind } from './machine';
import type { MarkedRun, RunLimits } from '../remote/run';
import { explainSshFailure, INTO_FOLDER, NO_FOLDER_EXIT, portableSh } from '../remote/ssh';

/** Runs a line on the host (run.ts's runMarked, for one host). */
export type HostRunner = (line: string, limits: RunLimits) => Promise<MarkedRun>;

/** What a git run there may print: as much as git here may. */
const GIT_OUTPUT = 256 * 1024 * 1024;
/** Generous: a first snapshot of a big folder over a slow link. A lost connection is noticed sooner. */
const GIT_TIMEOUT_MS = 15 * 60_000;
const SHORT = { timeoutMs: 60_000, maxBuffer: 4 * 1024 * 1024 };
/**
 * The longest line Byre sends: the host's shell gets it as one argument, and Linux takes none longer than
 * 128 KiB (MAX_ARG_STRLEN).
 */
const MAX_LINE = 120_000;

/** Words in runs whose line stays well under MAX_LINE: a word may grow fourfold when escaped. */
const RUN_BYTES = { bytes: MAX_LINE / 2, weight: 4, extra: 8 };

/** The exit of GIT_SCRIPT when the programs git's config names there are not those Byre set back. */
const CONFIG_CHANGED_EXIT = 86;

/**
 * In the folder, with nothing inherited that would point git elsewhere and no relative entry of the PATH
 * (which would find a `git` in the folder), git with our settings. Its second word is what Byre last saw of
 * git there (its version, then `git config --show-scope --show-origin` of LISTED_KEYS, then that listing's
 * exit, all in hex), or `-` to skip the look (a run in Byre's private repository): git runs only when it is
 * still that, so the settings that set the repository's own programs back (git.ts, readListing) are never
 * stale. Otherwise it prints what it found and exits CONFIG_CHANGED_EXIT, and Byre asks again. (A config
 * written between the look and git's start is the one gap: git itself reads its config only once started.)
 */
const GIT_SCRIPT = [
  ...INTO_FOLDER,
  'shift',
  'seen=$1',
  'shift',
  'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_COMMON_DIR GIT_CEILING_DIRECTORIES GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT',
  'set -f; p=; IFS=:; for d in $PATH; do case $d in /*) p=${p:+$p:}$d ;; esac; done; unset IFS; set +f',
  'PATH=$p; export PATH',
  'command -v git >/dev/null 2>&1 || { echo "git is not installed on this host." >&2; exit 127; }',
  'if [ "$seen" != - ]; then',
  `  found=$({ git version; LC_ALL=C git ${safeSettings('linux').join(' ')} config -z --show-scope --show-origin --get-regexp '${LISTED_KEYS}'; echo "$?"; } 2>/dev/null | od -A n -v -t x1 | tr -d ' \\n')`,
  `  [ "x$found" = "x$seen" ] || { printf '%s' "$found"; exit ${CONFIG_CHANGED_EXIT}; }`,
  'fi',
  'exec env GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0 "$@"',
].join('\n');

/** The most of that look a run carries back (in hex): far more than any real config names. */
const MAX_SEEN = 60_000;

/**
 * What GIT_SCRIPT's look at git there found: whether that git reads GIT_CONFIG_* (2.31 and later), and the
 * repository's programs; or why git runs nowhere there (the config could not be listed, or not set back).
 */
export function readHostLook(
  hex: string,
): { envConfig: boolean; programs: RepositoryPrograms } | { refused: string } {
  const bytes = Buffer.from(hex, 'hex');
  const newline = bytes.indexOf(0x0a);
  const version = bytes.subarray(0, Math.max(newline, 0)).toString('utf8');
  const rest = bytes.subarray(newline + 1);
  const end = rest.lastIndexOf(0);
  const status = rest
    .subarray(end + 1)
    .toString('utf8')
    .trim();
  if (status !== '0' && status !== '1') {
    return { refused: "its git could not list the repository's config (git 2.26 or later is needed)" };
  }
  const read = readListing(rest.subarray(0, end + 1), '~');
  if ('refused' in read) return read;
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  return { envConfig: major > 2 || (major === 2 && minor >= 31), programs: read.programs };
}

/** One line a path: what is there, not following a symlink. */
const KINDS_SCRIPT =
  'for p do if [ -L "$p" ]; then echo other; elif [ -d "$p" ]; then echo folder; elif [ -f "$p" ]; then echo file; elif [ -e "$p" ]; then echo other; else echo none; fi; done';

/**
 * The bytes the files named on stdin (NUL-separated, relative to the folder) hold, as lstat says here: each
 * regular file's and symlink's size from `ls -lnd` (-q: a name's newline is no line of its own), a folder
 * (an embedded repository), a FIFO or a device counting nothing. ls follows no symlink and reads no file.
 */
const BYTES_SCRIPT = [
  `cd -- "$1" 2>/dev/null || exit ${NO_FOLDER_EXIT}`,
  'xargs -0 -r ls -lndq -- 2>/dev/null | awk \'$1 ~ /^[-l]/ { s += $5 } END { printf "%.0f\\n", s }\'',
].join('\n');

/** A host's git and files, for Snapshots.open. `name`: the host as the user knows it, for messages. */
export function hostMachine(name: string, run: HostRunner): Machine {
  /** What each folder's git config there named of PROGRAM_KEYS when last looked at (GIT_SCRIPT), in hex. */
  const seen = new Map<string, string>();
  /** A short run of `script`: its exit code and output; a RemoteProblem-worded Error when ssh failed. */
  const short = async (script: string, args: readonly string[], input?: string): Promise<MarkedRun> => {
    const result = await run(portableSh(script, args), {
      ...SHORT,
      ...(input === undefined ? {} : { input }),
    });
    if (!result.reached || result.timedOut) throw new Error(sshFailure(result, name));
    return result;
  };
  const ok = async (script: string, args: readonly string[], input?: string) =>
    (await short(script, args, input)).code === 0;
  return {
    where: name,
    path: posix,
    async git(args: readonly string[], options: GitOptions): Promise<GitRun> {
      // A run with a GIT_DIR of Byre's (its private repository) reads that repository's config, Byre's own.
      const own = options.env?.GIT_DIR !== undefined;
      // Twice at most: the config changes between two runs only when something is changing it right then.
      let looked = false;
      for (let attempt = 0; attempt < 4; attempt++) {
        const seenNow = own ? '-' : (seen.get(options.cwd) ?? '');
        const look = own || !seenNow ? null : readHostLook(seenNow);
        // A refusal from what was seen on an earlier run is looked at again: the config may be mended.
        if (look && 'refused' in look && !looked) {
          seen.delete(options.cwd);
          looked = true;
          continue;
        }
        if (look && 'refused' in look) {
          return {
            stdout: '',
            stderr: `Byre runs no git on ${name} here: ${look.refused}.`,
            code: 'EREFUSED',
          };
        }
        // In a folder the user trusted with these very programs, they run, as git itself would run them.
        const overrides =
          look &&
          look.programs.overrides.length > 0 &&
          !runsRepositoryPrograms(options.cwd, name, look.programs.own)
            ? look.programs.overrides
            : [];
        // A git before 2.31 reads no GIT_CONFIG_*: `-c`, which cannot carry a key with `=` in it.
        const byEnv = look?.envConfig ?? true;
        if (!byEnv && overrides.some(([key]) => key.includes('='))) {
          return {
            stdout: '',
            stderr: `Byre runs no git on ${name} here: the repository's config names a driver this git (before 2.31) cannot set back.`,
            code: 'EREFUSED',
          };
        }
        const env = Object.entries({
          ...options.env,
          ...(byEnv ? withOverrides(options.env ?? {}, overrides) : {}),
        }).map(([key, value]) => `${key}=${value}`);
        const settings = byEnv ? [] : overrides.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
        const line = portableSh(GIT_SCRIPT, [
          options.cwd,
          seenNow || 'none',
          ...env,
          'git',
          // Before Byre's own settings: with -c the last one wins, and Byre's must.
          ...settings,
          ...safeSettings('linux'),
          ...args,
        ]);
        if (Buffer.byteLength(line) > MAX_LINE) {
          return { stdout: '', stderr: `the command is too long to send to ${name}.`, code: 'E2BIG' };
        }
        const result = await run(line, {
          timeoutMs: GIT_TIMEOUT_MS,
          maxBuffer: GIT_OUTPUT,
          ...(options.input === undefined ? {} : { input: options.input }),
        });
        const stderr = result.stderr;
        if (!result.reached || result.timedOut) {
          return { stdout: '', stderr: sshFailure(result, name), code: UNREACHED };
        }
        // git missing there: as here, so that Changes say git is not installed.
        if (result.code === 127 && /git is not installed on this host/.test(stderr)) {
          return { stdout: '', stderr, code: 'ENOENT' };
        }
        const stdout = result.stdout.toString('utf8');
        if (result.code === CONFIG_CHANGED_EXIT && !own && /^([0-9a-f]{2})+$/.test(stdout)) {
          if (stdout.length > MAX_SEEN) {
            return {
              stdout: '',
              stderr: `the repository's git config on ${name} names more programs than Byre takes.`,
              code: 'E2BIG',
            };
          }
          seen.set(options.cwd, stdout);
          looked = true;
          continue;
        }
        return { stdout, stderr, code: result.code };
      }
      return {
        stdout: '',
        stderr: `the repository's git config on ${name} kept changing while Byre ran git there.`,
        code: 'EAGAIN',
      };
    },
    async kinds(paths) {
      const kinds: PathKind[] = [];
      for (const batch of inRuns(paths, RUN_BYTES)) {
        const result = await short(KINDS_SCRIPT, batch);
        const lines = result.stdout.toString('utf8').split('\n');
        if (result.code !== 0 || lines.length < batch.length) {
          throw new Error(`Byre could not look at files on ${name}: ${result.stderr.trim() || 'no answer'}`);
        }
        for (const line of lines.slice(0, batch.length)) {
          kinds.push(line === 'folder' || line === 'file' || line === 'other' ? line : null);
        }
      }
      return kinds;
    },
    isFolder: (folder) => ok('[ -d "$1" ]', [folder]),
    async bytes(root, paths) {
      if (paths.length === 0) return 0;
      const result = await short(BYTES_SCRIPT, [root], `${paths.join('\0')}\0`);
      const bytes = Number(result.stdout.toString('utf8').trim());
      if (result.code !== 0 || !Number.isFinite(bytes)) {
        throw new Error(`Byre could not count the new files' sizes on ${name}.`);
      }
      return bytes;
    },
    writable: (folder) => ok('[ -w "$1" ]', [folder]),
    async makePrivateFolder(folder) {
      const made = await short('umask 077 && mkdir -p -- "$1"', [folder]);
      if (made.code !== 0) throw new Error(made.stderr.trim() || `mkdir ${folder} failed.`);
    },
    async writePrivateFile(file, text) {
      const written = await short('umask 077 && cat > "$1"', [file], text);
      if (written.code !== 0) throw new Error(written.stderr.trim() || `${file} could not be written.`);
    },
    makePrivate: async (file) => {
      await short('chmod 600 -- "$1" 2>/dev/null; exit 0', [file]).catch(() => undefined);
    },
    // -p: dated as the original, which git's stat cache needs (git.ts, copyIndex).
    copyIndex: (from, to) => ok('cp -p -- "$1" "$2"', [from, to]),
    async remove(target) {
      const removed = await short('rm -rf -- "$1"', [target]);
      if (removed.code !== 0) throw new Error(removed.stderr.trim() || `${target} could not be removed.`);
    },
    async unlinkAll(files) {
      for (const batch of inRuns(files, RUN_BYTES)) {
        const removed = await short('for f do rm -f -- "$f" || exit 1; done', batch);
        if (removed.code !== 0) throw new Error(removed.stderr.trim() || 'rm failed.');
      }
    },
    async removeEmptyFolders(folders) {
      for (const batch of inRuns(folders, RUN_BYTES)) {
        await short('for d do rmdir -- "$d" 2>/dev/null; done; exit 0', batch);
      }
    },
    async readText(file) {
      // Regular files only, and no more than a git folder's own files hold: never a FIFO's wait.
      const read = await short('[ -f "$1" ] && [ -r "$1" ] && head -c 1048576 -- "$1"', [file]);
      return read.code === 0 ? read.stdout.toString('utf8') : null;
    },
    async appendText(file, text) {
      const added = await short('cat >> "$1"', [file], text);
      if (added.code !== 0) throw new Error(added.stderr.trim() || `${file} could not be written.`);
    },
    makeFolder: async (folder) => {
      await short('mkdir -- "$1" 2>/dev/null; exit 0', [folder]);
    },
    async list(folder) {
      // One name a line, each behind a slash so that a name's own newline cannot pass for another name.
      const listed = await short(
        'cd -- "$1" 2>/dev/null || exit 0; for f in * .[!.]* ..?*; do [ -e "$f" ] || [ -L "$f" ] || continue; printf "/%s\\0" "$f"; done',
        [folder],
      );
      return listed.stdout
        .toString('utf8')
        .split('\0')
        .filter((name) => name.startsWith('/'))
        .map((name) => name.slice(1));
    },
    async realpath(target) {
      const found = await short(
        'if [ -d "$1" ]; then cd -P -- "$1" && pwd -P; else d=$(dirname -- "$1") && cd -P -- "$d" && printf "%s/%s\\n" "$(pwd -P)" "$(basename -- "$1")"; fi',
        [target],
      );
      const real = found.stdout.toString('utf8').replace(/\n$/, '');
      if (found.code !== 0 || !real.startsWith('/')) throw new Error(`${target} is not there on ${name}.`);
      return real;
    },
  };
}

/** What ssh said when Byre's line never ran there, in words. */
function sshFailure(result: MarkedRun, name: string): string {
  if (result.timedOut) return `${name} did not answer within ${(result.timeoutMs ?? 0) / 1000} s.`;
  return explainSshFailure(result.stderr, name).message;
}
