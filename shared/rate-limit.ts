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

/** Near the limit or at it: worth telling the user about, also while they look elsewhere. */
export function rateLimitAlarming(info: RateLimitInfo): boolean {
  return info.status === 'allowed_warning' || info.status === 'rejected';
}
