/**
 * The plan's limits in the Usage view (issue 29): each window the CLI reported (its use as a bar, when it
 * resets, and when it would be reached at the rate it has had), and which conversations used the current
 * 5-hour window, each opening as the view's other lists do. The windows are the account's, from the limits
 * slice; the shares are the library's count of tokens since the window began, so they cover every
 * conversation, also those run outside Byre.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LimitWindow } from '../../../shared/ipc';
import { limitName, pacing, resetTime, windowLength } from '../../../shared/rate-limit';
import { folderName } from '../state/selectors';
import { useStore } from '../state/store';
import type { WindowUsageReading } from '../state/types';
import { formatTokens, percent, sumTokens } from './figures';

/** How many conversations the share of the window lists. */
const SHARE_ROWS = 10;

export interface LimitsPanelProps {
  windows: readonly LimitWindow[];
  /** The current 5-hour window's usage by conversation, if it has been read. */
  windowUsage: WindowUsageReading | null;
  now: number;
  locale?: string;
  onOpen(sessionId: string): void;
}

/** When the 5-hour window began (ms), if it is known and has not reset. */
function fiveHourStart(windows: readonly LimitWindow[], now: number): number | null {
  const window = windows.find((candidate) => candidate.rateLimitType === 'five_hour');
  const resetsAt = window?.info.resetsAt;
  const length = windowLength('five_hour');
  if (resetsAt === undefined || length === null || resetsAt * 1000 <= now) return null;
  return resetsAt * 1000 - length;
}

/** The time now, again each minute: reset times and the pacing line are read against it. */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** The section as the store has it: the windows, and the 5-hour window's usage read when it is known. */
export function LimitsSection({ onOpen }: { onOpen(sessionId: string): void }) {
  const { windows, windowUsage, report } = useStore(
    useShallow((state) => ({
      windows: state.limitWindows,
      windowUsage: state.windowUsage,
      report: state.usageReport,
    })),
  );
  const now = useMinute();
  const since = fiveHourStart(windows, now);
  const readWindowUsage = useStore((state) => state.readWindowUsage);
  // Read again when the window moves on, and whenever the view's report is (the index took in more usage).
  useEffect(() => {
    if (since !== null) void readWindowUsage(since);
  }, [since, report, readWindowUsage]);
  return (
    <LimitsPanel
      windows={windows}
      windowUsage={since !== null && windowUsage?.since === since ? windowUsage : null}
      now={now}
      onOpen={onOpen}
    />
  );
}

export function LimitsPanel({ windows, windowUsage, now, locale, onOpen }: LimitsPanelProps) {
  const headingId = useId();
  const shown = windows.filter(
    (window) => window.info.resetsAt === undefined || window.info.resetsAt * 1000 > now,
  );
  return (
    <section className="usage-limits" aria-labelledby={headingId}>
      <h3 id={headingId}>Plan limits</h3>
      {shown.length === 0 ? (
        <p className="usage-note">
          Limits show here for subscription accounts, once Claude Code reports them in a conversation.
        </p>
      ) : (
        <ul className="usage-limit-windows">
          {shown.map((window) => (
            <WindowRow key={window.rateLimitType} window={window} now={now} locale={locale} />
          ))}
        </ul>
      )}
      {windowUsage && <WindowShares reading={windowUsage} onOpen={onOpen} />}
    </section>
  );
}

function WindowRow({ window, now, locale }: { window: LimitWindow; now: number; locale?: string }) {
  const { info } = window;
  const name = limitName(window.rateLimitType);
  const used = info.utilization;
  const level = info.status === 'rejected' ? 'reached' : info.status === 'allowed_warning' ? 'warn' : 'ok';
  const line = pacing(window, now, locale);
  return (
    <li className={`usage-limit usage-limit-${level}`}>
      <span className="usage-limit-name">{name}</span>
      <Bar share={used ?? (info.status === 'rejected' ? 1 : 0)} label={`${name} used`} />
      <span className="usage-limit-figure">
        {used !== undefined ? percent(used) : info.status === 'rejected' ? 'reached' : 'not known'}
        {info.resetsAt !== undefined && ` · resets ${resetTime(info.resetsAt, new Date(now), locale)}`}
      </span>
      {line && <p className="usage-limit-pacing">{line}</p>}
    </li>
  );
}

/** A share as a bar; a screen reader reads it as a meter with its percentage. */
function Bar({ share, label }: { share: number; label: string }) {
  const value = Math.round(Math.min(Math.max(share, 0), 1) * 100);
  return (
    <span
      className="usage-share-bar"
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
      aria-valuetext={`${value}%`}
    >
      <span className="usage-share-fill" style={{ width: `${value}%` }} />
    </span>
  );
}

function WindowShares({ reading, onOpen }: { reading: WindowUsageReading; onOpen(sessionId: string): void }) {
  const headingId = useId();
  const total = reading.usage ? sumTokens(reading.usage.total) : 0;
  const rows = reading.usage?.conversations.slice(0, SHARE_ROWS) ?? [];
  return (
    <section className="usage-window-shares" aria-labelledby={headingId}>
      <h4 id={headingId}>This 5-hour window, by conversation</h4>
      {reading.error && <p className="usage-note">The window’s usage could not be read: {reading.error}</p>}
      {!reading.usage && !reading.error && <p className="usage-note">Reading…</p>}
      {reading.usage && rows.length === 0 && (
        <p className="usage-note">No conversation has used this window yet.</p>
      )}
      {rows.length > 0 && (
        <ol>
          {rows.map((usage) => {
            const tokens = sumTokens(usage.tokens);
            const share = total > 0 ? tokens / total : 0;
            return (
              <li key={usage.sessionId}>
                <button type="button" className="usage-share" onClick={() => onOpen(usage.sessionId)}>
                  <span className="usage-share-title">{usage.title}</span>
                  <Bar share={share} label={`${usage.title}: share of the window`} />
                  <span className="usage-share-figure">
                    {percent(share)} · {formatTokens(tokens)} tokens
                    {usage.folder && <span title={usage.folder}> · {folderName(usage.folder)}</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
