import type { StoreApi } from 'zustand';
import { initialConversation, type ConversationState } from '../../../shared/conversation';
import type { Store, Tab } from './store';

/** What every part of the store does to tabs: make one, change one, and run an action that may fail. */

export function newTab(id: string, cwd: string, patch: Partial<Tab> = {}): Tab {
  return {
    id,
    cwd,
    starting: false,
    startError: null,
    requested: {},
    conversation: initialConversation() as ConversationState,
    actionError: null,
    saved: null,
    paging: null,
    eventsFrom: 0,
    focus: null,
    branches: null,
    branch: null,
    rewind: null,
    branchNotice: null,
    compare: null,
    context: null,
    stoppingTasks: [],
    fromMain: false,
    ...patch,
  };
}

export function tabActions(set: StoreApi<Store>['setState']) {
  const patchTab = (tabId: string, patch: Partial<Tab> | ((tab: Tab) => Partial<Tab>)) =>
    set((state) => {
      const tab = state.tabs[tabId];
      if (!tab) return {};
      const next = typeof patch === 'function' ? patch(tab) : patch;
      return { tabs: { ...state.tabs, [tabId]: { ...tab, ...next } } };
    });

  /** Runs an action for a tab, turning a failure into a message on that tab instead of an exception. */
  const guarded = async (tabId: string, action: () => Promise<void>) => {
    patchTab(tabId, { actionError: null });
    try {
      await action();
    } catch (error) {
      patchTab(tabId, { actionError: error instanceof Error ? error.message : String(error) });
    }
  };

  return { patchTab, guarded };
}
