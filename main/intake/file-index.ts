import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fuzzysort, { type Snapshot } from 'fuzzysort';
import ignore, { type Ignore } from 'ignore';
import type { FileMatch } from '../../shared/ipc';
import { findGit, safeSettings } from '../machines/git';

/**
 * The files of a conversation's folder, for the composer's `@` picker: listed once (git's own list where the
 * folder is in a repository, else a walk that reads every `.gitignore` on the way), then matched fuzzily in
 * memory at each key. A list older than a few seconds still answers while a fresh one is made behind it.
 *
 * A prepared list costs about 1 KB a path, so what is kept is bounded by paths across every folder (the least
 * recently used folder goes first) and a folder nobody asked about for a few minutes is let go. Listing is
 * bounded in time too: a huge or slow folder gives what was listed by then, marked as cut short.
 */

/** More than this and the rest of the folder is left out (the picker says so). */
export const MAX_FILES = 300_000;
/** Paths kept across every folder: about 400 MB at most once prepared. */
export const MAX_KEPT_PATHS = 400_000;
/** A folder's list not asked for in this long is let go. */
export const IDLE_MS = 5 * 60_000;
/** How long listing a folder may take; what was found by then is the list, marked as cut short. */
export const LIST_TIMEOUT_MS = 20_000;
/** How long a list is used as it is; after that, a query still gets it while a new one is read. */
const FRESH_MS = 10_000;

export interface FileIndexOptions {
  now?: () => number;
  maxKeptPaths?: number;
  idleMs?: number;
  listTimeoutMs?: number;
}

export interface FileList {
  /** Paths relative to the folder, with `/` between names; folders end in `/`. */
  paths: string[];
  truncated: boolean;
}

export interface FileSearch {
  matches: FileMatch[];
  /** How many entries matched in all. */
  total: number;
  truncated: boolean;
}

interface Entry {
  list: FileList;
  snapshot: Snapshot;
  /** What an empty query shows: the top of the folder first. */
  first: string[];
  builtAt: number;
  usedAt: number;
}

export class FileIndex {
  /** Least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private readonly building = new Map<string, Promise<Entry>>();
  private readonly now: () => number;
  private readonly maxKeptPaths: number;
  private readonly idleMs: number;
  private readonly listTimeoutMs: number;
  /** Runs only while some list is kept, so an idle app lets every list go. */
  private idleCheck: NodeJS.Timeout | undefined;

  constructor(options: FileIndexOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxKeptPaths = options.maxKeptPaths ?? MAX_KEPT_PATHS;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.listTimeoutMs = options.listTimeoutMs ?? LIST_TIMEOUT_MS;
  }

  async find(root: string, query: string, limit = 50): Promise<FileSearch> {
    this.dropIdle();
    const entry = await this.entry(root);
    entry.usedAt = this.now();
    this.entries.delete(root);
    this.entries.set(root, entry);
    const wanted = query.trim();
    if (wanted === '') {
      return {
        matches: entry.first.slice(0, limit).map((path) => ({ path, indexes: [] })),
        total: entry.list.paths.length,
        truncated: entry.list.truncated,
      };
    }
    const results = fuzzysort.go(wanted, entry.snapshot, { limit, threshold: 0 });
    return {
      matches: results.map((result) => ({ path: result.target, indexes: [...result.indexes] })),
      total: results.total,
      truncated: entry.list.truncated,
    };
  }

  /** The folders whose lists are kept, and how many paths they hold in all. */
  kept(): { folders: string[]; paths: number } {
    let paths = 0;
    for (const entry of this.entries.values()) paths += entry.list.paths.length;
    return { folders: [...this.entries.keys()], paths };
  }

  /** Lets go of the lists nobody asked for in `idleMs`. */
  dropIdle(): void {
    for (const [root, entry] of this.entries) {
      if (this.now() - entry.usedAt >= this.idleMs) this.entries.delete(root);
    }
    if (this.entries.size === 0) {
      clearInterval(this.idleCheck);
      this.idleCheck = undefined;
    }
  }

  private async entry(root: string): Promise<Entry> {
    const known = this.entries.get(root);
    if (known && this.now() - known.builtAt < FRESH_MS) return known;
    const fresh = this.rebuild(root);
    if (known) {
      // Answer from what is known; the next query gets the new list.
      fresh.catch(() => undefined);
      return known;
    }
    return fresh;
  }

  private rebuild(root: string): Promise<Entry> {
    const running = this.building.get(root);
    if (running) return running;
    const promise = (async () => {
      const list = await listFiles(root, { timeoutMs: this.listTimeoutMs, now: this.now });
      const snapshot = fuzzysort.snapshot(list.paths);
      // The first query over a list prepares every path in it (and, the first time, compiles the matcher):
      // done here, while the user waits for the list anyway, not at the first letter they type.
      fuzzysort.go('e', snapshot, { limit: 1, threshold: 0 });
      const entry: Entry = {
        list,
        snapshot,
        first: shallowest(list.paths, 200),
        builtAt: this.now(),
        usedAt: this.now(),
      };
      this.entries.delete(root);
      this.entries.set(root, entry);
      this.keepWithinBudget(root);
      this.idleCheck ??= setInterval(() => this.dropIdle(), this.idleMs / 2).unref();
      return entry;
    })().finally(() => this.building.delete(root));
    this.building.set(root, promise);
    return promise;
  }

  /** Lets go of the least recently used lists until the rest fit in `maxKeptPaths`; never `newest`'s. */
  private keepWithinBudget(newest: string): void {
    let paths = this.kept().paths;
    for (const [root, entry] of this.entries) {
      if (paths <= this.maxKeptPaths) return;
      if (root === newest) continue;
      this.entries.delete(root);
      paths -= entry.list.paths.length;
    }
  }
}

/** The first `count` paths by depth, then by name: the top of the folder, without sorting all of it. */
export function shallowest(paths: readonly string[], count: number): string[] {
  const byDepth: string[][] = [];
  for (const path of paths) {
    let depth = 0;
    for (let at = path.indexOf('/'); at >= 0 && at < path.length - 1; at = path.indexOf('/', at + 1)) depth++;
    (byDepth[depth] ??= []).push(path);
  }
  const first: string[] = [];
  for (const bucket of byDepth) {
    if (first.length >= count) break;
    if (bucket) first.push(...bucket.sort().slice(0, count - first.length));
  }
  return first;
}

export interface ListLimits {
  timeoutMs: number;
  /** The clock the walk's deadline is read from. */
  now: () => number;
}

/**
 * The folder's files and the folders that hold them, as git sees them or, outside a repository, by a walk;
 * `truncated` if there were more than MAX_FILES or the time ran out first.
 */
export async function listFiles(
  root: string,
  limits: ListLimits = { timeoutMs: LIST_TIMEOUT_MS, now: Date.now },
): Promise<FileList> {
  const found = (await gitFiles(root, limits.timeoutMs)) ?? (await walk(root, limits));
  const { files, cut } = found;
  return withFolders(files.slice(0, MAX_FILES), cut || files.length > MAX_FILES);
}

interface Found {
  files: string[];
  /** The time ran out before the listing was done. */
  cut: boolean;
}

function withFolders(files: string[], truncated: boolean): FileList {
  const folders = new Set<string>();
  for (const file of files) {
    for (let cut = file.indexOf('/'); cut >= 0; cut = file.indexOf('/', cut + 1)) {
      folders.add(file.slice(0, cut + 1));
    }
  }
  return { paths: [...folders, ...files], truncated };
}

/**
 * Tracked files and untracked ones git does not ignore, under `root` and relative to it; null outside a
 * repository or without git. Stopped after `timeoutMs`, it gives what it had printed by then.
 */
function gitFiles(root: string, timeoutMs: number): Promise<Found | null> {
  return new Promise((resolve) => {
    const program = findGit();
    if (!program) {
      resolve(null);
      return;
    }
    execFile(
      program,
      [
        // Never the repository's fsmonitor hook: typing `@` runs no command the repository's config names.
        ...safeSettings(process.platform),
        'ls-files',
        '-z',
        '--cached',
        '--others',
        '--exclude-standard',
        '--deduplicate',
      ],
      {
        cwd: root,
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'utf8',
        windowsHide: true,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
      },
      (error, stdout) => {
        const paths = stdout.split('\0');
        // Killed for taking too long: each path git finished printing (the last may be cut) is real.
        if (error?.killed) resolve({ files: paths.slice(0, -1).filter((path) => path !== ''), cut: true });
        else if (error) resolve(null);
        else resolve({ files: paths.filter((path) => path !== ''), cut: false });
      },
    );
  });
}

interface Rules {
  /** The folder the `.gitignore` sits in, relative to the root ('' for the root), ending in `/`. */
  base: string;
  rules: Ignore;
}

/**
 * A breadth-first walk that skips `.git` and whatever a `.gitignore` on the way names, until it has more than
 * MAX_FILES or the time is up.
 */
async function walk(root: string, { timeoutMs, now }: ListLimits): Promise<Found> {
  const deadline = now() + timeoutMs;
  const files: string[] = [];
  const queue: { dir: string; rules: Rules[] }[] = [{ dir: '', rules: [] }];
  for (let next = 0; next < queue.length && files.length <= MAX_FILES; next++) {
    if (now() >= deadline) return { files, cut: true };
    const { dir, rules: inherited } = queue[next] ?? { dir: '', rules: [] };
    let entries: Dirent[];
    try {
      entries = await readdir(join(root, dir), { withFileTypes: true });
    } catch {
      continue; // Unreadable: left out.
    }
    let rules = inherited;
    if (entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
      const text = await readFile(join(root, dir, '.gitignore'), 'utf8').catch(() => '');
      rules = [...inherited, { base: dir, rules: ignore().add(text) }];
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = dir + entry.name;
      const folder = entry.isDirectory();
      if (ignored(rules, folder ? `${path}/` : path)) continue;
      if (folder) queue.push({ dir: `${path}/`, rules });
      else files.push(path);
    }
  }
  return { files, cut: false };
}

function ignored(rules: Rules[], path: string): boolean {
  return rules.some(({ base, rules: set }) => set.ignores(path.slice(base.length)));
}
