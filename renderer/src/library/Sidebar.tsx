import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { MATCH_END, MATCH_START, type LibraryRow } from '../../../shared/library';
import { conversationActivity, folderName, workingOn, type Activity } from '../state/selectors';
import {
  aheadBehind,
  costLabel,
  folderList,
  formatSize,
  groupRows,
  homeFolder,
  relativeTime,
  type RowWorktree,
} from '../../../shared/library-groups';
import { useFrameVirtualizer } from '../ui/frame-virtualizer';
import { useStore } from '../state/store';
import type { LibrarySearch, LibrarySort } from '../state/types';

/**
 * The library: every past conversation, grouped by folder (a repository's worktrees under it), newest first; a search across all of them; and
 * how far indexing has got. The list is virtualized, so ten thousand rows scroll like ten.
 */
export function Sidebar() {
  const { rows, loaded, error, folder, search, sort } = useStore(
    useShallow((state) => ({
      rows: state.libraryRows,
      loaded: state.libraryLoaded,
      sort: state.librarySort,
      error: state.libraryError,
      folder: state.libraryFolder,
      search: state.search,
    })),
  );
  const folders = useMemo(() => folderList(rows), [rows]);
  // A repository and its worktrees are one folder.
  const shown = useMemo(
    () => (folder ? rows.filter((row) => homeFolder(row.cwd) === folder) : rows),
    [rows, folder],
  );
  return (
    <nav className="sidebar" aria-label="Conversations">
      <SearchBox />
      <FolderFilter folders={folders} />
      <LibrarySortControl />
      <UsageButton />
      <IndexingStatus />
      {error && (
        <p className="sidebar-error" role="alert">
          {error}
        </p>
      )}
      {search ? (
        <SearchResults search={search} />
      ) : !loaded && (rows.length === 0 || folder !== null || sort !== 'recent') ? (
        // The first screen of rows is shown before the whole list has come, but only as it is: newest first.
        <p className="sidebar-empty">Loading conversations…</p>
      ) : shown.length === 0 ? (
        <p className="sidebar-empty">
          {folder
            ? 'No conversations in this folder.'
            : 'No conversations yet. They appear here as you have them.'}
        </p>
      ) : (
        <RowList rows={shown} />
      )}
      <CleanupNote />
    </nav>
  );
}

export function SearchBox() {
  const search = useStore((state) => state.searchLibrary);
  const [text, setText] = useState(useStore.getState().libraryQuery);
  // Search as the user types: at most once a frame (keys that come faster are one search), each
  // search superseding the one before it.
  useEffect(() => {
    if (text === useStore.getState().libraryQuery) return;
    const frame = requestAnimationFrame(() => void search(text));
    return () => cancelAnimationFrame(frame);
  }, [text, search]);
  return (
    <div className="sidebar-search">
      <input
        type="search"
        role="searchbox"
        aria-label="Search conversations"
        placeholder="Search conversations"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setText('');
        }}
      />
    </div>
  );
}

export function FolderFilter({ folders }: { folders: string[] }) {
  const folder = useStore((state) => state.libraryFolder);
  const setFolder = useStore((state) => state.setLibraryFolder);
  if (folders.length < 2 && !folder) return null;
  return (
    <label className="sidebar-folder">
      <span className="sr-only">Folder</span>
      <select
        aria-label="Folder"
        value={folder ?? ''}
        onChange={(event) => setFolder(event.target.value || null)}
      >
        <option value="">All folders</option>
        {folders.map((path) => (
          <option key={path} value={path} title={path}>
            {folderName(path)} — {path}
          </option>
        ))}
      </select>
    </label>
  );
}

export function LibrarySortControl() {
  const sort = useStore((state) => state.librarySort);
  const setSort = useStore((state) => state.setLibrarySort);
  return <SortControl sort={sort} onSort={setSort} />;
}

const SORTS: Record<LibrarySort, string> = { recent: 'Recent', cost: 'Cost' };

/** The list's order: by last activity, or by what each conversation cost, most first. */
export function SortControl({ sort, onSort }: { sort: LibrarySort; onSort: (sort: LibrarySort) => void }) {
  return (
    <label className="sidebar-sort">
      <span>Sort by</span>
      <select
        aria-label="Sort by"
        value={sort}
        onChange={(event) => onSort(event.target.value === 'cost' ? 'cost' : 'recent')}
      >
        {(Object.keys(SORTS) as LibrarySort[]).map((key) => (
          <option key={key} value={key}>
            {SORTS[key]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What a conversation cost, marked when estimated; nothing when it could not be priced. */
export function CostLabel({ cost }: { cost: LibraryRow['cost'] }) {
  const label = costLabel(cost);
  if (label === null) return null;
  return (
    <span
      className="library-row-cost"
      title={cost.estimated ? 'Estimated from the pricing table' : 'What Claude Code said it cost'}
    >
      {label}
    </span>
  );
}

function IndexingStatus() {
  const status = useStore((state) => state.libraryStatus);
  if (!status) return null;
  const problems = status.problems;
  return (
    <div className="sidebar-status">
      {!status.done && (
        <p role="status">
          Indexing {status.indexed.toLocaleString()} of {status.total.toLocaleString()} conversations
        </p>
      )}
      {problems.length > 0 && (
        <details className="sidebar-problems">
          <summary>
            {problems.length === 1
              ? '1 file could not be read'
              : `${problems.length} files could not be read`}
          </summary>
          <ul>
            {problems.map((problem) => (
              <li key={`${problem.path}:${problem.reason}`}>
                <span className="problem-path" title={problem.path}>
                  {problem.path}
                </span>
                : {problem.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function CleanupNote() {
  const status = useStore((state) => state.libraryStatus);
  if (!status) return null;
  return (
    <details className="sidebar-note">
      <summary>Where these come from</summary>
      <p>
        Conversations Byre ran, and those made with <code>claude</code> in a terminal ({status.projectsDir}).
        Claude Code deletes its own copy of a conversation after{' '}
        <strong>
          {status.cleanupPeriodDays} {status.cleanupPeriodDays === 1 ? 'day' : 'days'}
        </strong>{' '}
        (<code>cleanupPeriodDays</code> in its settings). Byre keeps its own transcripts, so a conversation it
        ran still opens here after that, and can be continued in a new conversation.
      </p>
    </details>
  );
}

function RowList({ rows }: { rows: LibraryRow[] }) {
  const worktrees = useStore((state) => state.worktrees);
  const sort = useStore((state) => state.librarySort);
  const items = useMemo(() => groupRows(rows, worktrees, sort), [rows, worktrees, sort]);
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLUListElement>(null);
  const estimateSize = useCallback((index: number) => (items[index]?.kind === 'row' ? 58 : 30), [items]);
  const getItemKey = useCallback(
    (index: number) => {
      const item = items[index];
      if (!item) return index;
      if (item.kind === 'row') return item.row.sessionId;
      return item.kind === 'host' ? `host:${item.host}` : `folder:${item.host ?? ''}:${item.folder ?? ''}`;
    },
    [items],
  );
  // Like the conversation's list: no commit of its own while a reply streams (the rows change as it does).
  const virtualizer = useFrameVirtualizer(
    { count: items.length, getScrollElement: () => scroller.current, estimateSize, overscan: 8, getItemKey },
    inner,
  );
  const measure = virtualizer.measureElement as unknown as (node: HTMLLIElement | null) => void;
  return (
    <div className="sidebar-list" ref={scroller}>
      <ul className="sidebar-list-inner" ref={inner}>
        {/* eslint-disable-next-line react-hooks/refs -- the virtualizer reads the scroller for its rows, as react-virtual's own hook does */}
        {virtualizer.getVirtualItems().map((virtual) => {
          const item = items[virtual.index];
          if (!item) return null;
          return (
            <li key={virtual.key} data-index={virtual.index} ref={measure} className="sidebar-item">
              {item.kind === 'host' ? (
                <h2
                  className="sidebar-host-heading"
                  title={`Conversations Byre ran on ${item.host}, over ssh`}
                >
                  {item.host}
                  <span className="muted"> · {item.count}</span>
                </h2>
              ) : item.kind === 'folder' ? (
                <h2 className="sidebar-folder-heading" title={item.folder ?? undefined}>
                  {item.folder ? folderName(item.folder) : 'Unknown folder'}
                  <span className="muted"> · {item.count}</span>
                </h2>
              ) : (
                <RowButton row={item.row} worktree={item.worktree} />
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** Opens the Usage view (issue 29) in the main area, or closes it again. */
export function UsageButton() {
  const open = useStore((state) => state.usageOpen);
  const toggle = useStore((state) => state.toggleUsage);
  return (
    <button
      type="button"
      className="button-secondary sidebar-usage"
      aria-pressed={open}
      title="Where the tokens and the money went (Ctrl+Shift+U)"
      onClick={toggle}
    >
      Usage
    </button>
  );
}

export function RowButton({ row, worktree }: { row: LibraryRow; worktree: RowWorktree | null }) {
  const openSaved = useStore((state) => state.openSaved);
  const { open, current, activity, doing } = useStore(
    useShallow((state) => {
      const tabId = state.tabOrder.find((id) => state.tabs[id]?.conversation.sessionId === row.sessionId);
      const tab = tabId !== undefined ? state.tabs[tabId] : undefined;
      return {
        open: tabId !== undefined,
        current: tabId !== undefined && tabId === state.activeTab,
        // Only a worktree's row says how its conversation stands: several of them run side by side.
        activity: worktree && tab && !tab.saved ? conversationActivity(tab.conversation) : null,
        doing: worktree && tab && !tab.saved ? workingOn(tab.conversation) : null,
      };
    }),
  );
  return (
    <button
      type="button"
      className={`library-row${current ? ' library-row-current' : ''}${worktree ? ' library-row-worktree' : ''}`}
      aria-current={current ? 'page' : undefined}
      title={row.cwd ?? undefined}
      onClick={() => void openSaved(row.sessionId)}
    >
      <span className="library-row-title">
        {open && <span className="open-dot" aria-label="Open in a tab" role="img" />}
        {row.title}
      </span>
      {worktree && <WorktreeLine row={row} worktree={worktree} activity={activity} doing={doing} />}
      <span className="library-row-meta">
        {!worktree && row.gitBranch && <span className="branch">⎇ {row.gitBranch}</span>}
        <time dateTime={new Date(row.lastActive).toISOString()}>{relativeTime(row.lastActive)}</time>
        <span>
          {row.messageCount.toLocaleString()} {row.messageCount === 1 ? 'message' : 'messages'}
        </span>
        <span>{formatSize(row.sizeBytes)}</span>
        <CostLabel cost={row.cost} />
        {row.branchCount > 1 && <span className="badge">{row.branchCount} branches</span>}
        {!row.resumable && (
          <span className="badge badge-muted">{row.hasTranscript ? 'saved by Byre' : 'files deleted'}</span>
        )}
      </span>
    </button>
  );
}

const ACTIVITY_WORDS: Record<Activity, string> = {
  running: 'Running',
  waiting: 'Waiting for you',
  done: 'Done',
  failed: 'Failed',
};

/** A worktree row's second line: its branch, how its conversation stands, what it changed against its base. */
function WorktreeLine(props: {
  row: LibraryRow;
  worktree: RowWorktree;
  activity: Activity | null;
  /** What its turn is doing now ("Bash: npm test"), as either lane tells it. */
  doing: string | null;
}) {
  const { row, worktree, activity, doing } = props;
  const status = worktree.status;
  const branch = status?.branch ?? row.gitBranch ?? worktree.name;
  const counts = status && !status.removed ? aheadBehind(status) : null;
  return (
    <span className="library-row-meta worktree-line">
      <span className="branch">⎇ {branch}</span>
      {status?.removed ? (
        <span className="badge badge-muted">worktree removed</span>
      ) : (
        <>
          {activity && (
            <span
              className={`worktree-activity worktree-activity-${activity}`}
              title={activity === 'running' && doing ? doing : undefined}
            >
              {ACTIVITY_WORDS[activity]}
            </span>
          )}
          {status?.filesChanged != null && (
            <span>
              {status.filesChanged} {status.filesChanged === 1 ? 'file' : 'files'}
            </span>
          )}
          {counts && (
            <span className="worktree-counts" title={counts.words}>
              <span aria-hidden="true">{counts.shown}</span>
              <span className="sr-only">{counts.words}</span>
            </span>
          )}
        </>
      )}
    </span>
  );
}

export function SearchResults({ search }: { search: LibrarySearch }) {
  const openSaved = useStore((state) => state.openSaved);
  const { query, hits, complete, partial } = search;
  const looking = !complete && (
    <p className="sidebar-empty search-looking" role="status">
      Looking through messages…
    </p>
  );
  // Not everywhere yet: the index is still being built, and the search is asked again as it grows.
  const sofar = partial && (
    <p className="sidebar-empty search-partial" role="status">
      Searched {partial.indexed.toLocaleString()} of {partial.total.toLocaleString()} conversations so far;
      more as they are indexed.
    </p>
  );
  if (hits.length === 0) {
    if (looking) return looking;
    return partial ? (
      <p className="sidebar-empty search-partial" role="status">
        No conversations mention “{query}” among the {partial.indexed.toLocaleString()} of{' '}
        {partial.total.toLocaleString()} indexed so far; more as they are indexed.
      </p>
    ) : (
      <p className="sidebar-empty">No conversations mention “{query}”.</p>
    );
  }
  return (
    <>
      {sofar}
      <ul className="search-results" aria-label="Search results" aria-busy={!complete}>
        {hits.map((hit, index) => (
          <li key={`${hit.sessionId}:${hit.messageUuid ?? ''}:${index}`}>
            <button
              type="button"
              className="search-hit"
              onClick={() => void openSaved(hit.sessionId, { messageUuid: hit.messageUuid, text: query })}
            >
              <span className="library-row-title">{hit.title}</span>
              <span className="library-row-meta">
                {hit.cwd && <span>{folderName(hit.cwd)}</span>}
                <time dateTime={new Date(hit.lastActive).toISOString()}>{relativeTime(hit.lastActive)}</time>
              </span>
              <Snippet text={hit.snippet} />
            </button>
          </li>
        ))}
      </ul>
      {looking}
    </>
  );
}

/** A snippet with its matches highlighted; the markers are the only markup it has. */
function Snippet({ text }: { text: string }) {
  const pieces: { text: string; match: boolean }[] = [];
  let rest = text;
  while (rest.length > 0) {
    const start = rest.indexOf(MATCH_START);
    if (start === -1) {
      pieces.push({ text: rest, match: false });
      break;
    }
    if (start > 0) pieces.push({ text: rest.slice(0, start), match: false });
    const end = rest.indexOf(MATCH_END, start);
    const stop = end === -1 ? rest.length : end;
    pieces.push({ text: rest.slice(start + 1, stop), match: true });
    rest = rest.slice(stop + 1);
  }
  return (
    <span className="snippet">
      {pieces.map((piece, index) => (piece.match ? <mark key={index}>{piece.text}</mark> : piece.text))}
    </span>
  );
}
