import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { UsageReport } from '../../../shared/ipc';
import { usageReport } from './fixture';
import { FolderTable, UsagePanel, type UsagePanelProps } from './UsageView';

/** The Usage view as it renders over a fixture report: its names, its table's order, its labels and states. */

const nothing = () => undefined;

function render(extra: Partial<UsagePanelProps> = {}): string {
  return renderToStaticMarkup(
    <UsagePanel
      range="30d"
      grouping="day"
      folder={null}
      metric="tokens"
      report={usageReport()}
      loading={false}
      error={null}
      day={null}
      today="2026-11-14"
      onRange={nothing}
      onGrouping={nothing}
      onFolder={nothing}
      onMetric={nothing}
      onDay={nothing}
      onOpen={nothing}
      onRetry={nothing}
      onClose={nothing}
      {...extra}
    />,
  );
}

/** The text of `html` without its tags, spaces made single. */
const text = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

describe('the Usage view', () => {
  it('is a region named Usage, with its comboboxes, chart and table named', () => {
    const html = render();
    const headingId = /<h2 id="([^"]+)">Usage<\/h2>/.exec(html)?.[1];
    expect(headingId).toBeDefined();
    expect(html).toContain(`role="region" aria-labelledby="${headingId}"`);
    expect(text(html)).toMatch(/Range (Today )?.*30 days/);
    expect(html).toMatch(/<label>Range <select>/);
    expect(html).toMatch(/<label>Group by <select>/);
    expect(html).toContain('<option value="30d" selected="">30 days</option>');
    expect(html).toContain('aria-label="Usage by folder"');
    // The chart is an image named for what it shows, described by its summary sentence.
    const describedBy = /role="img" aria-label="Usage by day" aria-describedby="([^"]+)"/.exec(html)?.[1];
    expect(describedBy).toBeDefined();
    const summary = new RegExp(`id="${describedBy}"[^>]*>([^<]*)<`).exec(html)?.[1];
    expect(summary).toMatch(/^30 days: 1.3M tokens, \$4.10 estimated \+ unpriced; most on /);
  });

  it('stacks each day’s bars by model, with a legend and a button per day with usage', () => {
    const html = render();
    // Two days with usage: sonnet and opus on one, sonnet on the other (the unknown model has tokens too).
    expect(html.match(/class="visx-bar usage-bar"/g)).toHaveLength(4);
    expect(html.match(/class="usage-hit"/g)).toHaveLength(2);
    expect(text(html)).toContain('sonnet-4-5 local-llama-70b-instruct opus-4-1');
  });

  it('labels estimates and what could not be priced', () => {
    const html = text(render());
    expect(html).toContain('Cost $4.10 estimated + unpriced');
    expect(html).toContain('Estimated from prices checked on 2026-10-01.');
    expect(html).toContain('200k tokens of models Byre has no price for are left out of the cost.');
    expect(html).toContain('Read from cache 67%');
    // The folder that ran only the unknown model: "unpriced", never $0.00.
    expect(html).toMatch(/No folder 1 140k 60k 0 0 unpriced/);
  });

  it('shows each lane apart, with what it bills to, and says the plan covers the Terminal lane', () => {
    const html = render();
    const lanes = /<section class="usage-lanes"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(text(lanes)).toMatch(/By lane Lane Conversations Tokens Cost at API rates/);
    expect(text(lanes)).toMatch(/Terminal Plan limits 5 1M \$3\.90 estimated/);
    expect(text(lanes)).toMatch(/Stream Agent SDK credit or API 2 60k \$0\.20 estimated/);
    expect(text(lanes)).toContain('Not recorded');
    expect(text(lanes)).toContain('plan limits cover the Terminal lane');
    const onlyStream = usageReport();
    onlyStream.lanes = onlyStream.lanes.filter((row) => row.lane === 'stream');
    const streamed = text(render({ report: onlyStream }));
    expect(streamed).toContain('Agent SDK credit or API');
    expect(streamed).not.toContain('plan limits cover');
  });

  it('lists the most expensive conversations as buttons', () => {
    const html = render();
    expect(html).toContain('Most expensive conversations');
    expect(html.match(/class="usage-conversation"/g)).toHaveLength(3);
  });

  it('bars by folder or model, biggest first, for the other groupings', () => {
    const html = text(render({ grouping: 'model', metric: 'cost' }));
    expect(html).toMatch(/sonnet-4-5 \$3.50 opus-4-1 \$0.60/);
    expect(render({ grouping: 'folder' })).toContain('aria-label="Usage by folder"');
  });

  it('shows the folder it is filtered to, with a way back to every folder', () => {
    const html = render({ folder: '/home/ann/code/byre' });
    expect(html).toContain('aria-label="Show every folder, not only byre"');
  });

  it('lists a day’s conversations once they are read', () => {
    const day = { day: '2026-11-12', conversations: usageReport().totals.top.slice(0, 1), error: null };
    expect(text(render({ day }))).toMatch(/Conversations on .*Conversation 1/);
    expect(text(render({ day: { ...day, conversations: null } }))).toContain('Reading…');
  });

  it('says when there is nothing, while it reads, and why it failed', () => {
    const empty: UsageReport = { ...usageReport(), days: [], folders: [], models: [] };
    empty.totals = {
      ...empty.totals,
      conversations: 0,
      tokens: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
      top: [],
    };
    expect(text(render({ report: empty }))).toContain('No usage in 30 days.');
    expect(render({ report: empty })).not.toContain('role="img"');
    expect(text(render({ report: null, loading: true }))).toContain('Reading usage…');
    const failed = render({ report: null, error: 'Usage is not built yet.' });
    expect(failed).toContain('role="alert"');
    expect(text(failed)).toContain('Usage could not be read: Usage is not built yet. Try again');
  });
});

describe('the folder table', () => {
  const rows = usageReport().folders;
  const folderOrder = (html: string) =>
    [
      ...html.matchAll(
        /<tr><th scope="row">(?:<button[^>]*title="([^"]*)"|<span class="muted">(No folder))/g,
      ),
    ].map((match) => match[1] ?? match[2]);

  it('sorts by cost, most first, until told otherwise, and says so on its header', () => {
    const html = renderToStaticMarkup(<FolderTable rows={rows} onFolder={nothing} />);
    expect(folderOrder(html)).toEqual([
      '/home/ann/code/byre',
      '/home/ann/a/very/long/path/of/folders/that/goes/on/notes',
      'No folder',
    ]);
    expect(html).toContain('<th scope="col" aria-sort="descending"><button type="button">Cost');
    expect(html).toContain('<th scope="col" aria-sort="none"><button type="button">Input');
  });

  it('sorts by another column either way', () => {
    const html = renderToStaticMarkup(
      <FolderTable
        rows={rows}
        onFolder={nothing}
        initialSort={{ column: 'conversations', direction: 'ascending' }}
      />,
    );
    expect(folderOrder(html)).toEqual([
      'No folder',
      '/home/ann/a/very/long/path/of/folders/that/goes/on/notes',
      '/home/ann/code/byre',
    ]);
    expect(html).toContain('aria-sort="ascending"><button type="button">Conversations');
  });
});
