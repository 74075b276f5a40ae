/**
 * The limits slice (issue 29): the plan's limit windows, which are the account's and not one conversation's
 * (main keeps the last report of each kind and says when one changes), and the messages kept to be sent
 * when a limit resets. Main holds those and sends them, after a restart too; this slice only mirrors its
 * list, so a reload shows them again. A kept message main sent to a session no tab of this window shows
 * brings that conversation's tab, as the conversations open at startup do.
 */
import type { ScheduledSend } from '../../../shared/ipc';
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import type { LimitsSlice, Store, StoreGet, StoreSet } from './types';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The tab that shows a session live, if any (a read-only one cannot take its message back). */
function tabOfSession(state: Store, sessionId: string): string | null {
  const tab = Object.values(state.tabs).find(
    (candidate) => !candidate.saved && candidate.conversation.sessionId === sessionId,
  );
  return tab?.id ?? null;
}

export function createLimitsSlice(set: StoreSet, get: StoreGet): LimitsSlice {
  /** Kept messages this window cancelled: their leaving the list is no sign that one was sent. */
  const cancelled = new Set<string>();
  let usageAsked = 0;

  const setError = (tabId: string, error: string | null) =>
    set((state) => {
      const { [tabId]: _old, ...rest } = state.scheduleErrors;
      return { scheduleErrors: error === null ? rest : { ...rest, [tabId]: error } };
    });

  const slice: LimitsSlice = {
    limitWindows: [],
    limitAlertAt: 0.9,
    scheduledSends: [],
    scheduleErrors: {},
    windowUsage: null,

    async loadLimits() {
      // Each on its own: one that fails leaves the other shown.
      await Promise.all([
        call('limits', {})
          .then((limits) => get().limitsArrived(limits))
          .catch(() => undefined),
        call('scheduledSends', {})
          .then(({ sends }) => get().scheduledSendsArrived(sends))
          .catch(() => undefined),
      ]);
    },

    limitsArrived({ windows, alertAt }) {
      set({ limitWindows: windows, limitAlertAt: alertAt });
    },

    scheduledSendsArrived(sends) {
      const state = get();
      const now = new Set(sends.map((send) => send.id));
      // Gone without this window cancelling it: main sent it. Its session may have no tab here yet.
      const sent = state.scheduledSends.filter((send) => !now.has(send.id) && !cancelled.has(send.id));
      for (const send of state.scheduledSends) if (!now.has(send.id)) cancelled.delete(send.id);
      set({ scheduledSends: [...sends] });
      if (sent.some((send) => tabOfSession(state, send.sessionId) === null)) {
        void get().adoptOpenConversations();
      }
    },

    async sendWhenLimitResets(tabId, text) {
      const tab = get().tabs[tabId];
      const conversationId = tab ? liveConversationId(tab) : null;
      if (!conversationId) return false;
      setError(tabId, null);
      let send: ScheduledSend;
      try {
        send = await call('sendWhenLimitResets', { conversationId, text });
      } catch (error) {
        setError(tabId, messageOf(error));
        return false;
      }
      set((state) => ({
        scheduledSends: [...state.scheduledSends.filter((kept) => kept.id !== send.id), send],
      }));
      // The message now waits in main: the composer gives it up, unless something else was typed meanwhile.
      if ((get().drafts[tabId]?.text ?? '').trim() === text.trim()) get().setDraftText(tabId, '');
      return true;
    },

    async cancelScheduledSend(id) {
      const send = get().scheduledSends.find((kept) => kept.id === id);
      if (!send) return;
      const tabId = tabOfSession(get(), send.sessionId);
      cancelled.add(id);
      let answer: { cancelled: boolean };
      try {
        answer = await call('cancelScheduledSend', { id });
      } catch (error) {
        cancelled.delete(id);
        if (tabId) setError(tabId, messageOf(error));
        return;
      }
      if (!answer.cancelled) {
        // Too late: main had sent it. The text is not put back (Enter would send it twice), and it is the
        // sent path's to show the conversation.
        cancelled.delete(id);
        const sent = get().scheduledSends.filter((kept) => kept.id === id);
        set((state) => ({ scheduledSends: state.scheduledSends.filter((kept) => kept.id !== id) }));
        if (tabId) setError(tabId, 'It could not be cancelled: it had already been sent.');
        else if (sent.length > 0) void get().adoptOpenConversations();
        return;
      }
      set((state) => ({ scheduledSends: state.scheduledSends.filter((kept) => kept.id !== id) }));
      if (!tabId) return;
      setError(tabId, null);
      // Nothing typed is overwritten; the message is in the composer again only where there is room for it.
      if (!(get().drafts[tabId]?.text ?? '').trim()) get().setDraftText(tabId, send.text);
    },

    async retryScheduledSend(id) {
      const send = get().scheduledSends.find((kept) => kept.id === id);
      const tabId = send ? tabOfSession(get(), send.sessionId) : null;
      if (!send || !tabId) return;
      // Sent first, then no longer kept: a send that fails leaves the message where it was.
      if (!(await get().sendMessage(tabId, send.text))) return;
      cancelled.add(id);
      await call('cancelScheduledSend', { id }).catch(() => cancelled.delete(id));
      set((state) => ({ scheduledSends: state.scheduledSends.filter((kept) => kept.id !== id) }));
    },

    async readWindowUsage(since) {
      const number = ++usageAsked;
      set((state) => ({
        windowUsage: {
          since,
          usage: state.windowUsage?.since === since ? state.windowUsage.usage : null,
          error: null,
        },
      }));
      try {
        const usage = await call('windowUsage', { since });
        if (number === usageAsked) set({ windowUsage: { since, usage, error: null } });
      } catch (error) {
        if (number === usageAsked) {
          set((state) => ({
            windowUsage: { since, usage: state.windowUsage?.usage ?? null, error: messageOf(error) },
          }));
        }
      }
    },
  };
  return slice;
}
