import type { StateCreator } from 'zustand';
import { applyEvents, initialConversation, type ConversationState } from '../../../shared/conversation';
import type { ConversationEvent, ConversationSnapshot, IpcError } from '../../../shared/ipc';
import type { LibraryRow, LibraryStatus, SearchHit } from '../../../shared/library';
import { call } from '../api';
import { findMatches, type Store, type Tab } from '../store';

/**
 * The library slice: the sidebar's rows and search, and saved conversations opened read-only in tabs. A
 * saved conversation is reduced by the same reducer as a live one, from the events main read out of its
 * files, a page at a time from the end.
 */

/** A tab's saved conversation: what has been loaded of it so far, and where the page before that ends. */
export interface SavedView {
  sessionId: string;
  row: LibraryRow;
  /** Every event loaded so far, in file order. */
  events: ConversationEvent[];
  /** Where the earlier page ends; null once the start is loaded. */
  before: string | null;
  loadingEarlier: boolean;
  /** Lines of its files that could not be read. */
  skipped: number;
}

export interface LibrarySlice {
  sidebarOpen: boolean;
  libraryRows: LibraryRow[];
  libraryStatus: LibraryStatus | null;
  libraryError: string | null;
  /** The rows have arrived at least once. */
  libraryLoaded: boolean;
  /** Only this folder's conversations are listed (and searched). */
  libraryFolder: string | null;
  libraryQuery: string;
  /** Search results for libraryQuery; null while there is no query. */
  searchHits: SearchHit[] | null;
  toggleSidebar(): void;
  refreshLibrary(): Promise<void>;
  setLibraryFolder(folder: string | null): void;
  searchLibrary(query: string): Promise<void>;
  /** Opens a saved conversation (or switches to its tab), optionally at a message with `text` highlighted. */
  openSaved(sessionId: string, jumpTo?: { messageUuid: string | null; text: string }): Promise<void>;
  loadEarlier(tabId: string): Promise<void>;
  resumeSaved(tabId: string): Promise<void>;
  continueSaved(tabId: string): Promise<void>;
  renameSaved(sessionId: string, title: string): Promise<void>;
  hideSaved(sessionId: string): Promise<void>;
  exportSaved(sessionId: string, format: 'markdown' | 'jsonl'): Promise<void>;
}

/** Pages read back at most, looking for a search hit's message, before settling for what is loaded. */
const MAX_PAGES_TO_FIND = 500;

let listRequests = 0;
let searchRequests = 0;

export const createLibrarySlice: StateCreator<Store, [], [], LibrarySlice> = (set, get) => {
  const patchTab = (tabId: string, patch: Partial<Tab>) =>
    set((state) => {
      const tab = state.tabs[tabId];
      return tab ? { tabs: { ...state.tabs, [tabId]: { ...tab, ...patch } } } : {};
    });

  const tabOfSession = (sessionId: string): string | undefined =>
    get().tabOrder.find((id) => get().tabs[id]?.conversation.sessionId === sessionId);

  const guarded = async (tabId: string, action: () => Promise<void>) => {
    patchTab(tabId, { actionError: null });
    try {
      await action();
    } catch (error) {
      patchTab(tabId, { actionError: error instanceof Error ? error.message : String(error) });
    }
  };

  /** Loads earlier pages until the message is there, then opens the find bar on it. */
  const jump = async (tabId: string, jumpTo: { messageUuid: string | null; text: string }) => {
    for (let pages = 0; pages <= MAX_PAGES_TO_FIND; pages++) {
      const tab = get().tabs[tabId];
      if (!tab) return;
      const matches = findMatches(tab.conversation, jumpTo.text);
      const byUuid = jumpTo.messageUuid ? messageIdOfUuid(tab.conversation, jumpTo.messageUuid) : null;
      const index = byUuid
        ? matches.findIndex((match) => match.messageId === byUuid)
        : matches.length > 0 && !tab.saved?.before
          ? matches.length - 1
          : -1;
      if (index !== -1 || byUuid || !tab.saved?.before) {
        set((state) => ({
          finds: {
            ...state.finds,
            [tabId]: {
              query: jumpTo.text,
              current: Math.max(0, index),
              opened: (state.finds[tabId]?.opened ?? 0) + 1,
            },
          },
        }));
        const target = matches[index]?.messageId ?? byUuid;
        if (target) get().focusMessage(tabId, target);
        return;
      }
      await get().loadEarlier(tabId);
    }
  };

  return {
    sidebarOpen: true,
    libraryRows: [],
    libraryStatus: null,
    libraryError: null,
    libraryLoaded: false,
    libraryFolder: null,
    libraryQuery: '',
    searchHits: null,

    toggleSidebar() {
      set((state) => ({ sidebarOpen: !state.sidebarOpen }));
    },

    async refreshLibrary() {
      const request = ++listRequests;
      try {
        const [list, status] = await Promise.all([call('libraryList', {}), call('libraryStatus', {})]);
        if (request !== listRequests) return;
        set({ libraryRows: list.rows, libraryStatus: status, libraryError: null, libraryLoaded: true });
      } catch (error) {
        if (request !== listRequests) return;
        set({ libraryError: error instanceof Error ? error.message : String(error) });
      }
      // Results may have changed with the rows.
      const query = get().libraryQuery;
      if (query.trim()) await get().searchLibrary(query);
    },

    setLibraryFolder(folder) {
      set({ libraryFolder: folder });
      const query = get().libraryQuery;
      if (query.trim()) void get().searchLibrary(query);
    },

    async searchLibrary(query) {
      const request = ++searchRequests;
      set({ libraryQuery: query });
      if (!query.trim()) {
        set({ searchHits: null });
        return;
      }
      try {
        const { hits } = await call('librarySearch', { query: query.trim(), folder: get().libraryFolder });
        if (request === searchRequests) set({ searchHits: hits, libraryError: null });
      } catch (error) {
        if (request === searchRequests)
          set({ libraryError: error instanceof Error ? error.message : String(error) });
      }
    },

    async openSaved(sessionId, jumpTo) {
      const existing = tabOfSession(sessionId);
      if (existing) {
        get().activate(existing);
        if (jumpTo) await jump(existing, jumpTo);
        return;
      }
      const tabId = `saved:${sessionId}`;
      const row = get().libraryRows.find((candidate) => candidate.sessionId === sessionId);
      set((state) => ({
        tabs: {
          ...state.tabs,
          [tabId]: {
            id: tabId,
            cwd: row?.cwd ?? '',
            starting: true,
            startError: null,
            requestedModel: null,
            conversation: initialConversation(),
            actionError: null,
            saved: null,
            focus: null,
          },
        },
        tabOrder: [...state.tabOrder, tabId],
        activeTab: tabId,
        composingNew: false,
      }));
      try {
        const page = await call('openSaved', { sessionId });
        if (!get().tabs[tabId]) return;
        const saved: SavedView = {
          sessionId,
          row: page.row,
          events: page.events,
          before: page.before,
          loadingEarlier: false,
          skipped: page.skipped,
        };
        patchTab(tabId, {
          starting: false,
          cwd: page.row.cwd ?? '',
          saved,
          conversation: savedConversation(saved),
        });
      } catch (error) {
        patchTab(tabId, { starting: false, startError: asIpcError(error) });
        return;
      }
      if (jumpTo) await jump(tabId, jumpTo);
    },

    async loadEarlier(tabId) {
      const saved = get().tabs[tabId]?.saved;
      if (!saved?.before || saved.loadingEarlier) return;
      patchTab(tabId, { saved: { ...saved, loadingEarlier: true } });
      try {
        const page = await call('openSavedBefore', { sessionId: saved.sessionId, before: saved.before });
        const current = get().tabs[tabId]?.saved;
        if (!current) return;
        const next: SavedView = {
          ...current,
          events: [...page.events, ...current.events],
          before: page.before,
          loadingEarlier: false,
          skipped: current.skipped + page.skipped,
        };
        patchTab(tabId, { saved: next, conversation: savedConversation(next) });
      } catch (error) {
        const current = get().tabs[tabId]?.saved;
        if (current) patchTab(tabId, { saved: { ...current, loadingEarlier: false } });
        patchTab(tabId, { actionError: error instanceof Error ? error.message : String(error) });
      }
    },

    resumeSaved: (tabId) =>
      guarded(tabId, async () => {
        const saved = get().tabs[tabId]?.saved;
        if (!saved) return;
        const snapshot = await call('resumeSaved', { sessionId: saved.sessionId });
        becomeLive(tabId, snapshot);
      }),

    continueSaved: (tabId) =>
      guarded(tabId, async () => {
        const saved = get().tabs[tabId]?.saved;
        if (!saved) return;
        const snapshot = await call('continueSaved', { sessionId: saved.sessionId });
        const id = snapshot.conversationId;
        set((state) => ({
          tabs: {
            ...state.tabs,
            [id]: {
              id,
              cwd: snapshot.cwd,
              starting: false,
              startError: null,
              requestedModel: null,
              conversation: initialConversation(snapshot),
              actionError: null,
              saved: null,
              focus: null,
            },
          },
          tabOrder: [...state.tabOrder, id],
          activeTab: id,
        }));
      }),

    async renameSaved(sessionId, title) {
      await call('renameSaved', { sessionId, title });
      set((state) => {
        const tabs = { ...state.tabs };
        for (const [id, tab] of Object.entries(tabs)) {
          if (tab.conversation.sessionId !== sessionId) continue;
          tabs[id] = {
            ...tab,
            conversation: { ...tab.conversation, title },
            saved: tab.saved ? { ...tab.saved, row: { ...tab.saved.row, title } } : null,
          };
        }
        return {
          tabs,
          libraryRows: state.libraryRows.map((row) =>
            row.sessionId === sessionId ? { ...row, title } : row,
          ),
        };
      });
    },

    async hideSaved(sessionId) {
      await call('hideSaved', { sessionId });
      set((state) => ({ libraryRows: state.libraryRows.filter((row) => row.sessionId !== sessionId) }));
      const tabId = tabOfSession(sessionId);
      if (tabId && get().tabs[tabId]?.saved) await get().closeTab(tabId);
    },

    async exportSaved(sessionId, format) {
      const { files } = await call('exportSaved', { sessionId, format });
      for (const file of files) download(file.name, file.mediaType, file.encoding, file.data);
    },
  };

  /** A saved tab that was resumed: it takes the live conversation's id, and keeps its history on screen. */
  function becomeLive(tabId: string, snapshot: ConversationSnapshot): void {
    set((state) => {
      const tab = state.tabs[tabId];
      if (!tab) return {};
      const id = snapshot.conversationId;
      if (state.tabs[id] && id !== tabId) {
        // Main already had it open (in another window, say): show that tab instead.
        const { [tabId]: _saved, ...tabs } = state.tabs;
        return { tabs, tabOrder: state.tabOrder.filter((existing) => existing !== tabId), activeTab: id };
      }
      const { [tabId]: _old, ...rest } = state.tabs;
      return {
        tabs: {
          ...rest,
          [id]: {
            ...tab,
            id,
            cwd: snapshot.cwd,
            saved: null,
            conversation: applyEvents(tab.conversation, [{ kind: 'resumed', snapshot }]),
          },
        },
        tabOrder: state.tabOrder.map((existing) => (existing === tabId ? id : existing)),
        activeTab: state.activeTab === tabId ? id : state.activeTab,
      };
    });
  }
};

/** The conversation as far as it is loaded, settled, under the library's title for it. */
function savedConversation(saved: SavedView): ConversationState {
  const state = applyEvents(
    initialConversation({ sessionId: saved.sessionId, cwd: saved.row.cwd ?? '' }),
    saved.events,
  );
  // Nothing runs in a saved conversation: a tool call whose result was never written did not finish.
  let tools = state.tools;
  for (const tool of Object.values(state.tools)) {
    if (tool.status !== 'running') continue;
    if (tools === state.tools) tools = { ...state.tools };
    tools[tool.id] = { ...tool, status: 'interrupted' };
  }
  return { ...state, tools, title: saved.row.title, status: 'idle', exitError: null, pending: [] };
}

/** The message a CLI entry uuid belongs to: a prompt's own id, or the reply whose last line it is. */
function messageIdOfUuid(conversation: ConversationState, uuid: string): string | null {
  if (conversation.messages[`u:${uuid}`]) return `u:${uuid}`;
  for (const id of conversation.order) {
    if (conversation.messages[id]?.role === 'assistant' && conversation.messages[id].uuid === uuid) return id;
  }
  return null;
}

function asIpcError(error: unknown): IpcError {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

/** Saves a file the way a browser does: a download the user can keep. */
function download(name: string, mediaType: string, encoding: 'utf8' | 'base64', data: string): void {
  const body = encoding === 'base64' ? Uint8Array.from(atob(data), (char) => char.charCodeAt(0)) : data;
  const url = URL.createObjectURL(new Blob([body], { type: mediaType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
