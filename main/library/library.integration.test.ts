import { unlinkSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText } from '../../e2e/fake-model/server';
import { runInTerminal, type CliWorld } from '../../e2e/fixtures/cli-env';
import type { InvokeChannel, InvokeRequest } from '../../shared/ipc';
import type { LibraryRow } from '../../shared/library';
import type { Backend } from '../backend/backend';
import { invokeOk, openBackend, type BackendHarness } from '../test-support/invoke';

/** The library against the real CLI and the fake model, through the backend the UI talks to. */

let harness: BackendHarness;
let world: CliWorld;
let backend: Backend;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world, backend } = harness);
});

afterEach(() => harness.dispose());

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  invokeOk(backend, channel, request);

/** Waits until the library lists rows that satisfy `done` (it reads files in its worker, as they change). */
async function rowsWhen(done: (rows: LibraryRow[]) => boolean): Promise<LibraryRow[]> {
  for (;;) {
    const { rows } = await invoke('libraryList', {});
    if (done(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves when a conversation's turn ends (its result line arrives). */
function turnFinished(): Promise<void> {
  return new Promise((resolve) =>
    backend.on((channel, payload) => {
      if (channel !== 'conversationEvents' || !('events' in payload)) return;
      if (payload.events.some((event) => event.kind === 'message' && event.message.type === 'result'))
        resolve();
    }),
  );
}

describe('the library with the real CLI', () => {
  it('lists a session run with claude -p in a terminal, titled by its first prompt', async () => {
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Here are the notes.' }] });
    const { session_id } = await runInTerminal(world, 'Summarise the release notes');
    // The index may read the file while the CLI is still writing it; the row settles once the watcher has
    // seen the reply written.
    const rows = await rowsWhen((list) =>
      list.some((row) => row.sessionId === session_id && row.messageCount === 2),
    );
    expect(rows.find((row) => row.sessionId === session_id)).toMatchObject({
      title: 'Summarise the release notes',
      cwd: world.cwd,
      resumable: true,
      hasTranscript: false,
      messageCount: 2,
    });
  });

  it('resumes a saved session, and the model gets its history', async () => {
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Noted: pelican.' }] });
    const { session_id } = await runInTerminal(world, 'Remember the word pelican');
    await rowsWhen((list) => list.some((row) => row.sessionId === session_id));

    const opened = await invoke('openSaved', { sessionId: session_id });
    expect(JSON.stringify(opened.events)).toContain('Noted: pelican.');
    const snapshot = await invoke('resumeSaved', { sessionId: session_id });
    expect(snapshot.sessionId).toBe(session_id);
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'The word was pelican.' }] });
    await invoke('send', { conversationId: snapshot.conversationId, text: 'Which word was it?' });

    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('Which word was it?'));
    const body = JSON.stringify(request.body);
    expect(body).toContain('Remember the word pelican');
    expect(body).toContain('Noted: pelican.');
  });

  it('lists a session Byre ran as one row, from its transcript and the CLI file together', async () => {
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello back.' }] });
    const snapshot = await invoke('startConversation', { cwd: world.cwd });
    const finished = turnFinished();
    await invoke('send', { conversationId: snapshot.conversationId, text: 'Hello from Byre' });
    await finished;

    // The index may first see the CLI file before the reply is flushed to it; the row
    // must settle on both messages, still as one row.
    const rows = await rowsWhen((list) =>
      list.some(
        (row) =>
          row.sessionId === snapshot.sessionId &&
          row.hasTranscript &&
          row.resumable &&
          row.messageCount === 2,
      ),
    );
    const mine = rows.filter((row) => row.sessionId === snapshot.sessionId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ title: 'Hello from Byre', cwd: world.cwd, messageCount: 2 });
  });

  it('keeps a session Byre ran after the CLI deletes its copy, and continues it in a new conversation', async () => {
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'The answer is 42.' }] });
    const snapshot = await invoke('startConversation', { cwd: world.cwd });
    const finished = turnFinished();
    await invoke('send', { conversationId: snapshot.conversationId, text: 'What is the answer?' });
    await finished;
    await invoke('closeConversation', { conversationId: snapshot.conversationId });
    await rowsWhen((list) => list.some((row) => row.sessionId === snapshot.sessionId && row.resumable));

    // As cleanupPeriodDays would.
    unlinkSync(world.sessionFile(snapshot.sessionId));
    const [row] = (
      await rowsWhen((list) => list.some((r) => r.sessionId === snapshot.sessionId && !r.resumable))
    ).filter((r) => r.sessionId === snapshot.sessionId);
    expect(row).toMatchObject({ hasTranscript: true, title: 'What is the answer?' });

    // It still opens, from Byre's own transcript; resuming says plainly why it cannot.
    const opened = await invoke('openSaved', { sessionId: snapshot.sessionId });
    expect(JSON.stringify(opened.events)).toContain('The answer is 42.');
    const resumed = await backend.invoke('resumeSaved', { sessionId: snapshot.sessionId });
    expect(resumed).toMatchObject({ ok: false, error: { name: 'CliCopyGone' } });

    world.fake.enqueue({ blocks: [{ type: 'text', text: 'We had found the answer, 42.' }] });
    const continued = await invoke('continueSaved', { sessionId: snapshot.sessionId });
    expect(continued.sessionId).not.toBe(snapshot.sessionId);
    const request = await world.fake.waitForRequest((r) =>
      lastUserText(r).includes('<earlier-conversation>'),
    );
    expect(lastUserText(request)).toContain('What is the answer?');
    expect(lastUserText(request)).toContain('The answer is 42.');
  });
});
