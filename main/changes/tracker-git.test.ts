import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { ConversationChanges } from './conversation-changes';
import { loadRecord, saveRecord } from './record';

/**
 * A conversation's Changes over real git, where what git keeps matters: what a revert records survives
 * git's gc, and a record whose snapshots are gone starts afresh, saying so, rather than failing every view.
 */

let root: string;
let folder: string;
const store = () => join(root, 'snapshots');
const records = () => join(root, 'changes');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-tracker-git-'));
  folder = join(root, 'work');
  mkdirSync(folder);
  writeFileSync(join(folder, 'notes.txt'), 'one\n');
  writeFileSync(join(folder, 'other.txt'), 'one\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const result = { type: 'result', subtype: 'success', session_id: 's', uuid: 'r' } as CliMessage;

function begin(events: ConversationEvent[]) {
  return ConversationChanges.begin(
    { store: store(), records: records() },
    { folder, key: 'session-1', emit: (event) => events.push(event) },
  );
}

/** The private repository the folder's snapshots are in (it is not in a repository). */
function privateRepository(): string {
  const [home] = readdirSync(store());
  return join(store(), home ?? '', 'repository.git');
}

describe('Changes and what git keeps', () => {
  it("keep a revert's record of what Byre knew through git's gc", async () => {
    const changes = begin([]);
    await changes.ready();
    changes.notePrompt('p1', 'change both');
    writeFileSync(join(folder, 'notes.txt'), 'two\n');
    writeFileSync(join(folder, 'other.txt'), 'two\n');
    changes.note(result, 'p1');
    await changes.view(null);
    // A hand edit, kept by a revert of the other file: what Byre knows is the revert's own tree.
    writeFileSync(join(folder, 'notes.txt'), 'by hand\n');
    const reverted = await changes.revert({ kind: 'file', path: 'other.txt', step: null }, false);
    expect(reverted.step).toMatchObject({ kind: 'revert', paths: ['other.txt'] });
    execFileSync('git', ['--git-dir', privateRepository(), 'gc', '--quiet', '--prune=now'], {
      stdio: 'ignore',
    });

    const view = await changes.view(null);
    expect(view.files.filter((file) => file.changedSince).map((file) => file.path)).toEqual(['notes.txt']);
  });

  it('start afresh, saying so, when the snapshots a record names are gone', async () => {
    const first = begin([]);
    await first.ready();
    const record = await loadRecord(records(), 'session-1', () => undefined);
    expect(record).not.toBeNull();
    // As if gc or a new repository took them: a start no store has.
    await saveRecord(records(), { ...record!, start: '0'.repeat(40) });

    const events: ConversationEvent[] = [];
    const again = begin(events);
    await again.ready();
    expect(events).toContainEqual({
      kind: 'warning',
      message: expect.stringContaining('earlier snapshots of this conversation are gone'),
    });
    const view = await again.view(null);
    expect(view.state).toEqual({ kind: 'on' });
    expect(view.files).toEqual([]);
  });
});
