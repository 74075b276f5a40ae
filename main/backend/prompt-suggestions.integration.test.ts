import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSuggestionRequest } from '../../e2e/fake-model/server';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * The "Suggest a next prompt" setting, with the real CLI: on (the default), it asks the model for a guess at
 * the next prompt after a turn (prompt_suggestion, for the empty composer); off, it asks for none.
 */

let harness: BackendHarness;
let world: CliWorld;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world } = harness);
});

afterEach(() => harness.dispose());

/** Starts a conversation and returns how to send a turn in it and wait for its result. */
async function conversation() {
  world.fake.suggestNext('run the tests');
  const { conversationId } = await harness.invoke('startConversation', { cwd: world.cwd });
  const events = () => harness.eventsOf(conversationId);
  const results = () =>
    events().filter((event) => event.kind === 'message' && event.message.type === 'result').length;
  const turn = async (text: string) => {
    world.fake.enqueue({ blocks: [{ type: 'text', text: `Answer to ${text}.` }] });
    const before = results();
    await harness.invoke('send', { conversationId, text });
    await harness.when(() => results() > before);
  };
  return { events, turn };
}

/** What each CLI process was asked at initialize about suggestions, from Byre's transcripts. */
function initializeAsked(): unknown[] {
  const folder = join(harness.dataDir, 'transcripts');
  return readdirSync(folder).flatMap((name) =>
    readFileSync(join(folder, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            dir: string;
            msg: { request?: { subtype?: string; promptSuggestions?: unknown } };
          },
      )
      .filter((line) => line.dir === 'send' && line.msg.request?.subtype === 'initialize')
      .map((line) => line.msg.request?.promptSuggestions),
  );
}

const suggestionRequests = () => world.fake.requests.filter(isSuggestionRequest).length;

describe('suggesting a next prompt', () => {
  it('asks the model for a guess after a turn, and offers it, while the setting is on', async () => {
    const { events, turn } = await conversation();
    await turn('first');
    await turn('second');
    await harness.when(() =>
      events().some((event) => event.kind === 'message' && event.message.type === 'prompt_suggestion'),
    );
    expect(suggestionRequests()).toBeGreaterThan(0);
    expect(initializeAsked()).toEqual([true]);
  });

  it('asks for none once it is switched off', async () => {
    await harness.invoke('saveSettings', { promptSuggestions: false });
    const { events, turn } = await conversation();
    await turn('first');
    await turn('second');
    await turn('third');
    // Byre asked the CLI for none (its transcript has what it sent), and none was asked of the model.
    expect(initializeAsked()).toEqual([false]);
    expect(suggestionRequests()).toBe(0);
    expect(
      events().some((event) => event.kind === 'message' && event.message.type === 'prompt_suggestion'),
    ).toBe(false);
  });
});
