import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ByreApi, ConversationEvent } from '../../../shared/ipc';
import type { LibraryRow } from '../../../shared/library';
import { turn } from '../../../shared/test-support/lines';
import { heldReplies, landed } from '../test-support/replies';
import { FIRST_SCREEN_ROWS } from './first-screen';
import { createStore } from './store';

/** The library slice against a scripted window.byre: opening, paging and jumping to a search hit. */

const row: LibraryRow = {
  sessionId: 's1',
  title: 'Storage work',
  cwd: '/work',
  gitBranch: null,
  lastActive: 0,
  messageCount: 6,
  sizeBytes: 100,
  resumable: true,
  hasTranscript: false,
  branchCount: 1,
  familyKey: 's1',
  cost: { usd: null, estimated: false },
};

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  return createStore();
}

type Page = { events: ConversationEvent[]; before: string | null; skipped: number };
type Answer = { ok: true; value: Page } | { ok: false; error: { name: string; message: string } };

/** Pages of one turn each, from turn 3 (the last) back to turn 1. */
function pagedSession() {
  const openSaved = vi.fn(async () => ({
    ok: true,
    value: { row, events: turn(3), before: 'p2', skipped: 0 },
  }));
  const openSavedBefore = vi.fn(async ({ before }: { before: string }): Promise<Answer> => ({
    ok: true,
    value:
      before === 'p2'
        ? { events: turn(2), before: 'p1', skipped: 0 }
        : { events: turn(1), before: null, skipped: 0 },
  }));
  return { openSaved, openSavedBefore };
}

describe('saved conversations in the store', () => {
  beforeEach(() => vi.restoreAllMocks());

  it('opens a conversation once, however often its row is clicked', async () => {
    const calls = pagedSession();
    const store = freshStore(calls);
    await Promise.all([store.getState().openSaved('s1'), store.getState().openSaved('s1')]);
    expect(store.getState().tabOrder).toEqual(['saved:s1']);
    expect(calls.openSaved).toHaveBeenCalledTimes(1);
  });

  it('loads pages back to a search hit, in order, and shows its message with the match found', async () => {
    const calls = pagedSession();
    const store = freshStore(calls);
    await store.getState().openSaved('s1', { messageUuid: 'reply-1', text: 'answer 1' });
    const tab = store.getState().tabs['saved:s1']!;
    expect(tab.conversation.order).toEqual([
      'u:user-1',
      'a:msg-1',
      'u:user-2',
      'a:msg-2',
      'u:user-3',
      'a:msg-3',
    ]);
    expect(tab.focus?.messageId).toBe('a:msg-1');
    expect(store.getState().finds['saved:s1']).toMatchObject({
      query: 'answer 1',
      current: { messageId: 'a:msg-1', occurrence: 0 },
    });
    expect(calls.openSavedBefore).toHaveBeenCalledTimes(2);
  });

  it('opens a title hit at the end, reading no earlier page', async () => {
    const calls = pagedSession();
    const store = freshStore(calls);
    await store.getState().openSaved('s1', { messageUuid: null, text: 'Storage' });
    expect(calls.openSavedBefore).not.toHaveBeenCalled();
    expect(store.getState().tabs['saved:s1']!.conversation.order).toEqual(['u:user-3', 'a:msg-3']);
  });

  it('fetches one page for two requests at once, and stops asking after a page fails', async () => {
    const calls = pagedSession();
    let fail = false;
    calls.openSavedBefore.mockImplementation(async () =>
      fail
        ? { ok: false, error: { name: 'Error', message: 'The file changed.' } }
        : { ok: true, value: { events: turn(2), before: 'p1', skipped: 0 } },
    );
    const store = freshStore(calls);
    await store.getState().openSaved('s1');
    await Promise.all([store.getState().loadEarlier('saved:s1'), store.getState().loadEarlier('saved:s1')]);
    expect(calls.openSavedBefore).toHaveBeenCalledTimes(1);

    fail = true;
    await store.getState().openSaved('s1', { messageUuid: 'reply-1', text: 'answer 1' });
    const tab = store.getState().tabs['saved:s1']!;
    expect(tab.paging).toMatchObject({ error: 'The file changed.', loading: false });
    expect(tab.actionError).toBe('That message is no longer in this conversation.');
    expect(calls.openSavedBefore).toHaveBeenCalledTimes(2);
  });

  it('keeps the find bar on its match when earlier messages load above it', async () => {
    const calls = pagedSession();
    const store = freshStore(calls);
    await store.getState().openSaved('s1');
    store.getState().openFind('saved:s1');
    store.getState().setFindQuery('saved:s1', 'answer 3');
    const before = store.getState().finds['saved:s1']!.current;
    await store.getState().loadEarlier('saved:s1');
    expect(store.getState().finds['saved:s1']!.current).toEqual(before);
    expect(before).toEqual({ messageId: 'a:msg-3', occurrence: 0 });
  });
});

describe('the library list as the window starts', () => {
  const rowsOf = (count: number, prefix = 's') =>
    Array.from({ length: count }, (_, i) => ({
      ...row,
      sessionId: `${prefix}${i}`,
      familyKey: `${prefix}${i}`,
    }));
  type ListReply = { ok: true; value: { rows: LibraryRow[] } };

  /** A store whose list replies land when the test says: the first screen's as 'first', the whole list's as 'all'. */
  function listingStore() {
    const replies = heldReplies<ListReply>();
    const asked: { limit?: number }[] = [];
    const libraryList = vi.fn((request: { limit?: number }) => {
      asked.push(request);
      return replies.answer(request.limit ? 'first' : 'all');
    });
    const status = {
      indexed: 3,
      total: 3,
      done: true,
      problems: [],
      cleanupPeriodDays: 30,
      projectsDir: '/p',
    };
    const store = freshStore({
      libraryList,
      libraryStatus: vi.fn(async () => ({ ok: true, value: status })),
    });
    return { store, replies, asked };
  }

  it('shows the first screen of rows before the whole list has come, then the whole list', async () => {
    const { store, replies, asked } = listingStore();
    const refreshed = store.getState().refreshLibrary();
    // Both asked at once: the first screen, and everything.
    expect(asked).toEqual([{ limit: FIRST_SCREEN_ROWS }, {}]);
    replies.reply('first', { ok: true, value: { rows: rowsOf(2) } });
    await landed();
    expect(store.getState().libraryRows.map((shown) => shown.sessionId)).toEqual(['s0', 's1']);
    expect(store.getState().libraryLoaded).toBe(false);
    replies.reply('all', { ok: true, value: { rows: rowsOf(5) } });
    await refreshed;
    expect(store.getState().libraryRows).toHaveLength(5);
    expect(store.getState().libraryLoaded).toBe(true);
    // Asked again (the library changed): the whole list only.
    const again = store.getState().refreshLibrary();
    expect(asked).toHaveLength(3);
    replies.reply('all', { ok: true, value: { rows: rowsOf(6) } });
    await again;
    expect(store.getState().libraryRows).toHaveLength(6);
  });

  it('keeps the whole list when the first screen comes after it', async () => {
    const { store, replies } = listingStore();
    const refreshed = store.getState().refreshLibrary();
    replies.reply('all', { ok: true, value: { rows: rowsOf(5) } });
    await refreshed;
    replies.reply('first', { ok: true, value: { rows: rowsOf(2, 'old') } });
    await landed();
    expect(store.getState().libraryRows.map((shown) => shown.sessionId)).toEqual([
      's0',
      's1',
      's2',
      's3',
      's4',
    ]);
  });
});
