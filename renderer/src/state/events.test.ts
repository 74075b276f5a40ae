import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationEvent, EventPayload } from '../../../shared/ipc';
import { TEST_APP_INFO, turn } from '../../../shared/test-support/lines';

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
  delete (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame;
});

async function setUp({ visible = false } = {}) {
  vi.resetModules();
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  });
  // A visible page draws a frame every 16 ms.
  (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame = (draw: (at: number) => void) =>
    setTimeout(() => draw(performance.now()), 16);
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
  (globalThis as { document?: unknown }).document = { hidden: !visible, hasFocus: () => true };
  const { useStore } = await import('./store');
  const { connectEvents } = await import('./events');
  connectEvents(useStore);
  if (!listener) throw new Error('not subscribed');
  return { useStore, emit: listener, answer };
}

const resultLine = (): ConversationEvent =>
  ({
    kind: 'message',
    message: {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Done.',
      num_turns: 1,
      duration_ms: 1500,
      duration_api_ms: 900,
      session_id: 's1',
      uuid: '00000000-0000-4000-8000-0000000000ff',
      total_cost_usd: 0,
      usage: { input_tokens: 1, output_tokens: 1 },
      permission_denials: [],
    },
  }) as ConversationEvent;

describe('connectEvents', () => {
  it('draws a burst when it pauses, every 200 ms, and at once when its turn ends', async () => {
    const { useStore, emit, answer } = await setUp({ visible: true });
    const loading = useStore.getState().loadInfo();
    answer({
      ok: true,
      value: {
        conversations: [
          { snapshot, prelude: [], events: [], before: null, seq: 0, draft: { text: '', images: [] } },
        ],
      },
    });
    await loading;
    const shown = () => useStore.getState().tabs.c1?.conversation.order.length ?? 0;
    let n = 0;
    let seq = 0;
    // A long history arriving as the host sends it on two busy cores: 150 lines every 40 ms.
    const batch = (end: ConversationEvent[] = []) =>
      emit({
        conversationId: 'c1',
        events: [...Array.from({ length: 75 }, () => turn(++n)).flat(), ...end],
        seq: seq++,
      });
    batch();
    for (let more = 0; more < 3; more++) {
      await vi.advanceTimersByTimeAsync(40);
      batch();
    }
    // 120 ms in, frames have passed, but none drew a screen of a burst still arriving.
    expect(shown()).toBe(0);
    await vi.advanceTimersByTimeAsync(40);
    batch();
    await vi.advanceTimersByTimeAsync(70);
    // Past 200 ms of waiting: brought up to date at the next frame.
    expect(shown()).toBe(750);
    await vi.advanceTimersByTimeAsync(30);
    batch([resultLine()]);
    // The turn ended: the next frame draws it all.
    await vi.advanceTimersByTimeAsync(17);
    expect(shown()).toBe(2 * n + 1);
  });

  it('drops batches a window already holds, and applies those after it', async () => {
    const { useStore, emit, answer } = await setUp();
    const loading = useStore.getState().loadInfo();
    // Sent before main built the window: it is in the window too.
    emit({ conversationId: 'c1', events: [prompt(1)], seq: 0 });
    answer({
      ok: true,
      value: {
        conversations: [
          {
            snapshot,
            prelude: [],
            events: [prompt(1)],
            before: null,
            seq: 1,
            draft: { text: '', images: [] },
          },
        ],
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
