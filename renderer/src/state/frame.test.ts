import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';

/** A page's globals, enough for frame.ts: frames run when the test says so. */
let frames: (() => void)[] = [];
class FakeUIEvent {
  constructor(readonly type: string) {}
}
class FakeClipboardEvent {
  readonly type = 'paste';
}
const fakeWindow: { event?: unknown } = {};

beforeEach(() => {
  frames = [];
  vi.stubGlobal('window', fakeWindow);
  vi.stubGlobal('document', { hidden: false });
  vi.stubGlobal('UIEvent', FakeUIEvent);
  vi.stubGlobal('ClipboardEvent', FakeClipboardEvent);
  vi.stubGlobal('requestAnimationFrame', (callback: () => void) => frames.push(callback));
  fakeWindow.event = undefined;
});
afterEach(() => vi.unstubAllGlobals());

function nextFrame(): void {
  for (const frame of frames.splice(0)) frame();
}

async function storeWithListener() {
  vi.resetModules();
  const { inNextFrame, notifiedInFrame } = await import('./frame');
  const store = createStore<{ n: number }>()(notifiedInFrame(() => ({ n: 0 })));
  const heard: number[] = [];
  store.subscribe((state) => heard.push(state.n));
  return { store, heard, inNextFrame };
}

describe('notifiedInFrame', () => {
  it('tells listeners of updates from outside the frame once, in the next frame, with the latest state', async () => {
    const { store, heard } = await storeWithListener();
    store.setState({ n: 1 });
    store.setState({ n: 2 });
    store.setState({ n: 3 });
    // The state changed at once; the notice waits for the frame.
    expect(store.getState().n).toBe(3);
    expect(heard).toEqual([]);
    nextFrame();
    expect(heard).toEqual([3]);
    nextFrame();
    expect(heard).toEqual([3]);
  });

  it("tells listeners at once of an update made in a user's input event", async () => {
    const { store, heard } = await storeWithListener();
    fakeWindow.event = new FakeUIEvent('keydown');
    store.setState({ n: 1 });
    expect(heard).toEqual([1]);
  });

  it("shares the frame's run with updates from main: both are heard in the same run", async () => {
    const { store, heard, inNextFrame } = await storeWithListener();
    store.setState({ n: 1 });
    inNextFrame(() => store.setState({ n: 2 }));
    expect(heard).toEqual([]);
    nextFrame();
    // One frame: the waiting notice and the run's own update, both before the frame ends.
    expect(heard).toEqual([1, 2]);
    expect(frames).toHaveLength(0);
  });
});
