import { describe, expect, it, vi } from 'vitest';
import type { ByreApi, InvokeResponse } from '../../../shared/ipc';
import { initialConversation } from '../../../shared/conversation/state';
import { windowTabs } from './kept-tabs';
import { createStore } from './store';
import { newTab } from './tabs';

/** The tabs kept by main as a window reopens them, and what the window tells main of its tabs after. */

const A = '3f9d6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d';
const B = '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d';

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(kept: InvokeResponse<'openTabs'>, calls: Calls = {}) {
  const byre: Calls = {
    appInfo: vi.fn(async () => ({ ok: true, value: { initialCwd: null, settingsProblems: [] } })),
    listConversations: vi.fn(async () => ({ ok: true, value: { conversations: [] } })),
    openTabs: vi.fn(async () => ({ ok: true, value: kept })),
    // Opening and starting wait: the tabs are there before either answers.
    openSaved: vi.fn(() => new Promise(() => undefined)),
    startConversation: vi.fn(() => new Promise(() => undefined)),
    libraryFamily: vi.fn(() => new Promise(() => undefined)),
    setOpenTabs: vi.fn(async () => ({ ok: true, value: {} })),
    ...calls,
  };
  (globalThis as { window?: unknown }).window = { byre: byre };
  return { store: createStore(), byre };
}

describe('tabs kept across a restart', () => {
  it('reopens them in order, the open one open, each with its draft', async () => {
    const { store, byre } = freshStore({
      tabs: [
        { conversationId: null, sessionId: A, cwd: '/work/a', draft: '' },
        { conversationId: null, sessionId: B, cwd: '/work/b', draft: 'half a thought' },
        { conversationId: 'gone', sessionId: null, cwd: '/work/c', draft: 'never sent' },
      ],
      active: 1,
      problem: null,
    });
    await store.getState().loadInfo();
    const state = store.getState();
    expect(state.tabOrder).toEqual([`saved:${A}`, `saved:${B}`, 'starting-1']);
    expect(state.activeTab).toBe(`saved:${B}`);
    expect(state.drafts[`saved:${B}`]?.text).toBe('half a thought');
    expect(state.drafts['starting-1']?.text).toBe('never sent');
    expect(state.drafts[`saved:${A}`]).toBeUndefined();
    expect(byre.startConversation).toHaveBeenCalledWith({ cwd: '/work/c' });
    // Main hears the tabs as the window has them now.
    expect(byre.setOpenTabs).toHaveBeenLastCalledWith({
      tabs: [
        { conversationId: null, sessionId: A, cwd: '' },
        { conversationId: null, sessionId: B, cwd: '' },
        { conversationId: null, sessionId: null, cwd: '/work/c' },
      ],
      active: 1,
    });
  });

  it('tells main nothing before the kept tabs are reopened, and says why they could not be', async () => {
    const { store, byre } = freshStore({
      tabs: [],
      active: null,
      problem: 'The tabs open when Byre last quit could not be reopened: it is not JSON',
    });
    store.getState().activate('nothing');
    expect(byre.setOpenTabs).not.toHaveBeenCalled();
    await store.getState().loadInfo();
    expect(store.getState().keptTabsProblem).toMatch(/could not be reopened/);
    expect(store.getState().composingNew).toBe(true);
    expect(byre.setOpenTabs).toHaveBeenLastCalledWith({ tabs: [], active: null });
  });

  it('a click on New conversation while the host answers keeps the form, and the tabs reopen behind it', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const { store, byre } = freshStore(
      { tabs: [{ conversationId: null, sessionId: A, cwd: '/work/a', draft: '' }], active: 0, problem: null },
      { appInfo: vi.fn(() => new Promise((resolve) => (answer = resolve))) },
    );
    const loading = store.getState().loadInfo();
    store.getState().showNewConversation();
    answer({ ok: true, value: { initialCwd: null, settingsProblems: [] } });
    await loading;
    expect(store.getState()).toMatchObject({ composingNew: true, activeTab: null, tabOrder: [`saved:${A}`] });
    expect(byre.setOpenTabs).toHaveBeenLastCalledWith({
      tabs: [{ conversationId: null, sessionId: A, cwd: '' }],
      active: null,
    });
  });

  it('the folder from the command line starts behind the form asked for while the host answered', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const { store, byre } = freshStore(
      { tabs: [], active: null, problem: null },
      { appInfo: vi.fn(() => new Promise((resolve) => (answer = resolve))) },
    );
    const loading = store.getState().loadInfo();
    store.getState().showNewConversation();
    answer({ ok: true, value: { initialCwd: '/work/cli', settingsProblems: [] } });
    // The start is never answered here: the form is kept while it is under way.
    void loading;
    await vi.waitFor(() => expect(byre.startConversation).toHaveBeenCalledWith({ cwd: '/work/cli' }));
    expect(store.getState()).toMatchObject({ composingNew: true, activeTab: null });
    expect(store.getState().tabOrder).toHaveLength(1);
  });

  it('a tab on another host comes back on that host, its session carried on there, and is told with its host', async () => {
    const { store, byre } = freshStore({
      tabs: [
        { conversationId: null, sessionId: A, cwd: '/srv/app', host: 'devbox', draft: '' },
        { conversationId: null, sessionId: null, cwd: '/srv/other', host: 'devbox', draft: 'half typed' },
      ],
      active: 0,
      problem: null,
    });
    await store.getState().loadInfo();
    expect(byre.openSaved).not.toHaveBeenCalled();
    expect(byre.startConversation).toHaveBeenNthCalledWith(1, { cwd: '/srv/app', host: 'devbox', resume: A });
    expect(byre.startConversation).toHaveBeenNthCalledWith(2, { cwd: '/srv/other', host: 'devbox' });
    expect(byre.setOpenTabs).toHaveBeenLastCalledWith({
      tabs: [
        { conversationId: null, sessionId: A, cwd: '/srv/app', host: 'devbox' },
        { conversationId: null, sessionId: null, cwd: '/srv/other', host: 'devbox' },
      ],
      active: 0,
    });
  });

  it('after a reload, puts back in its place a tab main still runs, and starts nothing again', async () => {
    const snapshot = {
      conversationId: 'c1',
      sessionId: 's1',
      cwd: '/work/c',
      model: null,
      models: [],
      claudeCodeVersion: '2.1.332',
      permissionMode: 'default',
    };
    const live = { snapshot, prelude: [], events: [], seq: 0, before: null, savedBefore: null };
    const { store, byre } = freshStore(
      {
        tabs: [
          { conversationId: null, sessionId: A, cwd: '/work/a', draft: '' },
          { conversationId: 'c1', sessionId: null, cwd: '/work/c', draft: 'never sent' },
        ],
        active: 1,
        problem: null,
      },
      {
        listConversations: vi.fn(async () => ({
          ok: true,
          value: { conversations: [{ ...live, draft: { text: 'never sent', images: [] } }] },
        })),
      },
    );
    await store.getState().loadInfo();
    const state = store.getState();
    expect(state.tabOrder).toEqual([`saved:${A}`, 'c1']);
    expect(state.activeTab).toBe('c1');
    expect(state.drafts.c1?.text).toBe('never sent');
    expect(byre.startConversation).not.toHaveBeenCalled();
  });
});

describe('a Terminal conversation kept across a restart', () => {
  it('is kept by its session once a prompt was typed, though its tab holds no messages', () => {
    const store = createStore();
    const fresh = initialConversation({ conversationId: 'c1', sessionId: A, cwd: '/w', lane: 'terminal' });
    const show = (conversation: typeof fresh) =>
      store.setState((state) => ({
        tabs: { ...state.tabs, c1: newTab('c1', '/w', { conversation }) },
        tabOrder: ['c1'],
        activeTab: 'c1',
      }));
    // Nothing typed yet: the CLI has saved nothing to open after a restart.
    show(fresh);
    expect(windowTabs(store.getState()).tabs).toEqual([{ conversationId: 'c1', sessionId: null, cwd: '/w' }]);
    show({ ...fresh, activity: { state: 'done', what: null } });
    expect(windowTabs(store.getState()).tabs).toEqual([{ conversationId: 'c1', sessionId: A, cwd: '/w' }]);
  });
});
