import { applyEvents, type ConversationState } from '../../../shared/conversation';
import type { ConversationEvent, SessionTarget, TurnImage } from '../../../shared/ipc';
import type { Family } from '../../../shared/branches';
import {
  checkpointOwner,
  countMessages,
  forkAfter,
  isPending,
  partIndex,
  PENDING_PREFIX,
  rewindPoint,
  summary,
  targetOf,
  truncateConversation,
} from '../../../shared/branches/tree';
import { call } from '../host/api';
import { tabActions } from './tabs';
import type { Branch, BranchSlice, BranchView, RewindDialog, StoreGet, StoreSet, Tab } from './types';

/**
 * Rewind and branches, as the store does them: the Rewind dialog (a dry run first, then conversation, files
 * or both), "Fork from here", switching between branches, and sending the first message of a rewound branch,
 * which is when its fork starts. A branch that is not shown keeps its view (and keeps streaming into it).
 */

/** The tab's branches, made from what it shows when it has none yet (its one conversation is the root). */
function withRoot(tab: Tab): { branches: Branch[]; current: string } {
  if (tab.branches && tab.branch) return { branches: tab.branches, current: tab.branch };
  const state = tab.conversation;
  const key = state.sessionId ?? tab.id;
  const root: Branch = {
    key,
    sessionId: state.sessionId,
    leafUuid: tab.saved?.leafUuid ?? null,
    conversationId: tab.saved ? null : tab.id,
    parentKey: null,
    forkPointUuid: null,
    partedAt: 0,
    firstMessage: firstText(state, 0),
    lastActive: Date.now(),
    messageCount: countMessages(state),
    resumable: tab.saved ? tab.saved.row.resumable : true,
    view: null,
  };
  return { branches: [root], current: key };
}

function firstText(state: ConversationState, from: number): string {
  for (const id of state.order.slice(from)) {
    const message = state.messages[id];
    if (message?.role === 'user') return summary(message.text);
    if (message?.role === 'assistant') {
      const text = message.parts.find((part) => part.kind === 'text');
      if (text?.kind === 'text') return summary(text.text);
    }
  }
  return '';
}

/** Events kept of one conversation no tab knows yet, at most. */
const MAX_ORPHAN_EVENTS = 5000;

export function createBranchSlice(set: StoreSet, get: StoreGet): BranchSlice {
  const { patchTab } = tabActions(set);
  let pendingIds = 0;
  /** Events of a conversation no tab knows yet (a fork whose answer has not arrived), by conversation id. */
  const orphans = new Map<string, ConversationEvent[]>();
  /** Forks being started (their answer not back yet): only then are unknown conversations' events kept. */
  let forksInFlight = 0;
  /** Rewound branches whose fork is being started: they are kept when left. */
  const sending = new Set<string>();
  /** What the composer held before a rewind replaced it, by tab: given back if the rewind is left unsent. */
  const draftsBeforeRewind = new Map<string, { text: string; images: TurnImage[] }>();

  const viewOf = (tab: Tab): BranchView => ({
    conversation: tab.conversation,
    saved: tab.saved,
    paging: tab.paging,
  });

  /** Shows `key` in the tab: the shown branch keeps its view, the new one's becomes the tab's. */
  const show = (
    tab: Tab,
    branches: Branch[],
    current: string,
    key: string,
    view: BranchView,
  ): Partial<Tab> => {
    const leaving = branches.find((branch) => branch.key === current);
    const next = branches
      // A rewind never sent is dropped when it is left: no empty branch is made (one being sent stays).
      .filter(
        (branch) =>
          branch.key === key || !(isPending(branch) && branch.key === current && !sending.has(branch.key)),
      )
      .map((branch) => {
        if (branch.key === key) return { ...branch, view: null };
        if (branch === leaving) return { ...branch, view: viewOf(tab) };
        return branch;
      });
    return {
      branches: next,
      branch: key,
      conversation: view.conversation,
      saved: view.saved,
      paging: view.paging,
      focus: null,
      rewind: null,
      compare: null,
    };
  };

  /** Starts a rewound branch that waits for its first message: the view is cut at `keep`. */
  const startPending = (tabId: string, at: string | null, keep: number, parentKey?: string) => {
    const tab = get().tabs[tabId];
    if (!tab) return;
    const { branches, current } = withRoot(tab);
    const key = `${PENDING_PREFIX}${++pendingIds}`;
    const conversation = truncateConversation(tab.conversation, keep);
    // Rewinding again before sending replaces that rewind: both part from the same branch.
    const shownBranch = branches.find((branch) => branch.key === current);
    const parentOfNew = isPending(shownBranch) && shownBranch?.parentKey ? shownBranch.parentKey : current;
    const pending: Branch = {
      key,
      sessionId: null,
      leafUuid: null,
      conversationId: null,
      parentKey: parentKey ?? parentOfNew,
      forkPointUuid: at,
      partedAt: Date.now(),
      firstMessage: '',
      lastActive: Date.now(),
      messageCount: countMessages(conversation),
      resumable: true,
      view: null,
    };
    patchTab(tabId, {
      ...show(tab, [...branches, pending], current, key, { conversation, saved: null, paging: tab.paging }),
      branchNotice: null,
      actionError: null,
    });
  };

  /** The session the files of a user message were checkpointed by. */
  const filesTarget = (tab: Tab, messageId: string): SessionTarget | null => {
    const { branches, current } = withRoot(tab);
    const owner = checkpointOwner(branches, current, tab.conversation, messageId);
    return owner ? targetOf(owner) : null;
  };

  const messageUuid = (tab: Tab, messageId: string): string | null => {
    const message = tab.conversation.messages[messageId];
    return message?.role === 'user' ? message.uuid : null;
  };

  /** Updates the Rewind dialog, if it is still open on `messageId` (a late answer for another is dropped). */
  const patchRewind = (tabId: string, messageId: string, patch: Partial<RewindDialog>) =>
    patchTab(tabId, (tab) =>
      tab.rewind?.messageId === messageId ? { rewind: { ...tab.rewind, ...patch } } : {},
    );

  return {
    async openRewind(tabId, messageId) {
      const tab = get().tabs[tabId];
      if (!tab) return;
      patchTab(tabId, { rewind: { messageId, preview: null, error: null, busy: false }, branchNotice: null });
      const uuid = messageUuid(tab, messageId);
      const target = filesTarget(tab, messageId);
      if (!uuid || !target) {
        patchRewind(tabId, messageId, {
          error:
            'Claude Code does not know this message yet (it is still queued), so no files can be restored to it.',
        });
        return;
      }
      try {
        const preview = await get().trusted(() =>
          call('rewindFiles', { target, userMessageUuid: uuid, dryRun: true }),
        );
        patchRewind(tabId, messageId, { preview });
      } catch (error) {
        patchRewind(tabId, messageId, { error: `The files could not be checked: ${messageOf(error)}` });
      }
    },

    closeRewind(tabId) {
      patchTab(tabId, { rewind: null });
    },

    async applyRewind(tabId, choice) {
      const tab = get().tabs[tabId];
      const dialog = tab?.rewind;
      if (!tab || !dialog) return;
      const point = rewindPoint(tab.conversation, dialog.messageId);
      if (choice !== 'files' && !point.ok) {
        patchRewind(tabId, dialog.messageId, { error: point.reason });
        return;
      }
      let notice: string | null = null;
      if (choice !== 'conversation') {
        const uuid = messageUuid(tab, dialog.messageId);
        const target = filesTarget(tab, dialog.messageId);
        if (!uuid || !target || !dialog.preview?.canRewind) {
          patchRewind(tabId, dialog.messageId, {
            error: dialog.preview?.reason ?? 'There are no files to restore.',
          });
          return;
        }
        patchRewind(tabId, dialog.messageId, { busy: true, error: null });
        try {
          const done = await get().trusted(() =>
            call('rewindFiles', { target, userMessageUuid: uuid, dryRun: false }),
          );
          if (!done.canRewind) {
            patchRewind(tabId, dialog.messageId, {
              busy: false,
              error: done.reason ?? 'The files could not be restored.',
            });
            return;
          }
          const count = dialog.preview.filesChanged.length;
          notice = `${count} ${count === 1 ? 'file' : 'files'} restored`;
        } catch (error) {
          patchRewind(tabId, dialog.messageId, {
            busy: false,
            error: `The files could not be restored: ${messageOf(error)}`,
          });
          return;
        }
      }
      patchTab(tabId, { rewind: null, branchNotice: notice });
      if (choice === 'files' || !point.ok) return;
      const message = tab.conversation.messages[dialog.messageId];
      startPending(tabId, point.at, point.keep);
      // The rewound message goes back into the composer, to edit and send; what was there is kept aside.
      if (message?.role === 'user') {
        const draft = get().drafts[tabId];
        if (draft && !draftsBeforeRewind.has(tabId)) {
          const images = draft.attachments.flatMap((attachment) =>
            attachment.image ? [{ mediaType: attachment.image.mediaType, data: attachment.image.data }] : [],
          );
          if (draft.text.trim() || images.length > 0)
            draftsBeforeRewind.set(tabId, { text: draft.text, images });
        }
        get().restoreDraft(tabId, message.text, message.images);
      }
      patchTab(tabId, { branchNotice: notice });
    },

    forkFromHere(tabId, messageId) {
      const tab = get().tabs[tabId];
      if (!tab) return;
      const point = forkAfter(tab.conversation, messageId);
      if (!point.ok) {
        patchTab(tabId, { actionError: point.reason });
        return;
      }
      startPending(tabId, point.at, point.keep);
    },

    async switchBranch(tabId, key, partAt) {
      const tab = get().tabs[tabId];
      if (!tab?.branches || !tab.branch || tab.branch === key) return;
      const target = tab.branches.find((branch) => branch.key === key);
      if (!target) return;
      let view = target.view;
      if (!view) {
        if (!target.sessionId) return;
        try {
          view = await get().readSavedView(target.sessionId, target.leafUuid);
        } catch (error) {
          patchTab(tabId, { actionError: `That branch could not be opened: ${messageOf(error)}` });
          return;
        }
      }
      const now = get().tabs[tabId];
      if (!now?.branches || !now.branch || now.branch === key) return;
      if (!now.branches.some((branch) => branch.key === key)) return;
      const shown = show(now, now.branches, now.branch, key, view);
      if (partAt !== undefined) {
        const messageId = view.conversation.order[partIndex(view.conversation, partAt)];
        if (messageId) shown.focus = { messageId, nonce: Date.now() };
      }
      patchTab(tabId, shown);
    },

    async compareWith(tabId, key) {
      const tab = get().tabs[tabId];
      if (!tab?.branches) return;
      if (key === null || key === tab.branch) {
        patchTab(tabId, { compare: null });
        return;
      }
      const other = tab.branches.find((branch) => branch.key === key);
      if (!other) return;
      if (!other.view) {
        if (!other.sessionId) return;
        try {
          const view = await get().readSavedView(other.sessionId, other.leafUuid);
          patchTab(tabId, (now) => ({
            branches: (now.branches ?? []).map((branch) =>
              branch.key === key ? { ...branch, view } : branch,
            ),
          }));
        } catch (error) {
          patchTab(tabId, { actionError: `That branch could not be opened: ${messageOf(error)}` });
          return;
        }
      }
      patchTab(tabId, { compare: key });
    },

    cancelPendingRewind(tabId) {
      const tab = get().tabs[tabId];
      const current = tab?.branches?.find((branch) => branch.key === tab.branch);
      if (!tab?.branches || !current || !isPending(current) || !current.parentKey) return;
      void get().switchBranch(tabId, current.parentKey);
      // The composer gets back what it held before the rewind (or is emptied of the rewound message).
      const before = draftsBeforeRewind.get(tabId);
      draftsBeforeRewind.delete(tabId);
      get().restoreDraft(tabId, before?.text ?? '', before?.images ?? []);
    },

    async sendInPendingBranch(tabId, text, images) {
      const tab = get().tabs[tabId];
      const pending = tab?.branches?.find((branch) => branch.key === tab.branch);
      if (!tab?.branches || !pending || !isPending(pending)) throw new Error('Nothing is rewound here.');
      const parent = tab.branches.find((branch) => branch.key === pending.parentKey);
      const from = parent ? targetOf(parent) : null;
      if (!parent || !from) throw new Error('The conversation this was rewound from is gone.');
      // A branch inside a file is not resumable on its own, but it can be forked from.
      if (!parent.resumable && !parent.leafUuid) {
        throw new Error(
          'Claude Code no longer has its copy of this conversation, so it cannot be forked. You can continue it in a new conversation instead.',
        );
      }
      forksInFlight += 1;
      sending.add(pending.key);
      let answer: Awaited<ReturnType<typeof call<'forkConversation'>>>;
      try {
        answer = await get().trusted(() =>
          call('forkConversation', { from, at: pending.forkPointUuid, message: { text, images } }),
        );
      } finally {
        forksInFlight -= 1;
        sending.delete(pending.key);
        if (forksInFlight === 0) queueMicrotask(() => forksInFlight === 0 && orphans.clear());
      }
      const { snapshot } = answer;
      const id = snapshot.conversationId;
      // What the composer held before the rewind comes back, now that the rewound message is sent.
      const before = draftsBeforeRewind.get(tabId);
      draftsBeforeRewind.delete(tabId);
      if (before) get().restoreDraft(tabId, before.text, before.images);
      if (!get().tabs[tabId]?.branches?.some((branch) => branch.key === pending.key)) {
        // The tab was closed while the fork started: end it rather than leave it running unseen.
        await call('closeConversation', { conversationId: id }).catch(() => undefined);
        return;
      }
      set((state) => {
        const current = state.tabs[tabId];
        if (!current?.branches) return {};
        const early = orphans.get(id) ?? [];
        orphans.delete(id);
        const branches = current.branches.map((branch) =>
          branch.key === pending.key
            ? {
                ...branch,
                key: snapshot.sessionId,
                sessionId: snapshot.sessionId,
                conversationId: id,
                firstMessage: summary(text),
                lastActive: Date.now(),
              }
            : branch,
        );
        const shown = current.branch === pending.key;
        const resumed = (state: ConversationState) =>
          applyEvents(state, [{ kind: 'resumed', snapshot }, ...early]);
        return {
          tabs: {
            ...state.tabs,
            [tabId]: {
              ...current,
              branches: shown
                ? branches
                : branches.map((branch) =>
                    branch.sessionId === snapshot.sessionId && branch.view
                      ? {
                          ...branch,
                          view: { ...branch.view, conversation: resumed(branch.view.conversation) },
                        }
                      : branch,
                  ),
              branch: shown ? snapshot.sessionId : current.branch,
              conversation: shown ? resumed(current.conversation) : current.conversation,
            },
          },
        };
      });
    },

    async loadFamily(tabId) {
      const tab = get().tabs[tabId];
      const sessionId = tab?.saved?.sessionId;
      // A lone conversation has no family to read (reading one reads every file of it).
      if (!tab || !sessionId || (tab.saved?.row.branchCount ?? 1) < 2) return;
      let family: Family;
      try {
        family = await call('libraryFamily', { sessionId });
      } catch {
        // The family is extra: the conversation itself is shown all the same.
        return;
      }
      if (family.branches.length < 2) return;
      const now = get().tabs[tabId];
      // Branches made here meanwhile (a rewind, a fork) are not overwritten by the library's older view.
      if (!now || now.saved?.sessionId !== sessionId || now.branches) return;
      const branches: Branch[] = family.branches.map((info) => ({
        ...info,
        conversationId: null,
        view: null,
      }));
      const shown =
        branches.find((branch) => branch.key === sessionId) ??
        branches.find((b) => b.sessionId === sessionId);
      if (!shown) return;
      patchTab(tabId, { branches, branch: shown.key });
    },

    routeBranchEvents(batches) {
      const rest = new Map<string, ConversationEvent[]>();
      const tabs = get().tabs;
      let changed: Record<string, Tab> | null = null;
      for (const [conversationId, events] of batches) {
        const owner = Object.values(tabs).find((tab) =>
          tab.branches?.some((branch) => branch.conversationId === conversationId),
        );
        if (!owner) {
          if (tabs[conversationId]) rest.set(conversationId, events);
          else if (forksInFlight > 0) {
            // A fork whose answer has not come back yet: kept until it does.
            const kept = orphans.get(conversationId) ?? [];
            if (kept.length + events.length <= MAX_ORPHAN_EVENTS)
              orphans.set(conversationId, [...kept, ...events]);
          }
          continue;
        }
        const tab = changed?.[owner.id] ?? owner;
        const branch = tab.branches?.find((candidate) => candidate.conversationId === conversationId);
        if (!branch) continue;
        changed ??= {};
        if (branch.key === tab.branch) {
          changed[tab.id] = { ...tab, conversation: applyEvents(tab.conversation, events) };
        } else if (branch.view) {
          const view = { ...branch.view, conversation: applyEvents(branch.view.conversation, events) };
          changed[tab.id] = {
            ...tab,
            branches: (tab.branches ?? []).map((candidate) =>
              candidate === branch ? { ...candidate, view, lastActive: Date.now() } : candidate,
            ),
          };
        }
      }
      if (changed) {
        const updates = changed;
        set((state) => ({ tabs: { ...state.tabs, ...updates } }));
      }
      return rest;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
