import {
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type KeyboardEvent as ReactKeyboardEvent,
} from 'react';
import { bridgeConnection, isFinal, STATUS_MESSAGES, type BridgeStatus } from './host/bridge-client';
import { conversationActivity, folderName, workingOn } from './state/selectors';
import { NewConversation } from './chat/NewConversation';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { Sidebar } from './library/Sidebar';
import { connectEvents } from './state/events';
import { handleCloseTabRequests, MAC, useOverlay, type Overlay } from './ui/overlays';
import { CommandPalette, ShortcutsSheet } from './palette/Palette';
import { SettingsScreen } from './settings/Settings';
import { applyTheme } from './ui/theme';
import { useModalDialog } from './ui/popover';
import { useStore } from './state/store';
import type { Tab } from './state/types';
import { TrustDialog } from './settings/TrustDialog';
import { useUsageShortcut } from './usage/shortcut';
import { conversationRoom, usageRoom } from './rooms';
import { Check, Plus, SquareTerminal } from 'lucide-react';
import { LANE_BILLING } from '../../shared/ipc/app';

const ConversationView = conversationRoom.Room;
const UsageView = usageRoom.Room;

export function App() {
  const loadInfo = useStore((state) => state.loadInfo);
  const infoError = useStore((state) => state.infoError);

  useEffect(() => {
    const disconnect = connectEvents(useStore);
    void loadInfo();
    return disconnect;
  }, [loadInfo]);

  const theme = useStore((state) => state.info?.theme);
  useEffect(() => {
    if (theme) applyTheme(theme);
  }, [theme]);

  const status = useBridgeStatus();
  const setConnected = useStore((state) => state.setConnected);
  useEffect(() => {
    setConnected(status === 'open' || status === 'connecting');
  }, [status, setConnected]);
  // Loading failed while the connection was down: try again once it is back (only then, not in a loop).
  const wasOpen = useRef(status === 'open');
  useEffect(() => {
    if (status === 'open' && !wasOpen.current) {
      const { info, infoError, resync } = useStore.getState();
      if (infoError) void loadInfo();
      // Back after a loss: what happened meanwhile never reached this page.
      else if (info) void resync();
    }
    wasOpen.current = status === 'open';
  }, [status, loadInfo]);
  if (isFinal(status)) {
    return (
      <div className="state-panel" role="alert">
        <h2>{status === 'foreign' ? 'Byre is no longer at this address' : 'This page cannot open Byre'}</h2>
        <p>{STATUS_MESSAGES[status]}</p>
      </div>
    );
  }
  if (infoError) {
    return (
      <div className="state-panel" role="alert">
        <h2>Byre could not reach its backend</h2>
        <p>{infoError}</p>
      </div>
    );
  }
  return (
    <div className="app">
      {status === 'lost' && (
        <p className="connection-lost" role="status">
          Lost the connection to Byre. Trying again…
        </p>
      )}
      <SettingsProblems />
      <KeptTabsProblem />
      <Shortcuts />
      <CommandPalette />
      <ShortcutsSheet />
      <SettingsScreen />
      <TrustDialog />
      <div className="app-body">
        <SidebarSlot />
        <div className="app-main">
          <TabBar />
          <Main />
        </div>
      </div>
    </div>
  );
}

/** Where the page stands with the browser host (always open under Electron, which has no bridge). */
function subscribeBridgeStatus(listener: () => void): () => void {
  return bridgeConnection()?.onStatus(listener) ?? (() => undefined);
}

function bridgeStatus(): BridgeStatus {
  return bridgeConnection()?.status ?? 'open';
}

function useBridgeStatus(): BridgeStatus {
  return useSyncExternalStore(subscribeBridgeStatus, bridgeStatus);
}

/** What was wrong with the settings file when Byre started, until the user has read it. */
const NO_PROBLEMS: string[] = [];

function SettingsProblems() {
  const problems = useStore((state) => state.info?.settingsProblems ?? NO_PROBLEMS);
  const [dismissed, setDismissed] = useState(false);
  if (problems.length === 0 || dismissed) return null;
  return (
    <div className="banner banner-warn settings-problems" role="alert">
      <p>Some settings could not be used:</p>
      <ul>
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
      <button type="button" className="button-secondary" onClick={() => setDismissed(true)}>
        Dismiss
      </button>
    </div>
  );
}

/** Why the tabs open when Byre last quit did not come back (their file was damaged and set aside). */
function KeptTabsProblem() {
  const problem = useStore((state) => state.keptTabsProblem);
  const dismiss = useStore((state) => state.dismissKeptTabsProblem);
  if (!problem) return null;
  return (
    <div className="banner banner-warn settings-problems" role="alert">
      <p>{problem}</p>
      <button type="button" className="button-secondary" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

function SidebarSlot() {
  const open = useStore((state) => state.sidebarOpen);
  if (!open) return null;
  return (
    <ErrorBoundary what="the conversation list">
      <Sidebar />
    </ErrorBoundary>
  );
}

/** Ctrl/Cmd with these keys (by position) opens, or closes again, the view. */
const OVERLAY_KEYS: Record<string, Overlay> = { KeyK: 'palette', Slash: 'shortcuts', Comma: 'settings' };

/**
 * Keys that work anywhere in the window: Ctrl/Cmd+F finds in the conversation, Ctrl/Cmd+B shows the list,
 * Ctrl/Cmd+K the command palette, Ctrl/Cmd+/ the shortcuts and Ctrl/Cmd+, the settings.
 */
function Shortcuts() {
  useUsageShortcut(usageCommand);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.isComposing) return;
      const overlay = OVERLAY_KEYS[event.code];
      if (overlay && (MAC ? event.metaKey : event.ctrlKey)) {
        event.preventDefault();
        const overlays = useOverlay.getState();
        if (overlays.open === overlay) overlays.close();
        // Not over another dialog (closing a tab, rewinding) that has the keyboard.
        else if (overlays.open !== null || !document.querySelector('dialog[open], [aria-modal="true"]')) {
          overlays.show(overlay);
        }
        return;
      }
      // The palette and the other views have the keyboard while they are open.
      if (useOverlay.getState().open) return;
      const key = event.key.toLowerCase();
      const state = useStore.getState();
      if (key === 'f' && state.activeTab && state.tabs[state.activeTab] && !state.composingNew) {
        event.preventDefault();
        state.openFind(state.activeTab);
      } else if (key === 'b') {
        event.preventDefault();
        state.toggleSidebar();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
  return null;
}

/** Ctrl/Cmd+Shift+U (the Usage view): Cmd on a Mac, Ctrl elsewhere, and not while a dialog has the keyboard. */
function usageCommand(event: KeyboardEvent): boolean {
  if (!(MAC ? event.metaKey : event.ctrlKey) || event.isComposing || useOverlay.getState().open) return false;
  return !document.querySelector('dialog[open], [aria-modal="true"]');
}

/** What closing a tab would cost the user, one sentence each: nothing, if it can close without asking. */
function closeCosts(id: string): string[] {
  const state = useStore.getState();
  const tab = state.tabs[id];
  const draft = state.drafts[id];
  const reasons: string[] = [];
  // With the host gone, nothing is running that closing could stop.
  const running =
    state.connected &&
    (tab?.conversation.status === 'running' ||
      !!tab?.branches?.some((branch) => branch.view?.conversation.status === 'running'));
  if (running) reasons.push('Claude is still working on a reply; closing stops it.');
  if (draft && (draft.text.trim() !== '' || draft.attachments.length > 0)) {
    reasons.push('You have a message you have not sent; closing discards it.');
  }
  return reasons;
}

/** Asks before a tab is closed with work in it. Escape or "Keep it open" leaves it as it was. */
function CloseTabDialog({
  label,
  reasons,
  onClose,
  onKeep,
}: {
  label: string;
  reasons: string[];
  onClose: () => void;
  onKeep: () => void;
}) {
  const dialog = useModalDialog();
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby="close-tab-title"
      aria-describedby="close-tab-reasons"
      onCancel={(event) => {
        event.preventDefault();
        onKeep();
      }}
    >
      <h2 id="close-tab-title">Close “{label}”?</h2>
      <div id="close-tab-reasons">
        {reasons.map((reason) => (
          <p key={reason}>{reason}</p>
        ))}
      </div>
      <p className="muted">The conversation stays in the list, to open again.</p>
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={onKeep} autoFocus>
          Keep it open
        </button>
        <button type="button" className="button-danger" onClick={onClose}>
          Close conversation
        </button>
      </div>
    </dialog>
  );
}

const TAB_PANEL_ID = 'conversation-panel';
const tabElementId = (id: string) => `tab-${id.replace(/[^\w-]/g, '_')}`;

/**
 * Left and Right (Home, End) move the focus among the tabs, without opening them; Enter or Space opens the
 * one focused (opening one puts the focus in its composer).
 */
function moveAmongTabs(event: ReactKeyboardEvent<HTMLDivElement>): void {
  const tabs = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
  const at = tabs.indexOf(document.activeElement as HTMLElement);
  if (at < 0 || tabs.length === 0) return;
  const next =
    event.key === 'ArrowRight'
      ? (at + 1) % tabs.length
      : event.key === 'ArrowLeft'
        ? (at - 1 + tabs.length) % tabs.length
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? tabs.length - 1
            : null;
  if (next === null) return;
  event.preventDefault();
  tabs[next]?.focus();
}

/**
 * Ctrl/Cmd+1…8 open that tab and 9 the last; Ctrl+Tab and Ctrl+Shift+Tab the next and the one before;
 * Ctrl/Cmd+W closes the open tab (asking first when that would lose work); Ctrl/Cmd+N starts a new
 * conversation. (A browser keeps some of these for itself; the desktop app has them all.)
 */
function useTabShortcuts(askToClose: (id: string) => void): void {
  const ask = useRef(askToClose);
  useEffect(() => {
    ask.current = askToClose;
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      // Cmd on a Mac (where Ctrl+N moves the caret down a line), Ctrl elsewhere; Ctrl+Tab everywhere.
      const command = MAC ? event.metaKey : event.ctrlKey;
      if (event.altKey || event.isComposing || event.defaultPrevented) return;
      const tabKey = event.key === 'Tab' && event.ctrlKey;
      if (!command && !tabKey) return;
      // Keyed by position, so that other layouts (AZERTY, Cyrillic) reach them too.
      const letter = /^Key([A-Z])$/.exec(event.code)?.[1];
      const digit = /^Digit([1-9])$/.exec(event.code)?.[1];
      // Never the browser's or the window menu's own Close: closing is the tab's, and asks first.
      if (letter === 'W' && !event.shiftKey) event.preventDefault();
      // While a dialog is open (closing a tab, rewinding, an image), it has the keyboard.
      if (document.querySelector('dialog[open], [aria-modal="true"]')) return;
      const state = useStore.getState();
      const order = state.tabOrder;
      const at = state.activeTab ? order.indexOf(state.activeTab) : -1;
      let target: string | undefined;
      if (tabKey && order.length > 0) {
        target = order[(at + (event.shiftKey ? -1 : 1) + order.length) % order.length];
      } else if (!event.shiftKey && digit) {
        target = digit === '9' ? order[order.length - 1] : order[Number(digit) - 1];
        if (!target) return;
      } else if (!event.shiftKey && letter === 'W') {
        // Held down, it closes one tab, not one per repeat.
        if (!event.repeat && state.activeTab && !state.composingNew) ask.current(state.activeTab);
        return;
      } else if (!event.shiftKey && letter === 'N') {
        event.preventDefault();
        if (!event.repeat) state.showNewConversation();
        return;
      } else {
        return;
      }
      event.preventDefault();
      if (target) state.activate(target);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
  // The palette's "Close this conversation" asks the same way.
  useEffect(() => handleCloseTabRequests((id) => ask.current(id)), []);
}

function TabBar() {
  const tabOrder = useStore((state) => state.tabOrder);
  const tabs = useStore((state) => state.tabs);
  const active = useStore((state) => state.activeTab);
  const activate = useStore((state) => state.activate);
  const closeTab = useStore((state) => state.closeTab);
  const connected = useStore((state) => state.connected);
  const [confirming, setConfirming] = useState<{
    id: string;
    label: string;
    reasons: string[];
    /** Where the focus was when the dialog opened, to give it back if the tab stays. */
    returnTo: Element | null;
  } | null>(null);
  /** Closes at once, or asks first when closing would stop a reply or throw away an unsent message. */
  const askToClose = (id: string, label: string) => {
    const reasons = closeCosts(id);
    if (reasons.length === 0) void closeTab(id);
    else setConfirming({ id, label, reasons, returnTo: document.activeElement });
  };
  // Given back once the dialog is gone: while a modal dialog is open, the rest of the page is inert.
  const restoreFocus = useRef<Element | null>(null);
  useEffect(() => {
    if (confirming || !(restoreFocus.current instanceof HTMLElement)) return;
    restoreFocus.current.focus();
    restoreFocus.current = null;
  }, [confirming]);
  const showNew = useStore((state) => state.showNewConversation);
  const askToCloseById = (id: string) => {
    const tab = useStore.getState().tabs[id];
    if (tab) askToClose(id, tabLabel(tab).full);
  };
  useTabShortcuts(askToCloseById);
  const sidebarOpen = useStore((state) => state.sidebarOpen);
  const toggleSidebar = useStore((state) => state.toggleSidebar);
  // The tab shown is seen, however it came to be shown (a click, a new conversation, a reload).
  const seen = useStore((state) => state.seen);
  const activeDoneUnseen = useStore((state) => (active ? state.tabs[active]?.doneUnseen : false));
  useEffect(() => {
    if (active && activeDoneUnseen) seen(active);
  }, [active, activeDoneUnseen, seen]);
  return (
    <div className="tab-bar">
      <button
        type="button"
        className="sidebar-toggle"
        aria-pressed={sidebarOpen}
        title={`${sidebarOpen ? 'Hide' : 'Show'} the conversation list (Ctrl+B)`}
        onClick={toggleSidebar}
      >
        <span aria-hidden="true">☰</span>
        <span className="sr-only">Conversation list</span>
      </button>
      <div role="tablist" aria-label="Open conversations" className="tabs" onKeyDown={moveAmongTabs}>
        {tabOrder.map((id) => {
          const tab = tabs[id];
          if (!tab) return null;
          const { base, host, full: label } = tabLabel(tab);
          // A branch that is not shown may still be working: the tab says so.
          const running =
            connected &&
            (tab.conversation.status === 'running' ||
              !!tab.branches?.some((branch) => branch.view?.conversation.status === 'running'));
          const terminal = tab.conversation.lane === 'terminal';
          // Where its turn stands, as either lane tells it: waiting for the person (with what), or done.
          // An exited CLI waits for nobody: its tab shows how it ended instead.
          const { activity } = tab.conversation;
          const live = tab.conversation.status !== 'exited';
          const needsYou = live && activity?.state === 'needs_you';
          // A turn ended well while another tab was shown: the tab says so until seen (a failed one is not
          // "done", as the sidebar says).
          const done =
            live &&
            id !== active &&
            activity?.state === 'done' &&
            conversationActivity(tab.conversation) === 'done' &&
            !!tab.doneUnseen;
          const requests =
            tab.conversation.permissionRequests.length +
            tab.conversation.elicitations.length +
            (tab.branches ?? []).reduce(
              (sum, branch) => sum + (branch.view?.conversation.permissionRequests.length ?? 0),
              0,
            );
          // A Stream conversation's requests are counted; a Terminal one's hooks say only that one waits.
          const asking = Math.max(needsYou ? 1 : 0, requests);
          return (
            <div key={id} className={`tab${id === active ? ' tab-active' : ''}`}>
              <button
                type="button"
                role="tab"
                id={tabElementId(id)}
                aria-selected={id === active}
                aria-controls={id === active ? TAB_PANEL_ID : undefined}
                // One stop for Tab in the tab list: the open tab (the first when none is open); the arrow
                // keys move among the others.
                tabIndex={id === (active && tabs[active] ? active : tabOrder[0]) ? 0 : -1}
                className="tab-label"
                title={tabTitle(tab, host, terminal)}
                onClick={() => activate(id)}
              >
                {running && !asking && <span className="tab-spinner" aria-hidden="true" />}
                {running && !asking && <span className="sr-only">Busy: </span>}
                {terminal && <SquareTerminal className="tab-lane" size={13} aria-hidden="true" />}
                {terminal && <span className="sr-only">Terminal: </span>}
                {/* Cut short with an ellipsis, however long: its marks after it stay in view. */}
                <span className="tab-name">
                  {base}
                  {host && <span className="tab-host"> on {host}</span>}
                </span>
                {done && (
                  <span className="tab-done" title="Claude is done">
                    <Check aria-hidden="true" size={12} />
                    <span className="sr-only">, done</span>
                  </span>
                )}
                {asking > 0 && (
                  <span
                    className="tab-asking"
                    title={
                      needsYou ? (tab.conversation.activity?.what ?? 'Claude needs you') : 'Claude needs you'
                    }
                  >
                    <span aria-hidden="true">{asking}</span>
                    <span className="sr-only">, needs you</span>
                  </span>
                )}
              </button>
              <button
                type="button"
                className="tab-close"
                aria-label={`Close ${label}`}
                onClick={() => askToClose(id, label)}
              >
                ×
              </button>
            </div>
          );
        })}
      </div>
      <button
        type="button"
        className="new-tab"
        aria-label="New conversation"
        title="New conversation"
        onClick={() => showNew()}
      >
        <Plus className="new-tab-icon" aria-hidden="true" size={16} />
        {/* Its words give way to the icon where the tabs need the room (styles.css); its label stays. */}
        <span className="new-tab-words">New conversation</span>
      </button>
      {confirming && (
        <CloseTabDialog
          {...confirming}
          onClose={() => {
            void closeTab(confirming.id);
            setConfirming(null);
          }}
          onKeep={() => {
            restoreFocus.current = confirming.returnTo;
            setConfirming(null);
          }}
        />
      )}
    </div>
  );
}

/**
 * A tab's name: its title or folder (`base`), and the host it runs on when that is another (its start may
 * not have said yet); `full` says both, for the close button and its question.
 */
function tabLabel(tab: Tab): { base: string; host: string | null; full: string } {
  const base = tab.conversation.title ?? folderName(tab.cwd);
  const host = tab.conversation.host ?? tab.requested?.host ?? null;
  return { base, host, full: host ? `${base} on ${host}` : base };
}

/** A tab's tooltip: where it runs, the lane it bills to, and what its turn is doing now. */
function tabTitle(tab: Tab, host: string | null, terminal: boolean): string {
  const where = host ? `${tab.cwd} on ${host}` : tab.cwd;
  const lane = terminal ? ` · Terminal: ${LANE_BILLING.terminal}` : '';
  const doing = workingOn(tab.conversation);
  return `${where}${lane}${doing ? ` · Working: ${doing}` : ''}`;
}

function Main() {
  const composingNew = useStore((state) => state.composingNew);
  const newLane = useStore((state) => state.newConversationLane);
  const active = useStore((state) =>
    state.activeTab && state.tabs[state.activeTab] ? state.activeTab : null,
  );
  const info = useStore((state) => state.info);
  const usageOpen = useStore((state) => state.usageOpen);
  if (!info) return <div className="state-panel">Loading…</div>;
  // In the main area, in place of the conversation (which stays open in its tab, a click away).
  if (usageOpen) {
    return (
      <main className="main usage-main">
        <ErrorBoundary what="the Usage view">
          <UsageView />
        </ErrorBoundary>
      </main>
    );
  }
  if (composingNew || !active) return <NewConversation key={newLane ?? 'default'} />;
  return (
    <main className="main" role="tabpanel" id={TAB_PANEL_ID} aria-labelledby={tabElementId(active)}>
      <ErrorBoundary what="this conversation" key={active}>
        <ConversationView tabId={active} />
      </ErrorBoundary>
    </main>
  );
}
