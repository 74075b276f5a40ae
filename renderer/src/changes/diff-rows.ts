/**
 * A file's diff as the rows the Changes panel draws, one per screen line: unified (each line once, with its
 * numbers in the old and the new file) or side by side (a removed line beside the added line that took its
 * place). Rows are plain data, built once per diff, so the virtualized view only draws the ones in sight.
 */
import type { DiffHunk } from '../../../shared/ipc';

export type Mark = '+' | '-' | ' ';

/** A line of one side: its number in that file, its text, and whether it was kept, added or removed. */
export interface Side {
  number: number;
  mark: Mark;
  text: string;
}

export type UnifiedRow =
  | { kind: 'hunk'; text: string }
  /** "No newline at end of file", and the like. */
  | { kind: 'note'; text: string }
  | { kind: 'line'; mark: Mark; old: number | null; new: number | null; text: string };

export type SplitRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'note'; text: string }
  | { kind: 'pair'; left: Side | null; right: Side | null };

/** The rows, and the longest line's length (the view is as wide as it, and scrolls sideways). */
export interface Rows<R> {
  rows: R[];
  widest: number;
  /** The widest line number, in digits. */
  digits: number;
}

/** The hunk's header line, as `git diff` writes it. */
export function hunkHeader(hunk: DiffHunk): string {
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  return hunk.header ? `${header} ${hunk.header}` : header;
}

function markOf(line: string): Mark | '\\' {
  const first = line[0];
  return first === '+' || first === '-' || first === '\\' ? first : ' ';
}

function digitsOf(hunks: readonly DiffHunk[]): number {
  const last = hunks.at(-1);
  const biggest = last ? Math.max(last.oldStart + last.oldLines, last.newStart + last.newLines) : 1;
  return String(biggest).length;
}

export function unifiedRows(hunks: readonly DiffHunk[]): Rows<UnifiedRow> {
  const rows: UnifiedRow[] = [];
  let widest = 0;
  for (const hunk of hunks) {
    rows.push({ kind: 'hunk', text: hunkHeader(hunk) });
    let old = hunk.oldStart;
    let now = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = markOf(line);
      const text = line.slice(1);
      if (mark === '\\') {
        rows.push({ kind: 'note', text: line.slice(2) });
        continue;
      }
      widest = Math.max(widest, text.length);
      rows.push({
        kind: 'line',
        mark,
        old: mark === '+' ? null : old++,
        new: mark === '-' ? null : now++,
        text,
      });
    }
  }
  return { rows, widest, digits: digitsOf(hunks) };
}

export function splitRows(hunks: readonly DiffHunk[]): Rows<SplitRow> {
  const rows: SplitRow[] = [];
  let widest = 0;
  for (const hunk of hunks) {
    rows.push({ kind: 'hunk', text: hunkHeader(hunk) });
    let old = hunk.oldStart;
    let now = hunk.newStart;
    // A run of removed lines then added ones: the first removed beside the first added, and so on.
    let removed: Side[] = [];
    let added: Side[] = [];
    const flush = () => {
      for (let i = 0; i < Math.max(removed.length, added.length); i++) {
        rows.push({ kind: 'pair', left: removed[i] ?? null, right: added[i] ?? null });
      }
      removed = [];
      added = [];
    };
    for (const line of hunk.lines) {
      const mark = markOf(line);
      const text = line.slice(1);
      if (mark === '\\') {
        flush();
        rows.push({ kind: 'note', text: line.slice(2) });
        continue;
      }
      widest = Math.max(widest, text.length);
      if (mark === '-') removed.push({ number: old++, mark, text });
      else if (mark === '+') added.push({ number: now++, mark, text });
      else {
        flush();
        rows.push({
          kind: 'pair',
          left: { number: old++, mark, text },
          right: { number: now++, mark, text },
        });
      }
    }
    flush();
  }
  return { rows, widest, digits: digitsOf(hunks) };
}
