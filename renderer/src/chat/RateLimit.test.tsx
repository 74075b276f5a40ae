import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { RateLimitInfo } from '../../../shared/protocol';
import { RateLimitIndicator, RateLimitReachedBanner } from './RateLimit';

/**
 * The usage limit as the header and the composer show it, from rate_limit_event's info as sdk.d.ts describes
 * it (no run here can produce the line: it comes only to subscription accounts). Times are local.
 */

const now = new Date(2026, 11, 2, 9, 30);
const at = (hours: number, minutes = 0, day = 2) => new Date(2026, 11, day, hours, minutes).getTime() / 1000;
const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('the usage limit in the header', () => {
  it('says which limit, how much of it is used and when it resets', () => {
    const info: RateLimitInfo = {
      status: 'allowed_warning',
      rateLimitType: 'five_hour',
      utilization: 0.91,
      resetsAt: at(14),
    };
    const html = renderToStaticMarkup(<RateLimitIndicator info={info} now={now} locale="en-GB" />);
    expect(html).toContain('role="status"');
    expect(html).toContain('aria-label="Usage limit"');
    expect(html).toContain('rate-limit-warn');
    expect(text(html)).toBe('5-hour limit: 91% · resets 14:00');
  });

  it('names the weekly limit, gives a later day, and says what extra usage is doing', () => {
    const info: RateLimitInfo = {
      status: 'allowed',
      rateLimitType: 'seven_day',
      utilization: 0.4,
      resetsAt: at(8, 0, 4),
      overageStatus: 'rejected',
      overageDisabledReason: 'out_of_credits',
    };
    const html = renderToStaticMarkup(<RateLimitIndicator info={info} now={now} locale="en-GB" />);
    expect(html).toContain('rate-limit-ok');
    expect(text(html)).toBe('Weekly limit: 40% · resets Fri 8:00 · Extra usage off: out of credits');
  });

  it('says a limit kind this app does not know in its own words', () => {
    const info: RateLimitInfo = { status: 'rejected', rateLimitType: 'monthly_team' };
    expect(text(renderToStaticMarkup(<RateLimitIndicator info={info} now={now} />))).toBe(
      'Monthly team limit: reached',
    );
  });
});

describe('the banner once the limit is reached', () => {
  it('tells the user when they may go on', () => {
    const info: RateLimitInfo = {
      status: 'rejected',
      rateLimitType: 'five_hour',
      utilization: 1,
      resetsAt: at(14),
    };
    const html = renderToStaticMarkup(<RateLimitReachedBanner info={info} now={now} locale="en-GB" />);
    expect(html).toContain('role="alert"');
    expect(text(html)).toBe('5-hour limit reached · you can continue at 14:00');
  });

  it('is not there before the limit is reached, nor once it has reset', () => {
    const warning: RateLimitInfo = {
      status: 'allowed_warning',
      rateLimitType: 'five_hour',
      resetsAt: at(14),
    };
    expect(renderToStaticMarkup(<RateLimitReachedBanner info={warning} now={now} />)).toBe('');
    const past: RateLimitInfo = { status: 'rejected', rateLimitType: 'five_hour', resetsAt: at(9) };
    expect(renderToStaticMarkup(<RateLimitReachedBanner info={past} now={now} />)).toBe('');
  });
});
