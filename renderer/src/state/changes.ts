/**
 * The Changes slice: per conversation, its Changes panel (issue 27): the view main reads from its snapshots
 * (every file changed since the start, or what one step changed), the diff of the file picked, and reverts,
 * each asked about first (`previewRevert`) and then done (`revert`). Only the answer to the latest question
 * is kept, so a slow answer never replaces a newer one; a panel that is open is read again whenever main
 * says its conversation's Changes moved on (a turn ended, a revert was done).
 */
import { call } from '../host/api';
import type { ChangeStep, RevertTarget } from '../../../shared/ipc';
import { tabOfConversation } from './selectors';
import type { ChangesPanel, ChangesScope, ChangesSlice, DiffLayout, StoreGet, StoreSet } from './types';

const LAYOUT_KEY = 'byre.changes.diffLayout';

/** A conversation's panel before anything is read: closed, empty. */
export const closedPanel: ChangesPanel = {
  open: false,
  step: null,
  scope: null,
  view: null,
  total: null,
  loading: false,
  error: null,
  stale: false,
  selected: null,
  diff: null,
  diffError: null,
  revert: null,
  reverted: null,
};

/** The layout picked last time, in this browser (unified until one is picked). */
function rememberedLayout(): DiffLayout {
  try {
    return localStorage.getItem(LAYOUT_KEY) === 'split' ? 'split' : 'unified';
  } catch {
    return 'unified';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const files = (count: number) => `${count} file${count === 1 ? '' : 's'}`;

/** What a revert did, in words, for the line the panel shows after it. */
export function revertedWords(step: ChangeStep | null, kept: readonly string[]): string {
  if (!step) {
    const one = kept.length === 1;
    return `Nothing was reverted: ${kept.join(', ')} changed since the last turn, and ${one ? 'was' : 'were'} left as ${one ? 'it is' : 'they are'}.`;
  }
  const done =
    step.kind === 'undo'
      ? `Undid revert ${step.undoes}: ${files(step.files)} put back.`
      : step.kind === 'revert'
        ? `Reverted ${files(step.files)} to ${step.to}.`
        : `${files(step.files)} changed.`;
  if (kept.length === 0) return done;
  return `${done} Left as they are, because they changed since the last turn: ${kept.join(', ')}.`;
}

export function createChangesSlice(set: StoreSet, get: StoreGet): ChangesSlice {
  /** The latest view and diff asked for, per conversation: an answer to an older question is dropped. */
  const viewAsked = new Map<string, number>();
  const diffAsked = new Map<string, number>();
  let asked = 0;

  const panelOf = (conversationId: string) => get().changes[conversationId] ?? closedPanel;
  const patch = (conversationId: string, update: Partial<ChangesPanel>) =>
    set((state) => ({
      changes: {
        ...state.changes,
        [conversationId]: { ...(state.changes[conversationId] ?? closedPanel), ...update },
      },
    }));

  /** What to ask main for: the scope picked, else a worktree conversation's base; nothing said: its own. */
  const scopeOf = (conversationId: string): { scope?: ChangesScope } => {
    const picked = panelOf(conversationId).scope;
    if (picked) return { scope: picked };
    return tabOfConversation(get(), conversationId)?.conversation.worktree ? { scope: 'base' } : {};
  };

  const readDiff = async (conversationId: string, path: string) => {
    const number = ++asked;
    diffAsked.set(conversationId, number);
    const step = panelOf(conversationId).step;
    try {
      const diff = await call('changesDiff', { conversationId, step, path, ...scopeOf(conversationId) });
      if (diffAsked.get(conversationId) === number) patch(conversationId, { diff, diffError: null });
    } catch (error) {
      if (diffAsked.get(conversationId) === number) patch(conversationId, { diffError: messageOf(error) });
    }
  };

  const slice: ChangesSlice = {
    changes: {},
    diffLayout: rememberedLayout(),

    toggleChanges(conversationId) {
      if (panelOf(conversationId).open) {
        slice.closeChanges(conversationId);
        return;
      }
      patch(conversationId, { open: true, stale: false });
      void get().refreshChanges(conversationId);
    },

    closeChanges(conversationId) {
      if (get().changes[conversationId]) patch(conversationId, { open: false, revert: null });
    },

    async pickChangesScope(conversationId, scope) {
      patch(conversationId, { scope, diff: null, diffError: null, reverted: null });
      await get().refreshChanges(conversationId);
    },

    async pickChangesStep(conversationId, step) {
      // The diff shown was of the other step: it goes, and comes back for the new one if its file is listed.
      patch(conversationId, { step, diff: null, diffError: null, reverted: null });
      await get().refreshChanges(conversationId);
    },

    async refreshChanges(conversationId) {
      const number = ++asked;
      viewAsked.set(conversationId, number);
      const step = panelOf(conversationId).step;
      patch(conversationId, { loading: true });
      try {
        const view = await call('changes', { conversationId, step, ...scopeOf(conversationId) });
        if (viewAsked.get(conversationId) !== number) return;
        const selected = panelOf(conversationId).selected;
        const stillListed = selected !== null && view.files.some((file) => file.path === selected);
        patch(conversationId, {
          view,
          loading: false,
          error: null,
          ...(view.step === null ? { total: view.files.length } : {}),
          ...(stillListed ? {} : { selected: null, diff: null, diffError: null }),
        });
        if (stillListed) await readDiff(conversationId, selected);
      } catch (error) {
        if (viewAsked.get(conversationId) === number)
          patch(conversationId, { loading: false, error: messageOf(error) });
      }
    },

    async selectChangedFile(conversationId, path) {
      const panel = panelOf(conversationId);
      patch(conversationId, {
        selected: path,
        diffError: null,
        ...(path === panel.selected ? {} : { diff: null }),
      });
      if (path === null) {
        diffAsked.set(conversationId, ++asked);
        return;
      }
      await readDiff(conversationId, path);
    },

    setDiffLayout(layout) {
      set({ diffLayout: layout });
      try {
        localStorage.setItem(LAYOUT_KEY, layout);
      } catch {
        // Storage off: the layout lasts until the window reloads.
      }
    },

    async askRevert(conversationId, target: RevertTarget) {
      patch(conversationId, {
        revert: { target, preview: null, overwriteChanged: false, error: null, busy: true },
        reverted: null,
      });
      const still = () => panelOf(conversationId).revert?.target === target;
      try {
        const preview = await call('previewRevert', { conversationId, target });
        const revert = panelOf(conversationId).revert;
        if (revert && still()) patch(conversationId, { revert: { ...revert, preview, busy: false } });
      } catch (error) {
        const revert = panelOf(conversationId).revert;
        if (revert && still())
          patch(conversationId, { revert: { ...revert, error: messageOf(error), busy: false } });
      }
    },

    setOverwriteChanged(conversationId, overwriteChanged) {
      const revert = panelOf(conversationId).revert;
      if (revert) patch(conversationId, { revert: { ...revert, overwriteChanged } });
    },

    cancelRevert(conversationId) {
      patch(conversationId, { revert: null });
    },

    async confirmRevert(conversationId) {
      const revert = panelOf(conversationId).revert;
      if (!revert?.preview || revert.busy) return;
      patch(conversationId, { revert: { ...revert, busy: true, error: null } });
      try {
        const done = await call('revert', {
          conversationId,
          target: revert.target,
          overwriteChanged: revert.overwriteChanged,
        });
        patch(conversationId, { revert: null, reverted: revertedWords(done.step, done.kept) });
      } catch (error) {
        const now = panelOf(conversationId).revert;
        if (now) patch(conversationId, { revert: { ...now, busy: false, error: messageOf(error) } });
        return;
      }
      await get().refreshChanges(conversationId);
    },

    changesArrived(batches) {
      for (const [conversationId, events] of batches) {
        const panel = get().changes[conversationId];
        if (!panel || !events.some((event) => event.kind === 'changes')) continue;
        if (panel.open) void get().refreshChanges(conversationId);
        else if (!panel.stale) patch(conversationId, { stale: true });
      }
    },
  };
  return slice;
}
