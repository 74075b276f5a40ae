import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../e2e/fake-model/server';
import type { ChangesView, InvokeChannel, InvokeRequest } from '../../shared/ipc';
import { gitIn } from '../changes/test-support/git';
import { WorktreeRecords } from '../data/worktree-records';
import { openBackend, type BackendHarness } from '../test-support/invoke';
import { GH_MISSING } from './pull-request';
import { createWorktree, repositoryOf, type Repository, type Worktree } from './worktrees';

/**
 * Finishing a worktree conversation through the backend, with real git, the real CLI and the fake model:
 * merge and squash into the base (the main checkout's status unchanged, uncommitted work committed first
 * when asked), a conflict that changes nothing anywhere, a base checkout with local changes refused, two
 * merges asked at once, a pull request through a stand-in gh that records what it was given (pushed to a
 * real bare repository as origin), and the Changes panel against the base beside the conversation's own.
 * Each worktree is made here with createWorktree and recorded as Byre records one, then a conversation is
 * started in its folder.
 */

let harness: BackendHarness;
let top: string;
let repository: Repository;

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);
const run = gitIn;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  top = harness.world.cwd;
  writeFileSync(join(top, 'app.ts'), 'one\ntwo\nthree\n');
  writeFileSync(join(top, '.gitignore'), '*.log\n');
  run(top, 'init', '--quiet', '-b', 'main');
  run(top, 'add', '-A');
  run(top, 'commit', '--quiet', '-m', 'start');
  repository = (await repositoryOf(top))!;
  // Merge commits need someone to be by, whatever git identity the machine has (or lacks).
  await invoke('setCommitIdentity', {
    scope: 'global',
    cwd: top,
    identity: { name: 'Byre Test', email: 'test@example.com' },
  });
});

afterEach(() => harness.dispose());

/** A worktree from main, recorded as Byre's, with a conversation started in it. */
async function worktreeConversation(name: string): Promise<{ worktree: Worktree; conversationId: string }> {
  const worktree = await createWorktree(repository, 'main', name);
  new WorktreeRecords(harness.dataDir).add({
    path: worktree.path,
    repository: repository.top,
    commonDir: repository.commonDir,
    name,
    branch: worktree.branch,
    base: 'main',
    baseCommit: worktree.baseCommit,
    createdAt: Date.now(),
    removedAt: null,
  });
  const { conversationId } = await invoke('startConversation', { cwd: worktree.path });
  return { worktree, conversationId };
}

/** One turn of the conversation in which the model Writes `file`; resolves once its Changes step is recorded. */
async function writeTurn(conversationId: string, prompt: string, file: string, content: string) {
  const write: ScriptedReply = {
    blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: file, content } }],
  };
  harness.world.fake.enqueue(write, { blocks: [{ type: 'text', text: 'Done.' }] });
  await invoke('send', { conversationId, text: prompt });
  // The turn's own step: one of what changed outside it could come first.
  await harness.when(async () =>
    harness.eventsOf(conversationId).some((event) => event.kind === 'changes')
      ? (await invoke('changes', { conversationId, step: null, scope: 'conversation' })).steps.some(
          (step) => step.kind === 'turn',
        )
      : false,
  );
}

function commitIn(folder: string, file: string, text: string, message: string): void {
  writeFileSync(join(folder, file), text);
  run(folder, 'add', '-A');
  run(folder, 'commit', '--quiet', '-m', message);
}

const status = (folder: string) =>
  run(folder, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all');
const parentsOf = (ref: string) =>
  run(top, 'rev-list', '--parents', '-n', '1', ref).trim().split(' ').slice(1);
const rev = (folder: string, ref: string) => run(folder, 'rev-parse', ref).trim();
const filesOn = (ref: string) => run(top, 'ls-tree', '--name-only', ref).split('\n').filter(Boolean).sort();
const merge = (
  conversationId: string,
  how: { squash: boolean; message: string; commitUncommitted: boolean },
) => invoke('mergeWorktree', { conversationId, ...how });

/** Everything a merge must leave as it was when it does nothing: refs, checkouts, indexes, files. */
function everything(worktree: Worktree) {
  return {
    main: rev(top, 'main'),
    branch: rev(top, worktree.branch),
    topStatus: status(top),
    topIndex: run(top, 'ls-files', '--stage'),
    topFile: readFileSync(join(top, 'app.ts'), 'utf8'),
    worktreeHead: rev(worktree.path, 'HEAD'),
    worktreeStatus: status(worktree.path),
    worktreeIndex: run(worktree.path, 'ls-files', '--stage'),
    worktreeFile: readFileSync(join(worktree.path, 'app.ts'), 'utf8'),
  };
}

describe('merging a worktree conversation into its base', () => {
  it("merges the conversation's work, committing what is uncommitted first, with the drafted message, as Commit as", async () => {
    const identity = { name: 'Ada Lovelace', email: 'ada@example.com' };
    await invoke('setCommitIdentity', { scope: 'folder', cwd: top, identity });
    const { worktree, conversationId } = await worktreeConversation('feature');
    await writeTurn(conversationId, 'Add the feature file', join(worktree.path, 'feature.txt'), 'feature\n');
    const before = status(top);

    const draft = await invoke('worktreeDraft', { conversationId });
    expect(draft.status).toMatchObject({
      path: worktree.path,
      branch: 'feature',
      base: 'main',
      removed: false,
      ahead: 0,
      behind: 0,
      filesChanged: 1,
      uncommitted: ['feature.txt'],
    });
    expect(draft.commitMessage).toBe(
      'Add the feature file\n\nAsked in the conversation:\n- Add the feature file\n\nFiles changed:\n- feature.txt\n',
    );
    expect(draft.title).toBe('Add the feature file');
    expect(draft.body).toContain('## Files changed\n\n- `feature.txt`\n');
    expect(draft.body).toContain('Made with Byre');

    const merged = await merge(conversationId, {
      squash: false,
      message: draft.commitMessage,
      commitUncommitted: true,
    });
    expect(merged).toEqual({ merged: true, commit: rev(top, 'main'), base: 'main' });
    // A merge commit: the base's old tip and the branch, which now holds the work that was uncommitted.
    expect(parentsOf('main')).toEqual([worktree.baseCommit, rev(top, 'feature')]);
    expect(run(top, 'show', 'feature:feature.txt')).toBe('feature\n');
    expect(run(top, 'log', '-1', '--format=%s', 'feature').trim()).toBe('Add the feature file');
    expect(run(top, 'log', '-1', '--format=%B', 'main').trim()).toBe(draft.commitMessage.trim());
    // Both commits as the repository's own "Commit as", not the one for all folders.
    for (const ref of ['main', 'feature']) {
      expect(run(top, 'log', '-1', '--format=%an <%ae> %cn <%ce>', ref).trim()).toBe(
        'Ada Lovelace <ada@example.com> Ada Lovelace <ada@example.com>',
      );
    }
    // The main checkout has main checked out: fast-forwarded, its files in, its status as it was.
    expect(readFileSync(join(top, 'feature.txt'), 'utf8')).toBe('feature\n');
    expect(status(top)).toBe(before);
    expect(status(worktree.path)).toBe('');
  });

  it('squashes the branch onto the base as one commit', async () => {
    const { worktree, conversationId } = await worktreeConversation('squashed');
    commitIn(worktree.path, 'a.txt', 'a\n', 'first');
    commitIn(worktree.path, 'b.txt', 'b\n', 'second');
    const before = status(top);
    const merged = await merge(conversationId, {
      squash: true,
      message: 'Both files',
      commitUncommitted: false,
    });
    expect(merged).toMatchObject({ merged: true, base: 'main' });
    expect(parentsOf('main')).toEqual([worktree.baseCommit]);
    expect(filesOn('main')).toEqual(['.gitignore', 'a.txt', 'app.ts', 'b.txt']);
    expect(run(top, 'log', '-1', '--format=%s', 'main').trim()).toBe('Both files');
    expect(status(top)).toBe(before);
  });

  it('with a conflict changes nothing anywhere and names the file, even when asked to commit first', async () => {
    const { worktree, conversationId } = await worktreeConversation('left');
    writeFileSync(join(worktree.path, 'app.ts'), 'one\nleft\nthree\n');
    writeFileSync(join(worktree.path, 'new.txt'), 'new\n');
    commitIn(top, 'app.ts', 'one\nright\nthree\n', 'right');
    const before = everything(worktree);
    const result = await merge(conversationId, {
      squash: false,
      message: 'Merge left',
      commitUncommitted: true,
    });
    expect(result).toEqual({ merged: false, conflicts: ['app.ts'] });
    expect(everything(worktree)).toEqual(before);
    expect(before.worktreeStatus).not.toBe('');
  });

  it('refuses while the base is checked out with local changes, saying why', async () => {
    const { worktree, conversationId } = await worktreeConversation('feature');
    commitIn(worktree.path, 'feature.txt', 'feature\n', 'feature');
    writeFileSync(join(top, 'app.ts'), 'the user is editing this\n');
    await expect(
      merge(conversationId, { squash: false, message: 'm', commitUncommitted: false }),
    ).rejects.toThrow(/WorktreeRefused: main is checked out in .* with changes not committed there/);
    expect(readFileSync(join(top, 'app.ts'), 'utf8')).toBe('the user is editing this\n');
    expect(rev(top, 'main')).toBe(worktree.baseCommit);
  });

  it('takes two merges from two worktree conversations asked at once, one after the other', async () => {
    const a = await worktreeConversation('a');
    const b = await worktreeConversation('b');
    commitIn(a.worktree.path, 'a.txt', 'a\n', 'a');
    commitIn(b.worktree.path, 'b.txt', 'b\n', 'b');
    const before = status(top);
    const [first, second] = await Promise.all([
      merge(a.conversationId, { squash: false, message: 'a', commitUncommitted: false }),
      merge(b.conversationId, { squash: false, message: 'b', commitUncommitted: false }),
    ]);
    expect(first).toMatchObject({ merged: true });
    expect(second).toMatchObject({ merged: true });
    const commits = [first, second].map((outcome) => (outcome.merged ? outcome.commit : ''));
    // One on top of the other, whichever went first: neither lost the other's work.
    expect(commits).toContain(rev(top, 'main'));
    const [last, earlier] =
      rev(top, 'main') === commits[0] ? [commits[0], commits[1]] : [commits[1], commits[0]];
    expect(parentsOf(last ?? '')[0]).toBe(earlier);
    expect(filesOn('main')).toEqual(['.gitignore', 'a.txt', 'app.ts', 'b.txt']);
    expect(status(top)).toBe(before);
  });
});

describe('a pull request from a worktree conversation', () => {
  /** A stand-in gh: signed in, and for `pr create` it records its arguments and stdin and prints an address. */
  function standInGh(): { bin: string; args: () => string[]; stdin: () => string } {
    const bin = join(harness.dataDir, 'bin');
    const log = join(harness.dataDir, 'gh-log');
    mkdirSync(bin);
    mkdirSync(log);
    writeFileSync(
      join(bin, 'gh'),
      [
        '#!/bin/sh',
        'if [ "$1" = auth ]; then exit 0; fi',
        `printf '%s\\0' "$@" > '${log}/args'`,
        `cat > '${log}/stdin'`,
        'echo "Creating pull request for feature into main"',
        'echo https://github.com/example/repo/pull/7',
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'gh'), 0o755);
    return {
      bin,
      args: () => readFileSync(join(log, 'args'), 'utf8').split('\0').slice(0, -1),
      stdin: () => readFileSync(join(log, 'stdin'), 'utf8'),
    };
  }

  it('pushes the branch to origin, then runs gh pr create with the title and the body on stdin', async () => {
    const origin = join(harness.dataDir, 'origin.git');
    run(harness.dataDir, 'init', '--quiet', '--bare', origin);
    run(top, 'remote', 'add', 'origin', origin);
    const gh = standInGh();
    const env = harness.world.env;
    env.PATH = `${gh.bin}:${env.PATH ?? ''}`;
    const { worktree, conversationId } = await worktreeConversation('feature');
    commitIn(worktree.path, 'feature.txt', 'feature\n', 'feature');

    const draft = await invoke('worktreeDraft', { conversationId });
    expect(draft.pullRequest).toEqual({ ready: true, remote: 'origin' });
    const body = '## What was asked\n\n- the `feature`\n\nMade with Byre\n';
    const made = await invoke('createPullRequest', { conversationId, title: 'Add the feature', body });
    expect(made.url).toBe('https://github.com/example/repo/pull/7');
    expect(made.output).toContain('Creating pull request for feature into main');
    expect(run(origin, 'rev-parse', 'refs/heads/feature').trim()).toBe(rev(worktree.path, 'HEAD'));
    expect(run(worktree.path, 'rev-parse', '--abbrev-ref', 'feature@{upstream}').trim()).toBe(
      'origin/feature',
    );
    expect(gh.args()).toEqual([
      'pr',
      'create',
      '--base',
      'main',
      '--head',
      'feature',
      '--title',
      'Add the feature',
      '--body-file',
      '-',
    ]);
    expect(gh.stdin()).toBe(body);
  });

  it('says how to get gh where it is missing', async () => {
    const empty = join(harness.dataDir, 'no-gh');
    mkdirSync(empty);
    const { conversationId } = await worktreeConversation('feature');
    harness.world.env.PATH = empty;
    expect((await invoke('worktreeDraft', { conversationId })).pullRequest).toEqual({
      ready: false,
      reason: GH_MISSING,
    });
    await expect(invoke('createPullRequest', { conversationId, title: 't', body: 'b' })).rejects.toThrow(
      `WorktreeRefused: ${GH_MISSING}`,
    );
  });
});

describe("a worktree conversation's Changes against its base", () => {
  /** What Changes must never touch, in the worktree and the main checkout: HEAD, the index, the status. */
  const headsIndexesAndStatus = (worktree: Worktree) => ({
    head: rev(worktree.path, 'HEAD'),
    worktreeIndex: run(worktree.path, 'ls-files', '--stage'),
    worktreeStatus: status(worktree.path),
    topHead: rev(top, 'HEAD'),
    topIndex: run(top, 'ls-files', '--stage'),
    topStatus: status(top),
  });
  const listed = (view: ChangesView) =>
    view.files.map((file) => ({ path: file.path, status: file.status, steps: file.steps }));

  it('shows what the branch committed, what is uncommitted and new files; its own scope only its turn', async () => {
    const worktree = await createWorktree(repository, 'main', 'work');
    // The base moves on after the worktree parted from it: that is not the worktree's change.
    commitIn(top, 'later-on-main.txt', 'later\n', 'later');
    commitIn(worktree.path, 'committed.txt', 'committed\n', 'on the branch');
    writeFileSync(join(worktree.path, 'app.ts'), 'one\nTWO\nthree\n');
    writeFileSync(join(worktree.path, 'debug.log'), 'ignored\n');
    new WorktreeRecords(harness.dataDir).add({
      path: worktree.path,
      repository: repository.top,
      commonDir: repository.commonDir,
      name: 'work',
      branch: 'work',
      base: 'main',
      baseCommit: worktree.baseCommit,
      createdAt: Date.now(),
      removedAt: null,
    });
    const { conversationId } = await invoke('startConversation', { cwd: worktree.path });
    await writeTurn(conversationId, 'make a new file', join(worktree.path, 'new.txt'), 'fresh\n');
    const untouched = headsIndexesAndStatus(worktree);
    const base = { branch: 'main', commit: worktree.baseCommit };

    const against = await invoke('changes', { conversationId, step: null, scope: 'base' });
    expect(against).toMatchObject({ scope: 'base', base, step: null, root: worktree.path });
    expect(listed(against)).toEqual([
      { path: 'app.ts', status: 'modified', steps: [] },
      { path: 'committed.txt', status: 'added', steps: [] },
      { path: 'new.txt', status: 'added', steps: [{ step: 1, causes: [{ tool: 'Write', command: null }] }] },
    ]);
    const diff = await invoke('changesDiff', {
      conversationId,
      step: null,
      scope: 'base',
      path: 'committed.txt',
    });
    expect(diff.kind === 'text' ? diff.hunks.flatMap((hunk) => hunk.lines) : diff).toEqual(['+committed']);
    const edited = await invoke('changesDiff', { conversationId, step: null, scope: 'base', path: 'app.ts' });
    expect(edited.kind === 'text' ? edited.hunks.flatMap((hunk) => hunk.lines) : edited).toEqual([
      ' one',
      '-two',
      '+TWO',
      ' three',
    ]);

    const own = await invoke('changes', { conversationId, step: null, scope: 'conversation' });
    expect(own).toMatchObject({ scope: 'conversation', base });
    expect(listed(own)).toEqual([
      { path: 'new.txt', status: 'added', steps: [{ step: 1, causes: [{ tool: 'Write', command: null }] }] },
    ]);

    expect(headsIndexesAndStatus(worktree)).toEqual(untouched);
  });

  it('has no base scope for a conversation in a folder of its own', async () => {
    const { conversationId } = await invoke('startConversation', { cwd: top });
    const view = await invoke('changes', { conversationId, step: null, scope: 'conversation' });
    expect(view.base).toBeUndefined();
    await expect(invoke('changes', { conversationId, step: null, scope: 'base' })).rejects.toThrow(
      /NotSupported: This conversation is not in a worktree/,
    );
  });
});
