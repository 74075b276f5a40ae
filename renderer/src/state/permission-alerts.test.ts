import { describe, expect, it, vi } from 'vitest';
import type { ConversationEvent } from '../../../shared/ipc';
import { permissionAlerts, type NotificationApi, type PermissionAlertHost } from './permission-alerts';

/** System notifications for permission requests, against a fake Notification API. */

function fakeNotifications(permission: NotificationPermission, answer: NotificationPermission = permission) {
  const shown: FakeNotification[] = [];
  class FakeNotification {
    static permission = permission;
    static requestPermission = vi.fn(async () => {
      FakeNotification.permission = answer;
      return answer;
    });
    onclick: (() => void) | null = null;
    close = vi.fn();
    constructor(
      readonly title: string,
      readonly options?: NotificationOptions,
    ) {
      shown.push(this);
    }
  }
  const api: NotificationApi = FakeNotification;
  return { api, shown, requestPermission: FakeNotification.requestPermission };
}

function host(notifications: NotificationApi, focused = false, enabled = true) {
  return {
    notifications,
    enabled: () => enabled,
    hasFocus: () => focused,
    conversationName: (id: string) => (id === 'c1' ? 'proj' : null),
    show: vi.fn<PermissionAlertHost['show']>(),
  };
}

const request = (requestId: string, command: string): ConversationEvent => ({
  kind: 'permission_request',
  requestId,
  toolName: 'Bash',
  displayName: 'Bash',
  input: { command },
  toolUseId: null,
  description: null,
  blockedPath: null,
  remember: null,
});

describe('permission alerts', () => {
  it('asks for permission once, then notifies; a click shows the conversation', async () => {
    const fake = fakeNotifications('default', 'granted');
    const window = host(fake.api);
    const alert = permissionAlerts(window).events;
    await Promise.all([
      alert('c1', [request('req_1', 'touch a.txt')]),
      alert('c1', [request('req_2', 'touch b.txt')]),
    ]);
    expect(fake.requestPermission).toHaveBeenCalledTimes(1);
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body])).toEqual([
      ['Claude asks to use Bash', 'proj: touch a.txt'],
      ['Claude asks to use Bash', 'proj: touch b.txt'],
    ]);
    fake.shown[0]?.onclick?.();
    expect(window.show).toHaveBeenCalledWith('c1');
    expect(fake.shown[0]?.close).toHaveBeenCalled();
  });

  it('says a question or a plan from Claude is one, not a permission', async () => {
    const fake = fakeNotifications('granted');
    const alert = permissionAlerts(host(fake.api)).events;
    const question = {
      question: 'Which database should we use?',
      header: 'Database',
      options: [{ label: 'SQLite', description: '' }],
      multiSelect: false,
    };
    await alert('c1', [
      {
        kind: 'permission_request',
        requestId: 'req_1',
        toolName: 'AskUserQuestion',
        displayName: 'AskUserQuestion',
        input: {},
        toolUseId: null,
        description: null,
        blockedPath: null,
        remember: null,
        interaction: { kind: 'questions', questions: [question] },
      },
    ]);
    await alert('c1', [
      {
        kind: 'permission_request',
        requestId: 'req_2',
        toolName: 'ExitPlanMode',
        displayName: 'ExitPlanMode',
        input: {},
        toolUseId: null,
        description: null,
        blockedPath: null,
        remember: null,
        interaction: { kind: 'plan', approveMode: 'default' },
      },
    ]);
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body])).toEqual([
      ['Claude has a question', 'proj: Which database should we use?'],
      ['Claude has a plan for your approval', 'proj'],
    ]);
  });

  it("says an MCP server's form waits for an answer", async () => {
    const fake = fakeNotifications('granted');
    await permissionAlerts(host(fake.api)).events('c1', [
      {
        kind: 'elicitation_request',
        requestId: 'el_1',
        serverName: 'tracker',
        message: 'Which project should the ticket go to?\nPick one.',
        mode: 'form',
        url: null,
        fields: [],
      },
    ]);
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body])).toEqual([
      ['tracker asks for your answer', 'proj: Which project should the ticket go to?'],
    ]);
  });

  it('stays quiet while the window has the focus, or when notifications are refused', async () => {
    const granted = fakeNotifications('granted');
    await permissionAlerts(host(granted.api, true)).events('c1', [request('req_1', 'ls')]);
    expect(granted.shown).toEqual([]);

    const refused = fakeNotifications('default', 'denied');
    const alert = permissionAlerts(host(refused.api)).events;
    await alert('c1', [request('req_1', 'ls')]);
    await alert('c1', [request('req_2', 'ls')]);
    expect(refused.shown).toEqual([]);
    expect(refused.requestPermission).toHaveBeenCalledTimes(1);
  });

  it('notifies once for a batch, and not for other events', async () => {
    const fake = fakeNotifications('granted');
    const alert = permissionAlerts(host(fake.api)).events;
    await alert('c2', [{ kind: 'title', title: 'Hi' }]);
    await alert('c2', [request('req_1', 'one'), request('req_2', 'two\nand more')]);
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body, shown.options?.tag])).toEqual([
      ['Claude asks to use Bash (and 1 more)', 'two', 'permission:c2'],
    ]);
  });

  it('notifies when a reply ends, and a click shows the conversation; not when switched off', async () => {
    const fake = fakeNotifications('granted');
    const window = host(fake.api);
    const alerts = permissionAlerts(window);
    await alerts.events('c1', [result(false)]);
    await alerts.events('c2', [result(true)]);
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body, shown.options?.tag])).toEqual([
      ['Claude has replied', 'proj', 'turn:c1'],
      ['Claude stopped with an error', 'A conversation', 'turn:c2'],
    ]);
    fake.shown[1]?.onclick?.();
    expect(window.show).toHaveBeenCalledWith('c2');

    const off = fakeNotifications('granted');
    const quiet = permissionAlerts(host(off.api, false, false));
    await quiet.events('c1', [request('req_1', 'ls'), result(false)]);
    await quiet.notice('c1', 'Check passed', 'npm test passed.');
    expect(off.shown).toEqual([]);
  });

  it("shows main's notices, with a click showing their conversation", async () => {
    const fake = fakeNotifications('granted');
    const window = host(fake.api);
    await permissionAlerts(window).notice('c1', 'Check passed', 'npm test passed after 2 rounds.');
    expect(fake.shown.map((shown) => [shown.title, shown.options?.body])).toEqual([
      ['Check passed', 'npm test passed after 2 rounds.'],
    ]);
    fake.shown[0]?.onclick?.();
    expect(window.show).toHaveBeenCalledWith('c1');
  });
});

function result(failed: boolean): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'result',
      subtype: failed ? 'error_during_execution' : 'success',
      is_error: failed,
      num_turns: 1,
      duration_ms: 10,
      total_cost_usd: 0,
      usage: { input_tokens: 1, output_tokens: 1 },
      uuid: '00000000-0000-4000-8000-000000000001',
      session_id: 's',
    },
  };
}
