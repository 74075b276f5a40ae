import { initialConversation, type ConversationState } from '../../../shared/conversation';
import type { Store, StoreSet, Tab } from './types';

/**
 * What every part of the store does to tabs: make one, change one, give one a new key, and run an action
 * that may fail.
 */

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

/**
 * The tab `from` under its new key `tab.id` (a conversation's id once its CLI has started, or a saved tab
 * resumed), in the same place among the tabs, and still the open one if it was.
 */
export function rekeyTab(
  state: Store,
  from: string,
  tab: Tab,
): Pick<Store, 'tabs' | 'tabOrder' | 'activeTab'> {
  const { [from]: _old, ...rest } = state.tabs;
  return {
    tabs: { ...rest, [tab.id]: tab },
    tabOrder: state.tabOrder.map((existing) => (existing === from ? tab.id : existing)),
    activeTab: state.activeTab === from ? tab.id : state.activeTab,
  };
}

export function tabActions(set: StoreSet) {
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
