import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText } from '../../e2e/fake-model/server';
import { processesWithHome } from '../../e2e/fixtures/cli-env';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Ten conversations at once against the real CLI: each gets its own reply, none waits on another, and
 * closing them leaves no process behind.
 */

let harness: BackendHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

const COUNT = 10;

describe('ten conversations at once', { timeout: 240_000 }, () => {
  it('answers each with its own reply, and closing them all leaves no CLI running', async () => {
    harness = await openBackend({ dontAsk: true });
    const { world, invoke, when, eventsOf } = harness;
    for (let index = 0; index < COUNT; index++) {
      world.fake.when((request) => lastUserText(request).includes(`question ${index}?`), {
        blocks: [{ type: 'text', text: `Answer ${index}.` }],
      });
    }
    const started = await Promise.all(
      Array.from({ length: COUNT }, () => invoke('startConversation', { cwd: world.cwd })),
    );
    const ids = started.map((snapshot) => snapshot.conversationId);
    expect(new Set(ids).size).toBe(COUNT);
    expect(processesWithHome(world.home, '--input-format')).toHaveLength(COUNT);

    await Promise.all(
      ids.map((id, index) => invoke('send', { conversationId: id, text: `question ${index}?` })),
    );
    const resultOf = (id: string) =>
      eventsOf(id).flatMap((event) =>
        event.kind === 'message' && event.message.type === 'result' ? [event.message.result] : [],
      );
    await when(() => ids.every((id) => resultOf(id).length > 0));
    expect(ids.map(resultOf)).toEqual(ids.map((_id, index) => [`Answer ${index}.`]));

    await Promise.all(ids.map((id) => invoke('closeConversation', { conversationId: id })));
    // Each close waits for its CLI to exit; what is left of a process group goes soon after.
    await expect
      .poll(() => processesWithHome(world.home, '--input-format').length, { timeout: 60_000 })
      .toBe(0);
  });
});
