import { describe, expect, it } from 'vitest';
import type { ResultChatMessage } from '../../../shared/conversation';
import { formatCost, formatDuration, formatTokensShort, percentOf, turnFigures } from './figures';

describe('figures', () => {
  it('shows costs with enough digits for a cheap turn, and cents for a dear one', () => {
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.00003)).toBe('<$0.0001');
    expect(formatCost(0.0054)).toBe('$0.0054');
    expect(formatCost(0.054)).toBe('$0.054');
    expect(formatCost(0.123)).toBe('$0.12');
    expect(formatCost(1234.5)).toBe('$1,234.50');
  });

  it('shows token counts at a glance', () => {
    expect(formatTokensShort(850)).toBe('850');
    expect(formatTokensShort(1234)).toBe('1.2k');
    expect(formatTokensShort(11_234)).toBe('11k');
    expect(formatTokensShort(200_000)).toBe('200k');
    expect(formatTokensShort(999_700)).toBe('1M');
    expect(formatTokensShort(1_000_000)).toBe('1M');
    expect(formatTokensShort(1_500_000)).toBe('1.5M');
  });

  it('shows tenths of a second only while they matter', () => {
    expect(formatDuration(800)).toBe('0.8s');
    expect(formatDuration(4000)).toBe('4s');
    expect(formatDuration(42_400)).toBe('42s');
    expect(formatDuration(125_000)).toBe('2m 05s');
  });

  it('rounds a share down, so a warning at 80% never shows 79%', () => {
    expect(percentOf(11_234, 1_000_000)).toBe(1);
    expect(percentOf(799, 1000)).toBe(79);
    expect(percentOf(1, 0)).toBe(0);
  });

  it('labels each of a turn’s figures, and leaves out a cost that is not known', () => {
    const result: ResultChatMessage = {
      role: 'result',
      id: 'r:1',
      author: 'Claude',
      ok: true,
      subtype: 'success',
      durationMs: 800,
      costUsd: 0.0054,
      processCostUsd: 0.0054,
      inputTokens: 1200,
      outputTokens: 30,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      errorText: null,
      apiErrorStatus: null,
      unsolicited: false,
    };
    expect(turnFigures(result)).toBe('$0.0054 · 0.8s · 1,200 in · 30 out · 0 cache read · 0 cache write');
    expect(turnFigures({ ...result, costUsd: null })).toBe(
      '0.8s · 1,200 in · 30 out · 0 cache read · 0 cache write',
    );
  });
});
