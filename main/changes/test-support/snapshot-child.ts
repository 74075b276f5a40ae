/**
 * Takes two snapshots of a folder as the user it runs as, for snapshots-unprivileged.test.ts: a test run as
 * root reads every file and writes every folder, so what a person meets with a file they cannot read or a
 * repository they cannot write is seen only by a process that is someone else. Between the two snapshots
 * it appends a line to `edited.txt`; then it tries to put that file back. It prints what happened as JSON.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Snapshots } from '../snapshots';

const [folder = '', store = ''] = process.argv.slice(2);
const snapshots = await Snapshots.open(folder, store);
const start = await snapshots.take('c', 'start', null);
appendFileSync(join(folder, 'edited.txt'), 'one more line\n');
const turn = await snapshots.take('c', 'turn-1', start);
const changes = await snapshots.diff(start, turn);
const restored = await snapshots.restore(start, ['edited.txt']).then(
  () => 'restored',
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
console.log(
  JSON.stringify({
    unreadable: start.unreadable,
    changed: changes.map((change) => change.path),
    workTree: snapshots.workTree,
    inRepository: snapshots.inRepository,
    restored,
  }),
);
