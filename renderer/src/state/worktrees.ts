/**
 * The worktrees slice (issue 28): how each worktree Byre made stands (for the sidebar and the header), read
 * once at start and then replaced whole by each `worktreesChanged` from main; what the new-conversation form
 * offers for a folder; and what a worktree conversation can do to finish: merge into its base, a pull
 * request, open its folder, remove it. After a removal the tab shows the conversation read-only from the
 * library, in the same place, as opening a saved one does (its Resume makes the worktree again).
 */
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import { tabActions } from './tabs';
import type { WorktreeStatus } from '../../../shared/ipc';
import type { StoreGet, StoreSet, WorktreesSlice } from './types';
import { worktreeStatusKey } from '../../../shared/worktrees';

/** By folder and host (worktreeStatusKey). */
const byPath = (list: readonly WorktreeStatus[]): Record<string, WorktreeStatus> =>
  Object.fromEntries(list.map((status) => [worktreeStatusKey(status.path, status.host), status]));

export function createWorktreesSlice(set: StoreSet, get: StoreGet): WorktreesSlice {
  const { guarded } = tabActions(set);
  /** Counts what main has said, so a read that started before an event does not undo it. */
  let heard = 0;

  /** The conversation a tab's worktree actions go to; throws when the branch shown is not running. */
  const conversationOf = (tabId: string): string => {
    const tab = get().tabs[tabId];
    const id = tab ? liveConversationId(tab) : null;
    if (!id) throw new Error('This conversation is not running; resume it first.');
    return id;
  };

  return {
    worktrees: {},
    worktreeDialog: null,

    async loadWorktrees() {
      const before = heard;
      try {
        const { worktrees } = await call('worktrees', {});
        if (heard === before) set({ worktrees: byPath(worktrees) });
      } catch {
        // The statuses only add to what the rows show (their branch, their folder); without them the
        // sidebar lists the conversations as it would anyway, and the next change event brings them.
      }
    },

    worktreesArrived(worktrees) {
      heard += 1;
      set({ worktrees: byPath(worktrees) });
    },

    worktreeChoices: (cwd, host) => call('worktreeChoices', host ? { cwd, host } : { cwd }),

    openWorktreeDialog(tabId, kind) {
      set({ worktreeDialog: { tabId, kind } });
    },

    closeWorktreeDialog() {
      set({ worktreeDialog: null });
    },

    worktreeDraft: async (tabId) => call('worktreeDraft', { conversationId: conversationOf(tabId) }),

    mergeWorktree: async (tabId, merge) =>
      call('mergeWorktree', { conversationId: conversationOf(tabId), ...merge }),

    createPullRequest: async (tabId, pullRequest) =>
      call('createPullRequest', { conversationId: conversationOf(tabId), ...pullRequest }),

    openWorktreeFolder: (tabId, where) =>
      guarded(tabId, async () => {
        await call('openWorktreeFolder', { conversationId: conversationOf(tabId), in: where });
      }),

    async removeWorktree(tabId, deleteBranch) {
      const { sessionId } = await call('removeWorktree', {
        conversationId: conversationOf(tabId),
        deleteBranch,
      });
      const before = get();
      const place = before.tabOrder.indexOf(tabId);
      const wasActive = before.activeTab === tabId;
      // Main has ended its CLI: the live tab goes without closing anything, and the saved one takes its place.
      get().closeChanges(tabId);
      get().closeFind(tabId);
      set((state) => {
        const { [tabId]: _removed, ...tabs } = state.tabs;
        return { tabs, tabOrder: state.tabOrder.filter((id) => id !== tabId), worktreeDialog: null };
      });
      await get().openSaved(sessionId);
      const savedId = `saved:${sessionId}`;
      set((state) => {
        if (!state.tabs[savedId] || place < 0) return {};
        const order = state.tabOrder.filter((id) => id !== savedId);
        order.splice(Math.min(place, order.length), 0, savedId);
        return { tabOrder: order, activeTab: wasActive ? savedId : before.activeTab };
      });
    },

    setupAction: (tabId, action) =>
      guarded(tabId, async () => {
        await call('setupAction', { conversationId: conversationOf(tabId), action });
      }),

    worktreeSetups: async () => (await call('worktreeSetups', {})).setups,

    setWorktreeSetup: (repository, command, host) =>
      call('setWorktreeSetup', host ? { repository, command, host } : { repository, command }),
  };
}
