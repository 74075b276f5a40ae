/**
 * The window's first screen, drawn by the host into the page it serves: the library's newest rows, in the
 * sidebar's own markup, so that they are on screen as soon as the page and its styles are read, before the
 * app's code has loaded (some hundreds of milliseconds on a slow machine). The rows come with it as data
 * too, and the app's first render draws the same rows from them, so nothing moves when it takes over.
 *
 * The markup is the sidebar's (renderer/src/library/Sidebar.tsx) as its first render draws it: no tab open,
 * nothing searched, newest first, worktrees' states not yet known. Sidebar.test.tsx holds the two to the
 * same markup; an end-to-end test holds them to the same place on screen. The screen is only seen: inert
 * (nothing in it can be clicked or focused) and hidden from screen readers, which hear the app's own rows
 * a moment later, once it replaces it. Pure: no Node or DOM.
 */
import { z } from 'zod';
import type { Theme } from './ipc';
import { LibraryRow } from './library';
import {
  costLabel,
  folderList,
  folderName,
  formatSize,
  groupRows,
  relativeTime,
  type RowWorktree,
  type SidebarItem,
} from './library-groups';

/** Rows asked for the first screen: more than the tallest window shows at once. */
export const FIRST_SCREEN_ROWS = 100;

/** Items (rows and folder headings) drawn: taller than any screen (a row is 58 to 68 px). */
const DRAWN_ITEMS = 40;

/** The id of the page's data block holding the first screen's rows. */
export const FIRST_SCREEN_DATA_ID = 'byre-first-screen';

export const FirstScreenRows = z.array(LibraryRow).max(FIRST_SCREEN_ROWS);

export interface FirstScreen {
  /** The library's newest rows (at most FIRST_SCREEN_ROWS). */
  rows: LibraryRow[];
  /** The theme chosen in settings, drawn before the app's code has run. */
  theme: Theme;
  /** The time the rows' ages are told from, ms. */
  now: number;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
};

/** Text or an attribute's value, as React escapes it. */
function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

const attr = (name: string, value: string | null | undefined): string =>
  value === null || value === undefined ? '' : ` ${name}="${escape(value)}"`;

/** A row's button, as Sidebar.tsx's RowButton draws it with no tab open. */
export function rowMarkup(row: LibraryRow, worktree: RowWorktree | null, now: number): string {
  const cost = costLabel(row.cost);
  const branch = worktree ? (worktree.status?.branch ?? row.gitBranch ?? worktree.name) : null;
  const meta = [
    !worktree && row.gitBranch ? `<span class="branch">⎇ ${escape(row.gitBranch)}</span>` : '',
    `<time dateTime="${new Date(row.lastActive).toISOString()}">${escape(relativeTime(row.lastActive, now))}</time>`,
    `<span>${escape(row.messageCount.toLocaleString())} ${row.messageCount === 1 ? 'message' : 'messages'}</span>`,
    `<span>${escape(formatSize(row.sizeBytes))}</span>`,
    cost === null
      ? ''
      : `<span class="library-row-cost"${attr('title', row.cost.estimated ? 'Estimated from the pricing table' : 'What Claude Code said it cost')}>${escape(cost)}</span>`,
    row.branchCount > 1 ? `<span class="badge">${row.branchCount} branches</span>` : '',
    row.resumable
      ? ''
      : `<span class="badge badge-muted">${row.hasTranscript ? 'saved by Byre' : 'files deleted'}</span>`,
  ].join('');
  return (
    `<button type="button" class="library-row${worktree ? ' library-row-worktree' : ''}"${attr('title', row.cwd)}>` +
    `<span class="library-row-title">${escape(row.title)}</span>` +
    (branch === null
      ? ''
      : `<span class="library-row-meta worktree-line"><span class="branch">⎇ ${escape(branch)}</span></span>`) +
    `<span class="library-row-meta">${meta}</span></button>`
  );
}

function itemMarkup(item: SidebarItem, now: number): string {
  switch (item.kind) {
    case 'host':
      return `<h2 class="sidebar-host-heading"${attr('title', `Conversations Byre ran on ${item.host}, over ssh`)}>${escape(item.host)}<span class="muted"> · ${item.count}</span></h2>`;
    case 'folder':
      return `<h2 class="sidebar-folder-heading"${attr('title', item.folder)}>${escape(item.folder ? folderName(item.folder) : 'Unknown folder')}<span class="muted"> · ${item.count}</span></h2>`;
    case 'row':
      return rowMarkup(item.row, item.worktree, now);
  }
}

/** The folder filter, as Sidebar.tsx's FolderFilter draws it (only for two folders or more). */
export function folderFilterMarkup(folders: string[]): string {
  if (folders.length < 2) return '';
  const options = folders
    .map(
      (path) =>
        `<option${attr('value', path)}${attr('title', path)}>${escape(folderName(path))} — ${escape(path)}</option>`,
    )
    .join('');
  return `<label class="sidebar-folder"><span class="sr-only">Folder</span><select aria-label="Folder"><option value="" selected="">All folders</option>${options}</select></label>`;
}

/** The sidebar's controls above its list, as Sidebar.tsx draws them first (nothing searched, newest first). */
export const SEARCH_MARKUP =
  '<div class="sidebar-search"><input type="search" role="searchbox" aria-label="Search conversations" placeholder="Search conversations" value=""/></div>';
export const SORT_MARKUP =
  '<label class="sidebar-sort"><span>Sort by</span><select aria-label="Sort by"><option value="recent" selected="">Recent</option><option value="cost">Cost</option></select></label>';
export const USAGE_MARKUP =
  '<button type="button" class="button-secondary sidebar-usage" aria-pressed="false" title="Where the tokens and the money went (Ctrl+Shift+U)">Usage</button>';

/** The sidebar with its newest rows: the whole window's first screen but for the main area, left empty. */
export function firstScreenMarkup({ rows, now }: Pick<FirstScreen, 'rows' | 'now'>): string {
  const items = groupRows(rows, {}, 'recent').slice(0, DRAWN_ITEMS);
  const list = items
    .map((item, index) => `<li data-index="${index}" class="sidebar-item">${itemMarkup(item, now)}</li>`)
    .join('');
  return (
    '<div class="app app-first-screen" inert="" aria-hidden="true"><div class="app-body">' +
    '<nav class="sidebar" aria-label="Conversations">' +
    SEARCH_MARKUP +
    folderFilterMarkup(folderList(rows)) +
    SORT_MARKUP +
    USAGE_MARKUP +
    `<div class="sidebar-list"><ul class="sidebar-list-inner">${list}</ul></div>` +
    '</nav><div class="app-main"></div></div></div>'
  );
}

/** JSON that cannot end its script element, or open a comment, whatever its strings hold. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const ROOT = '<div id="root"></div>';

/**
 * The app's index.html with its first screen: the theme on the root element, the rows drawn in the root,
 * and the rows as data after it (a JSON block, which the page's script policy lets be, as it runs nothing).
 * The page as it is when there is no first screen (no rows, or none in time), or it has no empty root.
 * (The stylesheet stays a link: put into the page, it was loaded again by the app's start, which waits for
 * the link of each stylesheet its chunks need.)
 */
export function pageWithFirstScreen(html: string, screen: FirstScreen | null): string {
  if (!screen || screen.rows.length === 0 || !html.includes(ROOT)) return html;
  const rows = screen.rows.slice(0, FIRST_SCREEN_ROWS);
  const themed =
    screen.theme === 'system' ? html : html.replace(/<html(\s|>)/, `<html data-theme="${screen.theme}"$1`);
  // A function, so that no `$` in a title is taken for a pattern of replace's own.
  return themed.replace(
    ROOT,
    () =>
      `<div id="root">${firstScreenMarkup({ rows, now: screen.now })}</div>` +
      `<script type="application/json" id="${FIRST_SCREEN_DATA_ID}">${scriptSafeJson(rows)}</script>`,
  );
}
