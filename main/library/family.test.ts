import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForkRecord } from '../../shared/branches';
import { NoSuchSession } from './worker/messages';
import {
  attachment,
  byre,
  byreRun,
  cli,
  createSessionWorld,
  indexAll,
  linked,
  type Entry,
  type SessionWorld,
} from '../test-support/library';

/** Families of branches in the library: listed once, and read back whole from their sessions' files. */

let world: SessionWorld;
beforeEach(() => {
  world = createSessionWorld();
});
afterEach(() => {
  world.dispose();
});

const uuidOf = (entry: Entry | undefined): string => String(entry?.uuid);

/** A session of two turns, with the notes the CLI writes between a prompt and its answer. */
function twoTurns(id: string): Entry[] {
  return linked([
    cli.queued(id, 'plan the parser'),
    cli.user(id, 'plan the parser'),
    attachment(id),
    cli.assistant(id, 'Start from the tokenizer.'),
    cli.lastPrompt(id, 'plan the parser'),
    cli.user(id, 'and the error messages?'),
    attachment(id),
    cli.assistant(id, 'Keep the line numbers.'),
  ]);
}

/** What `--fork-session` writes: the parent's entries up to the fork point (same uuids), then its own. */
function forkOf(parent: Entry[], upTo: string, id: string, own: Entry[]): Entry[] {
  const end = parent.findIndex((entry) => entry.uuid === upTo);
  const copies = parent.slice(0, end + 1).map((entry) => ({ ...entry, sessionId: id }));
  return [...copies, ...linked(own, upTo)];
}

function record(sessionId: string, parentSessionId: string, forkPointUuid: string | null): ForkRecord {
  return { sessionId, parentSessionId, forkPointUuid, createdAt: Date.parse('2026-11-30T11:00:00.000Z') };
}

describe("Byre's forks", () => {
  function forkedFamily() {
    const root = randomUUID();
    const fork = randomUUID();
    const rootEntries = twoTurns(root);
    // Rewound to before the second prompt: the fork keeps the first answer.
    const forkPoint = uuidOf(rootEntries[3]);
    world.writeCli(root, rootEntries);
    world.writeCli(
      fork,
      forkOf(rootEntries, forkPoint, fork, [
        cli.user(fork, 'and the warnings?'),
        attachment(fork),
        cli.assistant(fork, 'Warnings go to stderr.'),
      ]),
    );
    world.writeForkRecords([record(fork, root, forkPoint)]);
    return { root, fork, forkPoint };
  }

  it('lists a family once, as its newest branch, with its branch count', () => {
    const { root, fork } = forkedFamily();
    const index = world.open();
    indexAll(index);
    const rows = index.list();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sessionId: fork, familyKey: root, branchCount: 2, messageCount: 4 });
    // Each branch keeps its own row, and search hits point at the session that holds the words.
    expect(index.row(root)).toMatchObject({ sessionId: root, familyKey: root, branchCount: 2 });
    expect(index.search({ query: 'line numbers' }).map((hit) => hit.sessionId)).toEqual([root]);
    expect(index.search({ query: 'stderr' }).map((hit) => hit.sessionId)).toEqual([fork]);
  });

  it('reads the family back: the fork point, the first message that differs, and the counts', async () => {
    const { root, fork, forkPoint } = forkedFamily();
    const index = world.open();
    indexAll(index);
    const family = await index.family(fork);
    expect(family.rootKey).toBe(root);
    expect(family.branches).toMatchObject([
      {
        key: root,
        sessionId: root,
        leafUuid: null,
        parentKey: null,
        forkPointUuid: null,
        firstMessage: 'plan the parser',
        messageCount: 4,
        resumable: true,
        title: 'plan the parser',
      },
      {
        key: fork,
        sessionId: fork,
        leafUuid: null,
        parentKey: root,
        forkPointUuid: forkPoint,
        firstMessage: 'and the warnings?',
        messageCount: 4,
        resumable: true,
      },
    ]);
    expect(family.branches[1]!.lastActive).toBe(index.row(fork)!.lastActive);
    expect(await index.family(root)).toEqual(family);
  });

  it('finds the family again when branches.json changes, and takes a fork point at a note as its message', async () => {
    const root = randomUUID();
    const fork = randomUUID();
    const rootEntries = twoTurns(root);
    // The note after the first prompt: the fork goes on from the prompt.
    const note = uuidOf(rootEntries[2]);
    world.writeCli(root, rootEntries);
    world.writeCli(fork, forkOf(rootEntries, note, fork, [cli.assistant(fork, 'A different answer.')]));
    const index = world.open();
    indexAll(index);
    expect(index.list().map((row) => row.branchCount)).toEqual([1, 1]);
    world.writeForkRecords([record(fork, root, note)]);
    index.takeChanged();
    index.scan();
    expect(index.takeChanged()).toBe(true);
    expect(index.list()).toMatchObject([{ sessionId: fork, branchCount: 2, familyKey: root }]);
    const family = await index.family(root);
    expect(family.branches[1]).toMatchObject({
      parentKey: root,
      forkPointUuid: uuidOf(rootEntries[1]),
      firstMessage: 'A different answer.',
      messageCount: 2,
    });
  });

  it('tolerates a damaged branches.json: every session is a family of its own', async () => {
    const { root, fork } = forkedFamily();
    world.writeForkRecords('{"version": 1, "forks": [{"sessionId": ');
    const index = world.open();
    indexAll(index);
    expect(index.list().map((row) => [row.sessionId, row.branchCount])).toEqual([
      [fork, 1],
      [root, 1],
    ]);
    expect((await index.family(fork)).branches.map((branch) => branch.key)).toEqual([fork]);
  });

  it("counts the part a fork shares from its parent when only Byre's transcript of the fork is left", async () => {
    const root = randomUUID();
    const fork = randomUUID();
    const rootEntries = twoTurns(root);
    world.writeCli(root, rootEntries);
    world.writeTranscript('fork-run', byreRun(fork, 'try the other way', 'Done the other way.'));
    world.writeForkRecords([record(fork, root, uuidOf(rootEntries[3]))]);
    const index = world.open();
    indexAll(index);
    const family = await index.family(fork);
    expect(family.branches[1]).toMatchObject({
      key: fork,
      parentKey: root,
      firstMessage: 'try the other way',
      messageCount: 4,
      resumable: false,
    });
  });
});

describe("the CLI's branches", () => {
  it('shows a rewind inside one file as a read-only branch', async () => {
    const id = randomUUID();
    const first = twoTurns(id);
    const firstAnswer = uuidOf(first[3]);
    // Rewound to before the second prompt, and asked something else.
    const entries = [
      ...first,
      ...linked(
        [cli.user(id, 'what about recovery?'), cli.assistant(id, 'Skip to the next statement.')],
        firstAnswer,
      ),
    ];
    world.writeCli(id, entries);
    const index = world.open();
    indexAll(index);
    expect(index.list()).toMatchObject([{ sessionId: id, familyKey: id, branchCount: 2 }]);
    const family = await index.family(id);
    const leaf = uuidOf(first[7]);
    expect(family.branches).toMatchObject([
      { key: id, leafUuid: null, firstMessage: 'plan the parser', messageCount: 4, resumable: true },
      {
        key: `${id}#${leaf}`,
        sessionId: id,
        leafUuid: leaf,
        parentKey: id,
        forkPointUuid: firstAnswer,
        firstMessage: 'and the error messages?',
        messageCount: 4,
        resumable: false,
      },
    ]);
  });

  it('makes no branch of parallel tool calls, whose results each hang off their own call', async () => {
    const id = randomUUID();
    const prompt = cli.user(id, 'run both');
    const text = cli.assistant(id, 'Running both.');
    const messageId = (text.message as { id: string }).id;
    const call = (command: string) =>
      cli.assistant(id, [{ type: 'tool_use', id: `toolu_${command}`, name: 'Bash', input: { command } }]);
    const [one, two] = [call('one'), call('two')].map((entry) => ({
      ...entry,
      message: { ...(entry.message as object), id: messageId },
    }));
    const result = (of: Entry, command: string) =>
      cli.user(id, [{ type: 'tool_result', tool_use_id: `toolu_${command}`, content: command }], {
        parentUuid: of.uuid,
        sourceToolAssistantUUID: of.uuid,
      });
    const entries = linked([
      prompt,
      text,
      one!,
      two!,
      result(one!, 'one'),
      result(two!, 'two'),
      cli.assistant(id, 'Both done.'),
    ]);
    world.writeCli(id, entries);
    const index = world.open();
    indexAll(index);
    expect(index.list()).toMatchObject([{ sessionId: id, branchCount: 1, messageCount: 3 }]);
    const family = await index.family(id);
    expect(family.branches).toHaveLength(1);
    expect(family.branches[0]).toMatchObject({ messageCount: 3, firstMessage: 'run both' });
  });

  it("groups a fork the CLI's /branch made, from the forkedFrom of its entries", async () => {
    const root = randomUUID();
    const fork = randomUUID();
    const rootEntries = twoTurns(root);
    world.writeCli(root, rootEntries);
    const copies = rootEntries
      .filter((entry) => typeof entry.uuid === 'string')
      .map((entry) => ({
        ...entry,
        sessionId: fork,
        forkedFrom: { sessionId: root, messageUuid: entry.uuid },
      }));
    const leaf = uuidOf(rootEntries[7]);
    world.writeCli(fork, [...copies, ...linked([cli.user(fork, 'branching off here')], leaf)]);
    const index = world.open();
    indexAll(index);
    expect(index.list()).toMatchObject([{ sessionId: fork, familyKey: root, branchCount: 2 }]);
    const family = await index.family(root);
    expect(family.branches[1]).toMatchObject({
      key: fork,
      parentKey: root,
      forkPointUuid: leaf,
      firstMessage: 'branching off here',
      messageCount: 5,
    });
  });
});

it('says clearly when it does not know the session', async () => {
  const index = world.open();
  indexAll(index);
  await expect(index.family('no-such-session')).rejects.toThrow(NoSuchSession);
  expect(index.row('no-such-session')).toBeNull();
});

it('keeps a lone session a family of one', async () => {
  const id = randomUUID();
  world.writeTranscript('run', [...byreRun(id, 'hello there', 'Hi.'), byre.result(id)]);
  const index = world.open();
  indexAll(index);
  expect(index.list()).toMatchObject([{ sessionId: id, familyKey: id, branchCount: 1 }]);
  expect((await index.family(id)).branches).toMatchObject([
    { key: id, parentKey: null, firstMessage: 'hello there', messageCount: 2, resumable: false },
  ]);
});
