/**
 * How the sidebar lists the library (issue 28): by folder, the folder of the newest conversation first, and
 * a repository's worktree conversations (Byre's, and the CLI's `--worktree` ones made in a terminal) under
 * the repository's own heading, after its own rows, so one repository reads as one place. Sorted by cost
 * (issue 29), the same shape with the costliest first: folders by their costliest conversation. Pure: the
 * list is virtualized over what this returns, and the host draws the first screen of it into the page
 * (first-screen.ts). Also the words a row says of itself: its time, size and cost.
 */
import { worktreeLayout, worktreeStatusKey } from './worktrees';
import type { WorktreeStatus } from './ipc';
import type { LibraryRow } from './library';

/** The order the list is in: by last activity, or by what each conversation cost, most first. */
export type LibrarySort = 'recent' | 'cost';

/** A folder's last part ("byre" for /work/byre), or the path itself when it has none. */
export function folderName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

export type SidebarItem =
  | { kind: 'host'; host: string; count: number }
  /** `host`: the host its rows ran on (null: this computer), as its heading's group says. */
  | { kind: 'folder'; folder: string | null; count: number; host?: string | null }
  | { kind: 'row'; row: LibraryRow; worktree: RowWorktree | null };

/** A row whose folder is a worktree: its name, and how it stands if Byre made it. */
export interface RowWorktree {
  name: string;
  status: WorktreeStatus | null;
}

/** The folder a row is listed (and filtered) under: a worktree's repository, else its own. */
export function homeFolder(cwd: string | null): string | null {
  return worktreeLayout(cwd)?.repository ?? cwd;
}

const ORDERS: Record<LibrarySort, (a: LibraryRow, b: LibraryRow) => number> = {
  recent: (a, b) => b.lastActive - a.lastActive,
  // What could not be priced goes after every priced row, newest first among the equal.
  cost: (a, b) => (b.cost.usd ?? -1) - (a.cost.usd ?? -1) || b.lastActive - a.lastActive,
};

/**
 * Folders by their first conversation in the order asked (newest, or costliest); in each, its own rows, then
 * its worktrees', in that order.
 */
export function groupRows(
  rows: readonly LibraryRow[],
  worktrees: Readonly<Record<string, WorktreeStatus>>,
  sort: LibrarySort = 'recent',
): SidebarItem[] {
  // This computer's first, then each other host's under its name, in the order asked: a folder of one
  // path on two machines is two places.
  const byHost = new Map<string | null, LibraryRow[]>([[null, []]]);
  for (const row of [...rows].sort(ORDERS[sort])) {
    const host = row.host ?? null;
    byHost.set(host, [...(byHost.get(host) ?? []), row]);
  }
  const items: SidebarItem[] = [];
  for (const [host, own] of byHost) {
    if (own.length === 0) continue;
    if (host !== null) items.push({ kind: 'host', host, count: own.length });
    items.push(...groupFolders(own, worktrees, host));
  }
  return items;
}

/** Rows (already in order) by folder, each folder's own rows, then its worktrees'. */
function groupFolders(
  rows: readonly LibraryRow[],
  worktrees: Readonly<Record<string, WorktreeStatus>>,
  host: string | null,
): SidebarItem[] {
  const groups = new Map<string | null, { own: SidebarItem[]; worktree: SidebarItem[] }>();
  for (const row of rows) {
    const layout = worktreeLayout(row.cwd);
    const home = layout?.repository ?? row.cwd;
    let group = groups.get(home);
    if (!group) {
      group = { own: [], worktree: [] };
      groups.set(home, group);
    }
    if (layout) {
      const status = (row.cwd && worktrees[worktreeStatusKey(row.cwd, row.host)]) || null;
      group.worktree.push({ kind: 'row', row, worktree: { name: layout.name, status } });
    } else group.own.push({ kind: 'row', row, worktree: null });
  }
  const items: SidebarItem[] = [];
  for (const [folder, group] of groups) {
    const count = group.own.length + group.worktree.length;
    items.push(host === null ? { kind: 'folder', folder, count } : { kind: 'folder', folder, count, host });
    items.push(...group.own, ...group.worktree);
  }
  return items;
}

/** The folders the filter offers: each repository once, its worktrees in it. */
export function folderList(rows: readonly LibraryRow[]): string[] {
  const folders = new Set<string>();
  for (const row of rows) {
    const home = homeFolder(row.cwd);
    if (home) folders.add(home);
  }
  return [...folders].sort((a, b) => folderName(a).localeCompare(folderName(b)) || a.localeCompare(b));
}

/**
 * A row's cost as the sidebar shows it: "$0.42", "~$0.42" when some of it is estimated, "<$0.01" for less
 * than a cent, null when nothing of it could be priced (no figure is better than a wrong one).
 */
export function costLabel(cost: LibraryRow['cost']): string | null {
  if (cost.usd === null) return null;
  // Under a cent says "some" without a tilde: "~<$0.01" reads as noise.
  if (cost.usd > 0 && cost.usd < 0.005) return '<$0.01';
  const usd = `$${cost.usd.toFixed(2)}`;
  return cost.estimated ? `~${usd}` : usd;
}

/** "↑2 ↓1" and its words for a screen reader ("2 ahead of main, 1 behind"); null when not counted. */
export function aheadBehind(status: WorktreeStatus): { shown: string; words: string } | null {
  if (status.ahead === null || status.behind === null) return null;
  const base = status.base ?? 'its base';
  return {
    shown: `↑${status.ahead} ↓${status.behind}`,
    words: `${status.ahead} ahead of ${base}, ${status.behind} behind`,
  };
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "5 minutes ago", "yesterday", "just now". */
export function relativeTime(ms: number, now = Date.now()): string {
  const seconds = (ms - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** "512 B", "3.4 KB", "12 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
