/**
 * A subscription's usage limit in words: which limit, how much of it is used, when it resets. Pure, so the
 * header's indicator, the banner by the composer and the notification all say it the same way. The times
 * are the user's local time (the CLI gives Unix seconds).
 */
import type { RateLimitInfo } from './protocol';

const LIMIT_NAMES: Record<string, string> = {
  five_hour: '5-hour limit',
  seven_day: 'Weekly limit',
  seven_day_opus: 'Weekly Opus limit',
  seven_day_sonnet: 'Weekly Sonnet limit',
  seven_day_overage_included: 'Weekly limit (with extra usage)',
  overage: 'Extra usage limit',
};

/** "5-hour limit"; a kind this app does not know yet by its own words ("monthly_team" → "Monthly team limit"). */
export function limitName(rateLimitType: string | undefined): string {
  if (!rateLimitType) return 'Usage limit';
  const known = LIMIT_NAMES[rateLimitType];
  if (known) return known;
  const words = rateLimitType.replaceAll('_', ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} limit`;
}

/**
 * "14:00" today, "Fri 14:00" within the week, else "12 Dec 14:00": a reset is read against the clock on the
 * wall, so the nearer it is the less it needs to say.
 */
export function resetTime(unixSeconds: number, now: Date = new Date(), locale?: string): string {
  const at = new Date(unixSeconds * 1000);
  const time = at.toLocaleTimeString(locale, { hour: 'numeric', minute: '2-digit' });
  if (at.toDateString() === now.toDateString()) return time;
  const days = (at.getTime() - now.getTime()) / 86_400_000;
  if (days > 0 && days < 6) return `${at.toLocaleDateString(locale, { weekday: 'short' })} ${time}`;
  return `${at.toLocaleDateString(locale, { day: 'numeric', month: 'short' })} ${time}`;
}

/** The header's line: "5-hour limit: 91% · resets 14:00". */
export function rateLimitSummary(info: RateLimitInfo, now?: Date, locale?: string): string {
  const parts = [limitName(info.rateLimitType)];
  if (info.utilization !== undefined) parts[0] += `: ${Math.round(info.utilization * 100)}%`;
  else if (info.status === 'rejected') parts[0] += ': reached';
  if (info.resetsAt !== undefined) parts.push(`resets ${resetTime(info.resetsAt, now, locale)}`);
  return parts.join(' · ');
}

/** What extra usage (overage) is doing, when the line says: "Extra usage in use", "Extra usage off: out of credits". */
export function overageSummary(info: RateLimitInfo, now?: Date, locale?: string): string | null {
  if (info.isUsingOverage || info.overageInUse) {
    const resets =
      info.overageResetsAt !== undefined ? ` · resets ${resetTime(info.overageResetsAt, now, locale)}` : '';
    return `Extra usage in use${resets}`;
  }
  if (info.overageStatus === 'rejected' || info.overageDisabledReason) {
    const why = info.overageDisabledReason?.replaceAll('_', ' ');
    return why ? `Extra usage off: ${why}` : 'Extra usage used up';
  }
  if (info.overageStatus === 'allowed_warning') return 'Extra usage nearly used up';
  return null;
}

/** For a rejected limit: "Usage limit reached · you can continue at 14:00". */
export function rejectedSummary(info: RateLimitInfo, now?: Date, locale?: string): string {
  const when =
    info.resetsAt !== undefined
      ? `you can continue at ${resetTime(info.resetsAt, now, locale)}`
      : 'you can continue when it resets';
  return `${info.rateLimitType ? `${limitName(info.rateLimitType)} reached` : 'Usage limit reached'} · ${when}`;
}

const LIMIT_SHORT_NAMES: Record<string, string> = {
  five_hour: '5h',
  seven_day: 'wk',
  seven_day_opus: 'wk Opus',
  seven_day_sonnet: 'wk Sonnet',
};

/** The header's short form at narrow widths: "5h 91%", "wk 40%"; a kind not known here keeps its full name. */
export function limitShortSummary(info: RateLimitInfo): string {
  const name = (info.rateLimitType && LIMIT_SHORT_NAMES[info.rateLimitType]) ?? limitName(info.rateLimitType);
  if (info.utilization !== undefined) return `${name} ${Math.round(info.utilization * 100)}%`;
  return info.status === 'rejected' ? `${name} reached` : name;
}

const HOUR_MS = 3_600_000;

/** How long a window of this kind lasts (ms), for the kinds whose length is known. */
export function windowLength(rateLimitType: string | undefined): number | null {
  if (rateLimitType === 'five_hour') return 5 * HOUR_MS;
  if (rateLimitType?.startsWith('seven_day')) return 7 * 24 * HOUR_MS;
  return null;
}

/** A limit window as it was last reported: its line, and when it came (ms). */
export interface ReportedWindow {
  info: RateLimitInfo;
  at: number;
}

/**
 * The pacing line: when the limit would be reached if use went on at the rate it had from the window's start
 * to the moment it was reported. "At this rate the 5-hour limit is reached at 15:40", or "… is not reached
 * before it resets (14:00)". Null where there is nothing true to say: use not known or none yet, a kind
 * whose length is not known, no reset time, or a window that has already reset.
 */
export function pacing(window: ReportedWindow, now: number, locale?: string): string | null {
  const { info, at } = window;
  const used = info.utilization;
  const length = windowLength(info.rateLimitType);
  if (used === undefined || used <= 0 || length === null || info.resetsAt === undefined) return null;
  const resetsAt = info.resetsAt * 1000;
  if (resetsAt <= now) return null;
  const name = limitName(info.rateLimitType);
  // Inside a sentence: "the weekly limit", but "the 5-hour limit".
  const limit = /^[A-Z][a-z]/.test(name) ? name.charAt(0).toLowerCase() + name.slice(1) : name;
  const clock = new Date(now);
  if (used >= 1) return `The ${limit} is reached; it resets ${resetTime(info.resetsAt, clock, locale)}`;
  const elapsed = at - (resetsAt - length);
  // Reported before the window began (a clock moved): no rate can be read from it.
  if (elapsed <= 0) return null;
  const reachedAt = resetsAt - length + elapsed / used;
  if (reachedAt >= resetsAt) {
    return `At this rate the ${limit} is not reached before it resets (${resetTime(info.resetsAt, clock, locale)})`;
  }
  return `At this rate the ${limit} is reached at ${resetTime(reachedAt / 1000, clock, locale)}`;
}

/** How long until a moment, as a countdown reads: "in 1 h 12 min", "in 5 min", "in 40 s", "now". */
export function waitWords(ms: number): string {
  if (ms <= 0) return 'now';
  if (ms < 60_000) return `in ${Math.ceil(ms / 1000)} s`;
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `in ${hours} h` : `in ${hours} h ${rest} min`;
}
