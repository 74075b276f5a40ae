import { describe, expect, it } from 'vitest';
import { parseHunks } from './hunks';

/** Reading `git diff-tree -p` output: hunks with their marks, a missing newline, and the bound that cuts. */

const PATCH = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 1111111..2222222 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,3 +1,3 @@ function main() {',
  ' one',
  '-two',
  '+2',
  ' three',
  '@@ -10 +10,2 @@',
  '-last',
  '\\ No newline at end of file',
  '+last',
  '+more',
  '',
].join('\n');

describe('parseHunks', () => {
  it('reads each hunk, its header and its lines, leaving the file header out', () => {
    expect(parseHunks(PATCH, 1_000)).toEqual({
      lines: 8,
      hunks: [
        {
          oldStart: 1,
          oldLines: 3,
          newStart: 1,
          newLines: 3,
          header: 'function main() {',
          lines: [' one', '-two', '+2', ' three'],
        },
        {
          oldStart: 10,
          oldLines: 1,
          newStart: 10,
          newLines: 2,
          header: '',
          lines: ['-last', '\\ No newline at end of file', '+last', '+more'],
        },
      ],
    });
  });

  it('keeps no more lines than its bound, and counts them all', () => {
    const { hunks, lines } = parseHunks(PATCH, 5);
    expect(lines).toBe(8);
    expect(hunks.flatMap((hunk) => hunk.lines)).toEqual([' one', '-two', '+2', ' three', '-last']);
  });
});
