/**
 * The app slice: the host's info, whether the page hears from it, which tab is open (remembered per window),
 * and the conversations main already has open when the page loads or the connection comes back (with the
 * tabs kept from before, kept-tabs.ts).
 */
import type { InvokeResponse } from '../../../shared/ipc';
import { openWindow } from '../../../shared/conversation/paging';
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import { newTab } from './tabs';
import type { AppSlice, Store, StoreGet, StoreSet } from './types';

/**
 * A tab for each conversation open in main that this window does not show, with the draft main kept of
 * it. With `refresh`, those it shows are rebuilt from main's window of them too (after a lost connection).
 */
function withOpenConversations(
  state: Store,
  open: InvokeResponse<'listConversations'>['conversations'],
  refresh: boolean,
): Pick<Store, 'tabs' | 'tabOrder' | 'drafts'> {
  const tabs = { ...state.tabs };
  const tabOrder = [...state.tabOrder];
  const drafts = { ...state.drafts };
  for (const { snapshot, draft, ...window } of open) {
    const id = snapshot.conversationId;
    const showing = Object.values(tabs).find((tab) => liveConversationId(tab) === id);
    if (showing) {
      // Only a tab whose whole history is in main's log can be rebuilt from it: one resumed from the
      // library, or showing branches, holds history main's log of this process does not.
      if (refresh && showing.fromMain && !showing.branches) {
        tabs[showing.id] = { ...showing, ...openWindow(snapshot, window) };
      }
      continue;
    }
    // After a lost connection, no tab is added: a fork still starting, or a tab closed meanwhile, would
    // come back as a tab of its own. Conversations opened from another window show after a reload.
    if (refresh) continue;
    if (tabs[id] || Object.values(tabs).some((tab) => tab.branches?.some((b) => b.conversationId === id))) {
      continue;
    }
    tabs[id] = newTab(id, snapshot.cwd, { ...openWindow(snapshot, window), fromMain: true });
    tabOrder.push(id);
    if (draft.text || draft.images.length > 0) drafts[id] = state.draftFromMain(draft);
  }
  return { tabs, tabOrder, drafts };
}

/** Which tab was open, kept per window (sessionStorage) so that a reload opens it again. */
const ACTIVE_TAB_KEY = 'byre.activeTab';

function rememberedTab(): string | null {
  try {
    return sessionStorage.getItem(ACTIVE_TAB_KEY);
  } catch {
    return null;
  }
}

export function rememberTab(tabId: string): void {
  try {
    sessionStorage.setItem(ACTIVE_TAB_KEY, tabId);
  } catch {
    // Storage off: a reload opens the first tab.
  }
}

/**
 * What the window shows by the person's own choice, before its tabs are brought back: a window starts with
 * neither the form nor a tab chosen, so either one means a click came first.
 */
function choiceMade(state: {
  composingNew: boolean;
  activeTab: string | null;
  tabs: Record<string, unknown>;
}): { composingNew: boolean; activeTab: string | null } | null {
  if (state.composingNew) return { composingNew: true, activeTab: null };
  if (state.activeTab !== null && state.tabs[state.activeTab]) {
    return { composingNew: false, activeTab: state.activeTab };
  }
  return null;
}

export function createAppSlice(set: StoreSet, get: StoreGet): AppSlice {
  return {
    info: null,
    infoError: null,
    connected: true,
    setConnected(connected) {
      if (get().connected !== connected) set({ connected });
    },
    activeTab: null,
    composingNew: false,
    newConversationLane: null,

    async loadInfo() {
      try {
        const [info, open, kept] = await Promise.all([
          call('appInfo', {}),
          call('listConversations', {}),
          // Without them the window still opens; the tabs it shows are kept from now on.
          call('openTabs', {}).catch(() => null),
        ]);
        set({ info, infoError: null });
        // What the person chose while the host was answering (the New conversation form, or a conversation
        // from the library) stays in view: the tabs this window brings back open behind it.
        const chosen = choiceMade(get());
        // Conversations already open in main (this window reloaded, or another one opened them) come back
        // as they stand; the folder from the command line is opened only once.
        if (open.conversations.length > 0) {
          get().draftsHeard(
            open.conversations.map(({ snapshot, draft }) => ({
              conversationId: snapshot.conversationId,
              draft,
            })),
          );
          set((state) => {
            const opened = withOpenConversations(state, open.conversations, false);
            const remembered = rememberedTab();
            const activeTab =
              state.activeTab ??
              (remembered && opened.tabs[remembered] ? remembered : (opened.tabOrder[0] ?? null));
            return { ...opened, activeTab, composingNew: false };
          });
        }
        const fresh = open.conversations.length === 0 && get().tabOrder.length === 0;
        // The tabs open when Byre quit, or (a reload) those this window had.
        if (kept) get().reopenTabs(kept);
        // Its tab is there at once; the start is waited for after.
        const starting =
          fresh && info.initialCwd
            ? get().startConversation(info.initialCwd, info.initialLane ? { lane: info.initialLane } : {})
            : null;
        if (!starting && get().tabOrder.length === 0) set({ composingNew: true });
        if (chosen) set(chosen);
        await starting;
        get().startKeepingTabs();
      } catch (error) {
        set({ infoError: error instanceof Error ? error.message : String(error) });
      }
    },

    async adoptOpenConversations() {
      let open: InvokeResponse<'listConversations'>;
      try {
        open = await call('listConversations', {});
      } catch {
        // The conversation runs in main all the same; the next reload shows it.
        return;
      }
      get().draftsHeard(
        open.conversations.map(({ snapshot, draft }) => ({ conversationId: snapshot.conversationId, draft })),
      );
      set((state) => withOpenConversations(state, open.conversations, false));
    },

    async resync() {
      let open: InvokeResponse<'listConversations'>;
      try {
        open = await call('listConversations', {});
      } catch {
        // Lost again already; the next reconnection tries again.
        return;
      }
      set((state) => withOpenConversations(state, open.conversations, true));
      get().tellDrafts();
      // Worktrees' changes said meanwhile were not heard.
      void get().loadWorktrees();
      void get().loadLimits();
    },

    showNewConversation(lane) {
      // The form takes the main area, as a tab does: the Usage view gives it up.
      set({ composingNew: true, activeTab: null, usageOpen: false, newConversationLane: lane ?? null });
    },

    activate(tabId) {
      set({ activeTab: tabId, composingNew: false, usageOpen: false });
      get().seen(tabId);
    },

    seen(tabId) {
      set((state) => {
        const tab = state.tabs[tabId];
        return tab?.doneUnseen ? { tabs: { ...state.tabs, [tabId]: { ...tab, doneUnseen: false } } } : {};
      });
    },

    async reloadInfo() {
      set({ info: await call('appInfo', {}) });
    },

    async setDefaultPermissionMode(mode) {
      try {
        await call('setDefaultPermissionMode', { mode });
      } catch {
        return;
      }
      set((state) => ({ info: state.info && { ...state.info, defaultPermissionMode: mode } }));
    },

    async pickFolder() {
      try {
        return (await call('pickFolder', {})).path;
      } catch {
        return null;
      }
    },

    async checkFolder(cwd) {
      return (await call('checkFolder', { cwd })).path;
    },

    async openLink(url) {
      // A link main refuses to open (not http or https) just does nothing, as a dead link would.
      await call('openLink', { url }).catch(() => undefined);
    },

    readSettings: () => call('settings', {}),
    listRemoteHosts: () => call('remoteHosts', {}),
    listRemoteFolders: (host, prefix) => call('remoteFolders', { host, prefix }),
    async acceptHostKey(host, fingerprints) {
      await call('acceptHostKey', { host, fingerprints });
    },
    saveSettings: (values) => call('saveSettings', values),
    testCli: (path) => call('testCli', { path }),
    async openDataFolder() {
      await call('openDataFolder', {});
    },
  };
}
