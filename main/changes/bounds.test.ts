import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { ConversationChanges } from './conversation-changes';
import { Snapshots } from './snapshots';

/**
 * A conversation's Changes past the snapshots' bound (here 20 new files at once; 200,000 in the app), with
 * real git in a plain folder: the panel says why it stopped counting and keeps the steps it has, a revert
 * is refused rather than made blind, and once what passed the bound is ignored, counting goes on.
 */

let root: string;
let folder: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-bounds-'));
  folder = join(root, 'work');
  mkdirSync(folder);
  writeFileSync(join(folder, 'app.ts'), 'one\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const result = { type: 'result', subtype: 'success', session_id: 's', uuid: 'r' } as CliMessage;

/** Ends a turn and resolves once its snapshot was tried (recorded, or refused). */
async function endTurn(changes: ConversationChanges, uuid: string): Promise<void> {
  changes.notePrompt(uuid, `prompt ${uuid}`);
  changes.note(result, uuid);
  await changes.view(null);
}

describe('Changes past their bound', () => {
  it('stop counting and say why, refuse a blind revert, and count again once it is ignored', async () => {
    const events: ConversationEvent[] = [];
    const changes = ConversationChanges.begin(
      {
        store: join(root, 'snapshots'),
        records: join(root, 'changes'),
        open: (where, store) => Snapshots.open(where, store, { files: 20, bytes: 1024 ** 3 }),
      },
      { folder, key: 'session-1', emit: (event) => events.push(event) },
    );
    await changes.ready();
    writeFileSync(join(folder, 'app.ts'), 'two\n');
    await endTurn(changes, 'p1');
    expect((await changes.view(null)).files.map((file) => file.path)).toEqual(['app.ts']);

    mkdirSync(join(folder, 'node_modules'));
    for (let index = 0; index < 30; index++)
      writeFileSync(join(folder, 'node_modules', `m${index}.js`), 'x\n');
    await endTurn(changes, 'p2');
    const off = await changes.view(null);
    expect(off.state).toEqual({
      kind: 'off',
      reason: expect.stringContaining('30 new files appeared at once'),
    });
    // What was counted stays: the first turn and its file.
    expect(off.steps.map((step) => step.kind)).toEqual(['turn']);
    expect(off.files.map((file) => file.path)).toEqual(['app.ts']);
    await expect(changes.previewRevert({ kind: 'file', path: 'app.ts', step: null })).rejects.toThrow(
      /reverts nothing/,
    );

    writeFileSync(join(folder, '.gitignore'), 'node_modules/\n');
    await endTurn(changes, 'p3');
    const on = await changes.view(null);
    expect(on.state).toEqual({ kind: 'on' });
    expect(on.steps.map((step) => step.kind)).toEqual(['turn', 'turn']);
    expect(on.files.map((file) => file.path)).toEqual(['.gitignore', 'app.ts']);
    expect(on.notes).toContainEqual(expect.stringContaining('.gitignore leaves out'));
  });
});
