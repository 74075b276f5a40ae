import { describe, expect, it, vi } from 'vitest';
import type { ByreApi, InvokeRequest } from '../../../shared/ipc';
import type { SearchHit } from '../../../shared/library';
import { heldReplies, landed } from '../test-support/replies';
import { createStore } from './store';

/**
 * Search as you type, in the store, against a scripted window.byre whose replies land when the test says:
 * the titles first and then the rest, a newer query superseding an older one, and the rows changing while a
 * search runs.
 */

type Request = InvokeRequest<'librarySearch'>;
type Reply =
  { ok: true; value: { hits: SearchHit[] } } | { ok: false; error: { name: string; message: string } };

const hit = (title: string, messageUuid: string | null = null): SearchHit => ({
  sessionId: `s-${title}`,
  title,
  cwd: '/work',
  lastActive: 0,
  snippet: title,
  messageUuid,
});

const found = (...hits: SearchHit[]): Reply => ({ ok: true, value: { hits } });

function searchingStore() {
  const replies = heldReplies<Reply>();
  const asked: Request[] = [];
  const librarySearch = vi.fn((request: Request) => {
    asked.push(request);
    return replies.answer(
      `${request.query}:${request.part}:${asked.filter((a) => a.query === request.query && a.part === request.part).length}`,
    );
  });
  const byre: Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>> = {
    librarySearch,
    libraryList: vi.fn(async () => ({ ok: true, value: { rows: [] } })),
    libraryStatus: vi.fn(async () => ({
      ok: true,
      value: { indexed: 1, total: 9, done: false, problems: [], cleanupPeriodDays: 30, projectsDir: '/p' },
    })),
  };
  (globalThis as { window?: unknown }).window = { byre };
  return { store: createStore(), replies, asked };
}

/** The index's state, `indexed` of 9 conversations read. */
const indexing = (indexed: number) => ({
  indexed,
  total: 9,
  done: indexed === 9,
  problems: [],
  cleanupPeriodDays: 30,
  projectsDir: '/p',
});

describe('search as you type', () => {
  it('asked again when the index finishes, no longer says it looked through part of the library', async () => {
    const { store, replies } = searchingStore();
    store.setState({
      libraryStatus: indexing(1),
      libraryQuery: 'lexer',
    });
    const byre = (globalThis as unknown as { window: { byre: Record<string, ReturnType<typeof vi.fn>> } })
      .window.byre;
    byre.libraryStatus!.mockImplementation(async () => ({
      ok: true,
      value: indexing(9),
    }));
    // A window that draws: the store takes the new status only in the next frame, which has not come yet.
    const frames: (() => void)[] = [];
    const globals = globalThis as { document?: unknown; requestAnimationFrame?: unknown };
    globals.document = { hidden: false };
    globals.requestAnimationFrame = (run: () => void) => frames.push(run);
    try {
      const refreshed = store.getState().refreshLibrary();
      await landed();
      replies.reply('lexer:titles:1', found());
      replies.reply('lexer:all:1', found());
      await refreshed;
      await landed();
      expect(store.getState().search).toEqual({ query: 'lexer', hits: [], complete: true });
    } finally {
      delete globals.document;
      delete globals.requestAnimationFrame;
      for (const run of frames) run();
    }
  });

  it('says, for a library still being indexed, how much of it was looked through', async () => {
    const { store, replies } = searchingStore();
    store.setState({
      libraryStatus: indexing(1),
    });
    void store.getState().searchLibrary('lexer');
    replies.reply('lexer:titles:1', found());
    replies.reply('lexer:all:1', found());
    await landed();
    expect(store.getState().search).toEqual({
      query: 'lexer',
      hits: [],
      complete: true,
      partial: { indexed: 1, total: 9 },
    });
  });

  it('shows the titles as soon as they come, and the messages after, saying it is still looking', async () => {
    const { store, replies, asked } = searchingStore();
    void store.getState().searchLibrary('lexer');
    expect(asked.map((request) => request.part)).toEqual(['titles', 'all']);
    expect(asked[0]?.seq).toBe(asked[1]?.seq);
    expect(asked[0]?.searcher).toBeTruthy();

    replies.reply('lexer:titles:1', found(hit('Lexer rewrite')));
    await landed();
    expect(store.getState().search).toEqual({
      query: 'lexer',
      hits: [hit('Lexer rewrite')],
      complete: false,
    });

    replies.reply('lexer:all:1', found(hit('Lexer rewrite'), hit('Parser', 'm1')));
    await landed();
    expect(store.getState().search).toEqual({
      query: 'lexer',
      hits: [hit('Lexer rewrite'), hit('Parser', 'm1')],
      complete: true,
    });
  });

  it('numbers each keystroke higher, and never shows an older query once a newer one was asked', async () => {
    const { store, replies, asked } = searchingStore();
    void store.getState().searchLibrary('le');
    void store.getState().searchLibrary('lex');
    expect(asked.map((request) => [request.query, request.seq])).toEqual([
      ['le', 1],
      ['le', 1],
      ['lex', 2],
      ['lex', 2],
    ]);
    replies.reply('lex:titles:1', found(hit('Lexer rewrite')));
    // Main stopped the older search; had it answered late anyway, it is not shown.
    replies.reply('le:titles:1', found(hit('Lemons')));
    replies.fail(
      'le:all:1',
      Object.assign(new Error('A newer search replaced this one.'), { name: 'SearchSuperseded' }),
    );
    await landed();
    expect(store.getState().search?.query).toBe('lex');
    expect(store.getState().search?.hits).toEqual([hit('Lexer rewrite')]);
    expect(store.getState().libraryError).toBeNull();
  });

  it('asks again after the running search when the rows change, instead of superseding it', async () => {
    const { store, replies, asked } = searchingStore();
    void store.getState().searchLibrary('lexer');
    // The index read more while the search ran (a large library being indexed does this every moment).
    await store.getState().refreshLibrary();
    await store.getState().refreshLibrary();
    expect(asked.filter((request) => request.part === 'all')).toHaveLength(1);

    replies.reply('lexer:titles:1', found());
    replies.reply('lexer:all:1', found(hit('Lexer rewrite')));
    await landed();
    expect(store.getState().search).toEqual({ query: 'lexer', hits: [hit('Lexer rewrite')], complete: true });
    // Once, for both changes, and only now.
    expect(asked.filter((request) => request.part === 'all')).toHaveLength(2);
    replies.reply('lexer:titles:2', found());
    replies.reply('lexer:all:2', found(hit('Lexer rewrite'), hit('Parser', 'm1')));
    await landed();
    expect(store.getState().search?.hits).toHaveLength(2);
    expect(asked.filter((request) => request.part === 'all')).toHaveLength(2);
  });

  it('says a failed search, keeping what the titles found', async () => {
    const { store, replies } = searchingStore();
    void store.getState().searchLibrary('lexer');
    replies.reply('lexer:titles:1', found(hit('Lexer rewrite')));
    replies.reply('lexer:all:1', {
      ok: false,
      error: { name: 'LibraryUnavailable', message: 'The library stopped.' },
    });
    await landed();
    expect(store.getState().libraryError).toBe('The library stopped.');
    expect(store.getState().search).toEqual({ query: 'lexer', hits: [hit('Lexer rewrite')], complete: true });
  });

  it('shows the rows again when the box is emptied, whatever was still running', async () => {
    const { store, replies } = searchingStore();
    void store.getState().searchLibrary('lexer');
    void store.getState().searchLibrary('');
    replies.reply('lexer:titles:1', found(hit('Lexer rewrite')));
    replies.reply('lexer:all:1', found(hit('Lexer rewrite')));
    await landed();
    expect(store.getState().search).toBeNull();
  });
});
