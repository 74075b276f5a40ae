/**
 * The snapshots the Changes tracker works against: `Snapshots` itself, named by what the tracker uses of
 * it, so a test can give it a stand-in over files in memory.
 */
import { thisMachine, type Machine } from '../machines/machine';
import { SNAPSHOT_BOUNDS, Snapshots, type FileChange } from './snapshots';

export type { Snapshot } from './snapshots';

/** One file that differs between two snapshots (or a snapshot and now). */
export type SnapshotChange = FileChange;

export type SnapshotStore = Pick<
  Snapshots,
  | 'workTree'
  | 'where'
  | 'inRepository'
  | 'take'
  | 'current'
  | 'diff'
  | 'fileDiff'
  | 'restore'
  | 'compose'
  | 'keep'
  | 'has'
  | 'repositoryState'
  | 'ignoredNote'
  | 'forget'
>;

/** A folder's snapshots, on this computer or (given its Machine) on a host. */
export const openSnapshotStore = (
  folder: string,
  store: string,
  machine: Machine = thisMachine,
): Promise<SnapshotStore> => Snapshots.open(folder, store, SNAPSHOT_BOUNDS, machine);
