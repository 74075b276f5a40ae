import { worktreeLayout } from '../../../shared/worktrees';
import type { FamilyLinkRow, IndexStore, ListedSessionRow } from './store';

/**
 * Every session's row as the list shows it (hidden ones too), held in the worker and kept in step with the
 * index: the index refreshes a session's entry each time it works that session's row out again, which it does
 * whenever one of its files, its usage or the user's choices for it change. The list, its families and the
 * status's counts are answered from here: they are asked on every change notice (a few times a second while
 * indexing), and at 5,000 sessions the same queries took more of the worker's time than reading the files.
 * A refresh moves its row within the sorted list rather than sorting it again, and the family links change
 * only when a session comes, goes or changes its parent or rewinds.
 *
 * It answers as the queries did: newest first, sessions active at the same moment in the order their rows
 * were written (SQLite's rowid).
 */
export class ListedSessions {
  /** By session id; null until first asked (or after `clear`), then read whole from the index. */
  private rows: Map<string, ListedSessionRow> | null = null;
  /** The rows not hidden, newest first; null until asked. */
  private newestFirst: ListedSessionRow[] | null = null;
  /** Every row in rowid order, for the family links; null when a link may have changed. */
  private inOrder: FamilyLinkRow[] | null = null;

  constructor(private readonly store: IndexStore) {}

  /** Reads one session's row again (it was just worked out again, or deleted). */
  refresh(sessionId: string): void {
    if (this.rows === null) return;
    const before = this.rows.get(sessionId);
    const row = this.store.listedSession(sessionId);
    if (row) this.rows.set(sessionId, row);
    else this.rows.delete(sessionId);
    if (this.newestFirst) {
      if (before && before.hidden === 0) this.newestFirst.splice(this.positionOf(before), 1);
      if (row && row.hidden === 0) this.newestFirst.splice(this.positionOf(row), 0, row);
    }
    if (!before || !row || !sameLink(before, row)) this.inOrder = null;
  }

  /** Forgets every row, to read them again when next asked (a transaction that refreshed some rolled back). */
  clear(): void {
    this.rows = null;
    this.newestFirst = null;
    this.inOrder = null;
  }

  /** Sessions not hidden, with their cost, most recently active first; of one folder and its worktrees if given. */
  visible(folder: string | null): ListedSessionRow[] {
    this.newestFirst ??= [...this.all().values()].filter((row) => row.hidden === 0).sort(newerFirst);
    return folder === null ? this.newestFirst : this.newestFirst.filter((row) => inFolder(row.cwd, folder));
  }

  /**
   * Every session's link to the one it was forked from, hidden ones too (they still link their family): the
   * same array until a link changes.
   */
  links(): FamilyLinkRow[] {
    this.inOrder ??= [...this.all().values()].sort((a, b) => a.row_order - b.row_order);
    return this.inOrder;
  }

  /** How many sessions are listed, and how many of them are read to their end. */
  counts(): { total: number; indexed: number } {
    const visible = this.visible(null);
    return { total: visible.length, indexed: visible.filter((row) => row.indexed === 1).length };
  }

  private all(): Map<string, ListedSessionRow> {
    this.rows ??= new Map(this.store.listedSessions().map((row) => [row.session_id, row]));
    return this.rows;
  }

  /** Where `row` is, or would go, in the sorted list (by its time and rowid, which no other row shares). */
  private positionOf(row: ListedSessionRow): number {
    const rows = this.newestFirst ?? [];
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = rows[middle];
      if (at && newerFirst(at, row) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

function newerFirst(a: ListedSessionRow, b: ListedSessionRow): number {
  return b.last_active - a.last_active || a.row_order - b.row_order;
}

/** Families do not depend on the links' order (a cycle is cut at its smallest id), only on the links. */
function sameLink(a: FamilyLinkRow, b: FamilyLinkRow): boolean {
  return a.forked_from === b.forked_from && a.rewinds === b.rewinds;
}

/** The folder itself, or one of the repository's worktrees in it (as the index's IN_FOLDER says in SQL). */
function inFolder(cwd: string | null, folder: string): boolean {
  if (cwd === null) return false;
  return cwd === folder || (cwd.startsWith(folder) && worktreeLayout(cwd)?.repository === folder);
}
