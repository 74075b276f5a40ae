import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fuzzysort, { type Snapshot } from 'fuzzysort';
import ignore, { type Ignore } from 'ignore';
import type { FileMatch } from '../shared/ipc';

/**
 * The files of a conversation's folder, for the composer's `@` picker: listed once (git's own list where the
 * folder is in a repository, else a walk that reads every `.gitignore` on the way), then matched fuzzily in
 * memory at each key. A list older than a few seconds still answers while a fresh one is made behind it.
 */

/** More than this and the rest of the folder is left out (the picker says so). */
export const MAX_FILES = 300_000;
/** How long a list is used as it is; after that, a query still gets it while a new one is read. */
const FRESH_MS = 10_000;
/** Folders whose lists are kept. */
const KEPT = 8;

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
}

export class FileIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly building = new Map<string, Promise<Entry>>();

  constructor(private readonly now: () => number = Date.now) {}

  async find(root: string, query: string, limit = 50): Promise<FileSearch> {
    const entry = await this.entry(root);
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
      const list = await listFiles(root);
      const snapshot = fuzzysort.snapshot(list.paths);
      // The first query over a list prepares every path in it (and, the first time, compiles the matcher):
      // done here, while the user waits for the list anyway, not at the first letter they type.
      fuzzysort.go('e', snapshot, { limit: 1, threshold: 0 });
      const entry: Entry = {
        list,
        snapshot,
        first: shallowest(list.paths, 200),
        builtAt: this.now(),
      };
      this.entries.delete(root);
      this.entries.set(root, entry);
      for (const old of this.entries.keys()) {
        if (this.entries.size <= KEPT) break;
        this.entries.delete(old);
      }
      return entry;
    })().finally(() => this.building.delete(root));
    this.building.set(root, promise);
    return promise;
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

/** The folder's files and the folders that hold them, as git sees them or, outside a repository, by a walk. */
export async function listFiles(root: string): Promise<FileList> {
  const files = (await gitFiles(root)) ?? (await walk(root));
  return withFolders(files.slice(0, MAX_FILES), files.length > MAX_FILES);
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
 * repository or without git.
 */
function gitFiles(root: string): Promise<string[] | null> {
  return new Promise((resolve) => {
    execFile(
      'git',
      [
        '-c',
        'core.quotepath=off',
        // Never the repository's fsmonitor hook: typing `@` runs no command the repository's config names.
        '-c',
        'core.fsmonitor=false',
        'ls-files',
        '-z',
        '--cached',
        '--others',
        '--exclude-standard',
        '--deduplicate',
      ],
      { cwd: root, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8', windowsHide: true },
      (error, stdout) => {
        if (error) {
          resolve(null);
          return;
        }
        resolve(stdout.split('\0').filter((path) => path !== ''));
      },
    );
  });
}

interface Rules {
  /** The folder the `.gitignore` sits in, relative to the root ('' for the root), ending in `/`. */
  base: string;
  rules: Ignore;
}

/** A breadth-first walk that skips `.git` and whatever a `.gitignore` on the way names. */
async function walk(root: string): Promise<string[]> {
  const files: string[] = [];
  const queue: { dir: string; rules: Rules[] }[] = [{ dir: '', rules: [] }];
  for (let next = 0; next < queue.length && files.length <= MAX_FILES; next++) {
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
  return files;
}

function ignored(rules: Rules[], path: string): boolean {
  return rules.some(({ base, rules: set }) => set.ignores(path.slice(base.length)));
}
