import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { FileRewind } from '../../../shared/ipc';
import { messageText } from '../../../shared/conversation/find';
import { countMessages, isPending, partPoints, type PartGroup } from '../../../shared/branches/tree';
import { useStore } from '../state/store';
import type { Branch, Tab } from '../state/types';

/**
 * What rewind and branches put on screen: the Rewind dialog, the line under the header while a rewind waits
 * to be sent, the "Branch 2 of 3" switcher where branches part, and the tree of a family's branches.
 */

const groupCache = new WeakMap<object, { branch: string; order: string[]; points: Map<string, PartGroup> }>();

/** Where the shown branch parts from others, computed once per change of the branches or the messages. */
function partGroups(tab: Tab | undefined): Map<string, PartGroup> | null {
  if (!tab?.branches || !tab.branch) return null;
  const cached = groupCache.get(tab.branches);
  if (cached && cached.branch === tab.branch && cached.order === tab.conversation.order) return cached.points;
  const points = partPoints(tab.branches, tab.branch, tab.conversation);
  groupCache.set(tab.branches, { branch: tab.branch, order: tab.conversation.order, points });
  return points;
}

/** "Branch 2 of 3", with Previous and Next, on the message where branches part. */
export function BranchSwitcher({ tabId, messageId }: { tabId: string; messageId: string }) {
  const group = useStore(
    useShallow((state) => {
      const found = partGroups(state.tabs[tabId])?.get(messageId);
      return found
        ? {
            at: found.at,
            count: found.keys.length,
            keys: found.keys.join('\n'),
            forkPoint: found.forkPointUuid,
          }
        : null;
    }),
  );
  const switchBranch = useStore((state) => state.switchBranch);
  if (!group) return null;
  const keys = group.keys.split('\n');
  const go = (step: number) => {
    const key = keys[group.at + step];
    if (key) void switchBranch(tabId, key, group.forkPoint);
  };
  return (
    <div className="branch-switcher" role="group" aria-label="Branches here">
      <button
        type="button"
        className="icon-button"
        aria-label="Previous branch"
        disabled={group.at === 0}
        onClick={() => go(-1)}
      >
        ‹
      </button>
      <span className="branch-count">
        Branch {group.at + 1} of {group.count}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Next branch"
        disabled={group.at === group.count - 1}
        onClick={() => go(1)}
      >
        ›
      </button>
    </div>
  );
}

/**
 * The files a restore changes, each with its lines added and removed where they are known, and whether a
 * shell command changed it (Byre's snapshots restore those, not the CLI's checkpoints).
 */
function fileRows(
  preview: FileRewind,
): { path: string; insertions: number | null; deletions: number | null; byCommand: boolean }[] {
  const byCommand = new Set(preview.byCommand);
  return preview.fileChanges
    ? preview.fileChanges.map((file) => ({ ...file, byCommand: file.byCommand || byCommand.has(file.path) }))
    : preview.filesChanged.map((path) => ({
        path,
        insertions: null,
        deletions: null,
        byCommand: byCommand.has(path),
      }));
}

/** The Rewind dialog: what restoring files would change (a dry run, before anything is done), and the choices. */
export function RewindDialogView({ tabId }: { tabId: string }) {
  const dialog = useStore((state) => state.tabs[tabId]?.rewind ?? null);
  const close = useStore((state) => state.closeRewind);
  const apply = useStore((state) => state.applyRewind);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!dialog) return;
    panel.current?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') close(tabId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
    // Focus once when it opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dialog === null, close, tabId]);
  if (!dialog) return null;
  const preview = dialog.preview;
  const filesReady = !!preview?.canRewind && preview.filesChanged.length > 0 && !dialog.busy;
  return (
    <div className="modal-backdrop" onClick={() => close(tabId)}>
      <div
        ref={panel}
        className="modal rewind-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Rewind"
        onClick={(event) => event.stopPropagation()}
      >
        <h2>Rewind</h2>
        <p>
          Go back to just before this message. The conversation so far is kept as it is: what you send next
          starts a new branch.
        </p>
        <section aria-label="Files" className="rewind-files">
          <h3>Files</h3>
          {!preview && !dialog.error && <p role="status">Checking which files would change…</p>}
          {preview?.canRewind && preview.filesChanged.length > 0 && (
            <>
              <p>Restoring files would change:</p>
              <ul className="rewind-file-list" aria-label="Files to restore">
                {fileRows(preview).map((file) => (
                  <li key={file.path}>
                    <code>{file.path}</code>
                    {file.insertions !== null && (
                      <span className="rewind-file-counts">
                        {' '}
                        <span className="diff-plus">+{file.insertions}</span>{' '}
                        <span className="diff-minus">−{file.deletions}</span>
                      </span>
                    )}
                    {file.byCommand && (
                      <>
                        {' '}
                        <span className="rewind-by-command">changed by a command</span>
                      </>
                    )}
                  </li>
                ))}
              </ul>
              <p className="muted">
                <span className="diff-plus">+{preview.insertions}</span>{' '}
                <span className="diff-minus">−{preview.deletions}</span> lines in all
              </p>
            </>
          )}
          {preview?.canRewind && preview.filesChanged.length === 0 && (
            <p>No file has changed since this message: there is nothing to restore.</p>
          )}
          {preview && !preview.canRewind && <p>There are no files to restore: {preview.reason}</p>}
          <p className="muted">
            Changes made with Claude&apos;s file tools (Write, Edit) are restored from Claude Code&apos;s
            checkpoints; those made by shell commands (marked) from the snapshots Byre takes of the folder
            after each turn, where it has them.
          </p>
        </section>
        {dialog.error && (
          <p className="inline-error" role="alert">
            {dialog.error}
          </p>
        )}
        <div className="modal-actions">
          <button
            type="button"
            className="button-primary"
            disabled={!filesReady}
            onClick={() => void apply(tabId, 'both')}
          >
            Conversation and files
          </button>
          <button
            type="button"
            className="button-secondary"
            disabled={dialog.busy}
            onClick={() => void apply(tabId, 'conversation')}
          >
            Conversation only
          </button>
          <button
            type="button"
            className="button-secondary"
            disabled={!filesReady}
            onClick={() => void apply(tabId, 'files')}
          >
            Files only
          </button>
          <button type="button" className="button-secondary" onClick={() => close(tabId)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** Under the header: a rewind waiting for its message (and the way back), and what a file restore did. */
export function BranchBanner({ tabId }: { tabId: string }) {
  const { pending, notice } = useStore(
    useShallow((state) => {
      const tab = state.tabs[tabId];
      const current = tab?.branches?.find((branch) => branch.key === tab.branch);
      return { pending: isPending(current), notice: tab?.branchNotice ?? null };
    }),
  );
  const cancel = useStore((state) => state.cancelPendingRewind);
  return (
    <>
      {notice && (
        <div className="banner banner-info" role="status">
          {notice}
        </div>
      )}
      {pending && (
        <div className="banner banner-info rewind-banner" role="status">
          <span>
            Rewound. Edit the message and send it to carry on in a new branch; the original is kept.
          </span>
          <button type="button" className="link-button" onClick={() => cancel(tabId)}>
            Back to the original
          </button>
        </div>
      )}
    </>
  );
}

/** How many branches the tab's family has (a rewind not yet sent is not one). */
export function useBranchCount(tabId: string): number {
  return useStore((state) => state.tabs[tabId]?.branches?.filter((branch) => !isPending(branch)).length ?? 0);
}

/** The family's branches as a tree: each with its first differing message, last activity and size. */
export function BranchTree({ tabId }: { tabId: string }) {
  const { branches, current } = useStore(
    useShallow((state) => {
      const tab = state.tabs[tabId];
      return { branches: tab?.branches ?? null, current: tab?.branch ?? null };
    }),
  );
  // The shown branch grows as the conversation goes on: its count is read from what it shows.
  const shownCount = useStore((state) => {
    const conversation = state.tabs[tabId]?.conversation;
    return conversation ? countMessages(conversation) : 0;
  });
  const switchBranch = useStore((state) => state.switchBranch);
  const compareWith = useStore((state) => state.compareWith);
  const [focused, setFocused] = useState<string | null>(null);
  const tree = useRef<HTMLUListElement>(null);
  if (!branches) return null;
  const shown = branches.filter((branch) => !isPending(branch));
  const byParent = new Map<string | null, Branch[]>();
  for (const branch of shown) {
    const parent = shown.some((other) => other.key === branch.parentKey) ? branch.parentKey : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), branch]);
  }
  const flat: string[] = [];
  const walk = (parent: string | null) => {
    for (const branch of byParent.get(parent) ?? []) {
      flat.push(branch.key);
      walk(branch.key);
    }
  };
  walk(null);
  const active = focused && flat.includes(focused) ? focused : (current ?? flat[0]);
  const onKeyDown = (event: KeyboardEvent) => {
    // Enter and Space on an item's own button (Compare) press that button, not the item.
    if (event.target instanceof HTMLButtonElement && (event.key === 'Enter' || event.key === ' ')) return;
    const at = flat.indexOf(active ?? '');
    let next: string | undefined;
    if (event.key === 'ArrowDown') next = flat[at + 1];
    else if (event.key === 'ArrowUp') next = flat[at - 1];
    else if (event.key === 'Home') next = flat[0];
    else if (event.key === 'End') next = flat[flat.length - 1];
    else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      if (active) void switchBranch(tabId, active);
      return;
    } else return;
    event.preventDefault();
    if (!next) return;
    setFocused(next);
    tree.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(next)}"]`)?.focus();
  };
  const item = (branch: Branch, level: number) => {
    const children = byParent.get(branch.key) ?? [];
    return (
      <li
        key={branch.key}
        role="treeitem"
        // Its own name: a nested item's text would otherwise be part of its parent's.
        aria-label={branch.firstMessage || '(no messages yet)'}
        data-key={branch.key}
        aria-level={level}
        aria-selected={branch.key === current}
        aria-expanded={children.length > 0 ? true : undefined}
        tabIndex={branch.key === active ? 0 : -1}
        className={`branch-item${branch.key === current ? ' branch-current' : ''}`}
        onClick={(event) => {
          event.stopPropagation();
          setFocused(branch.key);
          void switchBranch(tabId, branch.key);
        }}
      >
        <span className="branch-first">{branch.firstMessage || '(no messages yet)'}</span>
        <span className="branch-meta">
          {branch.key === current
            ? shownCount
            : branch.view
              ? countMessages(branch.view.conversation)
              : branch.messageCount}{' '}
          messages · {new Date(branch.lastActive).toLocaleString()}
          {!branch.resumable && ' · read-only'}
        </span>
        {branch.key !== current && (
          <button
            type="button"
            className="link-button branch-compare-button"
            // Tab goes from the focused item to its Compare, as from any row to its action; the other
            // items' buttons stay out of the Tab order, which passes through the tree once.
            tabIndex={branch.key === active ? 0 : -1}
            aria-label={`Compare with ${branch.firstMessage || 'this branch'}`}
            onClick={(event) => {
              event.stopPropagation();
              void compareWith(tabId, branch.key);
            }}
          >
            Compare
          </button>
        )}
        {children.length > 0 && <ul role="group">{children.map((child) => item(child, level + 1))}</ul>}
      </li>
    );
  };
  return (
    <aside className="branch-panel">
      <h2 id={`branches-${tabId}`}>Branches</h2>
      <ul ref={tree} role="tree" aria-label="Branches" onKeyDown={onKeyDown}>
        {(byParent.get(null) ?? []).map((branch) => item(branch, 1))}
      </ul>
    </aside>
  );
}

/** Two branches side by side from where they part: what each says from there on. */
export function BranchCompare({ tabId }: { tabId: string }) {
  const { tab, other } = useStore(
    useShallow((state) => {
      const found = state.tabs[tabId];
      return {
        tab: found,
        other: found?.branches?.find((branch) => branch.key === found.compare) ?? null,
      };
    }),
  );
  const compareWith = useStore((state) => state.compareWith);
  if (!tab || !other?.view) return null;
  const current = tab.branches?.find((branch) => branch.key === tab.branch);
  const left = tab.conversation;
  const right = other.view.conversation;
  // Only messages are compared: a live view has turn results that a saved one does not.
  const said = (state: typeof left) =>
    state.order.filter((id) => {
      const role = state.messages[id]?.role;
      return role === 'user' || role === 'assistant';
    });
  const leftSaid = said(left);
  const rightSaid = said(right);
  let parted = 0;
  while (parted < leftSaid.length && leftSaid[parted] === rightSaid[parted]) parted += 1;
  const column = (title: string, state: typeof left, ids: string[]) => (
    <section className="compare-column" aria-label={title}>
      <h3>{title}</h3>
      {ids.slice(parted, parted + MAX_COMPARED).map((id) => {
        const message = state.messages[id];
        if (message?.role !== 'user' && message?.role !== 'assistant') return null;
        return (
          <article key={id} className={`message message-${message.role}`} aria-label={message.author}>
            <header className="author">{message.author}</header>
            <div className="user-text">{messageText(message)}</div>
          </article>
        );
      })}
    </section>
  );
  return (
    <div className="branch-compare" role="region" aria-label="Compare branches">
      <div className="compare-bar">
        <span>Where the branches part, and what each says from there on</span>
        <button type="button" className="link-button" onClick={() => void compareWith(tabId, null)}>
          Close comparison
        </button>
      </div>
      <div className="compare-columns">
        {column(`This branch: ${current?.firstMessage || 'shown'}`, left, leftSaid)}
        {column(`Other branch: ${other.firstMessage || 'other'}`, right, rightSaid)}
      </div>
    </div>
  );
}

const MAX_COMPARED = 400;
