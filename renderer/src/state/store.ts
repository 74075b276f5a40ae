import { create, type StateCreator } from 'zustand';
import { createAppSlice, rememberTab } from './app';
import { createBranchSlice } from './branches';
import { createChangesSlice } from './changes';
import { createConversationsSlice } from './conversations';
import { createDraftsSlice } from './drafts';
import { createFindSlice } from './find';
import { createKeptTabsSlice } from './kept-tabs';
import { notifiedInFrame } from './frame';
import { createLibrarySlice } from './library';
import { createLimitsSlice } from './limits';
import { createTerminalSlice } from './terminal';
import { trustSlice } from './trust';
import type { Store } from './types';
import { createUsageSlice } from './usage';
import { createWorktreesSlice } from './worktrees';

/**
 * The renderer's one store, made of its slices (app, conversations, drafts, kept tabs, find, library,
 * branches, trust, changes, worktrees, usage, limits): each owns its part of the state and reaches the others through `get()`. What a slice keeps
 * besides its state (counters, requests in flight, timers) lives in the store it was made for, so a test
 * can make a fresh store with `createStore()`. Updates from main are merged per frame (frame.ts).
 */

const storeState: StateCreator<Store> = (set, get) => ({
  ...createAppSlice(set, get),
  ...createConversationsSlice(set, get),
  ...createTerminalSlice(set, get),
  ...createDraftsSlice(set, get),
  ...createKeptTabsSlice(set, get),
  ...createFindSlice(set, get),
  ...createLibrarySlice(set, get),
  ...createBranchSlice(set, get),
  ...trustSlice(set, get),
  ...createChangesSlice(set, get),
  ...createWorktreesSlice(set, get),
  ...createUsageSlice(set, get),
  ...createLimitsSlice(set, get),
});

/** A store of its own, as the app makes one: which tab is open is remembered for the next reload. */
export function createStore() {
  const store = create<Store>()(notifiedInFrame(storeState));
  store.subscribe((state, previous) => {
    if (state.activeTab && state.activeTab !== previous.activeTab) rememberTab(state.activeTab);
    const tabsChanged = state.tabs !== previous.tabs || state.tabOrder !== previous.tabOrder;
    if (tabsChanged || state.activeTab !== previous.activeTab) state.tellTabs();
  });
  return store;
}

export const useStore = createStore();
