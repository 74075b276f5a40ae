import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Gate, lastUserText, type RecordedRequest } from '../../e2e/fake-model/server';
import { processesWithHome, runInTerminal, type CliWorld } from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, InvokeChannel, InvokeRequest, SetupRun } from '../../shared/ipc';
import type { LibraryRow } from '../../shared/library';
import { gitIn } from '../changes/test-support/git';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Conversations in worktrees through the backend, with real git, the real CLI and the fake model: made from
 * a chosen base with the main checkout's status untouched throughout, a Write that stays in its worktree,
 * two worktrees writing the same path at once, remove then resume (made again from its branch, with the
 * history), the setup command holding the first message (and stopped while it runs), and the faults: a
 * taken name, no repository, git missing or too old, submodules, a locked worktree or one deleted by hand,
 * and a worktree the CLI made with `--worktree` in a terminal, made again on resume.
 */

let harness: BackendHarness;
let world: CliWorld;
let top: string;
let statusBefore: string;

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);

const status = () => gitIn(top, 'status', '--porcelain=v1', '--untracked-files=all');

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world } = harness);
  top = world.cwd;
  writeFileSync(join(top, 'app.txt'), 'main\n');
  gitIn(top, 'init', '--quiet', '-b', 'main');
  gitIn(top, 'add', '-A');
  gitIn(top, 'commit', '--quiet', '-m', 'main');
  gitIn(top, 'checkout', '--quiet', '-b', 'release');
  writeFileSync(join(top, 'app.txt'), 'release\n');
  gitIn(top, 'commit', '--quiet', '-am', 'release');
  gitIn(top, 'checkout', '--quiet', 'main');
  writeFileSync(join(top, 'notes.txt'), 'the user’s own, untracked\n');
  statusBefore = status();
});

afterEach(async () => {
  // Whatever a test did in its worktrees, the main checkout reads as it did.
  expect(status()).toBe(statusBefore);
  await harness.dispose();
});

const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });
const write = (path: string, content: string) => ({
  blocks: [{ type: 'tool_use' as const, name: 'Write', input: { file_path: path, content } }],
});
const results = (conversationId: string) =>
  harness
    .eventsOf(conversationId)
    .filter((event) => event.kind === 'message' && event.message.type === 'result').length;
const setupRuns = (conversationId: string): SetupRun[] =>
  harness
    .eventsOf(conversationId)
    .flatMap((event: ConversationEvent) => (event.kind === 'setup' ? [event.run] : []));

async function refusal<C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) {
  const result = await harness.backend.invoke(channel, request);
  expect(result.ok).toBe(false);
  return result.ok ? null : result.error;
}

const warnings = (conversationId: string) =>
  harness
    .eventsOf(conversationId)
    .flatMap((event: ConversationEvent) => (event.kind === 'warning' ? [event.message] : []));

/** Runs `work` with process.env[key] (which the backend's git runs with) set to `value`, then puts it back. */
async function withEnv<T>(key: string, value: string, work: () => Promise<T>): Promise<T> {
  const before = process.env[key];
  process.env[key] = value;
  try {
    return await work();
  } finally {
    if (before === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = before;
  }
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The main checkout has no settings; a branch `hooked` brings a SessionStart hook the user never trusted. */
function addHookedBranch(): void {
  gitIn(top, 'checkout', '--quiet', '-b', 'hooked');
  mkdirSync(join(top, '.claude'), { recursive: true });
  const hook = [{ hooks: [{ type: 'command', command: 'touch hooked.marker' }] }];
  writeFileSync(join(top, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: hook } }));
  gitIn(top, 'add', '-A');
  gitIn(top, 'commit', '--quiet', '-m', 'a hook');
  gitIn(top, 'checkout', '--quiet', 'main');
  statusBefore = status();
}

async function rowsWhen(done: (rows: LibraryRow[]) => boolean): Promise<LibraryRow[]> {
  for (;;) {
    const { rows } = await invoke('libraryList', {});
    if (done(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a conversation in a new worktree', () => {
  it('is made from the chosen base, named from the first message, and its Write stays in it', async () => {
    const worktreePath = join(top, '.claude', 'worktrees', 'fix-the-login-page-please');
    world.fake.enqueue(write(join(worktreePath, 'app.txt'), 'fixed\n'), say('Fixed.'));
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'release' },
      firstMessage: 'Fix the login page, please',
    });
    expect(snapshot.cwd).toBe(worktreePath);
    expect(snapshot.worktree).toEqual({
      repository: top,
      name: 'fix-the-login-page-please',
      branch: 'fix-the-login-page-please',
      base: 'release',
    });
    await harness.when(() => results(snapshot.conversationId) === 1);
    const request = world.fake.messageRequests().find((r) => lastUserText(r).includes('Fix the login page'));
    expect(request).toBeDefined();
    expect(readFileSync(join(worktreePath, 'app.txt'), 'utf8')).toBe('fixed\n');
    // The main checkout keeps its own branch and file.
    expect(readFileSync(join(top, 'app.txt'), 'utf8')).toBe('main\n');
    expect(gitIn(top, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    const { worktrees } = await invoke('worktrees', {});
    expect(worktrees).toEqual([
      expect.objectContaining({ path: worktreePath, base: 'release', removed: false, filesChanged: 1 }),
    ]);
    // The repository is the recent folder, not its worktree.
    expect(await invoke('worktreeChoices', { cwd: worktreePath })).toMatchObject({
      available: true,
      repository: top,
      branches: ['main', 'fix-the-login-page-please', 'release'],
    });
  });

  it('keeps two worktrees of one repository apart while both write the same path at once', async () => {
    const both = new Gate();
    const gated = (text: string) => (req: RecordedRequest) => lastUserText(req).includes(text);
    for (const word of ['alpha', 'beta']) {
      const path = join(top, '.claude', 'worktrees', word, 'same.txt');
      world.fake.when(
        gated(`write ${word}`),
        { ...write(path, `${word}\n`), hold: { after: 0, until: both } },
        { times: 1 },
      );
    }
    world.fake.when(() => true, say('Written.'));
    const [alpha, beta] = await Promise.all(
      ['alpha', 'beta'].map((word) =>
        invoke('startConversation', {
          cwd: top,
          worktree: { base: 'main', name: word },
          firstMessage: `write ${word}`,
        }),
      ),
    );
    // Both turns are running: each reply waits until the other's request has come too.
    await world.fake.waitForRequest(gated('write alpha'));
    await world.fake.waitForRequest(gated('write beta'));
    both.release();
    await harness.when(() => results(alpha!.conversationId) === 1 && results(beta!.conversationId) === 1);
    expect(readFileSync(join(alpha!.cwd, 'same.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(beta!.cwd, 'same.txt'), 'utf8')).toBe('beta\n');
    expect(existsSync(join(top, 'same.txt'))).toBe(false);
  });

  it('is removed, and made again from its branch on resume, where the model gets the history', async () => {
    world.fake.enqueue(say('Noted: pelican.'));
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'birds' },
      firstMessage: 'Remember the word pelican',
    });
    await harness.when(() => results(snapshot.conversationId) === 1);
    writeFileSync(join(snapshot.cwd, 'lost.txt'), 'uncommitted\n');
    // A second conversation at work in the same worktree (as a fork of the first would be).
    await invoke('startConversation', { cwd: snapshot.cwd });
    const removed = await invoke('removeWorktree', {
      conversationId: snapshot.conversationId,
      deleteBranch: false,
    });
    expect(removed.sessionId).toBe(snapshot.sessionId);
    expect(existsSync(snapshot.cwd)).toBe(false);
    // Nothing of Claude's is left at work in a folder that is gone.
    expect((await invoke('listConversations', {})).conversations).toEqual([]);
    expect((await invoke('worktrees', {})).worktrees).toEqual([
      expect.objectContaining({ path: snapshot.cwd, removed: true }),
    ]);
    await rowsWhen((rows) => rows.some((row) => row.sessionId === snapshot.sessionId && row.resumable));

    const resumed = await invoke('resumeSaved', { sessionId: snapshot.sessionId });
    expect(resumed.cwd).toBe(snapshot.cwd);
    expect(resumed.worktree).toMatchObject({ name: 'birds', branch: 'birds', base: 'main' });
    expect(existsSync(join(snapshot.cwd, 'app.txt'))).toBe(true);
    world.fake.enqueue(say('The word was pelican.'));
    await invoke('send', { conversationId: resumed.conversationId, text: 'Which word was it?' });
    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('Which word was it?'));
    const body = JSON.stringify(request.body);
    expect(body).toContain('Remember the word pelican');
    expect(body).toContain('Noted: pelican.');
    expect((await invoke('worktrees', {})).worktrees).toEqual([
      expect.objectContaining({ path: snapshot.cwd, removed: false }),
    ]);
  });

  it('refuses to make one again when its branch went with it', async () => {
    world.fake.enqueue(say('Noted.'));
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'gone' },
      firstMessage: 'Remember this',
    });
    await harness.when(() => results(snapshot.conversationId) === 1);
    await invoke('removeWorktree', { conversationId: snapshot.conversationId, deleteBranch: true });
    expect(gitIn(top, 'branch', '--list', 'gone').trim()).toBe('');
    // Without a record a CLI-style folder would still be looked at by its layout: give it no branch.
    await rowsWhen((rows) => rows.some((row) => row.sessionId === snapshot.sessionId));
    const error = await refusal('resumeSaved', { sessionId: snapshot.sessionId });
    expect(error?.message).toContain('is gone');
  });
});

describe("a repository's setup command", () => {
  it('runs in each new worktree before the first turn, and the first message waits for it', async () => {
    const saved = await invoke('setWorktreeSetup', {
      repository: top,
      command: 'sleep 1 && echo ready > prepared.txt',
    });
    expect(saved).toEqual({ repository: top, command: 'sleep 1 && echo ready > prepared.txt' });
    expect(await invoke('worktreeSetups', {})).toEqual({ setups: [saved] });
    world.fake.enqueue(say('Ready.'));
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'prepared' },
      firstMessage: 'Go',
    });
    await world.fake.waitForRequest((r) => lastUserText(r).includes('Go'));
    // The message went only once the command had done its work, and its card said so.
    expect(existsSync(join(snapshot.cwd, 'prepared.txt'))).toBe(true);
    expect(setupRuns(snapshot.conversationId).map((run) => run.status)).toEqual(['running', 'passed']);
    await harness.when(() => results(snapshot.conversationId) === 1);
    // Kept in the transcript, so the saved conversation shows the card too.
    const transcripts = join(harness.dataDir, 'transcripts');
    const kept = readdirSync(transcripts).map((name) => readFileSync(join(transcripts, name), 'utf8'));
    expect(kept.join('\n')).toContain('"type":"byre_setup"');
  });

  it('holds the messages after a failure until Go on without it, and Run again runs it again', async () => {
    await invoke('setWorktreeSetup', { repository: top, command: 'echo broken; exit 3' });
    world.fake.enqueue(say('Going on.'), say('Still going.'));
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'broken' },
      firstMessage: 'First',
    });
    const { conversationId } = snapshot;
    const failedRuns = () => setupRuns(conversationId).filter((run) => run.status === 'failed');
    await harness.when(() => failedRuns().length === 1);
    expect(failedRuns()[0]).toMatchObject({ summary: 'exit 3', output: 'broken\n' });
    await invoke('send', { conversationId, text: 'Second' });
    await invoke('setupAction', { conversationId, action: 'retry' });
    await harness.when(() => failedRuns().length === 2);
    expect(world.fake.messageRequests()).toEqual([]);
    await invoke('setupAction', { conversationId, action: 'skip' });
    // Both go once it is skipped, in the order they were sent.
    await world.fake.waitForRequest((r) => JSON.stringify(r.body).includes('Second'));
    const sent = world.fake
      .messageRequests()
      .map((r) => JSON.stringify(r.body))
      .join('\n');
    expect(sent.indexOf('First')).toBeGreaterThan(-1);
    expect(sent.indexOf('First')).toBeLessThan(sent.indexOf('Second'));
    expect(setupRuns(conversationId).at(-1)?.status).toBe('skipped');
    // Nothing waits any more: asking again is refused, saying why.
    const error = await refusal('setupAction', { conversationId, action: 'skip' });
    expect(error).toMatchObject({ name: 'WorktreeRefused' });
  });
});

describe('what is refused, and how a worktree starts', () => {
  it('refuses a taken name and a folder outside any repository, making nothing', async () => {
    gitIn(top, 'branch', 'taken');
    const taken = await refusal('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'taken' },
    });
    expect(taken).toMatchObject({ name: 'WorktreeRefused' });
    expect(taken?.message).toContain('taken is taken');
    const plain = join(world.home, 'plain');
    mkdirSync(plain);
    expect(await invoke('worktreeChoices', { cwd: plain })).toEqual({
      available: false,
      reason: 'This folder is not in a git repository.',
    });
    expect(await refusal('startConversation', { cwd: plain, worktree: { base: 'main' } })).toEqual({
      name: 'WorktreeRefused',
      message: 'This folder is not in a git repository.',
    });
    expect(existsSync(join(top, '.claude', 'worktrees', 'taken'))).toBe(false);
  });

  it('bases a detached HEAD on its commit, and a name from the message never takes one in use', async () => {
    const head = gitIn(top, 'rev-parse', 'HEAD').trim();
    gitIn(top, 'checkout', '--quiet', '--detach');
    expect(await invoke('worktreeChoices', { cwd: top })).toMatchObject({ current: null, head });
    gitIn(top, 'branch', 'tidy-up');
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: head },
      firstMessage: 'Tidy up',
    });
    expect(snapshot.worktree).toMatchObject({ name: 'tidy-up-2', base: null });
    expect(gitIn(snapshot.cwd, 'rev-parse', 'HEAD').trim()).toBe(head);
    gitIn(top, 'checkout', '--quiet', 'main');
  });

  it("starts a trusted repository's worktree with its settings, asking first only for the repository", async () => {
    mkdirSync(join(top, '.claude'), { recursive: true });
    const hook = [{ hooks: [{ type: 'command', command: 'touch session-start.marker' }] }];
    writeFileSync(join(top, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: hook } }));
    gitIn(top, 'add', '-A');
    gitIn(top, 'commit', '--quiet', '-m', 'settings');
    statusBefore = status();
    const request = { cwd: top, worktree: { base: 'main', name: 'trusted' } };
    const asked = await refusal('startConversation', request);
    expect(asked).toMatchObject({ name: 'TrustNeeded', folder: top });
    // Nothing was made while the question waits.
    expect(existsSync(join(top, '.claude', 'worktrees', 'trusted'))).toBe(false);
    const view = await invoke('folderTrust', { cwd: top });
    await invoke('decideTrust', { folder: view.folder, digest: view.digest, trust: true });
    world.fake.enqueue(say('Hello.'));
    const snapshot = await invoke('startConversation', { ...request, firstMessage: 'hello' });
    expect(snapshot.folderSettingsOff).toBeUndefined();
    await harness.when(() => results(snapshot.conversationId) === 1);
    // The repository's hook ran in the worktree, which asked nothing of its own.
    expect(existsSync(join(snapshot.cwd, 'session-start.marker'))).toBe(true);
  });

  it("asks about a base branch's own settings for its worktree, then starts in that same worktree", async () => {
    addHookedBranch();
    const request = { cwd: top, worktree: { base: 'hooked', name: 'from-hooked' }, firstMessage: 'hi' };
    const path = join(top, '.claude', 'worktrees', 'from-hooked');
    const asked = await refusal('startConversation', request);
    expect(asked).toMatchObject({ name: 'TrustNeeded', folder: path });
    // The worktree waits for the answer, so that its files can be shown; its hook has not run.
    const view = await invoke('folderTrust', { cwd: path });
    expect(view.items.map((item) => item.text).join('\n')).toContain('touch hooked.marker');
    expect(existsSync(join(path, 'hooked.marker'))).toBe(false);
    await invoke('decideTrust', { folder: view.folder, digest: view.digest, trust: true });
    world.fake.enqueue(say('Hello.'));
    const snapshot = await invoke('startConversation', request);
    expect(snapshot.cwd).toBe(path);
    await harness.when(() => results(snapshot.conversationId) === 1);
    expect(existsSync(join(path, 'hooked.marker'))).toBe(true);
    // One worktree and one branch, not a second of each.
    expect(gitIn(top, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
    expect(gitIn(top, 'branch', '--list', 'from-hooked*').trim().split('\n')).toHaveLength(1);
  });
});

describe('a worktree made for a trust question never answered', () => {
  it('is removed, with its branch, when Byre closes', async () => {
    addHookedBranch();
    const path = join(top, '.claude', 'worktrees', 'unanswered');
    const request = { cwd: top, worktree: { base: 'hooked', name: 'unanswered' } };
    expect(await refusal('startConversation', request)).toMatchObject({ name: 'TrustNeeded', folder: path });
    expect(existsSync(path)).toBe(true);
    // The window closes with the question still open.
    await harness.backend.dispose();
    expect(existsSync(path)).toBe(false);
    expect(gitIn(top, 'branch', '--list', 'unanswered').trim()).toBe('');
    expect(gitIn(top, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});

describe('stopping a setup command while it runs', () => {
  it('kills it, drops the messages that waited, and waits for Run again or Go on', async () => {
    await invoke('setWorktreeSetup', { repository: top, command: 'echo started; sleep 300' });
    const snapshot = await invoke('startConversation', {
      cwd: top,
      worktree: { base: 'main', name: 'slow' },
      firstMessage: 'Dropped on stop',
    });
    const { conversationId } = snapshot;
    // The shell may exec its last command, so its arguments stand apart in /proc: look for the program.
    const sleeping = () => processesWithHome(world.home, 'sleep');
    await until(() => sleeping().length > 0);
    await invoke('interrupt', { conversationId });
    await harness.when(() => setupRuns(conversationId).at(-1)?.status === 'stopped');
    await until(() => sleeping().length === 0);
    expect(warnings(conversationId).join('\n')).toContain('The setup command was stopped');
    // Stopped counts as failed: what is sent now waits, as after a failure.
    await invoke('send', { conversationId, text: 'Sent after the stop' });
    expect(world.fake.messageRequests()).toEqual([]);
    world.fake.enqueue(say('Going on.'));
    await invoke('setupAction', { conversationId, action: 'skip' });
    await harness.when(() => results(conversationId) === 1);
    const sent = world.fake
      .messageRequests()
      .map((r) => JSON.stringify(r.body))
      .join('\n');
    expect(sent).toContain('Sent after the stop');
    expect(sent).not.toContain('Dropped on stop');
  });
});

describe('the faults a worktree start or removal meets', () => {
  it('says which git is there when it is too old, and that there is none when missing, making nothing', async () => {
    const bin = join(world.home, 'old-git');
    mkdirSync(bin);
    writeFileSync(join(bin, 'git'), '#!/bin/sh\necho "git version 2.20.1"\n');
    chmodSync(join(bin, 'git'), 0o755);
    const tooOld = 'This is git 2.20.1: worktrees need git 2.31 or later.';
    await withEnv('PATH', `${bin}:${process.env.PATH ?? ''}`, async () => {
      expect(await invoke('worktreeChoices', { cwd: top })).toEqual({ available: false, reason: tooOld });
      expect(
        await refusal('startConversation', { cwd: top, worktree: { base: 'main', name: 'old' } }),
      ).toEqual({ name: 'WorktreeRefused', message: tooOld });
    });
    const none = join(world.home, 'no-git');
    mkdirSync(none);
    const missing = 'Git is not installed: worktrees need git 2.31 or later.';
    await withEnv('PATH', none, async () => {
      expect(await invoke('worktreeChoices', { cwd: top })).toEqual({ available: false, reason: missing });
      expect(
        await refusal('startConversation', { cwd: top, worktree: { base: 'main', name: 'none' } }),
      ).toEqual({ name: 'WorktreeRefused', message: missing });
    });
    expect(existsSync(join(top, '.claude'))).toBe(false);
    expect(gitIn(top, 'branch', '--list', 'old', 'none').trim()).toBe('');
  });

  it('lists submodules with their URLs, fetches them into a new worktree only when asked, and says when it cannot', async () => {
    const lib = join(world.home, 'lib');
    mkdirSync(lib);
    writeFileSync(join(lib, 'lib.txt'), 'the library\n');
    gitIn(lib, 'init', '--quiet', '-b', 'main');
    gitIn(lib, 'add', '-A');
    gitIn(lib, 'commit', '--quiet', '-m', 'lib');
    gitIn(top, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', lib, 'lib');
    gitIn(top, 'commit', '--quiet', '-m', 'a submodule');
    statusBefore = status();
    expect(await invoke('worktreeChoices', { cwd: top })).toMatchObject({
      notes: [],
      submodules: [{ path: 'lib', url: lib }],
    });
    // The URL the repository's own config sets is the one fetched, and the one shown.
    gitIn(top, 'config', 'submodule.lib.url', 'https://elsewhere.example/lib.git');
    expect(await invoke('worktreeChoices', { cwd: top })).toMatchObject({
      submodules: [{ path: 'lib', url: 'https://elsewhere.example/lib.git' }],
    });
    gitIn(top, 'config', 'submodule.lib.url', lib);
    // Git clones a submodule from a local folder only where the user's config allows it, as here.
    writeFileSync(join(world.home, '.gitconfig'), '[protocol "file"]\n\tallow = always\n');
    world.fake.enqueue(say('Hello.'), say('Hello again.'), say('Not fetched.'));

    // Not asked: nothing is fetched, and the conversation says how to.
    const notAsked = await withEnv('HOME', world.home, () =>
      invoke('startConversation', {
        cwd: top,
        worktree: { base: 'main', name: 'not-asked' },
        firstMessage: 'hi',
      }),
    );
    await harness.when(() => results(notAsked.conversationId) === 1);
    expect(existsSync(join(notAsked.cwd, 'lib', 'lib.txt'))).toBe(false);
    expect(warnings(notAsked.conversationId)).toEqual([
      expect.stringContaining('Its submodules were not fetched, as you chose'),
    ]);

    const withLib = await withEnv('HOME', world.home, () =>
      invoke('startConversation', {
        cwd: top,
        worktree: { base: 'main', name: 'with-lib', submodules: true },
        firstMessage: 'hi',
      }),
    );
    expect(readFileSync(join(withLib.cwd, 'lib', 'lib.txt'), 'utf8')).toBe('the library\n');
    await harness.when(() => results(withLib.conversationId) === 1);
    expect(warnings(withLib.conversationId)).toEqual([]);

    // Where the submodule cannot be had, the conversation still starts, and says so.
    renameSync(lib, `${lib}-moved`);
    const without = await withEnv('HOME', world.home, () =>
      invoke('startConversation', {
        cwd: top,
        worktree: { base: 'main', name: 'no-lib', submodules: true },
        firstMessage: 'hi',
      }),
    );
    await harness.when(() => results(without.conversationId) === 1);
    expect(warnings(without.conversationId)).toEqual([
      expect.stringContaining('The submodules could not be set up in the worktree'),
    ]);
    expect(existsSync(join(without.cwd, 'app.txt'))).toBe(true);
  });

  it('removes a locked worktree and one whose folder was deleted by hand, keeping their branches', async () => {
    world.fake.enqueue(say('One.'), say('Two.'));
    const [locked, deleted] = await Promise.all(
      ['locked', 'deleted'].map((name) =>
        invoke('startConversation', { cwd: top, worktree: { base: 'main', name }, firstMessage: name }),
      ),
    );
    await harness.when(() => results(locked!.conversationId) === 1 && results(deleted!.conversationId) === 1);
    gitIn(top, 'worktree', 'lock', '--reason', 'kept by hand', locked!.cwd);
    rmSync(deleted!.cwd, { recursive: true, force: true });
    for (const snapshot of [locked!, deleted!]) {
      await invoke('removeWorktree', { conversationId: snapshot.conversationId, deleteBranch: false });
      expect(existsSync(snapshot.cwd)).toBe(false);
    }
    expect(gitIn(top, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(gitIn(top, 'branch', '--list', 'locked', 'deleted').trim().split(/\s+/)).toEqual([
      'deleted',
      'locked',
    ]);
    const { worktrees } = await invoke('worktrees', {});
    expect(worktrees).toHaveLength(2);
    expect(worktrees).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: locked!.cwd, removed: true }),
        expect.objectContaining({ path: deleted!.cwd, removed: true }),
      ]),
    );
  });

  it("makes a CLI --worktree session's worktree again on resume, from its branch, with the history", async () => {
    world.fake.enqueue(say('Noted: heron.'));
    const { session_id } = await runInTerminal(world, 'Remember the word heron', top, [
      '--worktree',
      'heron',
    ]);
    const path = join(top, '.claude', 'worktrees', 'heron');
    expect(gitIn(path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('worktree-heron');
    // The CLI leaves its worktrees unignored (cli-facts 15); Byre's own making of it again keeps it out.
    expect(status()).toContain('?? .claude/');
    gitIn(top, 'worktree', 'remove', '--force', '--force', path);
    expect(existsSync(path)).toBe(false);
    await rowsWhen((rows) => rows.some((row) => row.sessionId === session_id && row.resumable));

    const resumed = await invoke('resumeSaved', { sessionId: session_id });
    expect(resumed.cwd).toBe(path);
    expect(gitIn(path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('worktree-heron');
    world.fake.enqueue(say('The word was heron.'));
    await invoke('send', { conversationId: resumed.conversationId, text: 'Which word was it?' });
    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('Which word was it?'));
    expect(JSON.stringify(request.body)).toContain('Remember the word heron');
  });
});
