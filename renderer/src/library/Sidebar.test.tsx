import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CostLabel, SortControl } from './Sidebar';

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
