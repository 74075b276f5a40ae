import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CostLabel, SearchResults, SortControl } from './Sidebar';

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
