import type { ResultChatMessage } from '../../../shared/conversation';

/** Figures as the app shows them: money, tokens and durations, short, and exact enough to be useful. */

const WHOLE = new Intl.NumberFormat('en-US');

/** "1,200". */
export function formatTokens(count: number): string {
  return WHOLE.format(Math.round(count));
}

/** "850", "1.2k", "11k", "1M": for a glance. */
export function formatTokensShort(count: number): string {
  if (count < 1000) return String(Math.round(count));
  // From 999.5k on, "1000k" would show: a million it is.
  const [size, unit] = count < 999_500 ? [1e3, 'k'] : [1e6, 'M'];
  const value = count / size;
  return `${Number(value.toFixed(value < 10 ? 1 : 0))}${unit}`;
}

/** The whole part of a share in percent: "85%" only once it is really 85% or more. */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.floor((part / whole) * 100) : 0;
}

/**
 * "$0.0054", "$0.054", "$0.12", "$1,234.50": two significant digits at least, so a cheap turn is not "$0.00";
 * below a hundredth of a cent, "<$0.0001".
 */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.0001) return '<$0.0001';
  const decimals = usd >= 0.1 ? 2 : Math.min(4, 1 - Math.floor(Math.log10(usd)));
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })}`;
}

/** "42s", "2m 05s". */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
}

/** "0.8s", "4.2s", "42s", "2m 05s": tenths while they matter. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  return seconds < 10 ? `${Number(seconds.toFixed(1))}s` : formatSeconds(Math.round(seconds));
}

/** What a finished turn took: "$0.0054 · 0.8s · 1,200 in · 30 out · 0 cache read · 0 cache write". */
export function turnFigures(result: ResultChatMessage): string {
  return [
    ...(result.costUsd === null ? [] : [formatCost(result.costUsd)]),
    formatDuration(result.durationMs),
    `${formatTokens(result.inputTokens)} in`,
    `${formatTokens(result.outputTokens)} out`,
    `${formatTokens(result.cacheReadTokens)} cache read`,
    `${formatTokens(result.cacheWriteTokens)} cache write`,
  ].join(' · ');
}
