import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitEvent } from '../../shared/protocol';
import { LimitWindows } from './limit-windows';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-limits-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const NOW = Date.UTC(2026, 11, 2, 13, 0);
const HOUR = 3_600_000;

/** A line of the shape sdk.d.ts's SDKRateLimitEvent gives (no run here produces one: cli-facts 16). */
function line(info: Record<string, unknown>) {
  return RateLimitEvent.parse({
    type: 'rate_limit_event',
    rate_limit_info: info,
    uuid: '0b0c7f3e-3f5e-4b8e-9d62-4c1a2b3c4d5e',
    session_id: 'c2f7a0b4-8d5e-4f1a-9b3c-2d4e5f6a7b8c',
  }).rate_limit_info;
}

const fiveHour = (utilization: number, resetsInHours = 2) =>
  line({
    status: utilization >= 1 ? 'rejected' : 'allowed',
    rateLimitType: 'five_hour',
    utilization,
    resetsAt: (NOW + resetsInHours * HOUR) / 1000,
  });
const weekly = (utilization: number) =>
  line({ status: 'allowed', rateLimitType: 'seven_day', utilization, resetsAt: (NOW + 72 * HOUR) / 1000 });

describe('LimitWindows', () => {
  it('keeps the last line of each kind, the 5-hour and the weekly windows side by side', () => {
    const limits = new LimitWindows(dataDir, () => NOW);
    limits.note(fiveHour(0.4), 0.9);
    limits.note(weekly(0.2), 0.9);
    limits.note(fiveHour(0.55), 0.9);
    expect(limits.windows().map((w) => [w.rateLimitType, w.info.utilization])).toEqual([
      ['five_hour', 0.55],
      ['seven_day', 0.2],
    ]);
  });

  it('shows the windows again after a restart, and drops one whose reset time has passed', () => {
    new LimitWindows(dataDir, () => NOW).note(fiveHour(0.7, 1), 0.9);
    new LimitWindows(dataDir, () => NOW).note(weekly(0.3), 0.9);
    expect(new LimitWindows(dataDir, () => NOW).windows()).toHaveLength(2);
    const later = new LimitWindows(dataDir, () => NOW + 2 * HOUR);
    expect(later.windows().map((w) => w.rateLimitType)).toEqual(['seven_day']);
  });

  it('ignores a line that does not say which limit it is', () => {
    const limits = new LimitWindows(dataDir, () => NOW);
    expect(limits.note(line({ status: 'allowed' }), 0.9).changed).toBe(false);
    expect(limits.windows()).toEqual([]);
  });

  it('warns once per window per reset, at the threshold, also across a restart', () => {
    const limits = new LimitWindows(dataDir, () => NOW);
    expect(limits.note(fiveHour(0.85), 0.9).alert).toBe(false);
    expect(limits.note(fiveHour(0.91), 0.9).alert).toBe(true);
    expect(limits.note(fiveHour(0.95), 0.9).alert).toBe(false);
    expect(new LimitWindows(dataDir, () => NOW).note(fiveHour(0.97), 0.9).alert).toBe(false);
    // The weekly window is a window of its own.
    expect(limits.note(weekly(0.92), 0.9).alert).toBe(true);
    // The 5-hour window reset and filled again: a new window, a new warning.
    const next = new LimitWindows(dataDir, () => NOW + 3 * HOUR);
    expect(next.note(fiveHour(0.93, 6), 0.9).alert).toBe(true);
  });
});
