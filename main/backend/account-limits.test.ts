import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RateLimitInfo } from '../../shared/protocol';
import { LimitWindows } from '../data/limit-windows';
import { AccountLimits } from './account-limits';

/**
 * The notifications about limits, which main alone sends (the window no longer notifies per line): one when
 * a window crosses the user's threshold, one when it is reached, and one only when a single line does both,
 * however many conversations hear the same window.
 */

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-account-limits-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const NOW = Date.UTC(2026, 11, 2, 13, 0);
const resetsAt = (NOW + 2 * 3_600_000) / 1000;

function account() {
  const said: { conversationId: string; title: string }[] = [];
  const limits = new AccountLimits(new LimitWindows(dataDir, () => NOW), () => 0.9, {
    changed: () => undefined,
    notify: (conversationId, title) => said.push({ conversationId, title }),
  });
  return { limits, said };
}

const fiveHour = (utilization: number, status = 'allowed'): RateLimitInfo => ({
  status,
  rateLimitType: 'five_hour',
  utilization,
  resetsAt,
});

describe('limit notifications', () => {
  it('tells once at the threshold and once when reached, whichever conversations hear the lines', () => {
    const { limits, said } = account();
    limits.heard('c1', fiveHour(0.5));
    expect(said).toEqual([]);
    limits.heard('c1', fiveHour(0.91, 'allowed_warning'));
    limits.heard('c2', fiveHour(0.95, 'allowed_warning'));
    expect(said).toEqual([{ conversationId: 'c1', title: '5-hour limit at 91%' }]);
    limits.heard('c2', fiveHour(1, 'rejected'));
    limits.heard('c1', fiveHour(1, 'rejected'));
    expect(said).toEqual([
      { conversationId: 'c1', title: '5-hour limit at 91%' },
      { conversationId: 'c2', title: 'Usage limit reached' },
    ]);
  });

  it('says a line that crosses the threshold and reaches the limit once, as reached', () => {
    const { limits, said } = account();
    limits.heard('c1', fiveHour(0.5));
    limits.heard('c1', fiveHour(1, 'rejected'));
    expect(said).toEqual([{ conversationId: 'c1', title: 'Usage limit reached' }]);
  });

  it('does not say a reached limit again after a restart, nor one whose line names no limit', () => {
    const before = account();
    before.limits.heard('c1', fiveHour(1, 'rejected'));
    before.limits.heard('c1', { status: 'rejected', resetsAt });
    expect(before.said.map((s) => s.title)).toEqual(['Usage limit reached', 'Usage limit reached']);
    // Byre started again over the same data folder: the same window, still reached.
    const after = account();
    after.limits.heard('c3', fiveHour(1, 'rejected'));
    after.limits.heard('c3', { status: 'rejected', resetsAt });
    expect(after.said).toEqual([]);
  });
});
