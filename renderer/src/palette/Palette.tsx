import { LANE_BILLING } from '../../../shared/ipc/app';
import fuzzysort from 'fuzzysort';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { folderName } from '../state/selectors';
import { useModalDialog } from '../ui/popover';
import { commandKey, requestCloseTab, shortcutList, useOverlay } from '../ui/overlays';
import { useStore } from '../state/store';
import type { Store } from '../state/types';

/**
 * Ctrl/Cmd+K: one box to reach every action and every conversation by its title. Up and Down move, Enter
 * runs, Escape closes; the box keeps the focus and points at the active option.
 */

interface Entry {
  key: string;
  /** Its accessible name: the action, or the conversation's title. */
  label: string;
  group: 'Actions' | 'Conversations';
  /** Keys, or where a conversation ran and when. */
  detail?: string;
  run(): void;
}

function actions(state: Store): Entry[] {
  const tab = state.activeTab && !state.composingNew ? state.tabs[state.activeTab] : undefined;
  const list: (Entry | false)[] = [
    {
      key: 'new',
      label: 'New conversation',
      group: 'Actions',
      detail: commandKey('N'),
      run: () => state.showNewConversation(),
    },
    {
      key: 'new-terminal',
      label: 'New conversation in the Terminal lane',
      group: 'Actions',
      detail: LANE_BILLING.terminal,
      run: () => state.showNewConversation('terminal'),
    },
    {
      key: 'new-stream',
      label: 'New conversation in the Stream lane',
      group: 'Actions',
      detail: LANE_BILLING.stream,
      run: () => state.showNewConversation('stream'),
    },
    !!tab &&
      !tab.saved &&
      !tab.starting &&
      tab.conversation.status !== 'running' &&
      !tab.conversation.host && {
        key: 'switch-lane',
        label:
          tab.conversation.lane === 'terminal'
            ? 'Continue in the Stream lane'
            : 'Continue in the Terminal lane',
        group: 'Actions',
        detail: tab.conversation.lane === 'terminal' ? LANE_BILLING.stream : LANE_BILLING.terminal,
        run: () =>
          void state
            .switchLane(tab.id, tab.conversation.lane === 'terminal' ? 'stream' : 'terminal')
            .catch(() => undefined),
      },
    !!tab &&
      tab.conversation.status === 'running' && {
        key: 'stop',
        label: 'Stop the reply',
        group: 'Actions',
        detail: 'Escape',
        run: () => void state.interrupt(tab.id),
      },
    !!tab && {
      key: 'find',
      label: 'Find in this conversation',
      group: 'Actions',
      detail: commandKey('F'),
      run: () => state.openFind(tab.id),
    },
    !!tab?.conversation.worktree?.base &&
      !tab.saved && {
        key: 'merge-worktree',
        label: 'Merge worktree…',
        group: 'Actions',
        run: () => state.openWorktreeDialog(tab.id, 'merge'),
      },
    !!tab?.conversation.worktree &&
      !tab.saved && {
        key: 'remove-worktree',
        label: 'Remove worktree…',
        group: 'Actions',
        run: () => state.openWorktreeDialog(tab.id, 'remove'),
      },
    !!tab && {
      key: 'close',
      label: 'Close this conversation',
      group: 'Actions',
      detail: commandKey('W'),
      run: () => requestCloseTab(tab.id),
    },
    {
      key: 'sidebar',
      label: state.sidebarOpen ? 'Hide the conversation list' : 'Show the conversation list',
      group: 'Actions',
      detail: commandKey('B'),
      run: state.toggleSidebar,
    },
    {
      key: 'usage',
      label: state.usageOpen ? 'Hide usage' : 'Usage',
      group: 'Actions',
      detail: commandKey('Shift+U'),
      run: state.toggleUsage,
    },
    {
      key: 'settings',
      label: 'Settings',
      group: 'Actions',
      detail: commandKey(','),
      run: () => useOverlay.getState().show('settings'),
    },
    {
      key: 'shortcuts',
      label: 'Keyboard shortcuts',
      group: 'Actions',
      detail: commandKey('/'),
      run: () => useOverlay.getState().show('shortcuts'),
    },
  ];
  return list.filter((entry): entry is Entry => entry !== false);
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** Open tabs first (by their place), then the library's conversations, newest first; each once. */
function conversations(state: Store): Entry[] {
  const entries: Entry[] = [];
  const seen = new Set<string>();
  for (const id of state.tabOrder) {
    const tab = state.tabs[id];
    if (!tab) continue;
    const sessionId = tab.saved?.sessionId ?? tab.conversation.sessionId;
    if (sessionId) seen.add(sessionId);
    const title = tab.conversation.title ?? folderName(tab.cwd);
    entries.push({
      key: `tab:${id}`,
      label: title,
      group: 'Conversations',
      detail: `${folderName(tab.cwd)} · open`,
      run: () => state.activate(id),
    });
  }
  const rows = [...state.libraryRows].sort((a, b) => b.lastActive - a.lastActive);
  for (const row of rows) {
    if (seen.has(row.sessionId)) continue;
    entries.push({
      key: `saved:${row.sessionId}`,
      label: row.title,
      group: 'Conversations',
      detail: `${row.cwd ? `${folderName(row.cwd)} · ` : ''}${when.format(row.lastActive)}`,
      run: () => void state.openSaved(row.sessionId),
    });
  }
  return entries;
}

/** What the palette lists for a query: the matching actions, then the matching conversations, best first. */
export function paletteEntries(state: Store, query: string): Entry[] {
  const all = [actions(state), conversations(state)] as const;
  const wanted = query.trim();
  if (!wanted) return [...all[0], ...all[1].slice(0, 30)];
  return all.flatMap((entries, index) =>
    fuzzysort
      .go(wanted, entries, { key: 'label', limit: index === 0 ? 20 : 50, threshold: 0 })
      .map((r) => r.obj),
  );
}

export function CommandPalette() {
  const open = useOverlay((state) => state.open === 'palette');
  if (!open) return null;
  return <PaletteDialog />;
}

function PaletteDialog() {
  const close = useOverlay((state) => state.close);
  const dialog = useModalDialog();
  const list = useRef<HTMLUListElement>(null);
  const id = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  // Drawn again when what it lists changes (a tab opened or closed, a row renamed), not at each streamed
  // word of a reply.
  useStore((state) => state.tabOrder);
  useStore((state) => state.libraryRows);
  useStore((state) => state.activeTab);
  useStore((state) => state.sidebarOpen);
  const entries = paletteEntries(useStore.getState(), query);
  const at = Math.min(active, Math.max(entries.length - 1, 0));
  const optionId = (index: number) => `${id}-${index}`;
  useEffect(() => {
    list.current?.querySelector(`[id="${CSS.escape(optionId(at))}"]`)?.scrollIntoView({ block: 'nearest' });
  });

  const run = (entry: Entry) => {
    close();
    // After the dialog has gone, so whatever the action opens can take the focus.
    queueMicrotask(entry.run);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (entries.length > 0)
        setActive((at + (event.key === 'ArrowDown' ? 1 : -1) + entries.length) % entries.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const entry = entries[at];
      if (entry) run(entry);
    }
  };

  let lastGroup: string | null = null;
  const items: ReactNode[] = [];
  entries.forEach((entry, index) => {
    if (entry.group !== lastGroup) {
      lastGroup = entry.group;
      items.push(
        <li key={`group:${entry.group}`} role="presentation" className="palette-group" aria-hidden="true">
          {entry.group}
        </li>,
      );
    }
    items.push(
      <li
        key={entry.key}
        id={optionId(index)}
        role="option"
        aria-selected={index === at}
        aria-label={entry.label}
        aria-describedby={entry.detail ? `${optionId(index)}-detail` : undefined}
        className={`palette-option${index === at ? ' palette-active' : ''}`}
        onMouseDown={(event) => event.preventDefault()}
        onMouseMove={() => index !== at && setActive(index)}
        onClick={() => run(entry)}
      >
        <span className="palette-label">{entry.label}</span>
        {entry.detail && (
          <span id={`${optionId(index)}-detail`} className="palette-detail">
            {entry.detail}
          </span>
        )}
      </li>,
    );
  });

  return (
    <dialog
      ref={dialog}
      className="palette"
      aria-label="Command palette"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog itself, outside its box) closes it.
        if (event.target === dialog.current) close();
      }}
    >
      <input
        className="palette-input"
        role="combobox"
        aria-label="Search actions and conversations"
        aria-expanded={entries.length > 0}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={entries.length > 0 ? optionId(at) : undefined}
        placeholder="Type an action or a conversation’s title…"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        autoFocus
      />
      {entries.length > 0 ? (
        <ul ref={list} id={`${id}-list`} role="listbox" aria-label="Results" className="palette-list">
          {items}
        </ul>
      ) : (
        <p className="palette-empty" role="status">
          Nothing matches “{query.trim()}”.
        </p>
      )}
    </dialog>
  );
}

/** Ctrl/Cmd+/: every shortcut, grouped. */
export function ShortcutsSheet() {
  const open = useOverlay((state) => state.open === 'shortcuts');
  if (!open) return null;
  return <ShortcutsDialog />;
}

function ShortcutsDialog() {
  const close = useOverlay((state) => state.close);
  const dialog = useModalDialog();
  const shortcuts = shortcutList();
  const groups = [...new Set(shortcuts.map((shortcut) => shortcut.group))];
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog shortcuts-sheet"
      aria-labelledby="shortcuts-title"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      {groups.map((group) => (
        <section key={group} aria-label={group}>
          <h3>{group}</h3>
          <dl>
            {shortcuts
              .filter((shortcut) => shortcut.group === group)
              .map((shortcut) => (
                <div key={shortcut.what} className="shortcut-row">
                  <dt>
                    <kbd>{shortcut.keys}</kbd>
                  </dt>
                  <dd>{shortcut.what}</dd>
                </div>
              ))}
          </dl>
        </section>
      ))}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={close} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
