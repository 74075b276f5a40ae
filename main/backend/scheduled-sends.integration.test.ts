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
});
