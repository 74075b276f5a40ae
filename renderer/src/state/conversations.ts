/**
 * The conversations slice: the open tabs and what a tab asks of its conversation in main (start, send,
 * stop, model, permission mode, context …); protocol events reach it from outside React through
 * `applyConversationEvents`, at most once per animation frame (see events.ts).
 */
import { applyEvents, initialConversation } from '../../../shared/conversation';
import { isPending } from '../../../shared/branches/tree';
import { call } from '../host/api';
import { inNextFrame } from './frame';
import { liveConversationId, tabOfConversation } from './selectors';
import { newTab, rekeyTab, tabActions } from './tabs';
import type { IpcError } from '../../../shared/ipc';
import type { ConversationsSlice, StartOptions, StoreGet, StoreSet } from './types';

export function createConversationsSlice(set: StoreSet, get: StoreGet): ConversationsSlice {
  const { patchTab, guarded } = tabActions(set);
  let localTabs = 0;
  /** Context readings asked for, per tab, so that a slow answer does not overwrite a newer one. */
  const contextReads = new Map<string, number>();

  const launch = async (tabId: string, cwd: string, options: StartOptions) => {
    try {
      const snapshot = await get().trusted(() => call('startConversation', { cwd, ...options }));
      if (!get().tabs[tabId]) {
        // The tab was closed while its CLI started: end that CLI rather than leave it running.
        await call('closeConversation', { conversationId: snapshot.conversationId }).catch(() => undefined);
        return;
      }
      // The tab takes the conversation's id, so events addressed to it find it.
      set((state) => {
        const tab = state.tabs[tabId];
        if (!tab) return {};
        return rekeyTab(state, tabId, {
          ...tab,
          id: snapshot.conversationId,
          starting: false,
          startError: null,
          conversation: initialConversation(snapshot),
        });
      });
      get().moveDraft(tabId, snapshot.conversationId);
    } catch (error) {
      const ipc = error as Error & Partial<IpcError>;
      if (options.worktree && ipc.name === 'WorktreeRefused' && get().tabs[tabId]) {
        // Nothing was made: the form comes back with all that was typed and the reason, rather than a tab
        // that can never start.
        set((state) => {
          const { [tabId]: _refused, ...tabs } = state.tabs;
          return {
            tabs,
            tabOrder: state.tabOrder.filter((id) => id !== tabId),
            activeTab: null,
            composingNew: true,
            refusedStart: { cwd, options, reason: ipc.message },
          };
        });
        return;
      }
      patchTab(tabId, {
        starting: false,
        startError: {
          name: ipc.name,
          message: ipc.message,
          ...(ipc.looked ? { looked: ipc.looked } : {}),
          ...(ipc.explanation ? { explanation: ipc.explanation } : {}),
          ...(ipc.hostKey ? { hostKey: ipc.hostKey } : {}),
        },
      });
    }
  };

  /** Where a tab's actions go: the conversation of the branch it shows. */
  const conversationOf = (tabId: string): string => {
    const tab = get().tabs[tabId];
    const id = tab ? liveConversationId(tab) : tabId;
    if (!id) throw new Error('This branch is not running; resume it to carry on in it.');
    return id;
  };

  return {
    tabs: {},
    tabOrder: [],
    refusedStart: null,

    dismissRefusedStart() {
      set({ refusedStart: null });
    },

    async startConversation(cwd, options = {}) {
      const tabId = `starting-${++localTabs}`;
      set((state) => ({
        tabs: {
          ...state.tabs,
          [tabId]: newTab(tabId, cwd, { starting: true, requested: options, fromMain: true }),
        },
        tabOrder: [...state.tabOrder, tabId],
        activeTab: tabId,
        composingNew: false,
        refusedStart: null,
      }));
      await launch(tabId, cwd, options);
    },

    async retryStart(tabId) {
      const tab = get().tabs[tabId];
      if (!tab) return;
      patchTab(tabId, { starting: true, startError: null });
      await launch(tabId, tab.cwd, tab.requested);
    },

    async sendMessage(tabId, text, images = []) {
      let sent = false;
      const shown = get().tabs[tabId];
      const pending = isPending(shown?.branches?.find((branch) => branch.key === shown.branch));
      await guarded(tabId, async () => {
        // The first message of a rewound branch starts its fork.
        if (pending) await get().sendInPendingBranch(tabId, text, [...images]);
        else await call('send', { conversationId: conversationOf(tabId), text, images: [...images] });
        sent = true;
      });
      return sent;
    },

    interrupt: (tabId) =>
      guarded(tabId, async () => {
        await call('interrupt', { conversationId: conversationOf(tabId) });
      }),

    async readContext(tabId) {
      const tab = get().tabs[tabId];
      const conversationId = tab && liveConversationId(tab);
      if (!conversationId) return;
      const turn = tab.conversation.lastResultId;
      const read = (contextReads.get(tabId) ?? 0) + 1;
      contextReads.set(tabId, read);
      // Only the latest reading counts: turns can end faster than the CLI answers.
      const latest = () => contextReads.get(tabId) === read;
      try {
        const usage = await call('contextUsage', { conversationId });
        if (latest()) {
          inNextFrame(() => patchTab(tabId, { context: { conversationId, turn, usage, error: null } }));
        }
      } catch (error) {
        if (!latest()) return;
        const message = error instanceof Error ? error.message : String(error);
        patchTab(tabId, (current) => ({
          context: current.context ? { ...current.context, error: message } : null,
        }));
      }
    },

    findFiles: (conversationId, query) => call('findFiles', { conversationId, query, limit: 50 }),

    readProtocolLines: (request) => call('protocolLines', request),

    mcpStatus: (tabId) => call('mcpStatus', { conversationId: conversationOf(tabId) }),
    async mcpToggle(tabId, serverName, enabled) {
      await call('mcpToggle', { conversationId: conversationOf(tabId), serverName, enabled });
    },
    async mcpReconnect(tabId, serverName) {
      await call('mcpReconnect', { conversationId: conversationOf(tabId), serverName });
    },

    readCommitIdentity: (cwd, host) => call('commitIdentity', host ? { cwd, host } : { cwd }),

    async setCommitIdentity(scope, cwd, identity, host) {
      await call('setCommitIdentity', { scope, cwd, identity, ...(host ? { host } : {}) });
    },

    async setDoneWhen(tabId, command, folderDefault) {
      await call('setDoneWhen', { conversationId: conversationOf(tabId), command, folderDefault });
    },

    async stopTask(tabId, taskId) {
      const stopping = (update: (ids: readonly string[]) => readonly string[]) =>
        patchTab(tabId, (tab) => ({ stoppingTasks: update(tab.stoppingTasks) }));
      stopping((ids) => (ids.includes(taskId) ? ids : [...ids, taskId]));
      await guarded(tabId, async () => {
        try {
          await call('stopTask', { conversationId: conversationOf(tabId), taskId });
        } catch (error) {
          stopping((ids) => ids.filter((id) => id !== taskId));
          throw new Error(
            `The task could not be stopped: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
      });
    },

    cancelQueued: (tabId, uuid) =>
      guarded(tabId, async () => {
        await call('cancelQueued', { conversationId: conversationOf(tabId), uuid });
      }),

    setModel: (tabId, model) =>
      guarded(tabId, async () => {
        await call('setModel', { conversationId: conversationOf(tabId), model });
      }),

    async setPermissionMode(tabId, mode) {
      let changed = false;
      await guarded(tabId, async () => {
        try {
          await call('setPermissionMode', { conversationId: conversationOf(tabId), mode });
        } catch (error) {
          throw new Error(
            `The permission mode could not be changed: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
        changed = true;
      });
      return changed;
    },

    answerPermission: (tabId, requestId, answer) =>
      call('answerPermission', { conversationId: conversationOf(tabId), requestId, answer }),
    answerQuestions: (tabId, requestId, answer) =>
      call('answerQuestions', { conversationId: conversationOf(tabId), requestId, answer }),
    answerPlan: (tabId, requestId, answer) =>
      call('answerPlan', { conversationId: conversationOf(tabId), requestId, answer }),
    answerElicitation: (tabId, requestId, answer) =>
      call('answerElicitation', { conversationId: conversationOf(tabId), requestId, answer }),

    showConversation(conversationId) {
      const tab = tabOfConversation(get(), conversationId);
      if (!tab) return;
      get().activate(tab.id);
      const branch = tab.branches?.find((candidate) => candidate.conversationId === conversationId);
      if (branch && branch.key !== tab.branch) void get().switchBranch(tab.id, branch.key);
    },

    resume: (tabId) =>
      guarded(tabId, async () => {
        await get().trusted(() => call('resume', { conversationId: conversationOf(tabId) }));
      }),

    trustFolderOf: (tabId) =>
      guarded(tabId, async () => {
        const conversation = get().tabs[tabId]?.conversation;
        const cwd = conversation?.cwd;
        if (!cwd || !(await get().askTrust(cwd, conversation.host ?? undefined))) return;
        await get().trusted(() => call('useFolderSettings', { conversationId: conversationOf(tabId) }));
      }),

    async closeTab(tabId) {
      const tab = get().tabs[tabId];
      get().dropDrafts(
        tabId,
        (tab?.branches ?? []).flatMap((b) => (b.conversationId ? [b.conversationId] : [])),
      );
      get().closeFind(tabId);
      set((state) => {
        const { [tabId]: _closed, ...tabs } = state.tabs;
        const tabOrder = state.tabOrder.filter((id) => id !== tabId);
        const index = state.tabOrder.indexOf(tabId);
        const activeTab =
          state.activeTab === tabId
            ? (tabOrder[Math.min(index, tabOrder.length - 1)] ?? null)
            : state.activeTab;
        return { tabs, tabOrder, activeTab, composingNew: tabOrder.length === 0 };
      });
      if (tab?.branches) {
        // Every branch running in this tab ends with it.
        const running = tab.branches.flatMap((branch) =>
          branch.conversationId ? [branch.conversationId] : [],
        );
        await Promise.all(
          running.map((conversationId) =>
            call('closeConversation', { conversationId }).catch(() => undefined),
          ),
        );
      } else if (tab && !tab.starting && !tab.startError && !tab.saved) {
        await call('closeConversation', { conversationId: tabId }).catch(() => undefined);
      }
    },

    applyConversationEvents(all) {
      get().changesArrived(all);
      // Branches' conversations first (their events go to the branch, shown or not); the rest by tab.
      const batches = get().routeBranchEvents(all);
      set((state) => {
        let tabs = state.tabs;
        for (const [conversationId, events] of batches) {
          const tab = tabs[conversationId];
          if (!tab) continue;
          const conversation = applyEvents(tab.conversation, events);
          // Where its turn stands now, said live: a turn that ends while another tab is shown is news.
          const activity = events.findLast((event) => event.kind === 'activity');
          const doneUnseen = activity
            ? activity.state === 'done' && state.activeTab !== conversationId
            : tab.doneUnseen;
          if (conversation !== tab.conversation || doneUnseen !== tab.doneUnseen)
            tabs = { ...tabs, [conversationId]: { ...tab, conversation, doneUnseen } };
        }
        return tabs === state.tabs ? {} : { tabs };
      });
    },
  };
}
