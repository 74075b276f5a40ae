import { applyEvents, initialConversation, type ConversationState } from '../../../shared/conversation';
import {
  firstPaging,
  prependPage,
  reducePage,
  savedStart,
  settled,
} from '../../../shared/conversation/paging';
import type { ConversationSnapshot, IpcError } from '../../../shared/ipc';
import type { LibraryStatus } from '../../../shared/library';
import { call } from '../host/api';
import { bridgeConnection } from '../host/bridge-client';
import { takeFirstScreen } from './first-screen';
import { inNextFrame } from './frame';
import { newTab, rekeyTab, tabActions } from './tabs';
import type { BranchView, LibrarySlice, StoreGet, StoreSet } from './types';

/**
 * The library slice: the sidebar's rows and search, and saved conversations opened read-only in tabs. A
 * saved conversation is reduced by the same reducer as a live one, from the events main read out of its
 * files, a page at a time from the end; each earlier page is reduced on its own and put in front.
 */

export function createLibrarySlice(set: StoreSet, get: StoreGet): LibrarySlice {
  const { patchTab, guarded } = tabActions(set);
  let listRequests = 0;
  let firstScreenAsked = false;
  /** This window's searches, numbered: main stops every search of ours older than the newest. */
  const searcher = crypto.randomUUID();
  let searchSeq = 0;
  /** The search running, and whether the rows changed while it ran (its answer may be out of date). */
  let searching: Promise<void> | null = null;
  let searchStale = false;
  /**
   * The index's state as main last said it, at once: the store takes it in the next frame, and a search
   * asked before then must not take the index for unfinished when it has finished.
   */
  let knownStatus: LibraryStatus | null = null;

  /**
   * Asks main for the query's titles and then for all of it, under one number: the titles are shown the
   * moment they come (with the messages still being looked through), the whole answer when it does. A newer
   * search supersedes this one, in main as well, and nothing of this one is shown after.
   */
  const runSearch = (query: string): Promise<void> => {
    const seq = ++searchSeq;
    const folder = get().libraryFolder;
    // A search of an index still being built looked through part of the library: it says how much.
    const status = knownStatus ?? get().libraryStatus;
    const partial =
      status && !status.done ? { partial: { indexed: status.indexed, total: status.total } } : {};
    const ask = (part: 'titles' | 'all') => call('librarySearch', { query, folder, part, searcher, seq });
    let complete = false;
    const titles = ask('titles').then(
      ({ hits }) => {
        if (seq !== searchSeq || complete) return;
        set({ search: { query, hits, complete: false, ...partial }, libraryError: null });
      },
      () => undefined,
    );
    const all = ask('all').then(
      ({ hits }) => {
        complete = true;
        if (seq === searchSeq)
          set({ search: { query, hits, complete: true, ...partial }, libraryError: null });
      },
      (error: unknown) => {
        complete = true;
        if (seq !== searchSeq || (error instanceof Error && error.name === 'SearchSuperseded')) return;
        set((state) => ({
          libraryError: error instanceof Error ? error.message : String(error),
          // What the titles found stays; the rest will not come.
          search: state.search && { ...state.search, complete: true },
        }));
      },
    );
    const done = Promise.all([titles, all]).then(() => {
      // A newer search took over: it was asked after the rows it answers from.
      if (searching !== done) return;
      searching = null;
      if (!searchStale) return;
      searchStale = false;
      const current = get().libraryQuery.trim();
      if (current) void runSearch(current);
    });
    searching = done;
    // Asked now, it answers from the rows as they are now.
    searchStale = false;
    return done;
  };

  /**
   * The rows changed (a file was read further): the query shown is asked again, once the search running
   * has answered. Asking at once would supersede it, and while a large library is being indexed the rows
   * change more often than a search takes, so no answer would ever be shown.
   */
  const searchAgain = async (): Promise<void> => {
    if (searching) {
      searchStale = true;
      return;
    }
    const query = get().libraryQuery.trim();
    if (query) await runSearch(query);
  };

  /** Pages being fetched, by tab: a second request joins the first. */
  const loading = new Map<string, Promise<void>>();

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
        get().showFindMatch(tabId, messageId, jumpTo.text);
        return;
      }
      if (!tab.paging.before || tab.paging.error) {
        patchTab(tabId, { actionError: 'That message is no longer in this conversation.' });
        return;
      }
      await get().loadEarlier(tabId);
    }
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
    // Like the folder filter, the order lasts until the window reloads.
    librarySort: 'recent',
    libraryQuery: '',
    search: null,

    toggleSidebar() {
      set((state) => ({ sidebarOpen: !state.sidebarOpen }));
    },

    async refreshLibrary() {
      const request = ++listRequests;
      if (!firstScreenAsked) {
        firstScreenAsked = true;
        // Shown until the whole list comes (which was asked for at the same time, and is answered after).
        void takeFirstScreen().then(
          (rows) => {
            if (!get().libraryLoaded) set({ libraryRows: rows });
          },
          () => undefined,
        );
      }
      try {
        const [list, status] = await Promise.all([call('libraryList', {}), call('libraryStatus', {})]);
        if (request !== listRequests) return;
        knownStatus = status;
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
      await searchAgain();
    },

    setLibraryFolder(folder) {
      set({ libraryFolder: folder });
      const query = get().libraryQuery;
      if (query.trim()) void get().searchLibrary(query);
    },

    setLibrarySort(sort) {
      set({ librarySort: sort });
    },

    async searchLibrary(query) {
      set({ libraryQuery: query });
      if (!query.trim()) {
        // What is still running is not wanted any more: its answer is not shown.
        searchSeq += 1;
        set({ search: null });
        return;
      }
      await runSearch(query.trim());
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
        // Opened from the list or the Usage view, it takes the main area as activating a tab does.
        usageOpen: false,
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

    async readSavedView(sessionId, leafUuid) {
      if (leafUuid) {
        const page = await call('openSavedBranch', { sessionId, leafUuid });
        const reduced = reducePage(savedStart(sessionId, page), page.events);
        return {
          conversation: settled(reduced.conversation, page.row.title),
          saved: { sessionId, row: page.row, skipped: page.skipped, leafUuid },
          paging: null,
        } satisfies BranchView;
      }
      const page = await call('openSaved', { sessionId });
      const reduced = reducePage(savedStart(sessionId, page), page.events);
      return {
        conversation: settled(reduced.conversation, page.row.title),
        saved: { sessionId, row: page.row, skipped: page.skipped },
        paging: firstPaging(sessionId, null, page.before, reduced.anchors),
      };
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
    let rekeyed = false;
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
      rekeyed = true;
      return rekeyTab(state, tabId, {
        ...tab,
        id,
        cwd: snapshot.cwd,
        saved: null,
        conversation: applyEvents(tab.conversation, [{ kind: 'resumed', snapshot }]),
      });
    });
    // The resumed tab keeps its find bar and its draft under its new key.
    if (rekeyed) get().moveFind(tabId, id);
    if (rekeyed) get().moveDraft(tabId, id);
  }
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
