/**
 * The steps of a conversation's record as the panel and reverts read them: which step a number names, what
 * a revert goes back to (in words and as a snapshot) and what it would do to each file. Pure, so the
 * tracker's queue holds only git work.
 */
import type { ChangeStep, RevertPreview, RevertTarget } from '../../shared/ipc';
import type { ChangesRecord, StoredStep } from './record';
import type { SnapshotChange } from './snapshot-store';

/** A step's number as the user asked for it, checked against the record. */
export class NoSuchStep extends Error {
  override name = 'NoSuchStep';
}

/** A prompt's first words, as the panel names a turn by them. */
export function firstWords(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 80 ? line : `${line.slice(0, 79).trimEnd()}…`;
}

export function stepOf(record: ChangesRecord, step: number): StoredStep {
  const stored = record.steps[step - 1];
  if (!stored) throw new NoSuchStep(`This conversation has no step ${step}.`);
  return stored;
}

/** Where a step began, in words. */
function startOf(step: ChangeStep): string {
  if (step.kind === 'turn') return `the start of turn ${step.turn}`;
  return step.kind === 'outside'
    ? 'before the changes outside the conversation'
    : `just before step ${step.step}`;
}

/** Where a revert takes files back to, in words and as a snapshot, and which files it looks at. */
export function revertPlan(
  record: ChangesRecord,
  target: RevertTarget,
): { source: string; to: string; paths: string[]; outside: Set<string> } {
  // The files changed outside the conversation since the snapshot it goes back to: a revert asks first.
  const outsideSince = (step: number) =>
    new Set(
      record.steps
        .slice(step - 1)
        .filter((stored) => stored.step.kind === 'outside')
        .flatMap((stored) => stored.files.map((file) => file.path)),
    );
  if (target.kind === 'file') {
    if (target.step === null)
      return {
        source: record.start,
        to: "the conversation's start",
        paths: [target.path],
        outside: outsideSince(1),
      };
    const stored = stepOf(record, target.step);
    return {
      source: stored.before,
      to: startOf(stored.step),
      paths: [target.path],
      outside: outsideSince(target.step),
    };
  }
  const stored = stepOf(record, target.step);
  if (target.kind === 'step') {
    return {
      source: stored.before,
      to: startOf(stored.step),
      paths: stored.files.map((file) => file.path),
      outside: outsideSince(target.step),
    };
  }
  if (stored.step.kind !== 'revert') throw new NoSuchStep(`Step ${target.step} is not a revert.`);
  if (stored.step.undone) throw new NoSuchStep(`Revert ${target.step} has already been undone.`);
  return {
    source: stored.before,
    to: `just before revert ${target.step}`,
    paths: stored.step.paths,
    outside: outsideSince(target.step),
  };
}

/**
 * What going back to a snapshot does to `paths`, from how the files differ between it and now (`toNow`),
 * each flagged when it changed since the conversation's last snapshot (`since`). A path already as it was
 * is left out; a rename is undone as its new path deleted and its old one made again.
 */
export function revertActions(
  toNow: readonly SnapshotChange[],
  paths: readonly string[],
  since: readonly SnapshotChange[],
  outside: ReadonlySet<string> = new Set(),
): RevertPreview['files'] {
  const wanted = new Set(paths);
  const changedSince = new Set([...touched(since), ...outside]);
  const files: RevertPreview['files'] = [];
  for (const change of toNow) {
    // A submodule is listed, never reverted: its checkout is its own repository's.
    if (change.kind === 'submodule') continue;
    const sides: [string, RevertPreview['files'][number]['action']][] =
      change.status === 'renamed' && change.from !== null
        ? [
            [change.from, 'create'],
            [change.path, 'delete'],
          ]
        : [
            [
              change.path,
              change.status === 'added' ? 'delete' : change.status === 'deleted' ? 'create' : 'restore',
            ],
          ];
    if (!sides.some(([path]) => wanted.has(path))) continue;
    for (const [path, action] of sides) files.push({ path, action, changedSince: changedSince.has(path) });
  }
  return files;
}

/** Every path a set of changes touched: both sides of a rename. */
export function touched(changes: readonly SnapshotChange[]): string[] {
  return changes.flatMap((change) => (change.from !== null ? [change.from, change.path] : [change.path]));
}
