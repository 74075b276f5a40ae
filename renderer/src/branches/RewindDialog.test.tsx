import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { FileRewind } from '../../../shared/ipc';
import type { RewindDialog } from '../state/types';
import { RewindDialogView } from './BranchViews';

/**
 * The Rewind dialog's list of files: those a shell command changed, which Byre's snapshots restore (the
 * CLI's checkpoints miss them), are marked "changed by a command", whichever way main names them.
 */

/** The store as the dialog reads it: one tab, its Rewind dialog open (a server render reads no live store). */
const shown = vi.hoisted(() => ({ rewind: null as RewindDialog | null }));
vi.mock('../state/store', () => ({
  useStore: (select: (state: unknown) => unknown) =>
    select({
      tabs: { t1: { rewind: shown.rewind } },
      closeRewind: () => undefined,
      applyRewind: () => undefined,
    }),
}));

function render(preview: FileRewind): string[] {
  shown.rewind = { messageId: 'm1', preview, error: null, busy: false };
  const html = renderToStaticMarkup(<RewindDialogView tabId="t1" />);
  const list = /<ul class="rewind-file-list"[^>]*>([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((match) =>
    match[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

const preview: FileRewind = {
  canRewind: true,
  filesChanged: ['/work/src/app.ts', '/work/made-by-bash.txt'],
  insertions: 3,
  deletions: 1,
  fileChanges: null,
  byCommand: ['/work/made-by-bash.txt'],
  reason: null,
};

describe('the Rewind dialog', () => {
  it('marks the files a command changed, from the preview’s list', () => {
    expect(render(preview)).toEqual(['/work/src/app.ts', '/work/made-by-bash.txt changed by a command']);
  });

  it('marks them from the per-file counts too', () => {
    expect(
      render({
        ...preview,
        byCommand: [],
        fileChanges: [
          { path: '/work/src/app.ts', insertions: 2, deletions: 1, byCommand: false },
          { path: '/work/made-by-bash.txt', insertions: 1, deletions: 0, byCommand: true },
        ],
      }),
    ).toEqual(['/work/src/app.ts +2 −1', '/work/made-by-bash.txt +1 −0 changed by a command']);
  });
});
