import { describe, expect, it, vi } from 'vitest';
import type { ConversationEvent } from '../../../shared/ipc';
import { permissionAlerts, type NotificationApi } from './permission-alerts';

/** A notification when a usage limit is near or reached, while the window is in the background. */

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
  it('says when a limit is near and when it is reached, and nothing while it is far', async () => {
    const fake = fakeNotifications();
    const alert = alerts(fake.api);
    await alert.events('c1', [
      rateLimit({ status: 'allowed', rateLimitType: 'five_hour', utilization: 0.3 }),
    ]);
    expect(fake.shown).toEqual([]);
    await alert.events('c1', [
      rateLimit({ status: 'allowed_warning', rateLimitType: 'five_hour', utilization: 0.91 }),
    ]);
    const resetsAt = new Date(2026, 11, 2, 14, 0).getTime() / 1000;
    await alert.events('c1', [rateLimit({ status: 'rejected', rateLimitType: 'seven_day', resetsAt })]);
    expect(fake.shown[0]).toEqual({ title: 'Usage limit nearly reached', body: '5-hour limit: 91%' });
    expect(fake.shown[1]?.title).toBe('Usage limit reached');
    expect(fake.shown[1]?.body).toMatch(/^Weekly limit reached · you can continue at .*(14|2):00/);
    expect(fake.shown).toHaveLength(2);
  });
});
