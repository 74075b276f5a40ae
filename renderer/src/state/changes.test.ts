import { describe, expect, it, vi } from 'vitest';
import type { ByreApi, ChangesView, FileDiff, RevertPreview } from '../../../shared/ipc';
import { createStore } from './store';

/**
 * The Changes slice against a scripted window.byre: the Turn filter asks main for that step, a revert is
 * asked about before it is done (overwriting hand-made changes only when told), and an open panel is read
 * again when main says its conversation's Changes moved on.
 */

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  return createStore();
}

const ok = <T>(value: T) => ({ ok: true as const, value });

function view(step: number | null, paths: string[]): ChangesView {
  return {
    state: { kind: 'on' },
    root: '/work',
    inRepository: true,
    repositoryState: null,
    steps: [
      { kind: 'turn', step: 1, turn: 1, prompt: 'Add a parser', uuid: 'u1', at: 1, files: 2 },
      { kind: 'turn', step: 2, turn: 2, prompt: 'Format it', uuid: 'u2', at: 2, files: 1 },
    ],
    step,
    files: paths.map((path) => ({
      path,
      from: null,
      status: 'modified' as const,
      kind: 'file' as const,
      added: 1,
      removed: 0,
      steps: [{ step: 1, causes: [{ tool: 'Edit', command: null }] }],
      changedSince: false,
    })),
    notes: [],
  };
}

const diffOf = (path: string): FileDiff => ({ kind: 'text', path, hunks: [], cut: null });

/** Waits for the store to reach a state (the slice reads main in the background). */
const until = (ready: () => boolean) => vi.waitFor(() => expect(ready()).toBe(true));

describe('the Changes panel in the store', () => {
  it('opens with everything since the start, and the Turn filter asks for that step', async () => {
    const changes = vi.fn(async ({ step }: { step: number | null }) =>
      ok(view(step, step === 2 ? ['src/fmt.ts'] : ['src/app.ts', 'src/fmt.ts'])),
    );
    const store = freshStore({ changes });
    store.getState().toggleChanges('c1');
    await until(() => !!store.getState().changes.c1?.view);
    expect(changes).toHaveBeenLastCalledWith({ conversationId: 'c1', step: null });
    expect(store.getState().changes.c1?.total).toBe(2);

    await store.getState().pickChangesStep('c1', 2);
    expect(changes).toHaveBeenLastCalledWith({ conversationId: 'c1', step: 2 });
    const panel = store.getState().changes.c1!;
    expect(panel.view?.files.map((file) => file.path)).toEqual(['src/fmt.ts']);
    // The button's count is of everything since the start, not of the step picked.
    expect(panel.total).toBe(2);
  });

  it('keeps an older answer from replacing a newer one', async () => {
    let answerFirst: (value: unknown) => void = () => undefined;
    const changes = vi
      .fn()
      .mockImplementationOnce(() => new Promise((resolve) => (answerFirst = resolve)))
      .mockImplementation(async ({ step }: { step: number | null }) => ok(view(step, ['new.ts'])));
    const store = freshStore({ changes });
    store.getState().toggleChanges('c1');
    await store.getState().pickChangesStep('c1', 1);
    answerFirst(ok(view(null, ['old.ts'])));
    await Promise.resolve();
    expect(store.getState().changes.c1?.view?.files.map((file) => file.path)).toEqual(['new.ts']);
  });

  it('asks before reverting, and overwrites files changed since only when told', async () => {
    const preview: RevertPreview = {
      to: 'the start of turn 1',
      files: [
        { path: 'src/app.ts', action: 'restore', changedSince: true },
        { path: 'made.txt', action: 'delete', changedSince: false },
      ],
    };
    const previewRevert = vi.fn(async () => ok(preview));
    const revert = vi.fn(async () =>
      ok({
        step: {
          kind: 'revert' as const,
          step: 3,
          to: 'the start of turn 1',
          paths: ['made.txt'],
          at: 3,
          files: 1,
          undone: false,
        },
        kept: ['src/app.ts'],
      }),
    );
    const changes = vi.fn(async ({ step }: { step: number | null }) => ok(view(step, ['src/app.ts'])));
    const store = freshStore({ changes, previewRevert, revert });
    store.getState().toggleChanges('c1');
    await store.getState().pickChangesStep('c1', 1);

    await store.getState().askRevert('c1', { kind: 'step', step: 1 });
    expect(previewRevert).toHaveBeenCalledWith({ conversationId: 'c1', target: { kind: 'step', step: 1 } });
    expect(revert).not.toHaveBeenCalled();
    expect(store.getState().changes.c1?.revert?.preview).toEqual(preview);

    const before = changes.mock.calls.length;
    await store.getState().confirmRevert('c1');
    expect(revert).toHaveBeenCalledWith({
      conversationId: 'c1',
      target: { kind: 'step', step: 1 },
      overwriteChanged: false,
    });
    const panel = store.getState().changes.c1!;
    expect(panel.revert).toBeNull();
    expect(panel.reverted).toBe(
      'Reverted 1 file to the start of turn 1. Left as they are, because they changed since the last turn: src/app.ts.',
    );
    // Read again, so the revert shows as a step of its own.
    expect(changes.mock.calls.length).toBeGreaterThan(before);

    await store.getState().askRevert('c1', { kind: 'file', path: 'src/app.ts', step: 1 });
    store.getState().setOverwriteChanged('c1', true);
    await store.getState().confirmRevert('c1');
    expect(revert).toHaveBeenLastCalledWith({
      conversationId: 'c1',
      target: { kind: 'file', path: 'src/app.ts', step: 1 },
      overwriteChanged: true,
    });
  });

  it('keeps the question open with the reason when a revert fails', async () => {
    const store = freshStore({
      changes: vi.fn(async () => ok(view(null, ['a.ts']))),
      previewRevert: vi.fn(async () => ok({ to: 'the conversation’s start', files: [] })),
      revert: vi.fn(async () => ({ ok: false, error: { name: 'Failed', message: 'a.ts is read-only' } })),
    });
    await store.getState().askRevert('c1', { kind: 'file', path: 'a.ts', step: null });
    await store.getState().confirmRevert('c1');
    expect(store.getState().changes.c1?.revert?.error).toBe('a.ts is read-only');
  });

  it('reads an open panel again when its conversation’s Changes move on, keeping the file picked', async () => {
    let round = 0;
    const changes = vi.fn(async () =>
      ok(view(null, round === 0 ? ['a.ts', 'b.ts'] : ['a.ts', 'b.ts', 'c.ts'])),
    );
    const changesDiff = vi.fn(async ({ path }: { path: string }) => ok(diffOf(path)));
    const store = freshStore({ changes, changesDiff });
    store.getState().toggleChanges('c1');
    await until(() => !!store.getState().changes.c1?.view);
    await store.getState().selectChangedFile('c1', 'b.ts');
    round = 1;

    store.getState().applyConversationEvents(new Map([['c1', [{ kind: 'changes', steps: 3 }]]]));
    await until(() => store.getState().changes.c1?.view?.files.length === 3);
    expect(changes).toHaveBeenCalledTimes(2);
    expect(store.getState().changes.c1?.selected).toBe('b.ts');
    expect(changesDiff).toHaveBeenCalledTimes(2);

    // Closed, it reads nothing; its count is no longer shown as current.
    store.getState().closeChanges('c1');
    store.getState().applyConversationEvents(new Map([['c1', [{ kind: 'changes', steps: 4 }]]]));
    expect(changes).toHaveBeenCalledTimes(2);
    expect(store.getState().changes.c1?.stale).toBe(true);
  });

  it('shows why the view could not be read, keeping what was shown', async () => {
    const changes = vi
      .fn()
      .mockResolvedValueOnce(ok(view(null, ['a.ts'])))
      .mockResolvedValueOnce({ ok: false, error: { name: 'Failed', message: 'git is not installed' } });
    const store = freshStore({ changes });
    await store.getState().refreshChanges('c1');
    await store.getState().refreshChanges('c1');
    const panel = store.getState().changes.c1!;
    expect(panel.error).toBe('git is not installed');
    expect(panel.view?.files).toHaveLength(1);
  });
});

describe('the Changes panel of a worktree conversation in the store', () => {
  it("asks against the base by default, and for the conversation's own changes once picked", async () => {
    const changes = vi.fn(async ({ step }: { step: number | null }) => ok(view(step, ['src/app.ts'])));
    const changesDiff = vi.fn(async ({ path }: { path: string }) => ok(diffOf(path)));
    const store = freshStore({
      changes,
      changesDiff,
      startConversation: vi.fn(async () =>
        ok({
          conversationId: 'c1',
          sessionId: 's1',
          cwd: '/repo/.claude/worktrees/x',
          model: null,
          models: [],
          claudeCodeVersion: null,
          permissionMode: 'default',
          worktree: { repository: '/repo', name: 'x', branch: 'x', base: 'main' },
        }),
      ),
    });
    await store.getState().startConversation('/repo', { worktree: { base: 'main' } });
    store.getState().toggleChanges('c1');
    await until(() => !!store.getState().changes.c1?.view);
    expect(changes).toHaveBeenLastCalledWith({ conversationId: 'c1', step: null, scope: 'base' });
    await store.getState().selectChangedFile('c1', 'src/app.ts');
    expect(changesDiff).toHaveBeenLastCalledWith({
      conversationId: 'c1',
      step: null,
      path: 'src/app.ts',
      scope: 'base',
    });
    await store.getState().pickChangesScope('c1', 'conversation');
    expect(changes).toHaveBeenLastCalledWith({ conversationId: 'c1', step: null, scope: 'conversation' });
  });
});
