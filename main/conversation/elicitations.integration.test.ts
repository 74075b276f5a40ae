import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolResults } from '../../e2e/fake-model/server';
import type { ConversationEvent } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * MCP elicitation against the real CLI: the test's own stdio MCP server (e2e/fake-mcp) asks the user for a
 * name and an age in its tool's call (`elicitation/create`); the CLI passes it on as an `elicitation` control
 * request, which the backend shows as a form, and the user's answer goes back to the server.
 */

const FAKE_MCP = join(import.meta.dirname, '..', '..', 'e2e', 'fake-mcp', 'stdio-server.mjs');

type Asked = Extract<ConversationEvent, { kind: 'elicitation_request' }>;
type Resolved = Extract<ConversationEvent, { kind: 'elicitation_resolved' }>;

let harness: BackendHarness;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  // A user-scope server in the test's HOME: the folder has no settings, so no trust question.
  const file = join(harness.world.home, '.claude.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.mcpServers = { people: { type: 'stdio', command: process.execPath, args: [FAKE_MCP, '--elicit'] } };
  writeFileSync(file, JSON.stringify(config));
});

afterEach(() => harness.dispose());

/** Starts a conversation whose first turn calls the server's "ask" tool, and waits for the question. */
async function asked(): Promise<{ conversationId: string; question: Asked }> {
  harness.world.fake.enqueue(
    { blocks: [{ type: 'tool_use', name: 'mcp__people__ask', input: {} }] },
    { blocks: [{ type: 'text', text: 'Thanks.' }] },
  );
  const { conversationId } = await harness.invoke('startConversation', { cwd: harness.world.cwd });
  // The server connects in the background; the first turn waits for it.
  await expect
    .poll(
      async () =>
        (await harness.invoke('mcpStatus', { conversationId })).servers.find(
          (server) => server.name === 'people',
        )?.status,
      { timeout: 60_000 },
    )
    .toBe('connected');
  await harness.invoke('send', { conversationId, text: 'who am I?' });
  const question = await harness.when(() =>
    harness.eventsOf(conversationId).find((event): event is Asked => event.kind === 'elicitation_request'),
  );
  return { conversationId, question };
}

/** What the server's tool told the model: the answer it got back, as JSON. */
async function answerTheServerGot(): Promise<unknown> {
  const request = await harness.world.fake.waitForRequest((candidate) => toolResults(candidate).length > 0);
  return JSON.parse(toolResults(request)[0]!.content) as unknown;
}

const resolvedOf = (conversationId: string) =>
  harness
    .eventsOf(conversationId)
    .filter((event): event is Resolved => event.kind === 'elicitation_resolved');

describe('MCP elicitation', () => {
  it('shows the server’s form, and Submit sends what the user filled in back to the server', async () => {
    const { conversationId, question } = await asked();
    expect(question).toMatchObject({ serverName: 'people', message: 'Who is asking?', mode: 'form' });
    expect(
      question.fields.map(({ name, type, label, required }) => ({ name, type, label, required })),
    ).toEqual([
      { name: 'name', type: 'text', label: 'Your name', required: true },
      { name: 'age', type: 'integer', label: 'Age', required: false },
      { name: 'subscribe', type: 'boolean', label: 'Subscribe', required: false },
      { name: 'colour', type: 'choice', label: 'Colour', required: false },
    ]);
    expect(question.fields[3]!.options.map((option) => option.value)).toEqual(['red', 'green']);

    const answer = {
      action: 'accept' as const,
      content: { name: 'Ada', age: 36, subscribe: true, colour: 'green' },
    };
    expect(
      await harness.invoke('answerElicitation', { conversationId, requestId: question.requestId, answer }),
    ).toEqual({ answered: true });
    expect(await answerTheServerGot()).toEqual(answer);
    // Events reach a window in batches (one a frame): wait for the card's end rather than race the batch.
    await harness.when(() => resolvedOf(conversationId).length > 0);
    expect(resolvedOf(conversationId)).toEqual([
      { kind: 'elicitation_resolved', requestId: question.requestId, outcome: 'accept', reason: null },
    ]);
  });

  it('refuses a form without its required field, with the reason, and then takes Decline', async () => {
    const { conversationId, question } = await asked();
    const wrong = await harness.backend.invoke('answerElicitation', {
      conversationId,
      requestId: question.requestId,
      answer: { action: 'accept', content: { age: -1 } },
    });
    expect(wrong).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/name.*age|age.*name/s) },
    });
    // Still waiting: nothing was sent to the server.
    expect(resolvedOf(conversationId)).toEqual([]);

    await harness.invoke('answerElicitation', {
      conversationId,
      requestId: question.requestId,
      answer: { action: 'decline' },
    });
    expect(await answerTheServerGot()).toEqual({ action: 'decline' });
  });
});
