import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  folderFilterMarkup,
  rowMarkup,
  SEARCH_MARKUP,
  SORT_MARKUP,
  USAGE_MARKUP,
} from '../../../shared/first-screen';
import type { LibraryRow } from '../../../shared/library';
import {
  CostLabel,
  FolderFilter,
  LibrarySortControl,
  RowButton,
  SearchBox,
  SearchResults,
  SortControl,
  UsageButton,
} from './Sidebar';

/**
 * The sidebar's cost pieces as they render (issue 29): a row's cost, marked when estimated and absent when
 * unknown, and the "Sort by" control with its two orders.
 */

describe('a row’s cost', () => {
  it('shows the CLI’s own figure plainly and an estimate with a tilde that says so', () => {
    expect(renderToStaticMarkup(<CostLabel cost={{ usd: 0.42, estimated: false }} />)).toContain('>$0.42<');
    const estimated = renderToStaticMarkup(<CostLabel cost={{ usd: 0.42, estimated: true }} />);
    expect(estimated).toContain('>~$0.42<');
    expect(estimated).toContain('title="Estimated from the pricing table"');
  });

  it('shows nothing when nothing of it could be priced', () => {
    expect(renderToStaticMarkup(<CostLabel cost={{ usd: null, estimated: false }} />)).toBe('');
  });
});

describe('the Sort by control', () => {
  it('is a combobox named "Sort by" offering Recent and Cost, with the current order chosen', () => {
    const html = renderToStaticMarkup(<SortControl sort="cost" onSort={() => undefined} />);
    expect(html).toContain('aria-label="Sort by"');
    expect(html).toMatch(/<option value="recent">Recent<\/option>/);
    expect(html).toMatch(/<option value="cost" selected="">Cost<\/option>/);
  });
});

describe('a search while the library is still being indexed', () => {
  const hit = {
    sessionId: 's1',
    title: 'Widget rewrite',
    cwd: '/work',
    lastActive: 0,
    snippet: 'widget',
    messageUuid: null,
  };

  it('says how much it looked through, found or not, rather than that nothing mentions it', () => {
    const none = renderToStaticMarkup(
      <SearchResults
        search={{ query: 'widget', hits: [], complete: true, partial: { indexed: 120, total: 2775 } }}
      />,
    );
    expect(none).toContain('No conversations mention “widget” among the 120 of 2,775 indexed so far');
    const some = renderToStaticMarkup(
      <SearchResults
        search={{ query: 'widget', hits: [hit], complete: true, partial: { indexed: 120, total: 2775 } }}
      />,
    );
    expect(some).toContain('Searched 120 of 2,775 conversations so far');
    expect(some).toContain('Widget rewrite');
    const whole = renderToStaticMarkup(
      <SearchResults search={{ query: 'widget', hits: [], complete: true }} />,
    );
    expect(whole).toContain('No conversations mention “widget”.');
    expect(whole).not.toContain('so far');
  });
});

describe('the first screen the host draws into the page', () => {
  // The app's first render replaces it: any difference would move or change what the user is looking at.
  const now = Date.now();
  const base: LibraryRow = {
    sessionId: 's1',
    title: 'Fix the <parser> & "quotes"',
    cwd: '/work/app',
    gitBranch: 'main',
    lastActive: now - 5 * 60_000,
    messageCount: 1234,
    sizeBytes: 2_500_000,
    resumable: true,
    hasTranscript: true,
    branchCount: 1,
    familyKey: 's1',
    cost: { usd: 0.42, estimated: false },
  };
  const rows: [string, LibraryRow][] = [
    ['a plain row', base],
    [
      'a row without folder, branch or price, of one message',
      { ...base, cwd: null, gitBranch: null, messageCount: 1, cost: { usd: null, estimated: false } },
    ],
    ['an estimate, with branches', { ...base, branchCount: 3, cost: { usd: 0.001, estimated: true } }],
    ['one Byre saved', { ...base, resumable: false }],
    ['one whose files are gone', { ...base, resumable: false, hasTranscript: false }],
  ];

  it.each(rows)('draws %s as the sidebar does', (_, row) => {
    expect(rowMarkup(row, null, now)).toBe(renderToStaticMarkup(<RowButton row={row} worktree={null} />));
  });

  it('draws a worktree’s row, its state not yet known, as the sidebar does', () => {
    const row = { ...base, cwd: '/work/app/.claude/worktrees/fix', gitBranch: 'fix-parser' };
    for (const worktree of [{ name: 'fix', status: null }]) {
      expect(rowMarkup(row, worktree, now)).toBe(
        renderToStaticMarkup(<RowButton row={row} worktree={worktree} />),
      );
      expect(rowMarkup({ ...row, gitBranch: null }, worktree, now)).toBe(
        renderToStaticMarkup(<RowButton row={{ ...row, gitBranch: null }} worktree={worktree} />),
      );
    }
  });

  it('draws the controls above the list as the sidebar’s first render does', () => {
    expect(SEARCH_MARKUP).toBe(renderToStaticMarkup(<SearchBox />));
    expect(SORT_MARKUP).toBe(renderToStaticMarkup(<LibrarySortControl />));
    expect(USAGE_MARKUP).toBe(renderToStaticMarkup(<UsageButton />));
    const folders = ['/work/app', '/work/<site> & "docs"'];
    expect(folderFilterMarkup(folders)).toBe(renderToStaticMarkup(<FolderFilter folders={folders} />));
    expect(folderFilterMarkup(['/work/app'])).toBe(
      renderToStaticMarkup(<FolderFilter folders={['/work/app']} />),
    );
  });
});
