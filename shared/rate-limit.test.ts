import { describe, expect, it } from 'vitest';
import type { RateLimitInfo } from './protocol';
import { limitShortSummary, pacing, waitWords, windowLength } from './rate-limit';

/** The pacing line and the countdown's words, from windows shaped as sdk.d.ts's SDKRateLimitEvent says. */

const HOUR = 3_600_000;
/** 2 Dec 2026, local time: the hour given, on the minute. */
const at = (hour: number, minute = 0) => new Date(2026, 11, 2, hour, minute).getTime();

function fiveHour(utilization: number | undefined, resetsAt = at(14), reportedAt = at(11, 30)) {
  const info: RateLimitInfo = {
    status: 'allowed',
    rateLimitType: 'five_hour',
    resetsAt: resetsAt / 1000,
    ...(utilization === undefined ? {} : { utilization }),
  };
  return { info, at: reportedAt };
}

describe('pacing', () => {
  it('says when the limit is reached at the rate the window has had so far', () => {
    // The window began at 9:00 (it resets at 14:00); by 11:30, 62.5% of it was used: 25% an hour, so 100%
    // comes four hours after the start.
    expect(pacing(fiveHour(0.625), at(11, 40), 'en-GB')).toBe(
      'At this rate the 5-hour limit is reached at 13:00',
    );
  });

  it('says the limit is not reached before it resets when the rate is low', () => {
    expect(pacing(fiveHour(0.2), at(11, 40), 'en-GB')).toBe(
      'At this rate the 5-hour limit is not reached before it resets (14:00)',
    );
  });

  it('names a weekly window in the sentence, and reads its week-long length', () => {
    const resetsAt = at(14) + 3 * 24 * HOUR;
    // Four of its seven days gone, 80% used: 100% comes a day later, before the reset.
    const window = {
      info: { status: 'allowed', rateLimitType: 'seven_day', utilization: 0.8, resetsAt: resetsAt / 1000 },
      at: at(14),
    };
    expect(windowLength('seven_day_opus')).toBe(7 * 24 * HOUR);
    expect(pacing(window, at(14), 'en-GB')).toMatch(
      /^At this rate the weekly limit is reached at \w+ 14:00$/,
    );
  });

  it('says nothing when use is not known or there is none yet', () => {
    expect(pacing(fiveHour(undefined), at(12))).toBeNull();
    expect(pacing(fiveHour(0), at(12))).toBeNull();
  });

  it('says a used-up limit is reached, and when it resets', () => {
    expect(pacing(fiveHour(1), at(12), 'en-GB')).toBe('The 5-hour limit is reached; it resets 14:00');
    expect(pacing(fiveHour(1.2), at(12), 'en-GB')).toBe('The 5-hour limit is reached; it resets 14:00');
  });

  it('says nothing of a window that has already reset, or one whose length or reset is not known', () => {
    expect(pacing(fiveHour(0.5), at(14, 1))).toBeNull();
    expect(
      pacing({ ...fiveHour(0.5), info: { ...fiveHour(0.5).info, rateLimitType: 'overage' } }, at(12)),
    ).toBeNull();
    const { resetsAt: _resetsAt, ...noReset } = fiveHour(0.5).info;
    expect(pacing({ info: noReset, at: at(11) }, at(12))).toBeNull();
  });

  it('reads no rate from a report made before the window began', () => {
    expect(pacing(fiveHour(0.5, at(14), at(8)), at(12))).toBeNull();
  });
});

describe('the countdown and the short header form', () => {
  it('counts down in hours and minutes, then seconds', () => {
    expect(waitWords(HOUR + 12 * 60_000)).toBe('in 1 h 12 min');
    expect(waitWords(2 * HOUR)).toBe('in 2 h');
    expect(waitWords(5 * 60_000 - 1)).toBe('in 5 min');
    expect(waitWords(40_000)).toBe('in 40 s');
    expect(waitWords(0)).toBe('now');
  });

  it('shortens the windows to "5h 91%" and "wk 40%"', () => {
    expect(
      limitShortSummary({ status: 'allowed_warning', rateLimitType: 'five_hour', utilization: 0.91 }),
    ).toBe('5h 91%');
    expect(limitShortSummary({ status: 'allowed', rateLimitType: 'seven_day', utilization: 0.4 })).toBe(
      'wk 40%',
    );
    expect(limitShortSummary({ status: 'rejected', rateLimitType: 'seven_day_opus' })).toBe(
      'wk Opus reached',
    );
  });
});
