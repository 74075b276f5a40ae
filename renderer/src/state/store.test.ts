import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ByreApi, ConversationSnapshot, PreparedImage } from '../../../shared/ipc';
import { createStore } from './store';

/** The store against a scripted window.byre: what a user keeps or loses when calls fail or race. */

const snapshot: ConversationSnapshot = {
  conversationId: 'c1',
  sessionId: 's1',
  cwd: '/work',
  model: null,
  models: [],
  claudeCodeVersion: '2.1.332',
  permissionMode: 'default',
};
const image: PreparedImage = {
  name: 'a.png',
  mediaType: 'image/png',
  data: 'iVBORw0KGgo=',
  width: 2,
  height: 2,
  originalWidth: 2,
  originalHeight: 2,
  resized: false,
};

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  return createStore();
}

describe('the renderer store', () => {
  beforeEach(() => {
    vi.restoreAllMocks();
  });

  it('puts the message and its images back when sending fails, ahead of anything typed since', async () => {
    let fail: (() => void) | undefined;
    const send = vi.fn(
      () =>
        new Promise((resolve) => {
          fail = () =>
            resolve({ ok: false, error: { name: 'CliExited', message: 'The claude CLI exited.' } });
        }),
    );
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      send,
    });
    await store.getState().startConversation('/work');
    store.setState((state) => ({
      drafts: {
        ...state.drafts,
        c1: {
          text: 'hello there',
          attachments: [{ id: 'i1', name: 'a.png', image, ref: null }],
          refusals: [],
        },
      },
    }));
    const sending = store.getState().send('c1');
    expect(store.getState().drafts.c1).toMatchObject({ text: '', attachments: [] });
    store.getState().setDraftText('c1', 'typed meanwhile');
    fail?.();
    expect(await sending).toBe(false);
    expect(store.getState().drafts.c1).toMatchObject({
      text: 'hello there\ntyped meanwhile',
      attachments: [{ id: 'i1', name: 'a.png', image, ref: null }],
    });
    expect(store.getState().tabs.c1?.actionError).toBe('The claude CLI exited.');
    expect(send).toHaveBeenCalledWith({
      conversationId: 'c1',
      text: 'hello there',
      images: [{ mediaType: 'image/png', data: image.data }],
    });
  });

  it('keeps an image attached while a message was being sent', async () => {
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      send: vi.fn(async () => ({ ok: true, value: { uuid: '00000000-0000-4000-8000-000000000000' } })),
    });
    await store.getState().startConversation('/work');
    store.setState((state) => ({
      drafts: {
        ...state.drafts,
        c1: { text: 'one', attachments: [{ id: 'i1', name: 'a.png', image, ref: null }], refusals: [] },
      },
    }));
    const sending = store.getState().send('c1');
    store.setState((state) => ({
      drafts: {
        ...state.drafts,
        c1: {
          ...state.drafts.c1!,
          attachments: [...state.drafts.c1!.attachments, { id: 'i2', name: 'b.png', image, ref: null }],
        },
      },
    }));
    expect(await sending).toBe(true);
    expect(store.getState().drafts.c1?.attachments.map((attachment) => attachment.id)).toEqual(['i2']);
  });

  it('ends the CLI of a tab that was closed while it was starting', async () => {
    let started: ((value: unknown) => void) | undefined;
    const closeConversation = vi.fn(async () => ({ ok: true, value: {} }));
    const store = freshStore({
      startConversation: vi.fn(() => new Promise((resolve) => (started = resolve))),
      closeConversation,
    });
    const starting = store.getState().startConversation('/work');
    const tabId = store.getState().tabOrder[0]!;
    await store.getState().closeTab(tabId);
    started?.({ ok: true, value: snapshot });
    await starting;
    expect(closeConversation).toHaveBeenCalledWith({ conversationId: 'c1' });
    expect(store.getState().tabOrder).toEqual([]);
  });

  it('refuses an image that would make the message too large for one request, keeping the others', async () => {
    const big = (name: string): PreparedImage => ({ ...image, name, data: 'A'.repeat(10 * 1024 * 1024) });
    const prepared = [big('one.png'), big('two.png'), big('three.png')];
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage: vi.fn(async () => ({ ok: true, value: { ok: true, image: prepared.shift()! } })),
    });
    (globalThis as { FileReader?: unknown }).FileReader = class {
      result = 'data:image/png;base64,AAAA';
      onload: (() => void) | null = null;
      readAsDataURL() {
        queueMicrotask(() => this.onload?.());
      }
    };
    await store.getState().startConversation('/work');
    const file = (name: string) => ({ name, size: 100 }) as File;
    await store.getState().attachFiles('c1', [file('one.png'), file('two.png'), file('three.png')]);
    const draft = store.getState().drafts.c1!;
    expect(draft.attachments.map((attachment) => attachment.name)).toEqual(['one.png', 'two.png']);
    expect(draft.refusals).toEqual([
      'three.png was not added: the images of one message can total at most 24 MB.',
    ]);
  });

  it('sent while an image is still being checked, the message goes once the image is ready', async () => {
    let ready: (() => void) | undefined;
    const send = vi.fn(async () => ({ ok: true, value: { uuid: '00000000-0000-4000-8000-000000000001' } }));
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage: vi.fn(
        () =>
          new Promise((resolve) => {
            ready = () => resolve({ ok: true, value: { ok: true, image, ref: null } });
          }),
      ),
      send,
      setDraft: vi.fn(async () => ({ ok: true, value: {} })),
    });
    (globalThis as { FileReader?: unknown }).FileReader = class {
      result = 'data:image/png;base64,AAAA';
      onload: (() => void) | null = null;
      readAsDataURL() {
        queueMicrotask(() => this.onload?.());
      }
    };
    await store.getState().startConversation('/work');
    const attaching = store.getState().attachFiles('c1', [{ name: 'a.png', size: 100 } as File]);
    store.getState().setDraftText('c1', 'what is this?');
    // Enter, before the image is checked: nothing is lost and nothing goes yet.
    expect(await store.getState().send('c1')).toBe(false);
    expect(send).not.toHaveBeenCalled();
    expect(store.getState().drafts.c1).toMatchObject({ text: 'what is this?', sendWhenReady: true });
    await vi.waitFor(() => expect(ready).toBeDefined());
    ready?.();
    await attaching;
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]).toEqual([
      expect.objectContaining({ conversationId: 'c1', text: 'what is this?', images: [expect.anything()] }),
    ]);
    expect(store.getState().drafts.c1).toMatchObject({ text: '', attachments: [] });
  });

  it('does not send by itself once the user removed the image it waited for', async () => {
    const send = vi.fn();
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage: vi.fn(() => new Promise(() => undefined)),
      send,
    });
    await store.getState().startConversation('/work');
    void store.getState().attachFiles('c1', [{ name: 'a.png', size: 100 } as File]);
    store.getState().setDraftText('c1', 'look');
    await store.getState().send('c1');
    const [waiting] = store.getState().drafts.c1!.attachments;
    store.getState().removeAttachment('c1', waiting!.id);
    expect(send).not.toHaveBeenCalled();
    expect(store.getState().drafts.c1).toMatchObject({ text: 'look', attachments: [], sendWhenReady: false });
  });

  it('does not send by itself when an image is refused meanwhile: the user reads why first', async () => {
    let ready: (() => void) | undefined;
    const send = vi.fn();
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage: vi.fn(
        () =>
          new Promise((resolve) => {
            ready = () =>
              resolve({
                ok: true,
                value: { ok: false, reason: 'unreadable', message: 'a.png is not an image.' },
              });
          }),
      ),
      send,
    });
    await store.getState().startConversation('/work');
    const attaching = store.getState().attachFiles('c1', [{ name: 'a.png', size: 100 } as File]);
    store.getState().setDraftText('c1', 'look');
    await store.getState().send('c1');
    await vi.waitFor(() => expect(ready).toBeDefined());
    ready?.();
    await attaching;
    expect(send).not.toHaveBeenCalled();
    expect(store.getState().drafts.c1).toMatchObject({ text: 'look', refusals: ['a.png is not an image.'] });
  });

  it('starts a conversation in the permission mode asked for, and tries again in it', async () => {
    const startConversation = vi
      .fn()
      .mockResolvedValueOnce({ ok: false, error: { name: 'CliExited', message: 'no' } })
      .mockResolvedValueOnce({ ok: true, value: { ...snapshot, permissionMode: 'plan' } });
    const store = freshStore({ startConversation });
    await store.getState().startConversation('/work', { model: 'opus', permissionMode: 'plan' });
    const tabId = store.getState().tabOrder[0]!;
    await store.getState().retryStart(tabId);
    expect(startConversation.mock.calls).toEqual([
      [{ cwd: '/work', model: 'opus', permissionMode: 'plan' }],
      [{ cwd: '/work', model: 'opus', permissionMode: 'plan' }],
    ]);
    expect(store.getState().tabs.c1?.conversation.permissionMode).toBe('plan');
  });

  it('says why the permission mode could not be changed, and answers permission requests', async () => {
    const answerPermission = vi.fn(async () => ({ ok: true, value: { answered: true } }));
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      setPermissionMode: vi.fn(async () => ({
        ok: false,
        error: { name: 'ProtocolError', message: 'The CLI refused.' },
      })),
      answerPermission,
    });
    await store.getState().startConversation('/work');
    expect(await store.getState().setPermissionMode('c1', 'bypassPermissions')).toBe(false);
    expect(store.getState().tabs.c1?.actionError).toBe(
      'The permission mode could not be changed: The CLI refused.',
    );
    expect(
      await store.getState().answerPermission('c1', 'req_1', { behavior: 'deny', message: 'Not there.' }),
    ).toEqual({ answered: true });
    expect(answerPermission).toHaveBeenCalledWith({
      conversationId: 'c1',
      requestId: 'req_1',
      answer: { behavior: 'deny', message: 'Not there.' },
    });
  });

  it('tells main each change of a draft, its images by what main keeps them as', async () => {
    const setDraft = vi.fn(async () => ({ ok: true, value: {} }));
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage: vi.fn(async () => ({
        ok: true,
        value: { ok: true, image, ref: `ref:${'a'.repeat(64)}` },
      })),
      setDraft,
    });
    await store.getState().startConversation('/work');
    store.getState().setDraftText('c1', 'hello');
    await store
      .getState()
      .attachFiles('c1', [new File([new Uint8Array([1, 2, 3])], 'a.png', { type: 'image/png' })]);
    store.getState().dismissRefusals('c1');
    expect(setDraft.mock.calls).toEqual([
      [{ conversationId: 'c1', draft: { text: 'hello', images: [] } }],
      [
        {
          conversationId: 'c1',
          draft: { text: 'hello', images: [{ ...image, data: `ref:${'a'.repeat(64)}` }] },
        },
      ],
    ]);
  });

  it('refuses a 50 MB file without reading it, and keeps the draft and the other image', async () => {
    const prepareImage = vi.fn(async () => ({ ok: true, value: { ok: true, image, ref: image.data } }));
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      prepareImage,
    });
    await store.getState().startConversation('/work');
    store.getState().setDraftText('c1', 'look at these');
    const huge = new File([new Uint8Array(50 * 1024 * 1024)], 'huge.png', { type: 'image/png' });
    const small = new File([new Uint8Array([1, 2, 3])], 'a.png', { type: 'image/png' });
    await store.getState().attachFiles('c1', [huge, small]);
    // Only the small one went to main to be checked.
    expect(prepareImage).toHaveBeenCalledTimes(1);
    expect(store.getState().drafts.c1).toMatchObject({
      text: 'look at these',
      attachments: [{ name: 'a.png', image }],
      refusals: ['huge.png is too large to send, even scaled down.'],
    });
  });

  it('clears the notes about refused files when the message is sent', async () => {
    const send = vi.fn(async () => ({ ok: true, value: {} }));
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      send,
    });
    await store.getState().startConversation('/work');
    store.getState().setDraftText('c1', 'without the big one');
    const huge = new File([new Uint8Array(50 * 1024 * 1024)], 'huge.png', { type: 'image/png' });
    await store.getState().attachFiles('c1', [huge]);
    expect(store.getState().drafts.c1?.refusals).toHaveLength(1);
    expect(await store.getState().send('c1')).toBe(true);
    expect(send).toHaveBeenCalledTimes(1);
    expect(store.getState().drafts.c1).toMatchObject({ text: '', attachments: [], refusals: [] });
  });

  it('opens a reloaded window with the drafts main kept', async () => {
    const kept = { ...image, data: `ref:${'b'.repeat(64)}` };
    const store = freshStore({
      appInfo: vi.fn(async () => ({ ok: true, value: { initialCwd: null } })),
      listConversations: vi.fn(async () => ({
        ok: true,
        value: {
          conversations: [
            {
              snapshot,
              prelude: [],
              events: [],
              before: null,
              seq: 0,
              draft: { text: 'unsent', images: [kept] },
            },
          ],
        },
      })),
    });
    await store.getState().loadInfo();
    expect(store.getState().drafts.c1).toMatchObject({
      text: 'unsent',
      attachments: [{ name: 'a.png', image: kept, ref: kept.data }],
    });
  });

  it('brings a conversation’s tab to the front', async () => {
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
    });
    await store.getState().startConversation('/work');
    store.getState().showNewConversation();
    store.getState().showConversation('c1');
    expect(store.getState()).toMatchObject({ activeTab: 'c1', composingNew: false });
  });

  it('marks a tab done when its turn ends while another is shown, until it is shown', async () => {
    const second = { ...snapshot, conversationId: 'c2', sessionId: 's2' };
    const store = freshStore({
      startConversation: vi
        .fn()
        .mockResolvedValueOnce({ ok: true, value: snapshot })
        .mockResolvedValueOnce({ ok: true, value: second }),
    });
    await store.getState().startConversation('/work');
    await store.getState().startConversation('/work');
    store.getState().activate('c2');
    const activity = (state: 'working' | 'done') => ({ kind: 'activity' as const, state, what: null });
    store.getState().applyConversationEvents(
      new Map([
        ['c1', [activity('working'), activity('done')]],
        ['c2', [activity('done')]],
      ]),
    );
    // The one shown saw its turn end; the other did not.
    expect(store.getState().tabs.c1?.doneUnseen).toBe(true);
    expect(store.getState().tabs.c2?.doneUnseen).toBe(false);
    // Working again: no longer done, seen or not.
    store.getState().applyConversationEvents(new Map([['c1', [activity('working')]]]));
    expect(store.getState().tabs.c1?.doneUnseen).toBe(false);
    store.getState().applyConversationEvents(new Map([['c1', [activity('done')]]]));
    expect(store.getState().tabs.c1?.doneUnseen).toBe(true);
    store.getState().activate('c1');
    expect(store.getState().tabs.c1?.doneUnseen).toBe(false);
  });

  it('keeps the newest context reading, and the one before when reading again fails', async () => {
    const usage = (usedTokens: number) => ({ usedTokens, maxTokens: 200_000, categories: [] });
    const answers: ((value: unknown) => void)[] = [];
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      contextUsage: vi.fn(() => new Promise((resolve) => answers.push(resolve))),
    });
    await store.getState().startConversation('/work');
    const older = store.getState().readContext('c1');
    const newer = store.getState().readContext('c1');
    answers[1]?.({ ok: true, value: usage(2000) });
    answers[0]?.({ ok: true, value: usage(1000) });
    await Promise.all([older, newer]);
    expect(store.getState().tabs.c1?.context).toMatchObject({ conversationId: 'c1', usage: usage(2000) });

    const failing = store.getState().readContext('c1');
    answers[2]?.({ ok: false, error: { name: 'CliExited', message: 'The claude CLI exited.' } });
    await failing;
    expect(store.getState().tabs.c1?.context).toMatchObject({
      usage: usage(2000),
      error: 'The claude CLI exited.',
    });
    expect(store.getState().tabs.c1?.actionError).toBeNull();
  });

  it('shows a task as stopping until it ends, and as running again if it could not be stopped', async () => {
    const stopTask = vi
      .fn()
      .mockResolvedValueOnce({ ok: true, value: {} })
      .mockResolvedValueOnce({ ok: false, error: { name: 'ProtocolError', message: 'No such task.' } });
    const store = freshStore({
      startConversation: vi.fn(async () => ({ ok: true, value: snapshot })),
      stopTask,
    });
    await store.getState().startConversation('/work');
    await store.getState().stopTask('c1', 'bg1');
    expect(store.getState().tabs.c1?.stoppingTasks).toEqual(['bg1']);
    await store.getState().stopTask('c1', 'bg2');
    expect(store.getState().tabs.c1?.stoppingTasks).toEqual(['bg1']);
    expect(store.getState().tabs.c1?.actionError).toBe('The task could not be stopped: No such task.');
    expect(stopTask).toHaveBeenCalledWith({ conversationId: 'c1', taskId: 'bg1' });
  });
});
