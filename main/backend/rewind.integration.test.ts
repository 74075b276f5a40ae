import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptedReply } from '../../e2e/fake-model/server';
import { processesWithHome, type CliWorld } from '../../e2e/fixtures/cli-env';
import { ForkRecordsFile } from '../../shared/branches';
import type { ConversationEvent, ConversationSnapshot, InvokeChannel, InvokeRequest } from '../../shared/ipc';
import type { LibraryRow } from '../../shared/library';
import type { Backend } from './backend';
import { openBackend, type BackendHarness } from '../test-support/invoke';
import { FORK_RECORDS_FILE } from '../data/fork-records';
import { Conversation } from '../conversation/conversation';
import { TrustGate } from '../data/trust';

/**
 * Rewind through the backend the UI talks to, against the real CLI and the fake model: forks (with
 * --resume-session-at and --fork-session) and restoring files from the CLI's checkpoints (rewind_files).
 */

let harness: BackendHarness;
let world: CliWorld;
let dataDir: string;
let backend: Backend;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world, dataDir, backend } = harness);
});

afterEach(() => harness.dispose());

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);

/** Resolves with the first truthy value of `check`, looked at again after each event from the backend. */
const when = <T>(check: () => T | undefined | false | Promise<T | undefined | false>) => harness.when(check);

const rowsWhen = (done: (rows: LibraryRow[]) => boolean) =>
  when(async () => {
    const { rows } = await invoke('libraryList', {});
    return done(rows) && rows;
  });

const eventsOf = (conversationId: string) => harness.eventsOf(conversationId);

const resultCount = (conversationId: string) =>
  eventsOf(conversationId).filter((event) => event.kind === 'message' && event.message.type === 'result')
    .length;

/** Sends a message and resolves with its uuid once its turn has ended. */
async function talk(conversation: ConversationSnapshot, text: string): Promise<string> {
  const before = resultCount(conversation.conversationId);
  const { uuid } = await invoke('send', { conversationId: conversation.conversationId, text });
  await when(() => resultCount(conversation.conversationId) > before);
  return uuid;
}

/** The uuid of the last assistant line before the user message `userUuid` (the fork point that rewinds it). */
function lastAssistantBefore(conversationId: string, userUuid: string): string {
  const events = eventsOf(conversationId);
  const prompt = events.findIndex((event) => event.kind === 'prompt' && event.uuid === userUuid);
  return lastAssistantIn(events.slice(0, prompt));
}

function lastAssistantIn(events: ConversationEvent[]): string {
  const uuids = events.flatMap((event) =>
    event.kind === 'message' && event.message.type === 'assistant' ? [event.message.uuid] : [],
  );
  const last = uuids.at(-1);
  if (!last) throw new Error('no assistant line');
  return last;
}

/** Role and flattened text of each message the model received, the CLI's system-role messages left out. */
function history(request: RecordedRequest): { role: string; text: string }[] {
  const body = request.body as {
    messages: { role: string; content: string | { type: string; text?: string }[] }[];
  };
  return body.messages
    .filter((message) => message.role !== 'system')
    .map((message) => ({
      role: message.role,
      text: (typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => block.text ?? `[${block.type}]`).join('')
      ).trim(),
    }));
}

const firstRequestWith = (text: string) => world.fake.waitForRequest((r) => lastUserText(r).includes(text));

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const write = (...files: [path: string, content: string][]): ScriptedReply => ({
  blocks: files.map(([file_path, content]) => ({
    type: 'tool_use' as const,
    name: 'Write',
    input: { file_path, content },
  })),
});

function forkRecords(): ForkRecordsFile['forks'] {
  const file = join(dataDir, FORK_RECORDS_FILE);
  return existsSync(file) ? ForkRecordsFile.parse(JSON.parse(readFileSync(file, 'utf8'))).forks : [];
}

/** The entries of a CLI session file that carry a uuid, in file order. */
function entries(
  sessionId: string,
): { type: string; uuid: string; sessionId: string; forkedFrom?: unknown }[] {
  return readFileSync(world.sessionFile(sessionId), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; uuid?: string; sessionId: string })
    .flatMap((entry) => (entry.uuid ? [{ ...entry, uuid: entry.uuid }] : []));
}

describe('forks with the real CLI', () => {
  it("rewinds before a user message: the fork's first request carries only the history before it, and the original file is untouched", async () => {
    world.fake.enqueue(say('Answer one.'), say('Answer two.'), say('Answer three.'), say('Edited answer.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const second = await talk(original, 'turn two');
    await talk(original, 'turn three');
    const originalFile = world.sessionFile(original.sessionId);
    const before = readFileSync(originalFile);
    const at = lastAssistantBefore(original.conversationId, second);

    const forked = await invoke('forkConversation', {
      from: { conversationId: original.conversationId },
      at,
      message: { text: 'turn two, edited' },
    });
    expect(forked.parentSessionId).toBe(original.sessionId);
    expect(forked.snapshot.sessionId).not.toBe(original.sessionId);
    expect(forked.snapshot.cwd).toBe(world.cwd);
    await when(() => resultCount(forked.snapshot.conversationId) === 1);

    const request = await firstRequestWith('turn two, edited');
    expect(history(request)).toEqual([
      { role: 'user', text: 'turn one' },
      { role: 'assistant', text: 'Answer one.' },
      { role: 'user', text: 'turn two, edited' },
    ]);
    expect(readFileSync(originalFile).equals(before)).toBe(true);
    expect(forkRecords()).toEqual([
      {
        sessionId: forked.snapshot.sessionId,
        parentSessionId: original.sessionId,
        forkPointUuid: at,
        createdAt: expect.any(Number),
      },
    ]);

    // The fork's file copies the parent's entries up to the fork point with their uuids, under its own
    // session id, with no mark of where they came from; then the new prompt, with the uuid Byre gave it.
    const parentEntries = entries(original.sessionId);
    const kept = parentEntries.slice(0, parentEntries.findIndex((entry) => entry.uuid === at) + 1);
    const forkEntries = entries(forked.snapshot.sessionId);
    expect(forkEntries.slice(0, kept.length).map((entry) => entry.uuid)).toEqual(
      kept.map((entry) => entry.uuid),
    );
    expect(forkEntries[kept.length]).toMatchObject({ type: 'user', uuid: forked.uuid });
    expect(new Set(forkEntries.map((entry) => entry.sessionId))).toEqual(
      new Set([forked.snapshot.sessionId]),
    );
    expect(forkEntries.some((entry) => 'forkedFrom' in entry)).toBe(false);
  });

  it('forks a fork, found as an open conversation by its session id', async () => {
    world.fake.enqueue(say('Answer one.'), say('Answer two.'), say('First branch answer.'), say('Second.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const second = await talk(original, 'turn two');
    const first = await invoke('forkConversation', {
      from: { sessionId: original.sessionId },
      at: lastAssistantBefore(original.conversationId, second),
      message: { text: 'first branch' },
    });
    await when(() => resultCount(first.snapshot.conversationId) === 1);

    const at = lastAssistantIn(eventsOf(first.snapshot.conversationId));
    const nested = await invoke('forkConversation', {
      from: { sessionId: first.snapshot.sessionId },
      at,
      message: { text: 'second branch' },
    });
    expect(nested.parentSessionId).toBe(first.snapshot.sessionId);
    expect(history(await firstRequestWith('second branch'))).toEqual([
      { role: 'user', text: 'turn one' },
      { role: 'assistant', text: 'Answer one.' },
      { role: 'user', text: 'first branch' },
      { role: 'assistant', text: 'First branch answer.' },
      { role: 'user', text: 'second branch' },
    ]);
    expect(forkRecords().map(({ sessionId, parentSessionId }) => [sessionId, parentSessionId])).toEqual([
      [first.snapshot.sessionId, original.sessionId],
      [nested.snapshot.sessionId, first.snapshot.sessionId],
    ]);
  });

  it('forks from an assistant message: its whole reply is kept, tool call included, and the new prompt follows it', async () => {
    world.fake.enqueue(
      {
        blocks: [
          { type: 'text', text: 'Checking.' },
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'echo kept-tool-output', description: 'echo' },
          },
        ],
      },
      say('Answer one.'),
      say('Answer two.'),
      say('Carried on.'),
    );
    const original = await invoke('startConversation', { cwd: world.cwd });
    const first = await talk(original, 'turn one');
    const second = await talk(original, 'turn two');
    const events = eventsOf(original.conversationId);
    const reply = events.slice(
      events.findIndex((event) => event.kind === 'prompt' && event.uuid === first),
      events.findIndex((event) => event.kind === 'prompt' && event.uuid === second),
    );

    await invoke('forkConversation', {
      from: { conversationId: original.conversationId },
      at: lastAssistantIn(reply),
      message: { text: 'after answer one' },
    });
    const request = await firstRequestWith('after answer one');
    const seenByModel = history(request);
    expect(seenByModel.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(seenByModel.at(-2)).toEqual({ role: 'assistant', text: 'Answer one.' });
    expect(seenByModel.at(-1)).toEqual({ role: 'user', text: 'after answer one' });
    const body = JSON.stringify(request.body);
    expect(body).toContain('kept-tool-output');
    expect(body).not.toContain('turn two');
    expect(body).not.toContain('Answer two.');
  });

  it('starts a new session in the same folder when nothing before the message is kept', async () => {
    world.fake.enqueue(say('Answer one.'), say('A fresh answer.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const fresh = await invoke('forkConversation', {
      from: { conversationId: original.conversationId },
      at: null,
      message: { text: 'a fresh start' },
    });
    expect(fresh.snapshot.sessionId).not.toBe(original.sessionId);
    expect(fresh.snapshot.cwd).toBe(original.cwd);
    expect(history(await firstRequestWith('a fresh start'))).toEqual([
      { role: 'user', text: 'a fresh start' },
    ]);
    expect(forkRecords()).toEqual([
      {
        sessionId: fresh.snapshot.sessionId,
        parentSessionId: original.sessionId,
        forkPointUuid: null,
        createdAt: expect.any(Number),
      },
    ]);
  });

  it('resumes a fork after its CLI crashed as its own session, not as a new fork', async () => {
    world.fake.enqueue(say('Answer one.'), say('Answer two.'), say('Branch answer.'), say('Still here.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const second = await talk(original, 'turn two');
    const forked = await invoke('forkConversation', {
      from: { conversationId: original.conversationId },
      at: lastAssistantBefore(original.conversationId, second),
      message: { text: 'branch turn' },
    });
    const branch = forked.snapshot.conversationId;
    await when(() => resultCount(branch) === 1);

    const [pid] = processesWithHome(world.home, `--session-id=${forked.snapshot.sessionId}`);
    process.kill(pid!, 'SIGKILL');
    await when(() => eventsOf(branch).some((event) => event.kind === 'exit' && event.error));
    const resumed = await invoke('resume', { conversationId: branch });
    expect(resumed.sessionId).toBe(forked.snapshot.sessionId);
    expect(processesWithHome(world.home, `--resume=${forked.snapshot.sessionId}`)).toHaveLength(1);

    await talk(resumed, 'after the crash');
    expect(history(await firstRequestWith('after the crash'))).toEqual([
      { role: 'user', text: 'turn one' },
      { role: 'assistant', text: 'Answer one.' },
      { role: 'user', text: 'branch turn' },
      { role: 'assistant', text: 'Branch answer.' },
      { role: 'user', text: 'after the crash' },
    ]);
    expect(forkRecords()).toHaveLength(1);
  });

  it('forks again, to the same id, a fork whose CLI died before it saved anything', async () => {
    world.fake.enqueue(say('Answer one.'), say('Answer two.'), say('Branch answer.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const second = await talk(original, 'turn two');
    const events: ConversationEvent[] = [];
    const fork = await Conversation.start({
      id: 'early-death',
      cwd: world.cwd,
      permissionMode: 'bypassPermissions',
      fork: { parentSessionId: original.sessionId, at: lastAssistantBefore(original.conversationId, second) },
      env: world.env,
      startSession: (options) => new TrustGate(dataDir, world.env).startSession(options),
      transcriptDir: join(dataDir, 'transcripts'),
      eventLogDir: join(dataDir, 'open'),
      appVersion: 'test',
      emit: (event) => {
        events.push(event);
        harness.wake();
      },
      notify: () => undefined,
    });
    const { sessionId } = fork.snapshot();
    try {
      // The CLI writes a fork's file only with its first prompt; killed before one, it leaves nothing.
      fork.kill();
      await when(() => events.some((event) => event.kind === 'exit'));
      expect(existsSync(world.sessionFile(sessionId))).toBe(false);

      expect((await fork.resume()).sessionId).toBe(sessionId);
      fork.send('branch turn');
      expect(history(await firstRequestWith('branch turn'))).toEqual([
        { role: 'user', text: 'turn one' },
        { role: 'assistant', text: 'Answer one.' },
        { role: 'user', text: 'branch turn' },
      ]);
    } finally {
      await fork.close();
    }
  });

  it('refuses a fork at a message the saved conversation does not have, and records nothing', async () => {
    world.fake.enqueue(say('Answer one.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    await talk(original, 'turn one');
    const result = await backend.invoke('forkConversation', {
      from: { conversationId: original.conversationId },
      at: '0b9e6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d',
      message: { text: 'never sent' },
    });
    expect(result).toMatchObject({ ok: false, error: { name: 'UnknownMessage' } });
    expect(!result.ok && result.error.message).toMatch(/^That message is not in the saved conversation/);
    expect(forkRecords()).toEqual([]);
    expect((await invoke('listConversations', {})).conversations).toHaveLength(1);
  });

  it('refuses to fork a saved conversation whose CLI file is gone, or to restore its files', async () => {
    world.fake.enqueue(say('Answer one.'));
    const original = await invoke('startConversation', { cwd: world.cwd });
    const first = await talk(original, 'turn one');
    const at = lastAssistantIn(eventsOf(original.conversationId));
    await invoke('closeConversation', { conversationId: original.conversationId });
    await rowsWhen((rows) => rows.some((row) => row.sessionId === original.sessionId && row.resumable));
    // As cleanupPeriodDays would.
    unlinkSync(world.sessionFile(original.sessionId));
    await rowsWhen((rows) => rows.some((row) => row.sessionId === original.sessionId && !row.resumable));

    const forked = await backend.invoke('forkConversation', {
      from: { sessionId: original.sessionId },
      at,
      message: { text: 'never sent' },
    });
    expect(forked).toMatchObject({ ok: false, error: { name: 'CliCopyGone' } });
    expect(!forked.ok && forked.error.message).toMatch(/cannot be forked/);
    const restored = await backend.invoke('rewindFiles', {
      target: { sessionId: original.sessionId },
      userMessageUuid: first,
      dryRun: true,
    });
    expect(restored).toMatchObject({ ok: false, error: { name: 'CliCopyGone' } });
    expect(forkRecords()).toEqual([]);
  });
});

describe('restoring files with the real CLI', () => {
  /** Three turns that write a.txt and b.txt, rewrite both, then create c.txt; returns the user uuids. */
  async function threeWritingTurns(conversation: ConversationSnapshot) {
    const [a, b, c] = ['a.txt', 'b.txt', 'c.txt'].map((name) => join(world.cwd, name)) as [
      string,
      string,
      string,
    ];
    world.fake.enqueue(
      write([a, 'a one\n'], [b, 'b one\n']),
      say('Wrote one.'),
      write([a, 'a two\n'], [b, 'b two\n']),
      say('Wrote two.'),
      write([c, 'c three\n']),
      say('Wrote three.'),
    );
    const turns = [
      await talk(conversation, 'write one'),
      await talk(conversation, 'write two'),
      await talk(conversation, 'write three'),
    ];
    expect([a, b, c].map((file) => readFileSync(file, 'utf8'))).toEqual(['a two\n', 'b two\n', 'c three\n']);
    return { files: [a, b, c] as const, turns };
  }

  it('previews a restore without changing anything, then restores each file and removes the one made later', async () => {
    const conversation = await invoke('startConversation', { cwd: world.cwd });
    const {
      files: [a, b, c],
      turns: [, second],
    } = await threeWritingTurns(conversation);
    const target = { conversationId: conversation.conversationId };

    const preview = await invoke('rewindFiles', { target, userMessageUuid: second!, dryRun: true });
    const byPath = (x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path);
    expect({
      ...preview,
      filesChanged: [...preview.filesChanged].sort(),
      fileChanges: preview.fileChanges && [...preview.fileChanges].sort(byPath),
    }).toEqual({
      canRewind: true,
      filesChanged: [a, b, c],
      insertions: 2,
      deletions: 3,
      // a and b go back from "two" to "one"; c, made later, goes.
      fileChanges: [
        { path: a, insertions: 1, deletions: 1, byCommand: false },
        { path: b, insertions: 1, deletions: 1, byCommand: false },
        { path: c, insertions: 0, deletions: 1, byCommand: false },
      ],
      // Claude's file tools made every change: the CLI's checkpoints cover them all.
      byCommand: [],
      reason: null,
    });
    expect([a, b, c].map((file) => readFileSync(file, 'utf8'))).toEqual(['a two\n', 'b two\n', 'c three\n']);

    const restored = await invoke('rewindFiles', { target, userMessageUuid: second!, dryRun: false });
    expect(restored).toEqual({ ...preview, fileChanges: null });
    expect([a, b].map((file) => readFileSync(file, 'utf8'))).toEqual(['a one\n', 'b one\n']);
    expect(existsSync(c)).toBe(false);

    const unknown = await invoke('rewindFiles', {
      target,
      userMessageUuid: '0b9e6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d',
      dryRun: true,
    });
    expect(unknown).toMatchObject({ canRewind: false, filesChanged: [], insertions: 0, deletions: 0 });
    expect(unknown.reason).toMatch(/kept no copy of the files for this message/);
  });

  it('restores from a saved conversation with no process running, in a CLI started for the call alone', async () => {
    const conversation = await invoke('startConversation', { cwd: world.cwd });
    const {
      files: [a, b, c],
      turns: [first],
    } = await threeWritingTurns(conversation);
    await invoke('closeConversation', { conversationId: conversation.conversationId });
    await rowsWhen((rows) => rows.some((row) => row.sessionId === conversation.sessionId && row.resumable));
    const target = { sessionId: conversation.sessionId };

    const preview = await invoke('rewindFiles', { target, userMessageUuid: first!, dryRun: true });
    expect(preview).toMatchObject({ canRewind: true, reason: null });
    expect([...preview.filesChanged].sort()).toEqual([a, b, c]);
    // Just before the first message none of them existed: each goes, with its one line.
    expect(preview.fileChanges?.map(({ insertions, deletions }) => [insertions, deletions])).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
    expect(readFileSync(a, 'utf8')).toBe('a two\n');

    await invoke('rewindFiles', { target, userMessageUuid: first!, dryRun: false });
    // Just before the first message none of them existed.
    expect([a, b, c].filter((file) => existsSync(file))).toEqual([]);
    expect((await invoke('listConversations', {})).conversations).toEqual([]);
    expect(processesWithHome(world.home, '--input-format')).toEqual([]);
  });
});
