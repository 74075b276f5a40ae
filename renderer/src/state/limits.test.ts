import { describe, expect, it, vi } from 'vitest';
import { initialConversation, type ConversationState } from '../../../shared/conversation';
import type { ByreApi, ConversationSnapshot, Limits, ScheduledSend } from '../../../shared/ipc';
import { createStore } from './store';
import { newTab } from './tabs';

/**
 * The limits slice against a scripted window.byre: the account's windows and the kept messages as main says
 * them, "Send when the limit resets" taking the draft, Cancel giving it back, a refusal in words, and a
 * kept message main sent to a session with no tab here bringing that conversation's tab.
 */

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

const ok = <T>(value: T) => ({ ok: true as const, value });
const until = (ready: () => boolean) => vi.waitFor(() => expect(ready()).toBe(true));

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  const store = createStore();
  // A tab with a live conversation of session s1, as one started here has.
  const conversation = { ...initialConversation({ sessionId: 's1', cwd: '/work' }) } as ConversationState;
  store.setState({
    tabs: { c1: newTab('c1', '/work', { conversation }) },
    tabOrder: ['c1'],
    activeTab: 'c1',
  });
  return store;
}

const kept = (patch: Partial<ScheduledSend> = {}): ScheduledSend => ({
  id: '6f1c2b8e-2a51-4a1e-9c57-3f0b8f9d2a10',
  sessionId: 's1',
  cwd: '/work',
  text: 'carry on with the tests',
  sendAt: Date.now() + 3_600_000,
  createdAt: Date.now(),
  failed: null,
  ...patch,
});

const limits: Limits = {
  windows: [
    {
      rateLimitType: 'five_hour',
      info: { status: 'rejected', rateLimitType: 'five_hour', utilization: 1, resetsAt: 2_000_000_000 },
      at: 1_999_990_000_000,
    },
  ],
  alertAt: 0.8,
};

describe('limits in the store', () => {
  it('reads the account’s windows and the kept messages at start, and takes main’s changes', async () => {
    const store = freshStore({
      limits: vi.fn(async () => ok(limits)),
      scheduledSends: vi.fn(async () => ok({ sends: [kept()] })),
    });
    await store.getState().loadLimits();
    expect(store.getState().limitWindows).toEqual(limits.windows);
    expect(store.getState().limitAlertAt).toBe(0.8);
    expect(store.getState().scheduledSends.map((send) => send.text)).toEqual(['carry on with the tests']);
    store.getState().limitsArrived({ windows: [], alertAt: 0.9 });
    expect(store.getState().limitWindows).toEqual([]);
  });

  it('keeps the draft’s message for the reset, and the composer gives it up', async () => {
    const send = vi.fn(async () => ok(kept()));
    const store = freshStore({ sendWhenLimitResets: send, setDraft: vi.fn(async () => ok({})) });
    store.getState().setDraftText('c1', 'carry on with the tests');
    expect(await store.getState().sendWhenLimitResets('c1', 'carry on with the tests')).toBe(true);
    expect(send).toHaveBeenCalledWith({ conversationId: 'c1', text: 'carry on with the tests' });
    expect(store.getState().drafts.c1?.text).toBe('');
    expect(store.getState().scheduledSends).toHaveLength(1);
  });

  it('says in words why main would not keep it, and leaves the draft as it was', async () => {
    const store = freshStore({
      sendWhenLimitResets: vi.fn(async () => ({
        ok: false as const,
        error: { name: 'NoLimitReached', message: 'This limit has already reset: send the message now.' },
      })),
      setDraft: vi.fn(async () => ok({})),
    });
    store.getState().setDraftText('c1', 'carry on');
    expect(await store.getState().sendWhenLimitResets('c1', 'carry on')).toBe(false);
    expect(store.getState().scheduleErrors.c1).toBe('This limit has already reset: send the message now.');
    expect(store.getState().drafts.c1?.text).toBe('carry on');
  });

  it('puts a cancelled message back into an empty composer, but never over what was typed since', async () => {
    const cancel = vi.fn(async () => ok({ cancelled: true }));
    const store = freshStore({ cancelScheduledSend: cancel, setDraft: vi.fn(async () => ok({})) });
    store.getState().scheduledSendsArrived([kept()]);
    await store.getState().cancelScheduledSend(kept().id);
    expect(cancel).toHaveBeenCalledWith({ id: kept().id });
    expect(store.getState().scheduledSends).toEqual([]);
    expect(store.getState().drafts.c1?.text).toBe('carry on with the tests');

    store.getState().scheduledSendsArrived([kept({ text: 'the other one' })]);
    await store.getState().cancelScheduledSend(kept().id);
    expect(store.getState().drafts.c1?.text).toBe('carry on with the tests');
  });

  it('puts nothing back when main had already sent it, and says so', async () => {
    const cancel = vi.fn(async () => ok({ cancelled: false }));
    const store = freshStore({ cancelScheduledSend: cancel, setDraft: vi.fn(async () => ok({})) });
    store.getState().scheduledSendsArrived([kept()]);
    await store.getState().cancelScheduledSend(kept().id);
    expect(store.getState().scheduledSends).toEqual([]);
    // Enter would send it a second time.
    expect(store.getState().drafts.c1?.text ?? '').toBe('');
    expect(store.getState().scheduleErrors.c1).toBe('It could not be cancelled: it had already been sent.');
  });

  it('sends a failed one again now, and keeps it no longer', async () => {
    const sendNow = vi.fn(async () => ok({}));
    const cancel = vi.fn(async () => ok({ cancelled: true }));
    const store = freshStore({ send: sendNow, cancelScheduledSend: cancel });
    store.getState().scheduledSendsArrived([kept({ failed: 'Claude Code exited.' })]);
    await store.getState().retryScheduledSend(kept().id);
    expect(sendNow).toHaveBeenCalledWith(
      expect.objectContaining({ conversationId: 'c1', text: 'carry on with the tests' }),
    );
    expect(cancel).toHaveBeenCalledWith({ id: kept().id });
    expect(store.getState().scheduledSends).toEqual([]);
  });

  it('brings a tab for a session main resumed to send a kept message', async () => {
    const resumed: ConversationSnapshot = {
      conversationId: 'c2',
      sessionId: 's2',
      cwd: '/elsewhere',
      model: null,
      models: [],
      claudeCodeVersion: '2.1.332',
      permissionMode: 'default',
    };
    const list = vi.fn(async () =>
      ok({
        conversations: [
          {
            snapshot: resumed,
            prelude: [],
            events: [],
            before: null,
            seq: 0,
            draft: { text: '', images: [] },
          },
        ],
      }),
    );
    const store = freshStore({ listConversations: list });
    store.getState().scheduledSendsArrived([kept({ sessionId: 's2', cwd: '/elsewhere' })]);
    expect(list).not.toHaveBeenCalled();
    // Sent: main's list no longer has it.
    store.getState().scheduledSendsArrived([]);
    await until(() => store.getState().tabs.c2 !== undefined);
    expect(store.getState().tabOrder).toEqual(['c1', 'c2']);
    expect(store.getState().tabs.c2?.cwd).toBe('/elsewhere');
  });

  it('lists nothing again when the session sent to has its tab, or the message was cancelled here', async () => {
    const list = vi.fn(async () => ok({ conversations: [] }));
    // Main tells every window of the cancel before it answers the one that asked.
    const cancel = vi.fn(async () => {
      store.getState().scheduledSendsArrived([]);
      return ok({ cancelled: true });
    });
    const store = freshStore({ listConversations: list, cancelScheduledSend: cancel });
    store.getState().scheduledSendsArrived([kept()]);
    store.getState().scheduledSendsArrived([]);
    store.getState().scheduledSendsArrived([kept({ sessionId: 's2' })]);
    await store.getState().cancelScheduledSend(kept().id);
    expect(cancel).toHaveBeenCalled();
    expect(list).not.toHaveBeenCalled();
  });

  it('keeps the latest window’s usage, and says why it could not be read', async () => {
    const total = { input: 10, output: 20, cacheWrite: 0, cacheRead: 70 };
    const windowUsage = vi
      .fn()
      .mockImplementationOnce(async () => ok({ total, conversations: [] }))
      .mockImplementationOnce(async () => ({
        ok: false as const,
        error: { name: 'Error', message: 'The index is not open.' },
      }));
    const store = freshStore({ windowUsage });
    await store.getState().readWindowUsage(1000);
    expect(windowUsage).toHaveBeenCalledWith({ since: 1000 });
    expect(store.getState().windowUsage?.usage?.total).toEqual(total);
    await store.getState().readWindowUsage(1000);
    expect(store.getState().windowUsage).toMatchObject({ error: 'The index is not open.', usage: { total } });
  });
});
