import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText } from '../../e2e/fake-model/server';
import { runInTerminal } from '../../e2e/fixtures/cli-env';
import type { Backend } from './backend';
import { backendOver, invokeOk, openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * A message kept for when a limit resets, against the real CLI and the fake model: Byre was closed when its
 * time came, so the next start sends it, by resuming the saved session, and the model gets it once.
 */

let harness: BackendHarness | undefined;
let restarted: Backend | undefined;

afterEach(async () => {
  await restarted?.dispose();
  restarted = undefined;
  if (harness) {
    await harness.world.dispose();
    rmSync(harness.dataDir, { recursive: true, force: true });
  }
  harness = undefined;
});

describe('a message kept for when the limit resets', () => {
  it('is sent at the next start by resuming the saved session, exactly once', async () => {
    harness = await openBackend({ dontAsk: true });
    const { world, dataDir, backend } = harness;
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Noted: pelican.' }] });
    const { session_id } = await runInTerminal(world, 'Remember the word pelican');
    // The library's index (in the data folder) knows the session before Byre closes.
    for (;;) {
      const { rows } = await invokeOk(backend, 'libraryList', {});
      if (rows.some((row) => row.sessionId === session_id)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await backend.dispose();

    // Kept while the limit was reached; its time came while Byre was closed.
    const text = 'Which word was it? (sent when the limit reset)';
    const id = randomUUID();
    writeFileSync(
      join(dataDir, 'scheduled-sends.json'),
      JSON.stringify({
        sends: [
          {
            id,
            sessionId: session_id,
            cwd: world.cwd,
            text,
            sendAt: Date.now() - 60_000,
            createdAt: Date.now() - 3_600_000,
            failed: null,
            sending: false,
          },
        ],
      }),
    );
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'The word was pelican.' }] });
    const sendsSeen: number[] = [];
    restarted = backendOver(dataDir, world.env);
    restarted.on((channel, payload) => {
      if (channel === 'scheduledSendsChanged' && 'sends' in payload) sendsSeen.push(payload.sends.length);
    });

    for (;;) {
      const { sends } = await invokeOk(restarted, 'scheduledSends', {});
      if (sends.length === 0 || sends[0]?.failed) {
        expect(sends).toEqual([]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes(text));
    // It was sent in the saved conversation: the model has its history.
    expect(JSON.stringify(request.body)).toContain('Remember the word pelican');
    // Sent, it is no longer kept.
    for (;;) {
      const { sends } = await invokeOk(restarted, 'scheduledSends', {});
      if (sends.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(world.fake.messageRequests().filter((r) => lastUserText(r).includes(text))).toHaveLength(1);
    expect(sendsSeen.at(-1)).toBe(0);
  });

  it('after a rewind goes to the branch the tab shows, never the old one, and only in its folder', async () => {
    harness = await openBackend({ dontAsk: true });
    const { world, dataDir, backend } = harness;
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Noted: pelican.' }] });
    const { session_id: old } = await runInTerminal(world, 'Remember the word pelican');
    const keptAt = Date.now();
    // The conversation is rewound afterwards: a fork of it, told a new word, is what its tab shows.
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Noted: heron.' }] });
    const { session_id: branch } = await runInTerminal(world, 'No: the word is heron', world.cwd, [
      '--resume',
      old,
      '--fork-session',
    ]);
    expect(branch).not.toBe(old);
    for (;;) {
      const { rows } = await invokeOk(backend, 'libraryList', {});
      if (rows.some((row) => row.sessionId === branch)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await backend.dispose();
    writeFileSync(
      join(dataDir, 'branches.json'),
      JSON.stringify({
        version: 1,
        forks: [{ sessionId: branch, parentSessionId: old, forkPointUuid: null, createdAt: keptAt + 1 }],
      }),
    );
    writeFileSync(
      join(dataDir, 'tabs.json'),
      JSON.stringify({
        tabs: [{ conversationId: null, sessionId: branch, cwd: world.cwd, draft: '' }],
        active: 0,
      }),
    );
    const kept = (id: string, text: string, cwd: string) => ({
      id,
      sessionId: old,
      cwd,
      host: null,
      text,
      sendAt: Date.now() - 60_000,
      createdAt: keptAt,
      failed: null,
      sending: false,
    });
    const text = 'Which word was it? (sent when the limit reset)';
    const elsewhere = randomUUID();
    writeFileSync(
      join(dataDir, 'scheduled-sends.json'),
      JSON.stringify({
        sends: [kept(randomUUID(), text, world.cwd), kept(elsewhere, 'Not here.', join(world.cwd, 'other'))],
      }),
    );
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'The word is heron.' }] });
    restarted = backendOver(dataDir, world.env);
    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes(text));
    // Sent in the branch: the model has the rewound conversation's history.
    expect(JSON.stringify(request.body)).toContain('No: the word is heron');
    // The one kept for another folder is not sent there, and says why.
    for (;;) {
      const { sends } = await invokeOk(restarted, 'scheduledSends', {});
      if (sends.length === 1 && sends[0]?.failed) {
        expect(sends[0]).toMatchObject({ id: elsewhere, failed: expect.stringContaining('it was not sent') });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(world.fake.messageRequests().filter((r) => lastUserText(r).includes('Not here.'))).toHaveLength(0);
  });
});
