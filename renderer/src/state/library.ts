import type { StateCreator } from 'zustand';
import {
  applyEvents,
  initialConversation,
  joinCosts,
  type ConversationState,
} from '../../../shared/conversation';
import { joinRecords } from '../../../shared/persistent-record';
import type { ConversationEvent, ConversationSnapshot, IpcError } from '../../../shared/ipc';
import type { LibraryRow, LibraryStatus, SearchHit } from '../../../shared/library';
import { call } from '../host/api';
import { bridgeConnection } from '../host/bridge-client';
import { inNextFrame } from './frame';
import { findMatches, messageText, type FindMatch, type Store } from './store';
import type { BranchView } from '../branches/model';
import { newTab, tabActions } from './tabs';

/**
 * The library slice: the sidebar's rows and search, and saved conversations opened read-only in tabs. A
 * saved conversation is reduced by the same reducer as a live one, from the events main read out of its
 * files, a page at a time from the end; each earlier page is reduced on its own and put in front.
 */

/** A tab showing a saved conversation, read-only until it is resumed. */
export interface SavedView {
  sessionId: string;
  row: LibraryRow;
  /** Lines of its files that could not be read. */
  skipped: number;
  /**
   * For a branch the CLI rewound inside the file: the uuid of its last entry. It is read whole and cannot be
   * resumed (the file's latest branch is what --resume continues); it can be forked from a reply.
   */
  leafUuid?: string;
}

/** Where the part of a conversation above what is loaded is read from. */
export interface Paging {
  sessionId: string;
  /** Set for a conversation open in main: its pages come from there (`conversationBefore`), not from its files. */
  conversationId: string | null;
  /** Where the earlier page ends; null once the start is loaded. */
  before: string | null;
  loading: boolean;
  /** Why the last page could not be read; no page is fetched by itself until the user asks again. */
  error: string | null;
  /** The message each loaded CLI line belongs to, by the line's uuid: a search hit names a line. */
  anchors: Record<string, string>;
  /**
   * For a conversation resumed from the library: once main's pages reach the start of its log, reading
   * goes on in the saved file from here (the history before the resume).
   */
  thenSaved?: string | null;
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
  /** Opens a saved conversation (or switches to its tab), optionally at a search hit's message. */
  openSaved(sessionId: string, jumpTo?: { messageUuid: string | null; text: string }): Promise<void>;
  /** Fetches the page before what is loaded; a second call while one runs waits for the same page. */
  loadEarlier(tabId: string): Promise<void>;
  resumeSaved(tabId: string): Promise<void>;
  continueSaved(tabId: string): Promise<void>;
  renameSaved(sessionId: string, title: string): Promise<void>;
  hideSaved(sessionId: string): Promise<void>;
  /** Exports the conversation; what to tell the user, if the host saved it somewhere. */
  exportSaved(sessionId: string, format: 'markdown' | 'jsonl'): Promise<string | null>;
}

let listRequests = 0;
let searchRequests = 0;
/** Pages being fetched, by tab: a second request joins the first. */
const loading = new Map<string, Promise<void>>();

export const createLibrarySlice: StateCreator<Store, [], [], LibrarySlice> = (set, get) => {
  const { patchTab, guarded } = tabActions(set);

  const tabOfSession = (sessionId: string): string | undefined =>
    get().tabOrder.find(
      (id) => id === `saved:${sessionId}` || get().tabs[id]?.conversation.sessionId === sessionId,
    );

  /** Loads earlier pages until the hit's line is loaded, then shows its message with the match found. */
  const jump = async (tabId: string, jumpTo: { messageUuid: string | null; text: string }) => {
    // A title hit names no message: the conversation opens at its end.
    if (!jumpTo.messageUuid) return;
    for (;;) {
      const tab = get().tabs[tabId];
      if (!tab?.paging) return;
      const messageId = tab.paging.anchors[jumpTo.messageUuid];
      if (messageId) {
        showMatch(tabId, messageId, jumpTo.text);
        return;
      }
      if (!tab.paging.before || tab.paging.error) {
        patchTab(tabId, { actionError: 'That message is no longer in this conversation.' });
        return;
      }
      await get().loadEarlier(tabId);
    }
  };

  /** Opens the find bar on the message, with the words of the search that it contains. */
  const showMatch = (tabId: string, messageId: string, text: string) => {
    const conversation = get().tabs[tabId]?.conversation;
    if (!conversation) return;
    const query = findQueryFor(conversation, messageId, text);
    const current: FindMatch | null =
      findMatches(conversation, query).find((match) => match.messageId === messageId) ?? null;
    set((state) => ({
      finds: {
        ...state.finds,
        [tabId]: { query, current, opened: (state.finds[tabId]?.opened ?? 0) + 1 },
      },
    }));
    get().focusMessage(tabId, messageId);
  };

  const fetchEarlier = async (tabId: string) => {
    const paging = get().tabs[tabId]?.paging;
    if (!paging?.before) return;
    patchTab(tabId, { paging: { ...paging, loading: true, error: null } });
    try {
      const before = paging.before;
      const page = paging.conversationId
        ? {
            skipped: 0,
            ...(await call('conversationBefore', { conversationId: paging.conversationId, before })),
          }
        : await call('openSavedBefore', { sessionId: paging.sessionId, before });
      // Main's log of a resumed conversation ends at the resume: the saved file has what came before it.
      const toSaved = page.before === null && paging.conversationId !== null && !!paging.thenSaved;
      const next = toSaved ? (paging.thenSaved ?? null) : page.before;
      set((state) => {
        const tab = state.tabs[tabId];
        if (!tab?.paging) return {};
        const merged = prependPage(tab.conversation, page.events, next === null);
        return {
          tabs: {
            ...state.tabs,
            [tabId]: {
              ...tab,
              conversation: merged.conversation,
              saved: tab.saved ? { ...tab.saved, skipped: tab.saved.skipped + page.skipped } : null,
              paging: {
                ...tab.paging,
                ...(toSaved ? { conversationId: null, thenSaved: null } : {}),
                before: next,
                loading: false,
                anchors: { ...merged.anchors, ...tab.paging.anchors },
              },
            },
          },
        };
      });
    } catch (error) {
      const current = get().tabs[tabId]?.paging;
      const message = error instanceof Error ? error.message : String(error);
      if (current) patchTab(tabId, { paging: { ...current, loading: false, error: message } });
    }
  };

  return {
    // A narrow window keeps its width for the conversation; the list is a click (or Ctrl+B) away.
    sidebarOpen: typeof window === 'undefined' || !window.innerWidth || window.innerWidth >= 900,
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
        const byId = new Map(list.rows.map((row) => [row.sessionId, row]));
        // The list changes as a reply streams (its transcript grows): with the frame's events, one commit.
        inNextFrame(() => {
          if (request !== listRequests) return;
          set((state) => {
            // Open saved conversations follow their rows: a rename elsewhere, the CLI deleting its copy.
            let tabs = state.tabs;
            for (const [id, tab] of Object.entries(state.tabs)) {
              const row = tab.saved && byId.get(tab.saved.sessionId);
              if (!tab.saved || !row || row === tab.saved.row) continue;
              if (tabs === state.tabs) tabs = { ...state.tabs };
              tabs[id] = {
                ...tab,
                saved: { ...tab.saved, row },
                conversation: { ...tab.conversation, title: row.title },
              };
            }
            return {
              tabs,
              libraryRows: list.rows,
              libraryStatus: status,
              libraryError: null,
              libraryLoaded: true,
            };
          });
        });
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
        if (jumpTo && !get().tabs[existing]?.starting) await jump(existing, jumpTo);
        return;
      }
      const tabId = `saved:${sessionId}`;
      const row = get().libraryRows.find((candidate) => candidate.sessionId === sessionId);
      set((state) => ({
        tabs: { ...state.tabs, [tabId]: newTab(tabId, row?.cwd ?? '', { starting: true }) },
        tabOrder: [...state.tabOrder, tabId],
        activeTab: tabId,
        composingNew: false,
      }));
      try {
        const page = await call('openSaved', { sessionId });
        if (!get().tabs[tabId]) return;
        const reduced = reducePage(savedStart(sessionId, page), page.events);
        patchTab(tabId, {
          starting: false,
          cwd: page.row.cwd ?? '',
          saved: { sessionId, row: page.row, skipped: page.skipped },
          paging: firstPaging(sessionId, null, page.before, reduced.anchors),
          conversation: settled(reduced.conversation, page.row.title),
        });
      } catch (error) {
        patchTab(tabId, { starting: false, startError: asIpcError(error) });
        return;
      }
      // Its branches, if it has any, come from the library beside it.
      void get().loadFamily(tabId);
      if (jumpTo) await jump(tabId, jumpTo);
    },

    loadEarlier(tabId) {
      const running = loading.get(tabId);
      if (running) return running;
      const next = fetchEarlier(tabId).finally(() => loading.delete(tabId));
      loading.set(tabId, next);
      return next;
    },

    resumeSaved: (tabId) =>
      guarded(tabId, async () => {
        const saved = get().tabs[tabId]?.saved;
        if (!saved) return;
        try {
          const snapshot = await get().trusted(() => call('resumeSaved', { sessionId: saved.sessionId }));
          await becomeLive(tabId, snapshot);
        } catch (error) {
          // The CLI deleted its copy since the tab opened: say so, and offer what still works.
          if (error instanceof Error && error.name === 'CliCopyGone') {
            const tab = get().tabs[tabId];
            if (tab?.saved)
              patchTab(tabId, { saved: { ...tab.saved, row: { ...tab.saved.row, resumable: false } } });
          }
          throw error;
        }
      }),

    continueSaved: (tabId) =>
      guarded(tabId, async () => {
        const saved = get().tabs[tabId]?.saved;
        if (!saved) return;
        const snapshot = await get().trusted(() => call('continueSaved', { sessionId: saved.sessionId }));
        const id = snapshot.conversationId;
        set((state) => ({
          tabs: {
            ...state.tabs,
            [id]: newTab(id, snapshot.cwd, { conversation: initialConversation(snapshot) }),
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
      const delivery = await call('exportSaved', { sessionId, format });
      if (delivery.way === 'download') {
        for (const file of delivery.files) await download(file.name, file.id);
      }
      return delivery.way === 'saved' ? `Saved as ${delivery.paths[0]}.` : null;
    },
  };

  /**
   * A saved tab that was resumed: it takes the live conversation's id and keeps its history (and the way to
   * the rest of it) on screen. A tab closed meanwhile ends the process that was started for it.
   */
  async function becomeLive(tabId: string, snapshot: ConversationSnapshot): Promise<void> {
    const id = snapshot.conversationId;
    if (!get().tabs[tabId]) {
      if (!get().tabs[id]) await call('closeConversation', { conversationId: id }).catch(() => undefined);
      return;
    }
    set((state) => {
      const tab = state.tabs[tabId];
      if (!tab) return {};
      if (tab.branches) {
        // A branch of a family resumed: the tab stays, and that branch is live from now on, whichever is
        // shown by the time its CLI has started.
        const resumed = tab.branches.find(
          (branch) => branch.sessionId === snapshot.sessionId && !branch.leafUuid,
        );
        if (!resumed) return {};
        const shown = resumed.key === tab.branch;
        const live = (conversation: ConversationState) =>
          applyEvents(conversation, [{ kind: 'resumed', snapshot }]);
        return {
          tabs: {
            ...state.tabs,
            [tabId]: {
              ...tab,
              ...(shown ? { saved: null, conversation: live(tab.conversation) } : {}),
              branches: tab.branches.map((branch) =>
                branch !== resumed
                  ? branch
                  : {
                      ...branch,
                      conversationId: id,
                      view:
                        !shown && branch.view
                          ? { ...branch.view, saved: null, conversation: live(branch.view.conversation) }
                          : branch.view,
                    },
              ),
            },
          },
        };
      }
      if (state.tabs[id] && id !== tabId) {
        // Main already had it open (in another window, say): show that tab instead.
        const { [tabId]: _saved, ...tabs } = state.tabs;
        return { tabs, tabOrder: state.tabOrder.filter((existing) => existing !== tabId), activeTab: id };
      }
      const { [tabId]: _old, ...rest } = state.tabs;
      const { [tabId]: find, ...finds } = state.finds;
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
        finds: find ? { ...finds, [id]: find } : finds,
        tabOrder: state.tabOrder.map((existing) => (existing === tabId ? id : existing)),
        activeTab: state.activeTab === tabId ? id : state.activeTab,
      };
    });
  }
};

/** Paging from a conversation's first page, read from its files or (`conversationId`) from main. */
function firstPaging(
  sessionId: string,
  conversationId: string | null,
  before: string | null,
  anchors: Record<string, string>,
): Paging {
  return { sessionId, conversationId, before, loading: false, error: null, anchors };
}

/** A saved conversation's last page as a branch's view (read-only until it is resumed). */
export async function loadSavedView(sessionId: string): Promise<BranchView> {
  const page = await call('openSaved', { sessionId });
  const reduced = reducePage(savedStart(sessionId, page), page.events);
  return {
    conversation: settled(reduced.conversation, page.row.title),
    saved: { sessionId, row: page.row, skipped: page.skipped },
    paging: firstPaging(sessionId, null, page.before, reduced.anchors),
  };
}

/**
 * A conversation open in main, as a window that opens later gets it: its last screenful, and the cursor to
 * the pages before it.
 */
export function openWindow(
  snapshot: ConversationSnapshot,
  page: {
    prelude: readonly ConversationEvent[];
    events: readonly ConversationEvent[];
    before: string | null;
    seq: number;
    /** Resumed from the library: the saved page before the resume (see the listConversations contract). */
    savedBefore?: string | null;
  },
): { conversation: ConversationState; paging: Paging | null; eventsFrom: number } {
  const savedBefore = page.savedBefore ?? null;
  const atStart = page.before === null && savedBefore === null;
  const start = applyEvents(initialConversation(snapshot), page.prelude);
  // Its first turn's cost waits for the page before, as a saved page's does (a resume in the prelude
  // would otherwise say the process had spent nothing yet).
  const reduced = reducePage(atStart ? start : { ...start, processCostUsd: null }, page.events);
  let paging: Paging | null = null;
  if (page.before !== null) {
    paging = {
      ...firstPaging(snapshot.sessionId, snapshot.conversationId, page.before, reduced.anchors),
      thenSaved: savedBefore,
    };
  } else if (savedBefore !== null) {
    paging = firstPaging(snapshot.sessionId, null, savedBefore, reduced.anchors);
  }
  return { eventsFrom: page.seq, conversation: reduced.conversation, paging };
}

/** A branch the CLI rewound inside one file, read whole, as a branch's view (read-only). */
export async function loadSavedBranchView(sessionId: string, leafUuid: string): Promise<BranchView> {
  const page = await call('openSavedBranch', { sessionId, leafUuid });
  const reduced = reducePage(savedStart(sessionId, page), page.events);
  return {
    conversation: settled(reduced.conversation, page.row.title),
    saved: { sessionId, row: page.row, skipped: page.skipped, leafUuid },
    paging: null,
  };
}

/**
 * Where reducing a saved conversation's page starts: nothing shown yet, and, when earlier lines come before
 * it, not knowing what its CLI process had spent before (its first turn's cost waits for the page before).
 */
function savedStart(
  sessionId: string,
  page: { row: { cwd: string | null }; before: string | null },
): ConversationState {
  const start = initialConversation({ sessionId, cwd: page.row.cwd ?? '' });
  return page.before === null ? start : { ...start, processCostUsd: null };
}

/** One page reduced on its own, and the message each of its lines belongs to. */
function reducePage(
  base: ConversationState,
  events: readonly ConversationEvent[],
): { conversation: ConversationState; anchors: Record<string, string> } {
  const conversation = applyEvents(base, events);
  const toolOwner = new Map<string, string>();
  for (const message of Object.values(conversation.messages)) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) if (part.kind === 'tool') toolOwner.set(part.toolUseId, message.id);
  }
  const anchors: Record<string, string> = {};
  for (const event of events) {
    if (event.kind === 'prompt') {
      anchors[event.uuid] = `u:${event.uuid}`;
      continue;
    }
    if (event.kind !== 'message') continue;
    const line = event.message;
    if (line.type === 'assistant' && line.uuid) {
      // The CLI writes one line per content block; they are one message.
      anchors[line.uuid] = `a:${line.message.id}`;
    } else if (line.type === 'user' && line.uuid) {
      const content = line.message.content;
      if (conversation.messages[`u:${line.uuid}`]) anchors[line.uuid] = `u:${line.uuid}`;
      else if (Array.isArray(content)) {
        // A tool's result: shown in the card of the reply that called the tool.
        for (const block of content) {
          const owner = block.type === 'tool_result' ? toolOwner.get(block.tool_use_id) : undefined;
          if (owner) anchors[line.uuid] = owner;
        }
      }
    }
  }
  return { conversation, anchors };
}

/**
 * An earlier page put in front of what is loaded. Pages are cut where a conversation can be reduced in
 * parts (a tool call keeps its result), so the page is reduced on its own rather than everything again.
 * `first`: nothing comes before this page.
 */
function prependPage(
  later: ConversationState,
  events: readonly ConversationEvent[],
  first: boolean,
): { conversation: ConversationState; anchors: Record<string, string> } {
  // Local ids (notices) of the page start where the later part's end, so none collide.
  const start = { ...initialConversation(), localIds: later.localIds, processCostUsd: first ? 0 : null };
  const page = reducePage(start, events);
  const earlier = page.conversation;
  const costs = joinCosts(earlier, later);
  return {
    anchors: page.anchors,
    conversation: {
      ...later,
      ...costs,
      // Joined without copying either side: the later part's records are shared, not spread.
      messages: joinRecords(earlier.messages, costs.messages),
      lastResultId: later.lastResultId ?? earlier.lastResultId,
      order: [...earlier.order, ...later.order],
      tools: joinRecords(finishedTools(earlier).tools, later.tools),
      blocksSeen: joinRecords(earlier.blocksSeen, later.blocksSeen),
      taskTools: joinRecords(earlier.taskTools, later.taskTools),
      badLines: later.badLines + earlier.badLines,
      localIds: earlier.localIds,
    },
  };
}

/** Nothing runs in a saved conversation: a tool call whose result was never written did not finish. */
function finishedTools(state: ConversationState): ConversationState {
  let tools = state.tools;
  for (const tool of Object.values(state.tools)) {
    if (tool.status !== 'running') continue;
    if (tools === state.tools) tools = { ...state.tools };
    tools[tool.id] = { ...tool, status: 'interrupted' };
  }
  return tools === state.tools ? state : { ...state, tools };
}

/** The last page of a saved conversation, settled, under the library's title for it. */
function settled(state: ConversationState, title: string): ConversationState {
  return { ...finishedTools(state), title, status: 'idle', exitError: null, pending: [] };
}

/**
 * What the find bar looks for when a search hit opens a message: the whole query where the message has it
 * as written, else the longest of its words that the message has (search matches words in any order).
 */
function findQueryFor(conversation: ConversationState, messageId: string, query: string): string {
  const text = messageText(conversation.messages[messageId]).toLowerCase();
  if (text.includes(query.toLowerCase())) return query;
  const words = query
    .split(/\s+/)
    .filter((word) => word && text.includes(word.toLowerCase()))
    .sort((a, b) => b.length - a.length);
  return words[0] ?? query;
}

function asIpcError(error: unknown): IpcError {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

/**
 * A file the browser host offers once (main/downloads.ts): the browser saves it straight from the host, with
 * a proof of the token for that file, and the page never holds it.
 */
async function download(name: string, id: string): Promise<void> {
  const connection = bridgeConnection();
  if (!connection) throw new Error('Only the browser host offers downloads.');
  const link = document.createElement('a');
  link.href = await connection.downloadAddress(id);
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}
