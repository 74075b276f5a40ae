import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Gate, lastUserText, type RecordedRequest } from '../../e2e/fake-model/server';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, InvokeChannel, InvokeRequest, SetupRun } from '../../shared/ipc';
import type { LibraryRow } from '../../shared/library';
import { gitIn } from '../changes/test-support/git';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Conversations in worktrees through the backend, with real git, the real CLI and the fake model: made from
 * a chosen base with the main checkout's status untouched throughout, a Write that stays in its worktree,
 * two worktrees writing the same path at once, remove then resume (made again from its branch, with the
 * history), the setup command holding the first message, and the refusals: a taken name, no repository.
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
    // The main checkout has no settings; the base branch brings a hook the user never trusted.
    gitIn(top, 'checkout', '--quiet', '-b', 'hooked');
    mkdirSync(join(top, '.claude'), { recursive: true });
    const hook = [{ hooks: [{ type: 'command', command: 'touch hooked.marker' }] }];
    writeFileSync(join(top, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: hook } }));
    gitIn(top, 'add', '-A');
    gitIn(top, 'commit', '--quiet', '-m', 'a hook');
    gitIn(top, 'checkout', '--quiet', 'main');
    statusBefore = status();
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
