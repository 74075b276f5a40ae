import { describe, expect, it, vi } from 'vitest';
import type { ConversationEvent } from '../../../shared/ipc';
import { permissionAlerts, type NotificationApi } from './permission-alerts';

/**
 * A usage limit near or reached is told once per window, by main (its `notification`, shown here as a
 * notice); the window does not tell it again for each conversation's line.
 */

function fakeNotifications() {
  const shown: { title: string; body: string | undefined }[] = [];
  class FakeNotification {
    static permission: NotificationPermission = 'granted';
    static requestPermission = vi.fn(async () => 'granted' as const);
    onclick: (() => void) | null = null;
    close = vi.fn();
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, body: options?.body });
    }
  }
  const api: NotificationApi = FakeNotification;
  return { api, shown };
}

const rateLimit = (info: Record<string, unknown>): ConversationEvent =>
  ({
    kind: 'message',
    message: { type: 'rate_limit_event', rate_limit_info: info, uuid: 'u1', session_id: 's1' },
  }) as ConversationEvent;

function alerts(api: NotificationApi) {
  return permissionAlerts({
    notifications: api,
    enabled: () => true,
    hasFocus: () => false,
    conversationName: () => 'proj',
    show: vi.fn(),
  });
}

describe('rate-limit notifications', () => {
  it('shows main’s notice of a limit, and nothing more for the lines that come in conversations', async () => {
    const fake = fakeNotifications();
    const alert = alerts(fake.api);
    await alert.events('c1', [
      rateLimit({ status: 'allowed_warning', rateLimitType: 'five_hour', utilization: 0.91 }),
    ]);
    const resetsAt = new Date(2026, 11, 2, 14, 0).getTime() / 1000;
    await alert.events('c2', [rateLimit({ status: 'rejected', rateLimitType: 'seven_day', resetsAt })]);
    expect(fake.shown).toEqual([]);
    await alert.notice('c1', '5-hour limit at 91%', 'You have used 91% of it.');
    expect(fake.shown).toEqual([{ title: '5-hour limit at 91%', body: 'You have used 91% of it.' }]);
  });
});
