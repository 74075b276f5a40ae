import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEvents, initialConversation, type ConversationState } from '../../shared/conversation';
import { nodeFs } from '../disk/files';
import { BranchTooLarge, MAX_BRANCH_FILE_BYTES, readBranch, UnknownBranch } from './read-branch';
import {
  attachment,
  cli,
  createSessionWorld,
  indexAll,
  linked,
  type Entry,
  type SessionWorld,
} from '../test-support/library';

/** Branches inside one CLI file, opened to read: each shows its own conversation, whole. */

let world: SessionWorld;
beforeEach(() => {
  world = createSessionWorld();
});
afterEach(() => {
  world.dispose();
});

const uuidOf = (entry: Entry | undefined): string => String(entry?.uuid);

/** Each message as a person reads it: who, and what (a tool call by its name). */
function transcriptOf(state: ConversationState): string[] {
  return state.order.flatMap((id) => {
    const message = state.messages[id];
    if (message?.role === 'user') return [`You: ${message.text}`];
    if (message?.role !== 'assistant') return [];
    const parts = message.parts.map((part) =>
      part.kind === 'tool' ? `[${state.tools[part.toolUseId]?.name}]` : part.kind === 'text' ? part.text : '',
    );
    return [`Claude: ${parts.filter(Boolean).join(' ')}`];
  });
}

async function open(path: string, leafUuid: string): Promise<ConversationState> {
  const page = await readBranch(path, leafUuid);
  expect(page).toMatchObject({ before: null, skipped: 0 });
  return applyEvents(initialConversation(), page?.events ?? []);
}

/** Two turns, then rewound to before the second prompt and asked something else, in the same file. */
function rewoundFile(id: string) {
  const first = linked([
    cli.queued(id, 'plan the parser'),
    cli.user(id, 'plan the parser'),
    attachment(id),
    cli.assistant(id, 'Start from the tokenizer.'),
    cli.lastPrompt(id, 'plan the parser'),
    cli.user(id, 'and the error messages?'),
    attachment(id),
    cli.assistant(id, 'Keep the line numbers.'),
  ]);
  const second = linked(
    [
      cli.user(id, 'what about recovery?'),
      // The CLI sometimes links a reply to the note between it and its prompt.
      attachment(id),
      cli.assistant(id, 'Skip to the next statement.'),
    ],
    uuidOf(first[3]),
  );
  return { path: world.writeCli(id, [...first, ...second]), first, second };
}

describe('a branch inside one CLI file', () => {
  it('opens each leaf as exactly its own conversation, in order, as many messages as the family counts', async () => {
    const id = randomUUID();
    const { path, first, second } = rewoundFile(id);
    const index = world.open();
    indexAll(index);
    const { branches } = await index.family(id);
    expect(branches.map((branch) => branch.leafUuid)).toEqual([null, uuidOf(first[7])]);

    const rewound = await open(path, uuidOf(first[7]));
    expect(transcriptOf(rewound)).toEqual([
      'You: plan the parser',
      'Claude: Start from the tokenizer.',
      'You: and the error messages?',
      'Claude: Keep the line numbers.',
    ]);
    expect(transcriptOf(rewound)).toHaveLength(branches[1]!.messageCount);

    const latest = await open(path, uuidOf(second[2]));
    expect(transcriptOf(latest)).toEqual([
      'You: plan the parser',
      'Claude: Start from the tokenizer.',
      'You: what about recovery?',
      'Claude: Skip to the next statement.',
    ]);
    expect(transcriptOf(latest)).toHaveLength(branches[0]!.messageCount);
    expect(rewound.status).not.toBe('running');
  });

  it('keeps the result of every parallel tool call on the chain, though each hangs off its own call', async () => {
    const id = randomUUID();
    const text = cli.assistant(id, 'Running both.');
    const messageId = (text.message as { id: string }).id;
    const call = (command: string) => {
      const entry = cli.assistant(id, [
        { type: 'tool_use', id: `toolu_${command}`, name: 'Bash', input: { command } },
      ]);
      return { ...entry, message: { ...(entry.message as object), id: messageId } };
    };
    const [one, two] = [call('one'), call('two')];
    const result = (of: Entry, command: string) =>
      cli.user(id, [{ type: 'tool_result', tool_use_id: `toolu_${command}`, content: `ran ${command}` }], {
        parentUuid: of.uuid,
        sourceToolAssistantUUID: of.uuid,
      });
    const turn = linked([
      cli.user(id, 'run both'),
      text,
      one,
      two,
      result(one, 'one'),
      result(two, 'two'),
      cli.assistant(id, 'Both done.'),
    ]);
    const abandoned = linked([cli.user(id, 'now three'), cli.assistant(id, 'Three done.')], uuidOf(turn[6]));
    const latest = linked([cli.user(id, 'stop there'), cli.assistant(id, 'Stopped.')], uuidOf(turn[6]));
    const path = world.writeCli(id, [...turn, ...abandoned, ...latest]);

    for (const [leaf, last] of [
      [abandoned[1], 'now three'],
      [latest[1], 'stop there'],
    ] as const) {
      const state = await open(path, uuidOf(leaf));
      expect(transcriptOf(state)).toEqual([
        'You: run both',
        'Claude: Running both. [Bash] [Bash]',
        'Claude: Both done.',
        `You: ${last}`,
        `Claude: ${last === 'now three' ? 'Three done.' : 'Stopped.'}`,
      ]);
      expect(state.tools.toolu_one).toMatchObject({ status: 'done', result: { text: 'ran one' } });
      expect(state.tools.toolu_two).toMatchObject({ status: 'done', result: { text: 'ran two' } });
    }
  });

  it('leaves out subagent lines hanging off the chain', async () => {
    const id = randomUUID();
    const turn = linked([cli.user(id, 'look around'), cli.assistant(id, 'Looked.')]);
    const sidechain = cli.assistant(id, 'A subagent speaking.', {
      isSidechain: true,
      parentUuid: turn[0]?.uuid,
    });
    const path = world.writeCli(id, [turn[0]!, sidechain, turn[1]!]);
    expect(transcriptOf(await open(path, uuidOf(turn[1])))).toEqual(['You: look around', 'Claude: Looked.']);
  });

  it('says clearly when the branch is not in the file, when the file is gone, and when it is too large', async () => {
    const id = randomUUID();
    const { path } = rewoundFile(id);
    await expect(readBranch(path, randomUUID())).rejects.toThrow(
      new UnknownBranch('That branch is no longer in the conversation.'),
    );
    await expect(readBranch(`${path}.gone`, randomUUID())).resolves.toBeNull();
    const huge = {
      ...nodeFs,
      stat: () => ({ size: MAX_BRANCH_FILE_BYTES + 1, mtimeMs: 0, isFile: () => true }),
    };
    await expect(readBranch(path, randomUUID(), huge)).rejects.toBeInstanceOf(BranchTooLarge);
  });
});
