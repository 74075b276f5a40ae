import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, statSync, utimesSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostProjectsCopy } from '../library/remote-copies';
import { portableSh } from './ssh';

/**
 * The library's copies of a host's sessions (DESIGN.md, "Remote hosts"), kept up to date over the host's
 * multiplexed connection: one ssh lists the host's session files with their sizes and times, then each file
 * that grew is sent only its new bytes, in a few ssh runs of bounded size. A file the host deleted stays in
 * the copy, so a conversation is never lost when the host cleans up, and a host that is off still shows its
 * conversations. What the host sends is checked: a name that is not a session file's, or bytes that do not
 * end where they should, are taken as nothing.
 */

/** A session file on the host, as the listing says: its path in the projects folder, size, and mtime (s). */
export interface HostFile {
  rel: string;
  size: number;
  mtime: number;
}

/** Bytes to copy: `length` bytes of the host's file `rel` from `from`. */
export interface Fetch {
  rel: string;
  from: number;
  length: number;
  /** The file's size and mtime on the host, kept on the copy once it is whole. */
  size: number;
  mtime: number;
}

/** What one run of ssh may bring back at most, so that a 100 MB session comes in steps. */
export const FETCH_BYTES = 8 * 1024 * 1024;
/** Files one run asks for at most (each is three words on the remote command line). */
export const FETCH_FILES = 200;
/** The words one run names, in characters at most: Windows takes a command line of 32,767 at most. */
export const FETCH_WORDS_CHARS = 16 * 1024;
/** A session file larger than this is left out of the copy. */
export const MAX_SESSION_BYTES = 64 * 1024 ** 3;
/**
 * A host's copy holds at most this much of what the host lists, newest sessions first: a host with years of
 * sessions, or one that lies about its files, never fills this computer's disk.
 */
export const MAX_HOST_COPY_BYTES = 20 * 1024 ** 3;

/** The files a copy of at most `cap` bytes holds, newest first, and how many are left out. */
export function withinCap(files: readonly HostFile[], cap: number): { kept: HostFile[]; left: number } {
  const kept: HostFile[] = [];
  let total = 0;
  let left = 0;
  for (const file of [...files].sort((a, b) => b.mtime - a.mtime)) {
    if (total + file.size > cap) {
      left += 1;
      continue;
    }
    total += file.size;
    kept.push(file);
  }
  return { kept, left };
}

const PROJECTS = 'd="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects"';

/**
 * sh that lists the session files (`<project>/<session>.jsonl` and their subagents') as `size mtime path`,
 * by GNU stat or else BSD's; nothing when there is no projects folder.
 */
export const LIST_SCRIPT = [
  PROJECTS,
  'cd -- "$d" 2>/dev/null || exit 0',
  'if stat -c %s /dev/null >/dev/null 2>&1; then fmt="-c"; spec="%s %Y %n"; else fmt="-f"; spec="%z %m %N"; fi',
  'find . -mindepth 2 -maxdepth 4 -type f -name "*.jsonl" -exec stat "$fmt" "$spec" {} + 2>/dev/null | sed "s| \\./| |"',
  'exit 0',
].join('\n');

/**
 * sh that prints, for each `path from length` after the nonce, that many bytes of the file from there,
 * then a newline and the nonce: bytes that do not end with it were not what was asked (the file shrank).
 */
export const FETCH_SCRIPT = [
  'nonce=$1',
  'shift',
  PROJECTS,
  'cd -- "$d" || exit 3',
  'while [ "$#" -ge 3 ]; do',
  '  f=$1; from=$2; n=$3; shift 3',
  '  if [ "$from" -eq 0 ]; then head -c "$n" -- "$f"; else tail -c +"$((from + 1))" -- "$f" | head -c "$n"; fi',
  '  printf "\\n%s\\n" "$nonce"',
  'done',
].join('\n');

/** A path the listing may name: a session's file or a subagent's, in names of safe characters only. */
export function isSessionPath(rel: string): boolean {
  const parts = rel.split('/');
  const safe = (part: string) => /^[A-Za-z0-9_.-]+$/.test(part) && part !== '.' && part !== '..';
  if (!parts.every(safe) || !rel.endsWith('.jsonl')) return false;
  return parts.length === 2 || (parts.length === 4 && parts[2] === 'subagents');
}

/** The listing's lines as files; lines that are not a session file's are left out. */
export function parseListing(stdout: string): HostFile[] {
  const files: HostFile[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^(\d{1,15}) (\d{1,15}) (.+)$/.exec(line);
    if (!match?.[3] || !isSessionPath(match[3])) continue;
    const size = Number(match[1]);
    // A size no session file has is not planned for (a broken or hostile host could name any).
    if (size > MAX_SESSION_BYTES) continue;
    files.push({ rel: match[3], size, mtime: Number(match[2]) });
  }
  return files;
}

/**
 * What to copy, given the copy's own sizes and mtimes: a file that grew from its new bytes on, one that
 * shrank (written anew) whole, in pieces of at most FETCH_BYTES.
 */
export function planFetches(
  files: readonly HostFile[],
  copy: (rel: string) => { size: number; mtime: number } | null,
): Fetch[] {
  const fetches: Fetch[] = [];
  for (const file of files) {
    const have = copy(file.rel);
    if (have && have.size === file.size) continue;
    const start = have && have.size < file.size ? have.size : 0;
    for (let from = start; from < file.size; from += FETCH_BYTES) {
      fetches.push({ ...file, from, length: Math.min(FETCH_BYTES, file.size - from) });
    }
    // A file empty on the host, and not copied yet, is still copied: it may be the start of one.
    if (file.size === 0 && !have) fetches.push({ ...file, from: 0, length: 0 });
  }
  return fetches;
}

/** The fetches in runs of at most FETCH_BYTES, FETCH_FILES and FETCH_WORDS_CHARS each. */
export function fetchRuns(fetches: readonly Fetch[]): Fetch[][] {
  const runs: Fetch[][] = [];
  let run: Fetch[] = [];
  let bytes = 0;
  let chars = 0;
  for (const fetch of fetches) {
    // Its three words, quoted, with room for escapes.
    const words = fetch.rel.length + 48;
    if (
      run.length > 0 &&
      (bytes + fetch.length > FETCH_BYTES || run.length >= FETCH_FILES || chars + words > FETCH_WORDS_CHARS)
    ) {
      runs.push(run);
      run = [];
      bytes = 0;
      chars = 0;
    }
    run.push(fetch);
    bytes += fetch.length;
    chars += words;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The remote command line of one run. */
export function fetchLine(run: readonly Fetch[], nonce: string): string {
  const words = run.flatMap((fetch) => [fetch.rel, String(fetch.from), String(fetch.length)]);
  return portableSh(FETCH_SCRIPT, [nonce, ...words]);
}

/**
 * The bytes each fetch of a run brought back, in order, up to the first that did not end with the nonce
 * where it should (that file and those after it are fetched again next time).
 */
export function splitFetched(output: Buffer, run: readonly Fetch[], nonce: string): Buffer[] {
  const trailer = Buffer.from(`\n${nonce}\n`);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const fetch of run) {
    const end = at + fetch.length;
    if (end + trailer.length > output.length) break;
    if (!output.subarray(end, end + trailer.length).equals(trailer)) break;
    pieces.push(output.subarray(at, end));
    at = end + trailer.length;
  }
  return pieces;
}

/** What a run of ssh on the host gave. */
export interface RawRun {
  code: number | null;
  stdout: Buffer;
}

/** Runs a line on a host: what it printed, or a thrown RemoteProblem when the host could not be reached. */
export type RunOnHost = (host: string, line: string, maxBuffer: number) => Promise<RawRun>;

export interface PullResult {
  /** Files whose copy changed. */
  changed: number;
}

/**
 * Copies hosts' sessions into the data folder: one pull per host at a time (asked again meanwhile, it runs
 * once more after), each run's bytes written as soon as they are checked.
 */
export class RemoteLibraryPull {
  private readonly running = new Map<string, Promise<PullResult>>();
  private readonly again = new Set<string>();
  /** Hosts whose copy reached its cap, said once. */
  private readonly saidFull = new Set<string>();

  constructor(
    private readonly dataDir: string,
    private readonly run: RunOnHost,
    /** The copies of `host` changed: the library should look at them. */
    private readonly changed: (host: string) => void,
    private readonly maxCopyBytes: number = MAX_HOST_COPY_BYTES,
  ) {}

  /** Brings `host`'s copy up to date; rejects with what went wrong when the host could not be reached. */
  pull(host: string): Promise<PullResult> {
    const running = this.running.get(host);
    if (running) {
      this.again.add(host);
      return running;
    }
    const pulling = (async () => {
      let total = 0;
      do {
        this.again.delete(host);
        total += await this.pullOnce(host);
      } while (this.again.has(host));
      return { changed: total };
    })().finally(() => this.running.delete(host));
    this.running.set(host, pulling);
    return pulling;
  }

  /** Settles once every pull under way has. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private async pullOnce(host: string): Promise<number> {
    const root = hostProjectsCopy(this.dataDir, host);
    const listing = await this.run(host, portableSh(LIST_SCRIPT, []), 64 * 1024 * 1024);
    if (listing.code !== 0) return 0;
    const { kept: files, left } = withinCap(parseListing(listing.stdout.toString('utf8')), this.maxCopyBytes);
    if (left > 0 && !this.saidFull.has(host)) {
      this.saidFull.add(host);
      console.warn(
        `Byre: ${host} has more sessions than the ${Math.round(this.maxCopyBytes / 1024 ** 3)} GB Byre copies of a host: its ${left} oldest files are left out of the library.`,
      );
    }
    const fetches = planFetches(files, (rel) => {
      try {
        const stat = statSync(join(root, rel));
        return { size: stat.size, mtime: Math.floor(stat.mtimeMs / 1000) };
      } catch {
        return null;
      }
    });
    // A copy of the same size whose time differs only needs the time (the host's file was touched).
    for (const file of files) {
      try {
        const path = join(root, file.rel);
        const stat = statSync(path);
        if (stat.size === file.size && Math.floor(stat.mtimeMs / 1000) !== file.mtime) {
          utimesSync(path, file.mtime, file.mtime);
        }
      } catch {
        // Not copied yet: fetched below.
      }
    }
    let changed = 0;
    for (const run of fetchRuns(fetches)) {
      const nonce = randomBytes(16).toString('hex');
      const result = await this.run(host, fetchLine(run, nonce), FETCH_BYTES + 64 * 1024);
      const pieces = splitFetched(result.stdout, run, nonce);
      pieces.forEach((bytes, index) => {
        const fetch = run[index];
        if (!fetch) return;
        writeCopy(join(root, fetch.rel), fetch, bytes);
        changed += 1;
      });
      if (pieces.length < run.length) break;
    }
    if (changed > 0) this.changed(host);
    return changed;
  }
}

/** Writes a fetch's bytes into the copy: at its end (a file from the start is written anew). */
function writeCopy(path: string, fetch: Fetch, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, fetch.from === 0 ? 'w' : 'a');
  try {
    if (fetch.from > 0 && statSync(path).size !== fetch.from) {
      throw new Error(`The copy of ${fetch.rel} is not where it was when the host was asked.`);
    }
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
  if (fetch.from + fetch.length === fetch.size) utimesSync(path, fetch.mtime, fetch.mtime);
}
