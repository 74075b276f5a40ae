import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LimitWindow, ScheduledSend } from '../../../shared/ipc';
import type { RateLimitInfo } from '../../../shared/protocol';
import {
  limitShortSummary,
  overageSummary,
  rateLimitSummary,
  rejectedSummary,
  resetTime,
  waitWords,
} from '../../../shared/rate-limit';
import { useStore } from '../state/store';

/**
 * A subscription's usage limits, as the CLI last reported them (rate_limit_event): in the header, the
 * account's 5-hour and weekly windows, one short line each ("5-hour limit: 91% · resets 14:00", "5h 91%"
 * where the header is narrow), marked when near or at the limit; by the composer, once the limit is reached,
 * when the user may go on, and "Send when the limit resets", which main keeps and sends then (after a
 * restart too). Only accounts logged in with a subscription get these lines, so for an API key nothing shows.
 */

const NO_LIMIT = null;
const NO_SENDS: ScheduledSend[] = [];

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

/** The windows the header shows: 5-hour and weekly always, another kind only while it is near or at its limit. */
function headerWindows(windows: readonly LimitWindow[], now: Date): LimitWindow[] {
  const order = (kind: string) => (kind === 'five_hour' ? 0 : kind === 'seven_day' ? 1 : 2);
  return windows
    .filter((window) => window.info.resetsAt === undefined || window.info.resetsAt * 1000 > now.getTime())
    .filter((window) => order(window.rateLimitType) < 2 || level(window.info) !== 'ok')
    .sort((a, b) => order(a.rateLimitType) - order(b.rateLimitType));
}

/**
 * The account's windows in the header: each its full line, which a narrow header swaps for the short form
 * ("5h 91% · wk 40%"); the full words stay in the title and for screen readers.
 */
export function AccountLimitsIndicator({
  windows,
  now,
  locale,
}: {
  windows: readonly LimitWindow[];
  now: Date;
  locale?: string;
}) {
  const shown = headerWindows(windows, now);
  if (shown.length === 0) return null;
  const summaries = shown.map((window) => rateLimitSummary(window.info, now, locale));
  return (
    <span
      className="rate-limit account-limits"
      role="status"
      aria-label="Usage limits"
      title={summaries.join('\n')}
    >
      {shown.map((window, index) => (
        <span key={window.rateLimitType} className={`account-limit rate-limit-${level(window.info)}`}>
          <span className="account-limit-long">{summaries[index]}</span>
          <span className="account-limit-short" aria-hidden="true">
            {limitShortSummary(window.info)}
          </span>
        </span>
      ))}
    </span>
  );
}

/** The header's limits: the account's windows once any is known, else what this conversation last heard. */
export function RateLimit({ tabId }: { tabId: string }) {
  const info = useRateLimit(tabId);
  const windows = useStore((state) => state.limitWindows);
  const soonest = windows.reduce<number | undefined>(
    (min, window) =>
      window.info.resetsAt === undefined ? min : Math.min(min ?? Infinity, window.info.resetsAt),
    info?.resetsAt,
  );
  const now = useNowUntil(soonest);
  if (windows.length > 0) return <AccountLimitsIndicator windows={windows} now={now} />;
  if (!info) return null;
  return <RateLimitIndicator info={info} now={now} />;
}

/** What the banner by the composer can do: keep the draft's message for the reset, cancel or retry one kept. */
export interface KeptMessageActions {
  onKeep(): void;
  onCancel(id: string): void;
  onRetry(id: string): void;
}

/**
 * By the composer while the limit is reached: when the user may go on and, with a message in the composer,
 * "Send when the limit resets". Once kept, the message waits here with a countdown until main sends it
 * (this banner shows it after a reload too, and after the limit line is gone), or says why it failed.
 */
export function RateLimitReachedBanner({
  info,
  now,
  locale,
  kept = null,
  draft = '',
  error = null,
  actions,
}: {
  info: RateLimitInfo | null;
  now: Date;
  locale?: string;
  /** The message kept for this conversation, if one is. */
  kept?: ScheduledSend | null;
  /** The composer's text: only a message can be kept. */
  draft?: string;
  /** Why keeping or cancelling failed, in main's words. */
  error?: string | null;
  actions?: KeptMessageActions;
}) {
  const problem = error && <p className="rate-limit-error">{error}</p>;
  if (kept) {
    const clock = new Date(kept.sendAt);
    return (
      <div className="banner banner-warn rate-limit-banner kept-message" role="status">
        {kept.failed ? (
          <p>The kept message could not be sent: {kept.failed}</p>
        ) : (
          <p>
            Will send at{' '}
            <time dateTime={clock.toISOString()}>{resetTime(kept.sendAt / 1000, now, locale)}</time> ·{' '}
            {waitWords(kept.sendAt - now.getTime())}
          </p>
        )}
        <p className="hint kept-message-text" title={kept.text}>
          {firstLine(kept.text)}
        </p>
        {problem}
        <div className="banner-actions">
          {kept.failed && (
            <button type="button" onClick={() => actions?.onRetry(kept.id)}>
              Retry
            </button>
          )}
          <button type="button" className="button-secondary" onClick={() => actions?.onCancel(kept.id)}>
            Cancel
          </button>
        </div>
      </div>
    );
  }
  if (info?.status !== 'rejected') return null;
  // Past the reset, the next turn will find out how things stand.
  if (info.resetsAt !== undefined && info.resetsAt * 1000 <= now.getTime()) return null;
  const overage = overageSummary(info, now, locale);
  return (
    <div className="banner banner-warn rate-limit-banner" role="alert">
      <p>{rejectedSummary(info, now, locale)}</p>
      {overage && <p className="hint">{overage}</p>}
      {problem}
      {draft.trim() && info.resetsAt !== undefined && (
        <div className="banner-actions">
          <button type="button" onClick={() => actions?.onKeep()}>
            Send when the limit resets
          </button>
        </div>
      )}
    </div>
  );
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** The time now, again every second: a kept message's countdown ("in 1 h 12 min") stays true. */
function useTicking(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(new Date()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

type BannerProps = Omit<Parameters<typeof RateLimitReachedBanner>[0], 'now'>;

/** Mounted when a message is kept, so its clock starts then. */
function KeptMessageBanner(props: BannerProps) {
  return <RateLimitReachedBanner {...props} now={useTicking()} />;
}

function LimitBanner(props: BannerProps) {
  return <RateLimitReachedBanner {...props} now={useNowUntil(props.info?.resetsAt)} />;
}

export function RateLimitReached({ tabId }: { tabId: string }) {
  const info = useRateLimit(tabId);
  const { sessionId, draft, error } = useStore(
    useShallow((state) => ({
      sessionId: state.tabs[tabId]?.saved ? null : (state.tabs[tabId]?.conversation.sessionId ?? null),
      draft: state.drafts[tabId]?.text ?? '',
      error: state.scheduleErrors[tabId] ?? null,
    })),
  );
  const sends = useStore((state) => (sessionId ? state.scheduledSends : NO_SENDS));
  const kept = sends.find((send) => send.sessionId === sessionId) ?? null;
  if (!info && !kept) return null;
  const store = useStore.getState();
  const props: BannerProps = {
    info,
    kept,
    draft,
    error,
    actions: {
      onKeep: () => void store.sendWhenLimitResets(tabId, draft.trim()),
      onCancel: (id) => void store.cancelScheduledSend(id),
      onRetry: (id) => void store.retryScheduledSend(id),
    },
  };
  return kept && !kept.failed ? <KeptMessageBanner {...props} /> : <LimitBanner {...props} />;
}
