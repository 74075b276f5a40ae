import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ByreApi, ConversationSnapshot } from '../../../shared/ipc';
import { TEST_APP_INFO, turn } from '../../../shared/test-support/lines';
import { partPoints } from '../../../shared/branches/tree';
import { createStore } from './store';

/** Rewind and branches in the store, against a scripted window.byre. */

function snapshot(conversationId: string, sessionId: string): ConversationSnapshot {
  return {
    conversationId,
    sessionId,
    cwd: '/work',
    model: null,
    models: [],
    claudeCodeVersion: null,
    permissionMode: 'default',
  };
}

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

const ok = <T>(value: T) => ({ ok: true as const, value });

/** A store with one live conversation (c1, session s1) of two turns. */
async function storeWithConversation(extra: Calls = {}) {
  const calls: Calls = {
    appInfo: vi.fn(async () => ok(TEST_APP_INFO)),
    listConversations: vi.fn(async () =>
      ok({
        conversations: [
          {
            snapshot: snapshot('c1', 's1'),
            prelude: [],
            events: [...turn(1), ...turn(2)],
            before: null,
            seq: 10,
            draft: { text: '', images: [] },
          },
        ],
      }),
    ),
    rewindFiles: vi.fn(async () =>
      ok({
        canRewind: false,
        filesChanged: [],
        insertions: 0,
        deletions: 0,
        fileChanges: null,
        reason: 'Nothing was changed.',
      }),
    ),
    send: vi.fn(async () => ok({ uuid: '00000000-0000-4000-8000-000000000009' })),
    ...extra,
  };
  (globalThis as { window?: unknown }).window = { byre: calls };
  const store = createStore();
  await store.getState().loadInfo();
  return { store, calls };
}

const NEW_PROMPT = '00000000-0000-4000-8000-000000000001';

describe('rewind and branches in the store', () => {
  beforeEach(() => vi.restoreAllMocks());

  it('rewinds to before a message, puts it back in the composer, and forks there when it is sent', async () => {
    const holder: { store?: Awaited<ReturnType<typeof storeWithConversation>>['store'] } = {};
    const forkConversation = vi.fn(async () => {
      // The fork's first events can come before its answer: none may be lost.
      holder.store
        ?.getState()
        .applyConversationEvents(
          new Map([['c2', [{ kind: 'prompt', uuid: NEW_PROMPT, text: 'question 2, better' }]]]),
        );
      return ok({ snapshot: snapshot('c2', 's2'), uuid: NEW_PROMPT, parentSessionId: 's1' });
    });
    const made = await storeWithConversation({ forkConversation });
    holder.store = made.store;
    const state = () => made.store.getState();

    await state().openRewind('c1', 'u:user-2');
    expect(made.calls.rewindFiles).toHaveBeenCalledWith({
      target: { conversationId: 'c1' },
      userMessageUuid: 'user-2',
      dryRun: true,
    });
    expect(state().tabs.c1!.rewind?.preview?.canRewind).toBe(false);

    await state().applyRewind('c1', 'conversation');
    expect(state().tabs.c1!.rewind).toBeNull();
    expect(state().tabs.c1!.conversation.order).toEqual(['u:user-1', 'a:msg-1']);
    expect(state().drafts.c1!.text).toBe('question 2');
    // Nothing has started yet: the fork waits for the message.
    expect(forkConversation).not.toHaveBeenCalled();

    state().setDraftText('c1', 'question 2, better');
    const sentOk = await state().send('c1');
    expect(state().tabs.c1!.actionError).toBeNull();
    expect(sentOk).toBe(true);
    expect(forkConversation).toHaveBeenCalledWith({
      from: { conversationId: 'c1' },
      at: 'reply-1',
      message: { text: 'question 2, better', images: [] },
    });
    expect(made.calls.send).not.toHaveBeenCalled();
    const tab = state().tabs.c1!;
    expect(tab.branch).toBe('s2');
    expect(tab.conversation.sessionId).toBe('s2');
    expect(tab.conversation.order).toEqual(['u:user-1', 'a:msg-1', `u:${NEW_PROMPT}`]);
    expect(partPoints(tab.branches!, tab.branch!, tab.conversation).get(`u:${NEW_PROMPT}`)).toEqual({
      keys: ['s1', 's2'],
      at: 1,
      forkPointUuid: 'reply-1',
    });

    // Back to the original with the switcher: its messages, and its own events go on arriving to each.
    await state().switchBranch('c1', 's1');
    expect(state().tabs.c1!.conversation.order).toEqual(['u:user-1', 'a:msg-1', 'u:user-2', 'a:msg-2']);
    state().applyConversationEvents(
      new Map([
        ['c1', turn(3)],
        ['c2', turn(4, 's2')],
      ]),
    );
    expect(state().tabs.c1!.conversation.order).toContain('u:user-3');
    expect(state().tabs.c1!.conversation.order).not.toContain('u:user-4');
    await state().switchBranch('c1', 's2');
    expect(state().tabs.c1!.conversation.order).toContain('u:user-4');
    // Sending now goes to the branch shown.
    state().setDraftText('c1', 'and then?');
    await state().send('c1');
    expect(made.calls.send).toHaveBeenCalledWith(expect.objectContaining({ conversationId: 'c2' }));
  });

  it('restores files only in the session that made them, and says how many', async () => {
    const rewindFiles = vi.fn(async ({ dryRun }: { dryRun: boolean }) =>
      ok(
        dryRun
          ? {
              canRewind: true,
              filesChanged: ['/work/a.txt', '/work/b.txt'],
              insertions: 2,
              deletions: 1,
              fileChanges: [
                { path: '/work/a.txt', insertions: 2, deletions: 0 },
                { path: '/work/b.txt', insertions: 0, deletions: 1 },
              ],
              reason: null,
            }
          : {
              canRewind: true,
              filesChanged: [],
              insertions: 0,
              deletions: 0,
              fileChanges: null,
              reason: null,
            },
      ),
    );
    const { store } = await storeWithConversation({ rewindFiles });
    await store.getState().openRewind('c1', 'u:user-2');
    await store.getState().applyRewind('c1', 'files');
    expect(rewindFiles).toHaveBeenLastCalledWith({
      target: { conversationId: 'c1' },
      userMessageUuid: 'user-2',
      dryRun: false,
    });
    const tab = store.getState().tabs.c1!;
    expect(tab.branchNotice).toBe('2 files restored');
    expect(tab.conversation.order).toHaveLength(4);
    expect(tab.branches).toBeNull();
  });

  it('keeps the rewind dialog open with the reason when the restore fails, changing nothing', async () => {
    const rewindFiles = vi.fn(async ({ dryRun }: { dryRun: boolean }) =>
      dryRun
        ? ok({
            canRewind: true,
            filesChanged: ['/work/a.txt'],
            insertions: 1,
            deletions: 0,
            fileChanges: null,
            reason: null,
          })
        : { ok: false as const, error: { name: 'Error', message: 'disk full' } },
    );
    const { store } = await storeWithConversation({ rewindFiles });
    await store.getState().openRewind('c1', 'u:user-2');
    await store.getState().applyRewind('c1', 'both');
    const tab = store.getState().tabs.c1!;
    expect(tab.rewind?.error).toMatch(/disk full/);
    expect(tab.conversation.order).toHaveLength(4);
    expect(tab.branches).toBeNull();
  });

  it('forks from the original when a rewind is rewound again before it is sent', async () => {
    const forkConversation = vi.fn(async () =>
      ok({ snapshot: snapshot('c2', 's2'), uuid: NEW_PROMPT, parentSessionId: 's1' }),
    );
    const { store } = await storeWithConversation({ forkConversation });
    const state = () => store.getState();
    await state().openRewind('c1', 'u:user-2');
    await state().applyRewind('c1', 'conversation');
    await state().openRewind('c1', 'u:user-1');
    await state().applyRewind('c1', 'conversation');
    expect(state().tabs.c1!.conversation.order).toEqual([]);
    await state().send('c1');
    expect(forkConversation).toHaveBeenCalledWith(
      expect.objectContaining({ from: { conversationId: 'c1' }, at: null }),
    );
    expect(state().tabs.c1!.branches?.map((branch) => [branch.key, branch.parentKey])).toEqual([
      ['s1', null],
      ['s2', 's1'],
    ]);
  });

  it('keeps a rewound branch whose fork is starting when the user switches away, and shows it once made', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const forkConversation = vi.fn(() => new Promise((resolve) => (answer = resolve)));
    const { store } = await storeWithConversation({ forkConversation });
    const state = () => store.getState();
    state().forkFromHere('c1', 'a:msg-1');
    state().setDraftText('c1', 'another way');
    const sent = state().send('c1');
    await vi.waitFor(() => expect(forkConversation).toHaveBeenCalled());
    state().cancelPendingRewind('c1');
    await vi.waitFor(() => expect(state().tabs.c1!.conversation.order).toHaveLength(4));
    answer(ok({ snapshot: snapshot('c2', 's2'), uuid: NEW_PROMPT, parentSessionId: 's1' }));
    expect(await sent).toBe(true);
    const tab = state().tabs.c1!;
    expect(tab.branch).toBe('s1');
    expect(tab.branches?.find((branch) => branch.key === 's2')?.conversationId).toBe('c2');
  });

  it('gives the composer back what it held when a rewind is left unsent', async () => {
    const { store } = await storeWithConversation();
    const state = () => store.getState();
    state().setDraftText('c1', 'half-written thought');
    await state().openRewind('c1', 'u:user-2');
    await state().applyRewind('c1', 'conversation');
    expect(state().drafts.c1!.text).toBe('question 2');
    state().cancelPendingRewind('c1');
    expect(state().drafts.c1!.text).toBe('half-written thought');
  });

  it('drops a rewind that was never sent when the user goes back to the original', async () => {
    const { store } = await storeWithConversation();
    store.getState().forkFromHere('c1', 'a:msg-1');
    expect(store.getState().tabs.c1!.conversation.order).toEqual(['u:user-1', 'a:msg-1']);
    store.getState().cancelPendingRewind('c1');
    await vi.waitFor(() => expect(store.getState().tabs.c1!.conversation.order).toHaveLength(4));
    expect(store.getState().tabs.c1!.branches?.map((branch) => branch.key)).toEqual(['s1']);
  });
});

describe('a saved family', () => {
  it('lists its branches from the library and opens one the CLI rewound inside the file, read-only', async () => {
    const row = {
      sessionId: 's1',
      title: 'Saved',
      cwd: '/work',
      gitBranch: null,
      lastActive: 0,
      messageCount: 4,
      sizeBytes: 10,
      resumable: true,
      hasTranscript: false,
      branchCount: 2,
      familyKey: 's1',
      cost: { usd: null, estimated: false },
    };
    const info = (key: string, leafUuid: string | null, parentKey: string | null) => ({
      key,
      sessionId: 's1',
      leafUuid,
      parentKey,
      forkPointUuid: parentKey ? 'reply-1' : null,
      firstMessage: key,
      lastActive: 0,
      partedAt: parentKey ? 1 : 0,
      messageCount: 4,
      resumable: leafUuid === null,
      title: 'Saved',
    });
    const openSavedBranch = vi.fn(async () =>
      ok({ row, events: [...turn(1), ...turn(3)], before: null, skipped: 0 }),
    );
    const { store } = await storeWithConversation({
      listConversations: vi.fn(async () => ok({ conversations: [] })),
      openSaved: vi.fn(async () => ok({ row, events: [...turn(1), ...turn(2)], before: null, skipped: 0 })),
      libraryFamily: vi.fn(async () =>
        ok({ rootKey: 's1', branches: [info('s1', null, null), info('s1#reply-3', 'reply-3', 's1')] }),
      ),
      openSavedBranch,
    });
    const state = () => store.getState();
    await state().openSaved('s1');
    await vi.waitFor(() => expect(state().tabs['saved:s1']!.branches).toHaveLength(2));
    await state().switchBranch('saved:s1', 's1#reply-3', 'reply-1');
    expect(openSavedBranch).toHaveBeenCalledWith({ sessionId: 's1', leafUuid: 'reply-3' });
    const tab = state().tabs['saved:s1']!;
    expect(tab.conversation.order).toEqual(['u:user-1', 'a:msg-1', 'u:user-3', 'a:msg-3']);
    expect(tab.saved?.leafUuid).toBe('reply-3');
    expect(tab.focus?.messageId).toBe('u:user-3');
  });
});

describe('a lone saved conversation', () => {
  it('does not read a family it does not have', async () => {
    const row = {
      sessionId: 's1',
      title: 'Saved',
      cwd: '/work',
      gitBranch: null,
      lastActive: 0,
      messageCount: 2,
      sizeBytes: 10,
      resumable: true,
      hasTranscript: false,
      branchCount: 1,
      familyKey: 's1',
      cost: { usd: null, estimated: false },
    };
    const libraryFamily = vi.fn();
    const { store } = await storeWithConversation({
      listConversations: vi.fn(async () => ok({ conversations: [] })),
      openSaved: vi.fn(async () => ok({ row, events: turn(1), before: null, skipped: 0 })),
      libraryFamily,
    });
    await store.getState().openSaved('s1');
    expect(store.getState().tabs['saved:s1']!.conversation.order).toHaveLength(2);
    expect(libraryFamily).not.toHaveBeenCalled();
  });
});
