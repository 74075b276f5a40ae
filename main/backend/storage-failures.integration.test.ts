import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWithHome } from '../../e2e/fixtures/cli-env';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Storage that cannot be written does not stop a conversation, and a start never leaves a CLI behind. As
 * root, modes do not stop writes, so the data folder is broken by shape: `transcripts` is a file (no
 * transcript can be made) and `settings.json` is a folder (no setting can be saved).
 */

let harness: BackendHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

describe('a data folder that cannot be written', { timeout: 120_000 }, () => {
  it('starts the conversation anyway, says the transcript is not written, and runs one CLI', async () => {
    harness = await openBackend({
      dontAsk: true,
      prepare: (dataDir) => writeFileSync(join(dataDir, 'transcripts'), 'not a folder'),
    });
    const { world, invoke, when, eventsOf } = harness;
    const started = await invoke('startConversation', { cwd: world.cwd });
    const id = started.conversationId;
    const warning = await when(() =>
      eventsOf(id).find((event) => event.kind === 'warning' && event.message.includes('transcript')),
    );
    expect(warning).toMatchObject({ message: expect.stringContaining('cannot write') });

    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Working without a transcript.' }] });
    await invoke('send', { conversationId: id, text: 'are you there?' });
    await when(() =>
      eventsOf(id).some(
        (event) =>
          event.kind === 'message' &&
          event.message.type === 'result' &&
          event.message.result === 'Working without a transcript.',
      ),
    );
    expect(processesWithHome(world.home, '--input-format')).toHaveLength(1);
  });

  it('starts even when its settings cannot be saved', async () => {
    harness = await openBackend({ dontAsk: true });
    const { world, invoke, dataDir } = harness;
    // Read already; now saving fails: settings.json is replaced by renaming a file onto it, and it is a
    // folder with something in it.
    const settings = join(dataDir, 'settings.json');
    rmSync(settings);
    mkdirSync(join(settings, 'inside'), { recursive: true });
    const started = await invoke('startConversation', { cwd: world.cwd });
    expect(started.cwd).toBe(world.cwd);
    expect(processesWithHome(world.home, '--input-format')).toHaveLength(1);
  });
});
