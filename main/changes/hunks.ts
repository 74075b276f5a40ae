/**
 * A unified diff as `git diff-tree -p` writes it, read into hunks for the Changes panel: the lines of each
 * hunk with their marks, and no more than a bound of them in all (a huge diff is cut, and says so).
 */
import type { DiffHunk } from '../../shared/ipc/changes';

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** The hunks, up to `bound` lines of them in all, and how many lines the diff has. */
export function parseHunks(patch: string, bound: number): { hunks: DiffHunk[]; lines: number } {
  const hunks: DiffHunk[] = [];
  let current: DiffHunk | null = null;
  let lines = 0;
  let from = 0;
  while (from < patch.length) {
    let to = patch.indexOf('\n', from);
    if (to === -1) to = patch.length;
    const line = patch.slice(from, to);
    from = to + 1;
    const header = line.startsWith('@@') ? HUNK_HEADER.exec(line) : null;
    if (header) {
      current = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        header: header[5] ?? '',
        lines: [],
      };
      if (lines < bound) hunks.push(current);
      continue;
    }
    // Before the first hunk: the file's header lines (diff --git, index, ---, +++).
    if (!current) continue;
    const mark = line[0];
    if (mark !== ' ' && mark !== '+' && mark !== '-' && mark !== '\\') {
      // The next file's header, when a rename's two paths were asked for.
      current = null;
      continue;
    }
    lines++;
    if (lines <= bound) current.lines.push(line);
  }
  return { hunks, lines };
}
