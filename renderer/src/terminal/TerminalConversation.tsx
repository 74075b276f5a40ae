/**
 * A Terminal conversation's tab: a header that says where it runs and what it bills to, the real CLI's
 * screen (screen.ts), and Byre's own around it (Changes, "Done when", the folder's trust). What the person
 * types goes to the CLI as the terminal encodes it; Ctrl with a letter is the CLI's (Ctrl+K, Ctrl+N and
 * Ctrl+W are its own shortcuts there), so only Byre's keys that the CLI does not use stay Byre's: Cmd on a
 * Mac, and Ctrl+Tab and Ctrl+digit elsewhere. Ctrl+Shift+F (Cmd+F) finds in the terminal.
 */
import {
  useCallback,
  useEffect,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { useShallow } from 'zustand/react/shallow';
import { LANE_BILLING } from '../../../shared/ipc/app';
import { ChangesButton } from '../changes/ChangesPanel';
import { DoneWhenButton } from '../chat/DoneWhen';
import { SetupCard } from '../chat/SetupCard';
import { WorktreeDialogs, WorktreeHeader } from '../chat/WorktreeMenu';
import { folderName, workingOn } from '../state/selectors';
import { useStore } from '../state/store';
import type { Screen } from './screen';

import { MAC } from '../ui/overlays';

export function TerminalConversation({
  tabId,
  around,
}: {
  tabId: string;
  around(view: ReactNode): ReactNode;
}) {
  const { cwd, status, activity, doing, folderSettingsOff, setup } = useStore(
    useShallow((state) => {
      const conversation = state.tabs[tabId]?.conversation;
      return {
        setup: conversation?.setup ?? null,
        cwd: conversation?.cwd ?? state.tabs[tabId]?.cwd ?? '',
        status: conversation?.status ?? 'exited',
        activity: conversation?.activity ?? null,
        doing: conversation ? workingOn(conversation) : null,
        folderSettingsOff: conversation?.folderSettingsOff ?? false,
      };
    }),
  );
  const [finding, setFinding] = useState(false);
  // Stable: the screen's effect depends on it, and a new one would build the terminal again.
  const openFind = useCallback(() => setFinding(true), []);
  const [switching, setSwitching] = useState<string | null>(null);
  const switchLane = useStore((state) => state.switchLane);
  const screen = useRef<Screen | null>(null);
  return around(
    <div className="conversation terminal-conversation">
      <header className="conversation-header">
        <div className="conversation-title">
          <h1 title={cwd}>{folderName(cwd)}</h1>
          <span className="cwd-line">
            <span className="cwd" title={cwd}>
              {cwd}
            </span>
          </span>
        </div>
        <WorktreeHeader tabId={tabId} />
        <div className="header-controls">
          <span
            className="badge lane-badge"
            title="The real Claude Code terminal: with a subscription, its turns count against your plan's 5-hour and weekly limits, not the Agent SDK credit"
          >
            Terminal · {LANE_BILLING.terminal}
          </span>
          {folderSettingsOff && (
            <span className="badge badge-warning" title="Its hooks, MCP servers and allow rules do not run">
              Folder settings off
            </span>
          )}
          {activity?.state === 'needs_you' && (
            <span className="badge badge-warning" role="status" title={activity.what ?? undefined}>
              Needs you
            </span>
          )}
        </div>
        <div className="header-actions">
          <button
            type="button"
            className="button-secondary button-small"
            disabled={status === 'running' || switching === ''}
            title={
              status === 'running'
                ? 'After this turn'
                : `The same conversation in Byre's own view: ${LANE_BILLING.stream}`
            }
            onClick={() => {
              setSwitching('');
              void switchLane(tabId, 'stream').then(
                () => setSwitching(null),
                (error: unknown) => setSwitching(error instanceof Error ? error.message : String(error)),
              );
            }}
          >
            Continue in Stream
          </button>
          <ChangesButton tabId={tabId} />
          <DoneWhenButton tabId={tabId} />
          <span
            role="status"
            className={`status-dot status-${status}`}
            aria-label={`Status: ${status}`}
            title={`Status: ${status}${doing ? ` · ${doing}` : ''}`}
          />
        </div>
      </header>
      {activity?.state === 'needs_you' && activity.what && (
        <div className="banner terminal-waiting" role="status">
          {activity.what} — answer in the terminal.
        </div>
      )}
      {status === 'exited' && (
        <div className="banner banner-error" role="alert">
          <strong>Claude Code has stopped.</strong> The conversation is saved: open it from the library to
          carry on.
        </div>
      )}
      {switching && (
        <div className="banner banner-error" role="alert">
          {switching}
        </div>
      )}
      {setup && setup.status !== 'passed' && setup.status !== 'skipped' && (
        <div className="terminal-setup">
          <SetupCard setup={setup} tabId={tabId} />
          <p className="field-hint">Claude Code starts in this worktree once its setup command has passed.</p>
        </div>
      )}
      <WorktreeDialogs tabId={tabId} />
      <ByreNotes tabId={tabId} />
      {finding && <TerminalFind screen={screen} close={() => setFinding(false)} />}
      <TerminalScreen conversationId={tabId} screen={screen} find={openFind} />
    </div>,
  );
}

/** How many of Byre's own notes (a warning, a "Done when" run) show above the screen, newest last. */
const NOTES_SHOWN = 2;

/**
 * What Byre itself says of a Terminal conversation, above its screen: warnings (a snapshot missed, no hooks)
 * and its "Done when" runs, the latest few, each until dismissed. The CLI's own words are on its screen.
 */
function ByreNotes({ tabId }: { tabId: string }) {
  const { order, messages } = useStore(
    useShallow((state) => {
      const conversation = state.tabs[tabId]?.conversation;
      return { order: conversation?.order ?? EMPTY, messages: conversation?.messages };
    }),
  );
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  const notes = order
    .slice(-20)
    .flatMap((id) => {
      const message = messages?.[id];
      if (!message || dismissed.has(id)) return [];
      if (message.role === 'notice') return [{ id, tone: message.tone, text: message.text }];
      if (message.role === 'check') {
        const { check } = message;
        const text = `Done when: ${check.command} — ${check.status === 'running' ? 'running' : `${check.status} (${check.summary})`}, round ${check.round} of ${check.maxRounds}${check.gaveUp ? '; Claude was let stop' : ''}`;
        return [{ id, tone: check.status === 'failed' ? ('error' as const) : ('info' as const), text }];
      }
      return [];
    })
    .slice(-NOTES_SHOWN);
  if (notes.length === 0) return null;
  return (
    <ul className="terminal-notes" aria-label="Byre's notes">
      {notes.map((note) => (
        <li key={note.id} className={`banner ${note.tone === 'error' ? 'banner-error' : ''}`}>
          <span>{note.text}</span>
          <button
            type="button"
            className="button-secondary button-small"
            aria-label="Dismiss"
            onClick={() => setDismissed((before) => new Set([...before, note.id]))}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

const EMPTY: readonly string[] = [];

/** The CLI's screen, fitted to the room it has, sized in main as it changes. */
function TerminalScreen(props: {
  conversationId: string;
  screen: React.RefObject<Screen | null>;
  find(): void;
}) {
  const { conversationId, screen, find } = props;
  const element = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const host = element.current;
    if (!host) return;
    let gone = false;
    let off: (() => void) | null = null;
    let shown: Screen | null = null;
    const cleanups: (() => void)[] = [];
    const { terminalInput, terminalResize, followTerminal, openLink } = useStore.getState();
    void import('./screen').then(async ({ openScreen }) => {
      if (gone) return;
      const fontSize = Number.parseFloat(getComputedStyle(host).fontSize) || 13;
      shown = openScreen(host, { openLink: (url) => void openLink(url), fontSize });
      screen.current = shown;
      const { terminal } = shown;
      terminal.attachCustomKeyEventHandler((event) => {
        // Find is Byre's; everything else the CLI takes, but Cmd on a Mac (Byre's shortcuts, copy, paste).
        const findKey = (MAC ? event.metaKey : event.ctrlKey && event.shiftKey) && event.code === 'KeyF';
        if (findKey) {
          if (event.type === 'keydown') find();
          return false;
        }
        return !(MAC && event.metaKey);
      });
      cleanups.push(terminal.onData((data) => void terminalInput(conversationId, data)).dispose);
      const fit = () => {
        if (!shown || host.clientWidth === 0) return;
        const before = { cols: terminal.cols, rows: terminal.rows };
        const size = shown.fit();
        if (size.cols !== before.cols || size.rows !== before.rows) terminalResize(conversationId, size);
      };
      const size = shown.fit();
      terminalResize(conversationId, size);
      const observer = new ResizeObserver(() => fit());
      observer.observe(host);
      cleanups.push(() => observer.disconnect());
      // The theme changed (the setting, or the system's): the screen takes its colours again.
      const themed = new MutationObserver(() => shown?.retheme());
      themed.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
      cleanups.push(() => themed.disconnect());
      const media = matchMedia('(prefers-color-scheme: dark)');
      const onScheme = () => shown?.retheme();
      media.addEventListener('change', onScheme);
      cleanups.push(() => media.removeEventListener('change', onScheme));
      try {
        off = await followTerminal(conversationId, (data, drawn) => terminal.write(data, drawn));
        if (gone) off();
      } catch (error) {
        setProblem(error instanceof Error ? error.message : String(error));
      }
      terminal.focus();
    });
    return () => {
      gone = true;
      off?.();
      for (const cleanup of cleanups) cleanup();
      shown?.dispose();
      screen.current = null;
    };
  }, [conversationId, screen, find]);
  const [refused, setRefused] = useState<string[]>([]);
  const [over, setOver] = useState(false);
  const terminalImage = useStore((state) => state.terminalImage);
  /**
   * Images pasted or dropped go to the CLI as it takes them from a terminal: main keeps each where the CLI
   * can read it, and its path is pasted (the CLI shows "[Image #1]"). Text that came with them is pasted
   * after, as it would be alone.
   */
  const frame = useRef<HTMLDivElement>(null);
  // Pastes and drops are taken one after another, so their images are numbered in the order they came.
  const taking = useRef<Promise<void>>(Promise.resolve());
  const takeFiles = (files: File[], text: string) => {
    taking.current = taking.current.then(async () => {
      const paths: string[] = [];
      const notTaken: string[] = [];
      for (const file of files) {
        const kept = await terminalImage(conversationId, file);
        if ('path' in kept) paths.push(kept.path);
        else notTaken.push(kept.refused);
      }
      const terminal = screen.current?.terminal;
      // The CLI takes several image paths in one paste, apart by spaces; the text goes after, as typed.
      if (paths.length > 0) terminal?.paste(paths.join(' '));
      if (text) terminal?.paste(text);
      setRefused(notTaken);
      // Back to the terminal, unless the person went elsewhere meanwhile.
      const focused = document.activeElement;
      if (!focused || focused === document.body || frame.current?.contains(focused)) terminal?.focus();
    });
  };
  const carriesFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  const keepCtrlForCli = (event: KeyboardEvent) => {
    // Ctrl with a letter is the CLI's here (not the app's Close, New or palette): it stops at the terminal.
    if (!MAC && event.ctrlKey && !event.altKey && /^Key[A-Z]$/.test(event.code) && !event.shiftKey) {
      event.stopPropagation();
    }
  };
  return (
    <div
      ref={frame}
      className={`terminal-frame${over ? ' drop-target' : ''}`}
      onKeyDown={keepCtrlForCli}
      onPasteCapture={(event) => {
        const files = [...event.clipboardData.files];
        if (files.length === 0) return;
        // Before xterm's own paste, which would take the text alone.
        event.preventDefault();
        event.stopPropagation();
        takeFiles(files, event.clipboardData.getData('text/plain'));
      }}
      onDragOver={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        setOver(false);
        takeFiles([...event.dataTransfer.files], '');
      }}
    >
      {problem && (
        <div className="banner banner-error" role="alert">
          {problem}
        </div>
      )}
      {refused.length > 0 && (
        <div className="banner banner-error terminal-refused" role="alert">
          <span>Not pasted into the terminal: {refused.join(' ')}</span>
          <button
            type="button"
            className="button-secondary button-small"
            aria-label="Dismiss"
            onClick={() => setRefused([])}
          >
            ×
          </button>
        </div>
      )}
      <div ref={element} className="terminal-screen" data-testid="terminal-screen" />
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop images to paste them into Claude Code
        </div>
      )}
    </div>
  );
}

/** Find in the terminal: Enter finds the next, Shift+Enter the one before, Escape closes. */
function TerminalFind({ screen, close }: { screen: React.RefObject<Screen | null>; close(): void }) {
  const [text, setText] = useState('');
  const [missing, setMissing] = useState(false);
  return (
    <div className="find-bar terminal-find" role="search">
      <input
        // The bar opens to be typed in.
        autoFocus
        aria-label="Find in the terminal"
        placeholder="Find in the terminal"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setMissing(false);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            screen.current?.clearFind();
            close();
            screen.current?.terminal.focus();
          } else if (event.key === 'Enter' && text) {
            setMissing(!screen.current?.find(text, event.shiftKey));
          }
        }}
      />
      {missing && <span className="find-count">Not found</span>}
      <button
        type="button"
        className="button-secondary button-small"
        onClick={() => {
          screen.current?.clearFind();
          close();
        }}
      >
        Close
      </button>
    </div>
  );
}
