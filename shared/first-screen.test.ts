import { describe, expect, it } from 'vitest';
import {
  FIRST_SCREEN_DATA_ID,
  FIRST_SCREEN_ROWS,
  FirstScreenRows,
  pageWithFirstScreen,
} from './first-screen';
import type { LibraryRow } from './library';

/**
 * The first screen a host draws into the app's page: the newest rows in the sidebar's markup, grouped by
 * folder, with the rows as data for the app's first render; titles and folders as text whatever they hold;
 * the page untouched when there is nothing to draw.
 */

const PAGE = `<!doctype html>
<html lang="en">
  <head><script type="module" crossorigin src="./assets/index-abc.js"></script></head>
  <body>
    <div id="root"></div>
  </body>
</html>`;

const now = Date.UTC(2026, 11, 8, 12);
let next = 0;
const row = (title: string, cwd: string | null, extra: Partial<LibraryRow> = {}): LibraryRow => {
  next += 1;
  return {
    sessionId: `s${next}`,
    title,
    cwd,
    gitBranch: null,
    lastActive: now - next * 60_000,
    messageCount: 4,
    sizeBytes: 2048,
    resumable: true,
    hasTranscript: true,
    branchCount: 1,
    familyKey: `s${next}`,
    cost: { usd: null, estimated: false },
    ...extra,
  };
};

/** The page's root element's markup, and the rows of its data block. */
function parts(page: string): { root: string; data: unknown } {
  const root = /<div id="root">([\s\S]*?)<\/div><script type="application\/json"/.exec(page)?.[1] ?? '';
  const block = new RegExp(
    `<script type="application/json" id="${FIRST_SCREEN_DATA_ID}">([\\s\\S]*?)</script>`,
  ).exec(page);
  return { root, data: block ? JSON.parse(block[1] ?? '') : null };
}

describe('the first screen drawn into the page', () => {
  it('draws the newest rows under their folders, seen only (inert, hidden from screen readers) until the app takes over', () => {
    const rows = [row('Parser rewrite', '/work/app'), row('Docs', '/work/site'), row('Tests', '/work/app')];
    const page = pageWithFirstScreen(PAGE, { rows, theme: 'system', now });
    const { root, data } = parts(page);
    expect(root).toMatch(/^<div class="app app-first-screen" inert="" aria-hidden="true">/);
    const text = root.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    // Folders by their newest row: app (two rows), then site; each row with its age, size and messages.
    expect(text).toContain(
      'app · 2 Parser rewrite 1 minute ago 4 messages 2.0 KB Tests 3 minutes ago 4 messages 2.0 KB site · 1 Docs 2 minutes ago',
    );
    // The folder filter, with two folders.
    expect(root).toContain('<option value="/work/app" title="/work/app">app — /work/app</option>');
    expect(data).toEqual(rows);
    // The rest of the page is as it was.
    expect(page).toContain('<script type="module" crossorigin src="./assets/index-abc.js"></script>');
  });

  it('keeps a title or a folder text, whatever it holds', () => {
    const hostile = row("<img src=x onerror=alert(1)> $& $' </script><script>alert(2)</script>", '/w/"><b>x');
    const page = pageWithFirstScreen(PAGE, { rows: [hostile], theme: 'system', now });
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>');
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; $&amp; $&#x27; &lt;/script&gt;');
    expect(page).toContain('title="/w/&quot;&gt;&lt;b&gt;x"');
    // One script element more than the page had: the data block, which nothing in it can end early.
    expect(page.split('</script>')).toHaveLength(PAGE.split('</script>').length + 1);
    expect(parts(page).data).toEqual([hostile]);
  });

  it('draws the chosen theme before any script runs; the system’s is left to the styles', () => {
    const rows = [row('One', '/work/app')];
    expect(pageWithFirstScreen(PAGE, { rows, theme: 'dark', now })).toContain(
      '<html data-theme="dark" lang="en">',
    );
    expect(pageWithFirstScreen(PAGE, { rows, theme: 'light', now })).toContain(
      '<html data-theme="light" lang="en">',
    );
    expect(pageWithFirstScreen(PAGE, { rows, theme: 'system', now })).toContain('<html lang="en">');
  });

  it('leaves the page as it is with nothing to draw', () => {
    expect(pageWithFirstScreen(PAGE, null)).toBe(PAGE);
    expect(pageWithFirstScreen(PAGE, { rows: [], theme: 'dark', now })).toBe(PAGE);
    // A page without its empty root (built differently) is not guessed at.
    const other = PAGE.replace('<div id="root"></div>', '<main id="root"></main>');
    expect(pageWithFirstScreen(other, { rows: [row('One', '/w')], theme: 'dark', now })).toBe(other);
  });

  it('draws no more rows than the first screen holds, and its data says the same rows', () => {
    const many = Array.from({ length: FIRST_SCREEN_ROWS + 20 }, (_, index) =>
      row(`Row ${index}`, '/work/app'),
    );
    const { root, data } = parts(pageWithFirstScreen(PAGE, { rows: many, theme: 'system', now }));
    expect(FirstScreenRows.parse(data)).toEqual(many.slice(0, FIRST_SCREEN_ROWS));
    // A screenful, not the hundred: the rest are never in view before the app draws them.
    const drawn = root.match(/class="library-row-title"/g) ?? [];
    expect(drawn.length).toBeGreaterThanOrEqual(30);
    expect(drawn.length).toBeLessThan(FIRST_SCREEN_ROWS);
  });
});
