import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../e2e/fake-model/server';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import type { ChangesView, InvokeChannel, InvokeRequest } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';
import { gitIn } from './test-support/git';

/**
 * The Changes panel's channels through the backend, against the real CLI and the fake model: one turn that
 * writes a file with Write, edits one with Edit and makes one with Bash, in a git repository (whose status,
 * stash, HEAD and index stay exactly as they were) and in a plain folder. Every file is listed with its turn
 * and the tool that changed it, its diff shows the lines, a revert restores it and its undo puts it back;
 * a hand edit is flagged and kept; Rewind restores what the command made.
 */

let harness: BackendHarness;
let world: CliWorld;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world } = harness);
});

afterEach(() => harness.dispose());

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);

const BASH = "printf 'x\\n' > made-by-bash.txt";

const tool = (name: string, input: Record<string, unknown>): ScriptedReply => ({
  blocks: [{ type: 'tool_use', name, input }],
});

/** The turn: Write a new file, Edit an existing one (read first, as the CLI requires), Bash makes one. */
function scriptTheTurn(cwd: string): void {
  const tracked = join(cwd, 'tracked.txt');
  world.fake.enqueue(
    tool('Write', { file_path: join(cwd, 'new.txt'), content: 'fresh\n' }),
    tool('Read', { file_path: tracked }),
    tool('Edit', { file_path: tracked, old_string: 'two', new_string: '2' }),
    tool('Bash', { command: BASH, description: 'make a file' }),
    { blocks: [{ type: 'text', text: 'Done.' }] },
  );
}

/** Starts a conversation in the world's folder and runs the turn; resolves once its step is recorded. */
async function runTheTurn(): Promise<{ conversationId: string; uuid: string }> {
  scriptTheTurn(world.cwd);
  const { conversationId } = await invoke('startConversation', { cwd: world.cwd });
  const { uuid } = await invoke('send', { conversationId, text: 'make the three changes please' });
  await harness.when(() =>
    harness.eventsOf(conversationId).some((event) => event.kind === 'changes' && event.steps >= 1),
  );
  return { conversationId, uuid };
}

const read = (name: string) => {
  const path = join(world.cwd, name);
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
};

/** What the panel lists: each file's path, status, counts and who changed it in which step. */
const listed = (view: ChangesView) =>
  view.files.map((file) => ({
    path: file.path,
    status: file.status,
    added: file.added,
    removed: file.removed,
    steps: file.steps,
  }));

const THE_THREE = [
  {
    path: 'made-by-bash.txt',
    status: 'added',
    added: 1,
    removed: 0,
    steps: [{ step: 1, causes: [{ tool: 'Bash', command: BASH }] }],
  },
  {
    path: 'new.txt',
    status: 'added',
    added: 1,
    removed: 0,
    steps: [{ step: 1, causes: [{ tool: 'Write', command: null }] }],
  },
  {
    path: 'tracked.txt',
    status: 'modified',
    added: 1,
    removed: 1,
    steps: [{ step: 1, causes: [{ tool: 'Edit', command: null }] }],
  },
];

/** The turn's files as they are after it. */
const AFTER_THE_TURN = { 'made-by-bash.txt': 'x\n', 'new.txt': 'fresh\n', 'tracked.txt': 'one\n2\n' };
const BEFORE_THE_TURN = { 'made-by-bash.txt': null, 'new.txt': null, 'tracked.txt': 'one\ntwo\n' };

/** Lists the three, shows their diffs, and reverts and un-reverts each on disk. */
async function listDiffRevertUndo(conversationId: string): Promise<void> {
  const view = await invoke('changes', { conversationId, step: null });
  expect(view.state).toEqual({ kind: 'on' });
  expect(view.steps).toEqual([
    expect.objectContaining({
      kind: 'turn',
      step: 1,
      turn: 1,
      prompt: 'make the three changes please',
      files: 3,
    }),
  ]);
  expect(listed(view)).toEqual(THE_THREE);
  expect(view.files.every((file) => !file.changedSince)).toBe(true);
  // The turn's own view: the same three, between its two snapshots.
  expect(listed(await invoke('changes', { conversationId, step: 1 }))).toEqual(THE_THREE);

  const lines = async (path: string) => {
    const diff = await invoke('changesDiff', { conversationId, step: null, path });
    return diff.kind === 'text' ? diff.hunks.flatMap((hunk) => hunk.lines) : diff.kind;
  };
  expect(await lines('tracked.txt')).toEqual([' one', '-two', '+2']);
  expect(await lines('new.txt')).toEqual(['+fresh']);
  expect(await lines('made-by-bash.txt')).toEqual(['+x']);

  for (const path of ['made-by-bash.txt', 'new.txt', 'tracked.txt'] as const) {
    const target = { kind: 'file' as const, path, step: null };
    const preview = await invoke('previewRevert', { conversationId, target });
    expect(preview.files).toEqual([
      { path, action: path === 'tracked.txt' ? 'restore' : 'delete', changedSince: false },
    ]);
    const reverted = await invoke('revert', { conversationId, target, overwriteChanged: false });
    expect(reverted.kept).toEqual([]);
    expect(reverted.step).toMatchObject({ kind: 'revert', paths: [path], files: 1 });
    expect(read(path)).toBe(BEFORE_THE_TURN[path]);
    const step = reverted.step?.step ?? 0;
    const undo = await invoke('revert', {
      conversationId,
      target: { kind: 'undo', step },
      overwriteChanged: false,
    });
    expect(undo.step).toMatchObject({ kind: 'undo', undoes: step, paths: [path] });
    expect(read(path)).toBe(AFTER_THE_TURN[path]);
  }
  const steps = (await invoke('changes', { conversationId, step: null })).steps;
  expect(steps.filter((step) => step.kind === 'revert').every((step) => step.undone)).toBe(true);
}

const git = gitIn;

/** What the user's git shows, the index's bytes read first (a plain status may refresh it). */
function userState(repo: string) {
  const index = readFileSync(join(repo, '.git', 'index')).toString('base64');
  return {
    index,
    status: git(repo, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all'),
    stash: git(repo, 'stash', 'list'),
    head: git(repo, 'rev-parse', 'HEAD'),
    branches: git(repo, 'branch', '--list'),
  };
}

describe('Changes in a git repository, with the real CLI', () => {
  it("lists the turn's Write, Edit and Bash changes, diffs and reverts each, and leaves the user's git as it was", async () => {
    const repo = world.cwd;
    git(repo, 'init', '--quiet');
    writeFileSync(join(repo, 'tracked.txt'), 'one\ntwo\n');
    git(repo, 'add', 'tracked.txt');
    git(repo, 'commit', '--quiet', '-m', 'first');
    writeFileSync(join(repo, 'tracked.txt'), 'stashed\n');
    git(repo, 'stash', '--quiet');
    writeFileSync(join(repo, 'untracked.txt'), 'left alone\n');
    const before = userState(repo);

    const { conversationId } = await runTheTurn();
    const view = await invoke('changes', { conversationId, step: null });
    expect(view).toMatchObject({ inRepository: true, repositoryState: null });
    await listDiffRevertUndo(conversationId);

    // "Revert this turn": every file back as the conversation found it.
    const whole = await invoke('revert', {
      conversationId,
      target: { kind: 'step', step: 1 },
      overwriteChanged: false,
    });
    expect(whole.step).toMatchObject({ kind: 'revert', to: 'the start of turn 1', files: 3 });
    for (const [path, content] of Object.entries(BEFORE_THE_TURN)) expect(read(path)).toBe(content);
    expect((await invoke('changes', { conversationId, step: null })).files).toEqual([]);
    await invoke('closeConversation', { conversationId });
    expect(userState(repo)).toEqual(before);
  });
});

describe('Changes in a plain folder, with the real CLI', () => {
  it('lists and reverts the same, flags and keeps a hand edit, and Rewind restores what the command made', async () => {
    writeFileSync(join(world.cwd, 'tracked.txt'), 'one\ntwo\n');
    const { conversationId, uuid } = await runTheTurn();
    expect(await invoke('changes', { conversationId, step: null })).toMatchObject({
      inRepository: false,
      repositoryState: null,
    });
    await listDiffRevertUndo(conversationId);

    writeFileSync(join(world.cwd, 'tracked.txt'), 'by hand\n');
    const view = await invoke('changes', { conversationId, step: null });
    expect(view.files.filter((file) => file.changedSince).map((file) => file.path)).toEqual(['tracked.txt']);
    const kept = await invoke('revert', {
      conversationId,
      target: { kind: 'file', path: 'tracked.txt', step: null },
      overwriteChanged: false,
    });
    expect(kept.kept).toEqual(['tracked.txt']);
    expect(read('tracked.txt')).toBe('by hand\n');
    // Nothing was written, so no step; and the hand edit is still flagged, after a revert of another file
    // too (whose own snapshots took the hand edit in).
    expect(kept.step).toBeNull();
    const other = await invoke('revert', {
      conversationId,
      target: { kind: 'file', path: 'new.txt', step: null },
      overwriteChanged: false,
    });
    expect(other.step).toMatchObject({ kind: 'revert', paths: ['new.txt'] });
    const flagged = (await invoke('changes', { conversationId, step: null })).files.filter(
      (file) => file.changedSince,
    );
    expect(flagged.map((file) => file.path)).toEqual(['tracked.txt']);

    const target = { conversationId };
    const preview = await invoke('rewindFiles', { target, userMessageUuid: uuid, dryRun: true });
    const made = join(world.cwd, 'made-by-bash.txt');
    expect(preview.canRewind).toBe(true);
    expect(preview.byCommand).toEqual([made]);
    expect(preview.filesChanged).toContain(made);
    expect(preview.fileChanges).toContainEqual({ path: made, insertions: 0, deletions: 1, byCommand: true });
    await invoke('rewindFiles', { target, userMessageUuid: uuid, dryRun: false });
    expect(existsSync(made)).toBe(false);
    expect(read('new.txt')).toBeNull();
    const steps = (await invoke('changes', { conversationId, step: null })).steps;
    expect(steps.at(-1)).toMatchObject({ kind: 'revert', to: 'the start of turn 1, by Rewind' });
  });
});

describe('Changes between turns', () => {
  it('keeps what changed outside the conversation out of the next turn, and a revert asks before it overwrites it', async () => {
    const notes = join(world.cwd, 'notes.txt');
    world.fake.enqueue(
      tool('Write', { file_path: notes, content: 'by Claude\n' }),
      { blocks: [{ type: 'text', text: 'Wrote the notes.' }] },
      tool('Bash', { command: "printf 'b\\n' > made-in-turn-2.txt", description: 'make a file' }),
      { blocks: [{ type: 'text', text: 'Made a file.' }] },
    );
    const { conversationId } = await invoke('startConversation', { cwd: world.cwd });
    const stepsSoFar = () =>
      harness.eventsOf(conversationId).filter((event) => event.kind === 'changes').length;
    await invoke('send', { conversationId, text: 'write the notes' });
    await harness.when(() => stepsSoFar() >= 1);
    // By hand, between the turns.
    writeFileSync(notes, 'by Claude\nand by hand\n');
    writeFileSync(join(world.cwd, 'hand.txt'), 'mine\n');
    await invoke('send', { conversationId, text: 'make a file' });
    await harness.when(() =>
      harness.eventsOf(conversationId).some((event) => event.kind === 'changes' && event.steps >= 3),
    );

    const view = await invoke('changes', { conversationId, step: null });
    expect(view.steps.map((step) => step.kind)).toEqual(['turn', 'outside', 'turn']);
    expect((await invoke('changes', { conversationId, step: 2 })).files.map((file) => file.path)).toEqual([
      'hand.txt',
      'notes.txt',
    ]);
    // The second turn's own changes only: its command's file.
    const second = await invoke('changes', { conversationId, step: 3 });
    expect(second.files.map((file) => file.path)).toEqual(['made-in-turn-2.txt']);
    expect(second.files[0]?.steps).toEqual([
      { step: 3, causes: [{ tool: 'Bash', command: "printf 'b\\n' > made-in-turn-2.txt" }] },
    ]);

    // Back to the start, notes.txt would lose the hand edit: asked, and kept unless told.
    const target = { kind: 'file' as const, path: 'notes.txt', step: null };
    const preview = await invoke('previewRevert', { conversationId, target });
    expect(preview.files).toEqual([{ path: 'notes.txt', action: 'delete', changedSince: true }]);
    const kept = await invoke('revert', { conversationId, target, overwriteChanged: false });
    expect(kept).toEqual({ step: null, kept: ['notes.txt'] });
    expect(read('notes.txt')).toBe('by Claude\nand by hand\n');

    // "Revert this turn" of the second turn leaves the hand's files as they are.
    await invoke('revert', { conversationId, target: { kind: 'step', step: 3 }, overwriteChanged: false });
    expect(read('made-in-turn-2.txt')).toBeNull();
    expect(read('hand.txt')).toBe('mine\n');
    expect(read('notes.txt')).toBe('by Claude\nand by hand\n');
  });

  it('has the turn kept by the time it shows finished, so a hand edit straight after is not the turn', async () => {
    const notes = join(world.cwd, 'notes.txt');
    world.fake.enqueue(tool('Write', { file_path: notes, content: 'by Claude\n' }), {
      blocks: [{ type: 'text', text: 'Wrote the notes.' }],
    });
    const { conversationId } = await invoke('startConversation', { cwd: world.cwd });
    await invoke('send', { conversationId, text: 'write the notes' });
    await harness.when(() =>
      harness
        .eventsOf(conversationId)
        .some((event) => event.kind === 'message' && event.message.type === 'result'),
    );
    // The person edits the file the moment the turn says it ended.
    writeFileSync(notes, 'by Claude\nand by hand\n');
    const view = await invoke('changes', { conversationId, step: null });
    expect(view.steps.map((step) => step.kind)).toEqual(['turn']);
    const turn = await invoke('changes', { conversationId, step: 1 });
    expect(turn.files.map((file) => [file.path, file.added])).toEqual([['notes.txt', 1]]);
    const preview = await invoke('previewRevert', {
      conversationId,
      target: { kind: 'file', path: 'notes.txt', step: null },
    });
    expect(preview.files).toEqual([{ path: 'notes.txt', action: 'delete', changedSince: true }]);
  });
});
