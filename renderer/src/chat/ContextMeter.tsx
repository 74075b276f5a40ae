import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ContextUsage } from '../../../shared/ipc';
import { liveConversationId } from '../state/selectors';
import { placePopover, usePopover } from '../ui/popover';
import { useStore } from '../state/store';
import { formatTokens, formatTokensShort, percentOf } from './figures';

/** From this share of the window on, the meter warns; from the second, it offers to compact. */
const WARN_AT = 0.8;
const COMPACT_AT = 0.9;

/**
 * How full the conversation's context window is, in its header: used of the limit, with a small bar. It is
 * read once the conversation has had a turn and again after each turn ends; a reading that fails leaves the
 * one before (its tooltip says why). A click opens what fills it, by category. Near the limit it warns, and
 * then offers to compact the conversation.
 */
export function ContextMeter({ tabId }: { tabId: string }) {
  const readContext = useStore((state) => state.readContext);
  const sendMessage = useStore((state) => state.sendMessage);
  const { conversationId, turn, status } = useStore(
    useShallow((state) => {
      const tab = state.tabs[tabId];
      return {
        conversationId: tab ? liveConversationId(tab) : null,
        turn: tab?.conversation.lastResultId ?? null,
        status: tab?.conversation.status ?? 'exited',
      };
    }),
  );
  const reading = useStore((state) => state.tabs[tabId]?.context ?? null);
  const { open, setOpen, area, toggle, panelId } = usePopover();

  // Read again after each new turn, even when the last try failed. Asking a conversation whose CLI has exited
  // would start it again: it is read once it is resumed.
  const stale =
    conversationId !== null &&
    turn !== null &&
    status !== 'exited' &&
    (reading?.conversationId !== conversationId || reading.turn !== turn);
  useEffect(() => {
    if (stale) void readContext(tabId);
  }, [stale, readContext, tabId, conversationId, turn]);

  if (!reading || reading.conversationId !== conversationId) return null;
  const { usedTokens: used, maxTokens: max } = reading.usage;
  const ratio = used / max;
  const percent = percentOf(used, max);
  const summary = `${formatTokensShort(used)} of ${formatTokensShort(max)} tokens (${percent}%)`;
  const level = ratio >= COMPACT_AT ? 'full' : ratio >= WARN_AT ? 'warn' : 'ok';
  return (
    <div className={`context-meter context-${level}`} ref={area}>
      <div
        role="meter"
        aria-label="Context"
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={used}
        aria-valuetext={summary}
        className="context-gauge"
        title={
          reading.error
            ? `Context window: ${summary}, as read after an earlier turn. Reading it again failed: ${reading.error}`
            : `Context window: ${summary}. Click for what fills it.`
        }
        onClick={() => setOpen((value) => !value)}
      >
        <span className="context-label">Context</span>{' '}
        <span className="context-figure">
          {level === 'ok' ? `${formatTokensShort(used)} / ${formatTokensShort(max)}` : `${percent}% full`}
        </span>
        <span className="context-bar" aria-hidden="true">
          <span style={{ width: `${Math.min(100, ratio * 100)}%` }} />
        </span>
      </div>
      <button
        ref={toggle}
        type="button"
        className="icon-button context-toggle"
        aria-label="Context breakdown"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      {level === 'full' && (
        <button
          type="button"
          className="button-secondary context-compact"
          disabled={status !== 'idle'}
          title="Sends /compact: Claude Code replaces the conversation so far with a summary of it"
          onClick={() => void sendMessage(tabId, '/compact')}
        >
          Compact
        </button>
      )}
      {open && <ContextBreakdown id={panelId} usage={reading.usage} error={reading.error} />}
    </div>
  );
}

/** What fills the context window, by category, as the CLI counts it (what /context shows). */
function ContextBreakdown(props: { id: string; usage: ContextUsage; error: string | null }) {
  const { id, usage, error } = props;
  return (
    <div
      ref={placePopover}
      id={id}
      role="dialog"
      aria-label="Context breakdown"
      tabIndex={-1}
      className="popover context-breakdown"
    >
      <p className="popover-title">
        {formatTokens(usage.usedTokens)} of {formatTokens(usage.maxTokens)} tokens used (
        {percentOf(usage.usedTokens, usage.maxTokens)}%)
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Tokens</th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {usage.categories.map((category, index) => (
            <tr key={`${category.name}-${index}`} className={`context-kind-${category.kind}`}>
              <th scope="row">
                <span className="context-swatch" aria-hidden="true" />
                {category.name}
              </th>
              <td>{formatTokens(category.tokens)}</td>
              <td>{share(category.tokens, usage.maxTokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {error && (
        <p className="popover-note">As read after an earlier turn. Reading it again failed: {error}</p>
      )}
    </div>
  );
}

function share(tokens: number, max: number): string {
  const percent = (tokens / max) * 100;
  if (tokens > 0 && percent < 0.1) return '<0.1%';
  return `${Number(percent.toFixed(1))}%`;
}
