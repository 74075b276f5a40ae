import { useEffect, useState } from 'react';
import type { ApiRetry } from '../../../shared/conversation';
import { useStore } from '../state/store';
import { formatSeconds } from './figures';

/**
 * Under the running turn while the CLI waits to retry a failed API request: which attempt, a countdown to
 * it, why, and Stop. It goes once the reply streams or the turn ends.
 */
export function RetryStatus({ tabId }: { tabId: string }) {
  const retry = useStore((state) => {
    const conversation = state.tabs[tabId]?.conversation;
    return conversation?.status === 'running' ? conversation.retry : null;
  });
  // Each attempt counts down from when it was seen.
  return retry ? <RetryCountdown key={retry.id} tabId={tabId} retry={retry} /> : null;
}

function RetryCountdown({ tabId, retry }: { tabId: string; retry: ApiRetry }) {
  const interrupt = useStore((state) => state.interrupt);
  const [seenAt] = useState(() => Date.now());
  const [now, setNow] = useState(seenAt);
  const left = Math.max(0, retry.delayMs - (now - seenAt));
  useEffect(() => {
    if (left === 0) return;
    const timer = window.setTimeout(() => setNow(Date.now()), Math.min(left, 250));
    return () => window.clearTimeout(timer);
  }, [left]);
  const why = retry.error?.replaceAll('_', ' ') ?? (retry.httpStatus ? `error ${retry.httpStatus}` : null);
  return (
    <div className="retry-status" title={retry.httpStatus ? `HTTP ${retry.httpStatus}` : undefined}>
      {/* Read out once per attempt: the countdown ticks, silently. */}
      <span role="status">
        Retrying ({retry.attempt} of {retry.maxRetries})
        <span aria-hidden="true">{left > 0 ? ` in ${formatSeconds(Math.ceil(left / 1000))}` : ' now'}</span>
        {why ? `: ${why}` : ''}
      </span>
      <button type="button" className="button-secondary button-small" onClick={() => void interrupt(tabId)}>
        Stop
      </button>
    </div>
  );
}
