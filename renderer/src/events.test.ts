import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationEvent, EventPayload } from '../../shared/ipc';
import { TEST_APP_INFO } from './test-lines';

/**
 * Events from main reach the store once: a page reloaded while a reply streams builds its tab from a window
 * that already holds the batches which arrived just before it.
 */

type Listener = (payload: EventPayload<'conversationEvents'>) => void;

const snapshot = {
  conversationId: 'c1',
  sessionId: 's1',
  cwd: '/work',
  model: null,
  models: [],
  claudeCodeVersion: null,
  permissionMode: 'default' as const,
};
const prompt = (n: number): ConversationEvent => ({
  kind: 'prompt',
  uuid: `00000000-0000-4000-8000-00000000000${n}`,
  text: `prompt ${n}`,
});

afterEach(() => {
  vi.useRealTimers();
});

async function setUp() {
  vi.resetModules();
  vi.useFakeTimers();
  let listener: Listener | undefined;
  let answer: (value: unknown) => void = () => undefined;
  const listed = new Promise((resolve) => (answer = resolve));
  (globalThis as { window?: unknown }).window = {
    byre: {
      on: (channel: string, fn: Listener) => {
        if (channel === 'conversationEvents') listener = fn;
        return () => undefined;
      },
      appInfo: async () => ({ ok: true, value: TEST_APP_INFO }),
      listConversations: () => listed,
      libraryList: async () => ({ ok: true, value: { rows: [] } }),
      libraryStatus: async () => ({ ok: false, error: { name: 'E', message: 'none' } }),
    },
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  };
  (globalThis as { document?: unknown }).document = { hidden: true, hasFocus: () => true };
  const { useStore } = await import('./store');
  const { connectEvents } = await import('./events');
  connectEvents();
  if (!listener) throw new Error('not subscribed');
  return { useStore, emit: listener, answer };
}

describe('connectEvents', () => {
  it('drops batches a window already holds, and applies those after it', async () => {
    const { useStore, emit, answer } = await setUp();
    const loading = useStore.getState().loadInfo();
    // Sent before main built the window: it is in the window too.
    emit({ conversationId: 'c1', events: [prompt(1)], seq: 0 });
    answer({
      ok: true,
      value: {
        conversations: [{ snapshot, prelude: [], events: [prompt(1)], before: null, seq: 1 }],
      },
    });
    await loading;
    emit({ conversationId: 'c1', events: [prompt(2)], seq: 1 });
    await vi.advanceTimersByTimeAsync(200);
    const conversation = useStore.getState().tabs.c1?.conversation;
    expect(conversation?.order.map((id) => conversation.messages[id])).toMatchObject([
      { text: 'prompt 1' },
      { text: 'prompt 2' },
    ]);
  });
});
