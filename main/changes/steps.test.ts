import { describe, expect, it } from 'vitest';
import type { SnapshotChange } from './snapshot-store';
import { firstWords, revertActions } from './steps';

/** What a revert says it will do to each file before it is done. */

const change = (
  path: string,
  status: SnapshotChange['status'],
  from: string | null = null,
): SnapshotChange => ({
  path,
  from,
  status,
  kind: 'file',
  added: 1,
  removed: 1,
});

describe('revertActions', () => {
  it('restores, deletes or makes again each file asked for, flags one changed since, and leaves the rest', () => {
    const toNow = [change('edited.ts', 'modified'), change('made.ts', 'added'), change('gone.ts', 'deleted')];
    expect(
      revertActions(
        toNow,
        ['edited.ts', 'made.ts', 'gone.ts', 'as-it-was.ts'],
        [change('made.ts', 'modified')],
      ),
    ).toEqual([
      { path: 'edited.ts', action: 'restore', changedSince: false },
      { path: 'made.ts', action: 'delete', changedSince: true },
      { path: 'gone.ts', action: 'create', changedSince: false },
    ]);
    expect(revertActions(toNow, ['edited.ts'], [])).toEqual([
      { path: 'edited.ts', action: 'restore', changedSince: false },
    ]);
  });

  it('undoes a rename whichever side is asked for: the new path goes, the old comes back', () => {
    expect(revertActions([change('new-name.ts', 'renamed', 'old-name.ts')], ['new-name.ts'], [])).toEqual([
      { path: 'old-name.ts', action: 'create', changedSince: false },
      { path: 'new-name.ts', action: 'delete', changedSince: false },
    ]);
  });
});

describe('firstWords', () => {
  it('names a turn by its prompt on one line, cut at 80 characters', () => {
    expect(firstWords('fix the\n  failing   test')).toBe('fix the failing test');
    expect(firstWords('word '.repeat(40))).toHaveLength(80);
  });
});
