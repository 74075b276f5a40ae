import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LimitWindow } from '../../../shared/ipc';
import { usageReport } from './fixture';
import { LimitsPanel, type LimitsPanelProps } from './LimitsSection';

/**
 * The Usage view's limits as they render from windows shaped as sdk.d.ts's SDKRateLimitEvent says (no run
 * here produces one): each window's bar, percentage and reset, the pacing line, each conversation's share of
 * the 5-hour window, and the sentence an API key account sees instead.
 */

const nothing = () => undefined;
/** 2 Dec 2026, 11:30 local. */
const now = new Date(2026, 11, 2, 11, 30).getTime();
const at = (hour: number, day = 2) => new Date(2026, 11, day, hour).getTime() / 1000;
const text = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

const windows: LimitWindow[] = [
  {
    rateLimitType: 'five_hour',
    info: { status: 'allowed_warning', rateLimitType: 'five_hour', utilization: 0.625, resetsAt: at(14) },
    at: now,
  },
  {
    rateLimitType: 'seven_day',
    info: { status: 'allowed', rateLimitType: 'seven_day', utilization: 0.1, resetsAt: at(9, 5) },
    at: now,
  },
];

function render(extra: Partial<LimitsPanelProps> = {}): string {
  return renderToStaticMarkup(
    <LimitsPanel windows={windows} windowUsage={null} now={now} locale="en-GB" onOpen={nothing} {...extra} />,
  );
}

describe('the limits in the Usage view', () => {
  it('shows each window with a bar of its use, its percentage, its reset and the pacing line', () => {
    const html = render();
    expect(html).toContain(
      'aria-label="5-hour limit used" aria-valuemin="0" aria-valuemax="100" aria-valuenow="63"',
    );
    expect(text(html)).toContain('5-hour limit 63% · resets 14:00');
    // 62.5% in the 2.5 h since 9:00: all of it by 13:00.
    expect(text(html)).toContain('At this rate the 5-hour limit is reached at 13:00');
    expect(text(html)).toContain('Weekly limit 10% · resets Sat 9:00');
    expect(text(html)).toContain('At this rate the weekly limit is not reached before it resets (Sat 9:00)');
    expect(html).toContain('usage-limit-warn');
  });

  it('lists each conversation’s share of the 5-hour window, most first, each a button', () => {
    const [first, second] = usageReport().totals.top;
    const total = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };
    const sum = (n: number) => ({ ...total, cacheRead: n });
    const html = render({
      windowUsage: {
        since: 0,
        error: null,
        usage: {
          total: sum(4000),
          conversations: [
            { ...first!, tokens: sum(3000) },
            { ...second!, tokens: sum(1000) },
          ],
        },
      },
    });
    expect(html).toContain('This 5-hour window, by conversation');
    const shares = [...text(html).matchAll(/(Conversation \d+) (\d+%) · ([\d.k]+) tokens/g)].map((match) =>
      match.slice(1),
    );
    expect(shares).toEqual([
      [first!.title, '75%', '3k'],
      [second!.title, '25%', '1k'],
    ]);
    expect(html.match(/<button type="button" class="usage-share"/g)).toHaveLength(2);
  });

  it('says why the window’s usage could not be read', () => {
    const html = render({ windowUsage: { since: 0, usage: null, error: 'The index is not open.' } });
    expect(text(html)).toContain('The window’s usage could not be read: The index is not open.');
  });

  it('says where limits come from when none has been reported, or all have reset', () => {
    const sentence =
      'Limits show here for subscription accounts, once Claude Code reports them in a conversation.';
    expect(text(render({ windows: [] }))).toContain(sentence);
    expect(text(render({ now: at(10, 6) * 1000 }))).toContain(sentence);
  });
});
