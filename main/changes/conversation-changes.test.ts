import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationEvent, FileRewind } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { ConversationChanges, type ChangesOptions } from './conversation-changes';
import { GitFailed } from '../machines/git';
import { loadRecord, saveRecord } from './record';
import { thisMachine, type Machine } from '../machines/machine';
import { forgetChanges, pruneChanges } from './retention';
import { rewindFiles } from './rewind';
import type { SnapshotChange, SnapshotStore } from './snapshot-store';
import type { Treeish } from './snapshots';

/**
 * The tracker against a folder kept in memory (real git is the integration test's): Changes off with the
 * reason when git is missing, one git job at a time, Rewind when the CLI has no checkpoint, and retention.
 */

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-tracker-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Files = Record<string, string | undefined>;

const idOf = (treeish: Treeish) => (typeof treeish === 'string' ? treeish : treeish.commit);

/** A snapshot store over `disk`, counting how many of its jobs run at once. */
function memoryStore(disk: Files) {
  const trees = new Map<string, Files>();
  const forgotten: string[] = [];
  let made = 0;
  let running = 0;
  const stats = { mostAtOnce: 0 };
  const job = async <T>(work: () => T): Promise<T> => {
    running += 1;
    stats.mostAtOnce = Math.max(stats.mostAtOnce, running);
    // A real git job takes a while: give anything that could run alongside the chance to.
    await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      return work();
    } finally {
      running -= 1;
    }
  };
  const keep = () => {
    const id = String(++made).padStart(40, '0');
    trees.set(id, { ...disk });
    return id;
  };
  const store: SnapshotStore = {
    workTree: root,
    where: null,
    inRepository: false,
    take: (_conversation, label) => job(() => ({ commit: keep(), ref: label, unreadable: [] })),
    current: () => job(() => ({ tree: keep(), unreadable: [] })),
    diff: (from, to) =>
      job(() => {
        const [a, b] = [trees.get(idOf(from)) ?? {}, trees.get(idOf(to)) ?? {}];
        const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
        return paths.flatMap((path): SnapshotChange[] => {
          if (a[path] === b[path]) return [];
          const status = a[path] === undefined ? 'added' : b[path] === undefined ? 'deleted' : 'modified';
          return [{ path, from: null, status, kind: 'file', added: 1, removed: status === 'added' ? 0 : 1 }];
        });
      }),
    fileDiff: (_from, _to, path) => job(() => ({ kind: 'text' as const, path, hunks: [], cut: null })),
    restore: (from, paths) =>
      job(() => {
        const tree = trees.get(idOf(from)) ?? {};
        for (const path of paths) {
          disk[path] = tree[path];
        }
      }),
    compose: (base, source, paths) =>
      job(() => {
        const composedId = String(++made).padStart(40, '0');
        const [a, b] = [trees.get(idOf(base)) ?? {}, trees.get(idOf(source)) ?? {}];
        trees.set(composedId, { ...a, ...Object.fromEntries(paths.map((path) => [path, b[path]])) });
        return composedId;
      }),
    keep: (_conversation, label, tree) => job(() => ({ commit: tree, ref: label })),
    has: async (commit) => trees.has(commit),
    repositoryState: async () => null,
    ignoredNote: async () => null,
    forget: async (conversation) => {
      forgotten.push(conversation);
    },
  };
  return { store, stats, forgotten };
}

function tracker(options: Partial<ChangesOptions> & Pick<ChangesOptions, 'open'>, key = 'session-1') {
  const events: ConversationEvent[] = [];
  const changes = ConversationChanges.begin(
    { store: join(root, 'snapshots'), records: join(root, 'changes'), ...options },
    { folder: root, key, emit: (event) => events.push(event) },
  );
  return { changes, events };
}

const bash = (command: string): CliMessage =>
  ({
    type: 'assistant',
    message: {
      id: 'm',
      role: 'assistant',
      model: 'fake',
      content: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command } }],
    },
    parent_tool_use_id: null,
    session_id: 'session-1',
    uuid: 'a',
  }) as CliMessage;

const result = { type: 'result', subtype: 'success', session_id: 'session-1', uuid: 'r' } as CliMessage;

/** Runs a turn whose Bash makes `made`; resolves once its step is recorded. */
async function turn(
  changes: ConversationChanges,
  events: ConversationEvent[],
  uuid: string,
  disk: Files,
  made: Files,
) {
  changes.notePrompt(uuid, 'format everything');
  changes.note(bash('npm run fmt'), undefined);
  Object.assign(disk, made);
  const before = events.filter((event) => event.kind === 'changes').length;
  changes.note(result, uuid);
  await changes.view(null);
  while (events.filter((event) => event.kind === 'changes').length === before) await changes.view(null);
}

describe('ConversationChanges', () => {
  it('is off, saying git is missing, when git cannot run, and the conversation goes on', async () => {
    const { changes } = tracker({
      open: async () => {
        throw new GitFailed(['init'], '', 'ENOENT');
      },
    });
    await changes.ready();
    changes.note(result, 'p');
    const view = await changes.view(null);
    expect(view.state).toEqual({ kind: 'off', reason: expect.stringContaining('git is not installed') });
    expect(view.files).toEqual([]);
  });

  it('lets a turn start before a slow first snapshot is done, records the turn after it, and says so', async () => {
    const disk: Files = { 'a.ts': 'one' };
    const { store } = memoryStore(disk);
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const take = store.take;
    const { changes, events } = tracker({
      open: async () => ({
        ...store,
        take: async (conversation, label, parent) => {
          if (label === 'start') await slow;
          return take(conversation, label, parent);
        },
      }),
    });
    // Not ready, but the conversation goes on.
    await changes.readyWithin(10);
    const turned = turn(changes, events, 'p1', disk, { 'b.ts': 'made' });
    release();
    await turned;
    const view = await changes.view(null);
    // The turn is recorded once the first snapshot is done; that snapshot saw the turn's file already,
    // which is what the note warns of.
    expect(view.steps).toEqual([expect.objectContaining({ kind: 'turn', turn: 1, files: 0 })]);
    expect(view.notes).toContainEqual(
      expect.stringContaining('The first turn began before the folder’s first snapshot was done'),
    );
  });

  it("runs one git job at a time: a revert asked while a turn's snapshot runs waits for it", async () => {
    const disk: Files = { 'a.ts': 'one' };
    const { store, stats } = memoryStore(disk);
    const { changes, events } = tracker({ open: async () => store });
    await changes.ready();
    await turn(changes, events, 'p1', disk, { 'a.ts': 'formatted' });
    changes.note(bash('npm run gen'), undefined);
    disk['b.ts'] = 'generated';
    changes.note(result, 'p2');
    const [reverted, view] = await Promise.all([
      changes.revert({ kind: 'step', step: 1 }, false),
      changes.view(null),
    ]);
    expect(stats.mostAtOnce).toBe(1);
    expect(reverted.step).toMatchObject({ kind: 'revert', step: 3, paths: ['a.ts'] });
    expect(view.steps.map((step) => step.kind)).toEqual(['turn', 'turn', 'revert']);
    expect(disk).toEqual({ 'a.ts': 'one', 'b.ts': 'generated' });
    const record = await loadRecord(join(root, 'changes'), 'session-1', () => undefined);
    expect(record?.steps.map((step) => step.files)).toEqual([
      [{ path: 'a.ts', causes: [{ tool: 'Bash', command: 'npm run fmt' }] }],
      [{ path: 'b.ts', causes: [{ tool: 'Bash', command: 'npm run gen' }] }],
      [{ path: 'a.ts', causes: [] }],
    ]);
  });

  it('records nothing when a revert cannot write a file, and says which', async () => {
    const disk: Files = {};
    const { store } = memoryStore(disk);
    const { changes, events } = tracker({
      open: async () => ({
        ...store,
        restore: async () => {
          throw new Error('made.txt could not be restored: Permission denied');
        },
      }),
    });
    await changes.ready();
    await turn(changes, events, 'p1', disk, { 'made.txt': 'x' });
    await expect(changes.revert({ kind: 'step', step: 1 }, false)).rejects.toThrow(
      'made.txt could not be restored: Permission denied',
    );
    expect((await changes.view(null)).steps.map((step) => step.kind)).toEqual(['turn']);
    expect(disk).toEqual({ 'made.txt': 'x' });
  });

  it('discards the record it began when the CLI never starts, but never one it found', async () => {
    const disk: Files = {};
    const { store, forgotten } = memoryStore(disk);
    const first = tracker({ open: async () => store });
    await first.changes.ready();
    await turn(first.changes, first.events, 'p1', disk, { 'made.txt': 'x' });
    const found = tracker({ open: async () => store });
    await found.changes.ready();
    found.changes.discard();
    await found.changes.view(null);
    expect(forgotten).toEqual([]);
    expect(await loadRecord(join(root, 'changes'), 'session-1', () => undefined)).not.toBeNull();

    rmSync(join(root, 'changes'), { recursive: true });
    const fresh = tracker({ open: async () => store });
    await fresh.changes.ready();
    fresh.changes.discard();
    await fresh.changes.view(null);
    expect(forgotten).toEqual(['session-1']);
    expect(await loadRecord(join(root, 'changes'), 'session-1', () => undefined)).toBeNull();
  });

  it("never runs two conversations' git work in one work tree at once: they share its private index", async () => {
    const disk: Files = {};
    const { store, stats } = memoryStore(disk);
    const one = tracker({ open: async () => store }, 'session-1');
    const two = tracker({ open: async () => store }, 'session-2');
    await Promise.all([one.changes.ready(), two.changes.ready()]);
    disk['made.txt'] = 'x';
    one.changes.note(result, 'p1');
    two.changes.note(result, 'p2');
    const views = await Promise.all([one.changes.view(null), two.changes.view(null)]);
    expect(views.map((view) => view.steps.length)).toEqual([1, 1]);
    expect(stats.mostAtOnce).toBe(1);
  });

  it('carries on from its record when the conversation is opened again', async () => {
    const disk: Files = {};
    const { store } = memoryStore(disk);
    const first = tracker({ open: async () => store });
    await first.changes.ready();
    await turn(first.changes, first.events, 'p1', disk, { 'made.txt': 'x' });
    const again = tracker({ open: async () => store });
    const view = await again.changes.view(null);
    expect(view.steps).toEqual([
      expect.objectContaining({ kind: 'turn', turn: 1, prompt: 'format everything' }),
    ]);
    expect(view.files.map((file) => file.path)).toEqual(['made.txt']);
  });

  it("restores a command's files on Rewind though the CLI kept no checkpoint for the message", async () => {
    const disk: Files = {};
    const { store } = memoryStore(disk);
    const { changes, events } = tracker({ open: async () => store });
    await changes.ready();
    await turn(changes, events, 'p1', disk, { 'made-by-bash.txt': 'x' });
    const refused: FileRewind = {
      canRewind: false,
      filesChanged: [],
      insertions: 0,
      deletions: 0,
      fileChanges: null,
      byCommand: [],
      reason: 'Claude Code kept no copy of the files for this message.',
    };
    const made = join(root, 'made-by-bash.txt');
    const preview = await rewindFiles(changes, 'p1', true, async () => refused);
    expect(preview).toEqual({
      canRewind: true,
      filesChanged: [made],
      insertions: 0,
      deletions: 1,
      fileChanges: [{ path: made, insertions: 0, deletions: 1, byCommand: true }],
      byCommand: [made],
      reason: null,
    });
    await rewindFiles(changes, 'p1', false, async () => refused);
    expect(disk).toEqual({});
    expect((await changes.view(null)).steps.at(-1)).toMatchObject({
      kind: 'revert',
      to: 'the start of turn 1, by Rewind',
    });
  });
});

describe('retention', () => {
  it("removes an expired record and its snapshots' refs, keeps a recent one, and removes one at once when asked", async () => {
    const { store, forgotten } = memoryStore({});
    const records = join(root, 'changes');
    const base = { version: 1 as const, folder: root, store: join(root, 'snapshots'), start: '0'.repeat(40) };
    const now = 1_000 * 24 * 60 * 60 * 1000;
    await saveRecord(records, { ...base, key: 'old', turns: 0, steps: [], updatedAt: now - 40 * 86_400_000 });
    await saveRecord(records, { ...base, key: 'recent', turns: 0, steps: [], updatedAt: now - 86_400_000 });
    const options = { records, open: async () => store };
    expect(await pruneChanges(null, options, now)).toEqual([]);
    expect(await pruneChanges(30, options, now)).toEqual(['old']);
    expect(forgotten).toEqual(['old']);
    expect(await loadRecord(records, 'old', () => undefined)).toBeNull();
    await forgetChanges('recent', options);
    expect(forgotten).toEqual(['old', 'recent']);
    expect(await loadRecord(records, 'recent', () => undefined)).toBeNull();
  });

  it('removes the refs of a conversation on another host there, and keeps its record until the host can be reached', async () => {
    const { store, forgotten } = memoryStore({});
    const records = join(root, 'changes');
    const now = 1_000 * 24 * 60 * 60 * 1000;
    await saveRecord(records, {
      version: 1,
      key: 'far',
      folder: '/srv/project',
      store: '/home/me/.local/state/byre/snapshots',
      host: 'build-box',
      start: '0'.repeat(40),
      turns: 0,
      steps: [],
      updatedAt: now - 40 * 86_400_000,
    });
    const opened: (string | null)[] = [];
    const open = async (_folder: string, _store: string, machine: Machine) => {
      opened.push(machine.where);
      return store;
    };
    const logged: string[] = [];
    const log = (message: string) => logged.push(message);
    // No way to reach hosts: kept, and nothing of this computer's is touched in its name.
    expect(await pruneChanges(30, { records, open, log }, now)).toEqual([]);
    // The host cannot be reached: kept, and said.
    const away: Machine = {
      ...thisMachine,
      where: 'build-box',
      kinds: () => Promise.reject(new Error('build-box could not be reached.')),
    };
    expect(await pruneChanges(30, { records, open, log, machineFor: () => away }, now)).toEqual([]);
    expect(logged).toEqual(['the snapshots of conversation far could not be removed:']);
    expect(await loadRecord(records, 'far', () => undefined)).not.toBeNull();
    // Reached: its refs go there, then its record.
    const asked: string[] = [];
    const there: Machine = {
      ...thisMachine,
      where: 'build-box',
      kinds: async (paths) => {
        asked.push(...paths);
        return ['folder'];
      },
    };
    const machineFor = (host: string) => (host === 'build-box' ? there : away);
    expect(await pruneChanges(30, { records, open, log, machineFor }, now)).toEqual(['far']);
    expect(asked).toEqual(['/srv/project']);
    expect(opened).toEqual(['build-box']);
    expect(forgotten).toEqual(['far']);
    expect(await loadRecord(records, 'far', () => undefined)).toBeNull();
  });
});
