import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import { applyEvents, initialConversation } from '../../shared/conversation';
import { readSavedLine } from '../../shared/saved-session';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * A Write card shows what the write changed: the real CLI reports a Write over an existing file with what
 * the file held before (`tool_use_result.originalFile`), live and in its session file, and the reducer keeps
 * it on the call. A new file has nothing before it.
 */

let harness: BackendHarness;
let world: CliWorld;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
  ({ world } = harness);
});

afterEach(() => harness.dispose());

describe('a Write over an existing file, with the real CLI', () => {
  it('carries what the file held before, live and when the saved session is read', async () => {
    const existing = join(world.cwd, 'notes.txt');
    const created = join(world.cwd, 'new.txt');
    writeFileSync(existing, 'one\ntwo\nthree\n');
    world.fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: existing } }] },
      {
        blocks: [
          { type: 'tool_use', name: 'Write', input: { file_path: existing, content: 'one\n2\nthree\n' } },
        ],
      },
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: created, content: 'fresh\n' } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const conversation = await harness.invoke('startConversation', { cwd: world.cwd });
    const { conversationId } = conversation;
    await harness.invoke('send', { conversationId, text: 'change the notes' });
    const results = () =>
      harness
        .eventsOf(conversationId)
        .filter((event) => event.kind === 'message' && event.message.type === 'result').length;
    await harness.when(() => results() > 0);
    expect(readFileSync(existing, 'utf8')).toBe('one\n2\nthree\n');

    const writes = (state: ReturnType<typeof initialConversation>) =>
      Object.values(state.tools)
        .filter((tool) => tool.name === 'Write')
        .map((tool) => ({ path: tool.input.file_path, status: tool.status, before: tool.originalFile }));
    const expected = [
      { path: existing, status: 'done', before: 'one\ntwo\nthree\n' },
      { path: created, status: 'done', before: undefined },
    ];
    expect(writes(applyEvents(initialConversation(), harness.eventsOf(conversationId)))).toEqual(expected);

    // The CLI's session file, as the library opens it.
    const saved = readFileSync(world.sessionFile(conversation.sessionId), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => readSavedLine('cli', line).events);
    expect(writes(applyEvents(initialConversation(), saved))).toEqual(expected);
  });
});
