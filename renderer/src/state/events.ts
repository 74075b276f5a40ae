import type { ConversationEvent } from '../../../shared/ipc';
import { inNextFrame } from './frame';
import { permissionAlerts } from './permission-alerts';
import { folderName, tabOfConversation } from './selectors';
import type { StoreApi } from 'zustand';
import type { Store } from './types';

/** A batch this large is a burst (a long history arriving), not a reply streaming. */
const BURST_EVENTS = 100;
/** During a burst the screen is brought up to date at least this often. */
const BURST_MAX_WAIT_MS = 200;
/**
 * A burst goes on while batches come this close together. On two busy cores the host's frames of a burst
 * come 30-50 ms apart; each screen drawn in between takes CPU the host needs to send the rest.
 */
const BURST_GAP_MS = 100;

/**
 * Carries events from main into the store, applying whatever arrived since the last frame in one update:
 * at most one store update (and so one React commit) per animation frame, however fast deltas come.
 * While a burst of thousands of messages is still arriving, intermediate screens nobody can read are
 * skipped: the update waits for the burst to pause, or for at most BURST_MAX_WAIT_MS.
 */
export function connectEvents(store: StoreApi<Store>): () => void {
  /** Per conversation, the batches that came since the last frame, with their last event's number. */
  let pending = new Map<string, { seq: number; events: ConversationEvent[] }[]>();
  let pendingCount = 0;
  let scheduled = false;
  let waitingSince: number | null = null;
  let lastArrival = 0;
  let turnEnded = false;

  const schedule = () => {
    // With the frame's other updates from main, in one commit (frame.ts).
    if (scheduled) return;
    scheduled = true;
    inNextFrame(flush);
  };

  const flush = () => {
    scheduled = false;
    const now = performance.now();
    // A turn that has ended has nothing more coming: its last screen is drawn at once.
    const stillArriving = now - lastArrival < BURST_GAP_MS && !turnEnded;
    if (pendingCount >= BURST_EVENTS && stillArriving && now - (waitingSince ?? now) < BURST_MAX_WAIT_MS) {
      waitingSince ??= now;
      schedule();
      return;
    }
    waitingSince = null;
    turnEnded = false;
    const arrived = pending;
    pending = new Map();
    pendingCount = 0;
    const state = store.getState();
    const batches = new Map<string, ConversationEvent[]>();
    for (const [conversationId, list] of arrived) {
      // A tab built from a window since these came holds them already.
      const from = state.tabs[conversationId]?.eventsFrom ?? 0;
      const events = list.filter((batch) => batch.seq >= from).flatMap((batch) => batch.events);
      if (events.length > 0) batches.set(conversationId, events);
    }
    state.applyConversationEvents(batches);
  };

  const alerts = permissionAlerts({
    notifications: typeof Notification === 'undefined' ? undefined : Notification,
    enabled: () => store.getState().info?.notifications !== false,
    hasFocus: () => document.hasFocus(),
    conversationName: (conversationId) => {
      const tab = tabOfConversation(store.getState(), conversationId);
      return tab ? (tab.conversation.title ?? folderName(tab.cwd)) : null;
    },
    show: (conversationId) => {
      window.focus();
      store.getState().showConversation(conversationId);
    },
  });

  const offEvents = window.byre.on('conversationEvents', ({ conversationId, events, seq }) => {
    // At once, not at the next frame: a window in the background may get no frames at all.
    void alerts.events(conversationId, events);
    const list = pending.get(conversationId);
    if (list) list.push({ seq, events });
    else pending.set(conversationId, [{ seq, events }]);
    pendingCount += events.length;
    lastArrival = performance.now();
    if (events.some((event) => event.kind === 'message' && event.message.type === 'result')) turnEnded = true;
    schedule();
  });
  const offNotification = window.byre.on('notification', ({ conversationId, title, message }) => {
    void alerts.notice(conversationId, title, message);
  });
  // The library says when its rows change; fetching them again at most once at a time is enough.
  let refreshing: Promise<void> | null = null;
  let again = false;
  const refreshLibrary = () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = store
      .getState()
      .refreshLibrary()
      .finally(() => {
        refreshing = null;
        if (again) {
          again = false;
          refreshLibrary();
        }
      });
  };
  const offLibrary = window.byre.on('libraryChanged', () => {
    refreshLibrary();
    store.getState().usageLibraryChanged();
  });
  refreshLibrary();
  // Each change says how every worktree stands now, so the latest simply replaces what was known.
  const offWorktrees = window.byre.on('worktreesChanged', ({ worktrees }) => {
    store.getState().worktreesArrived(worktrees);
  });
  void store.getState().loadWorktrees();
  // The index took in more usage: an open Usage view reads its report again.
  const offUsage = window.byre.on('usageChanged', () => store.getState().usageChanged());
  // The account's limit windows and the messages kept for their reset: each change says them all.
  const offLimits = window.byre.on('limitsChanged', (limits) => store.getState().limitsArrived(limits));
  const offScheduled = window.byre.on('scheduledSendsChanged', ({ sends }) =>
    store.getState().scheduledSendsArrived(sends),
  );
  void store.getState().loadLimits();
  // As `npm start -- <dir>` does at startup, in the window already open.
  const offSecondLaunch = window.byre.on('secondLaunch', ({ folder }) => {
    // Asked for from outside, it takes the main area; a conversation started on its own (the launch folder's,
    // a kept tab's) does not close a view the user opened meanwhile.
    store.getState().closeUsage();
    void store.getState().startConversation(folder);
  });
  return () => {
    offEvents();
    offNotification();
    offLibrary();
    offWorktrees();
    offUsage();
    offLimits();
    offScheduled();
    offSecondLaunch();
  };
}
