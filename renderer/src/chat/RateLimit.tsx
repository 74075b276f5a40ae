import { useEffect, useState } from 'react';
import type { RateLimitInfo } from '../../../shared/protocol';
import { overageSummary, rateLimitSummary, rejectedSummary } from '../../../shared/rate-limit';
import { useStore } from '../state/store';

/**
 * A subscription's usage limit, as the CLI last reported it (rate_limit_event): in the header, a short line
 * such as "5-hour limit: 91% · resets 14:00", marked when near or at the limit; by the composer, once the
 * limit is reached, when the user may go on. Only accounts logged in with a subscription get these lines, so
 * for an API key nothing shows. In the header it stays one line of text.
 */

const NO_LIMIT = null;

function useRateLimit(tabId: string): RateLimitInfo | null {
  return useStore((state) => state.tabs[tabId]?.conversation.rateLimit ?? NO_LIMIT);
}

/** Re-renders when the limit resets, so a reached limit does not go on saying so afterwards. */
function useNowUntil(resetsAt: number | undefined): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (resetsAt === undefined) return;
    const wait = resetsAt * 1000 - Date.now();
    // Timers longer than about 24 days fire at once; a limit that far off is re-read on the next event.
    if (wait <= 0 || wait > 2_000_000_000) return;
    const timer = window.setTimeout(() => setNow(new Date()), wait + 1000);
    return () => window.clearTimeout(timer);
  }, [resetsAt]);
  return now;
}

function level(info: RateLimitInfo): 'ok' | 'warn' | 'reached' {
  return info.status === 'rejected' ? 'reached' : info.status === 'allowed_warning' ? 'warn' : 'ok';
}

/** The header's line, from the limit and the time now. */
export function RateLimitIndicator({
  info,
  now,
  locale,
}: {
  info: RateLimitInfo;
  now: Date;
  locale?: string;
}) {
  const summary = rateLimitSummary(info, now, locale);
  const overage = overageSummary(info, now, locale);
  return (
    <span
      className={`rate-limit rate-limit-${level(info)}`}
      role="status"
      aria-label="Usage limit"
      title={[summary, overage].filter(Boolean).join('\n')}
    >
      {summary}
      {overage && <span className="rate-limit-overage"> · {overage}</span>}
    </span>
  );
}

export function RateLimit({ tabId }: { tabId: string }) {
  const info = useRateLimit(tabId);
  const now = useNowUntil(info?.resetsAt);
  if (!info) return null;
  return <RateLimitIndicator info={info} now={now} />;
}

/** By the composer while the limit is reached: when the user may go on. */
export function RateLimitReachedBanner({
  info,
  now,
  locale,
}: {
  info: RateLimitInfo;
  now: Date;
  locale?: string;
}) {
  if (info.status !== 'rejected') return null;
  // Past the reset, the next turn will find out how things stand.
  if (info.resetsAt !== undefined && info.resetsAt * 1000 <= now.getTime()) return null;
  const overage = overageSummary(info, now, locale);
  return (
    <div className="banner banner-warn rate-limit-banner" role="alert">
      <p>{rejectedSummary(info, now, locale)}</p>
      {overage && <p className="hint">{overage}</p>}
    </div>
  );
}

export function RateLimitReached({ tabId }: { tabId: string }) {
  const info = useRateLimit(tabId);
  const now = useNowUntil(info?.resetsAt);
  if (!info) return null;
  return <RateLimitReachedBanner info={info} now={now} />;
}
