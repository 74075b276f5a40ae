/**
 * The kept-tabs slice: the window's tabs come back after Byre quits and starts again. Main keeps them
 * (main/data/kept-tabs.ts); this slice tells main the tabs each time they change, and when the window
 * opens, reopens those it does not already show: a conversation that was sent something as a saved one,
 * with Resume, and its draft; one never sent anything but with a draft as a new conversation in its folder,
 * the draft in its composer. A reload reopens the same tabs, never a second set: a tab already shown (main
 * still runs it) is matched by its conversation or its session and only put back in its place.
 */
import type { InvokeRequest, InvokeResponse } from '../../../shared/ipc';
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import type { KeptTabsSlice, Store, StoreGet, StoreSet, Tab } from './types';

/** The saved session a tab shows; null for a conversation not yet sent anything (nothing saved to open). */
export function tabSession(tab: Tab): string | null {
  if (tab.id.startsWith('saved:')) return tab.id.slice('saved:'.length);
  if (tab.saved) return tab.saved.sessionId;
  // A Terminal conversation's turns are on its screen, not in the tab's log: its session is what comes back.
  // (Once a prompt was typed there, or it carried a saved one on: before, the CLI has saved nothing to open.)
  if (tab.conversation.lane === 'terminal' && tab.conversation.activity) return tab.conversation.sessionId;
  return tab.conversation.order.length > 0 ? tab.conversation.sessionId : null;
}

/** The window's tabs as main keeps them. */
export function windowTabs(state: Store): InvokeRequest<'setOpenTabs'> {
  const tabs = state.tabOrder.flatMap((id) => {
    const tab = state.tabs[id];
    if (!tab) return [];
    // A conversation on another host comes back there, never on this computer.
    const host = tab.conversation.host ?? tab.requested?.host ?? null;
    return [
      {
        conversationId: tab.starting ? null : liveConversationId(tab),
        // A tab still starting to carry on a session (on a host) keeps it, should Byre quit meanwhile.
        sessionId: tabSession(tab) ?? tab.requested?.resume ?? null,
        cwd: tab.cwd,
        ...(host ? { host } : {}),
      },
    ];
  });
  const active = state.activeTab ? state.tabOrder.indexOf(state.activeTab) : -1;
  return { tabs, active: active >= 0 ? active : null };
}

export function createKeptTabsSlice(set: StoreSet, get: StoreGet): KeptTabsSlice {
  /** What main was last told, so that a change elsewhere in the store tells it nothing. */
  let told = '';

  return {
    tabsKept: false,
    keptTabsProblem: null,

    reopenTabs(kept: InvokeResponse<'openTabs'>) {
      const placed: string[] = [];
      for (const tab of kept.tabs) {
        // Main still runs it (the page reloaded), or the window shows its session already.
        const shown = get().tabOrder.find((id) => {
          const existing = get().tabs[id];
          if (!existing) return false;
          if (tab.conversationId !== null && liveConversationId(existing) === tab.conversationId) return true;
          return tab.sessionId !== null && tabSession(existing) === tab.sessionId;
        });
        if (shown) {
          placed.push(shown);
          continue;
        }
        // Each adds its tab at once, before it waits for anything: the tabs come back in their order.
        if (tab.host) {
          // Its session is on the host (the library here does not have it): carried on there.
          void get().startConversation(tab.cwd, {
            host: tab.host,
            ...(tab.sessionId !== null ? { resume: tab.sessionId } : {}),
          });
        } else if (tab.sessionId !== null) void get().openSaved(tab.sessionId);
        else void get().startConversation(tab.cwd);
        const id = get().activeTab;
        if (!id) continue;
        placed.push(id);
        if (tab.draft) get().setDraftText(id, tab.draft);
      }
      const rest = get().tabOrder.filter((id) => !placed.includes(id));
      const active = kept.active === null ? undefined : placed[kept.active];
      set((state) => ({
        tabOrder: [...placed.filter((id) => state.tabs[id]), ...rest],
        activeTab: active ?? state.activeTab,
        keptTabsProblem: kept.problem,
      }));
    },

    startKeepingTabs() {
      set({ tabsKept: true });
      get().tellTabs();
    },

    tellTabs() {
      const state = get();
      if (!state.tabsKept) return;
      const request = windowTabs(state);
      const signature = JSON.stringify(request);
      if (signature === told) return;
      told = signature;
      // Best effort: the tabs on screen are what counts; the next change tells main again.
      void call('setOpenTabs', request).catch(() => {
        told = '';
      });
    },

    dismissKeptTabsProblem() {
      set({ keptTabsProblem: null });
    },
  };
}
