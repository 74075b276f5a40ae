import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LimitWindow, ScheduledSend } from '../../../shared/ipc';
import type { RateLimitInfo } from '../../../shared/protocol';
import { AccountLimitsIndicator, RateLimitIndicator, RateLimitReachedBanner } from './RateLimit';

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

describe('the account’s windows in the header', () => {
  const window = (rateLimitType: string, info: Partial<RateLimitInfo>): LimitWindow => ({
    rateLimitType,
    info: { status: 'allowed', rateLimitType, ...info },
    at: now.getTime(),
  });

  it('shows the 5-hour and weekly windows, each marked as near or at its limit, 5-hour first', () => {
    const html = renderToStaticMarkup(
      <AccountLimitsIndicator
        windows={[
          window('seven_day', { utilization: 0.4, resetsAt: at(9, 0, 4) }),
          window('five_hour', { status: 'allowed_warning', utilization: 0.91, resetsAt: at(14) }),
          window('seven_day_opus', { utilization: 0.1, resetsAt: at(9, 0, 4) }),
        ]}
        now={now}
        locale="en-GB"
      />,
    );
    expect(html).toContain('aria-label="Usage limits"');
    const windows = [
      ...html.matchAll(
        /class="account-limit rate-limit-(\w+)"><span class="account-limit-long">([^<]*)<\/span><span class="account-limit-short" aria-hidden="true">([^<]*)</g,
      ),
    ];
    expect(windows.map(([, level, long, short]) => [level, long, short])).toEqual([
      ['warn', '5-hour limit: 91% · resets 14:00', '5h 91%'],
      ['ok', 'Weekly limit: 40% · resets Fri 9:00', 'wk 40%'],
    ]);
    // The full words stay in the title when the header shows only "5h 91% wk 40%".
    expect(html).toContain('title="5-hour limit: 91% · resets 14:00\nWeekly limit: 40% · resets Fri 9:00"');
  });

  it('shows another kind of window only while it is near or at its limit, and none that has reset', () => {
    const html = renderToStaticMarkup(
      <AccountLimitsIndicator
        windows={[
          window('five_hour', { utilization: 0.2, resetsAt: at(9) }),
          window('seven_day_opus', { status: 'rejected', utilization: 1, resetsAt: at(9, 0, 4) }),
        ]}
        now={now}
        locale="en-GB"
      />,
    );
    expect(text(html)).toBe('Weekly Opus limit: 100% · resets Fri 9:00wk Opus 100%');
    expect(html).toContain('rate-limit-reached');
  });
});

describe('a message kept for the reset', () => {
  const reached: RateLimitInfo = {
    status: 'rejected',
    rateLimitType: 'five_hour',
    utilization: 1,
    resetsAt: at(14),
  };
  const kept = (patch: Partial<ScheduledSend> = {}): ScheduledSend => ({
    id: '6f1c2b8e-2a51-4a1e-9c57-3f0b8f9d2a10',
    sessionId: 's1',
    cwd: '/work',
    text: 'carry on with the tests\nand then the docs',
    sendAt: at(10, 42) * 1000,
    createdAt: now.getTime(),
    failed: null,
    ...patch,
  });
  const buttons = (html: string) =>
    [...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((match) => match[1]);

  it('offers "Send when the limit resets" only when the composer holds a message', () => {
    const empty = renderToStaticMarkup(<RateLimitReachedBanner info={reached} now={now} draft="  " />);
    expect(buttons(empty)).toEqual([]);
    const typed = renderToStaticMarkup(<RateLimitReachedBanner info={reached} now={now} draft="carry on" />);
    expect(buttons(typed)).toEqual(['Send when the limit resets']);
  });

  it('counts down to its sending, with its text and a Cancel, even with no limit line heard', () => {
    const html = renderToStaticMarkup(
      <RateLimitReachedBanner info={null} now={now} kept={kept()} draft="" locale="en-GB" />,
    );
    expect(text(html)).toContain('Will send at 10:42 · in 1 h 12 min');
    expect(text(html)).toContain('carry on with the tests');
    expect(text(html)).not.toContain('and then the docs');
    expect(buttons(html)).toEqual(['Cancel']);
  });

  it('says why a kept message failed, with Retry and Cancel', () => {
    const html = renderToStaticMarkup(
      <RateLimitReachedBanner info={reached} now={now} kept={kept({ failed: 'Claude Code exited.' })} />,
    );
    expect(text(html)).toContain('The kept message could not be sent: Claude Code exited.');
    expect(buttons(html)).toEqual(['Retry', 'Cancel']);
  });

  it('says in words why main would not keep it', () => {
    const html = renderToStaticMarkup(
      <RateLimitReachedBanner
        info={reached}
        now={now}
        draft="carry on"
        error="This limit has already reset: send the message now."
      />,
    );
    expect(text(html)).toContain('This limit has already reset: send the message now.');
  });
});
