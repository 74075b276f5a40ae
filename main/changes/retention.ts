/**
 * How long Changes are kept: a conversation's record and its snapshots' refs go when it is removed from the
 * library, or once its last step is older than the retention setting (checked at start). Only the refs go;
 * git's own gc takes the objects in its time. This is housekeeping, so it runs in the background and a
 * failure is logged, never in the way.
 */
import { thisMachine, type Machine } from '../machines/machine';
import { loadRecord, expired, recordKeys, removeRecord } from './record';
import { openSnapshotStore, type SnapshotStore } from './snapshot-store';

export interface RetentionOptions {
  /** Where the records are (`<dataDir>/changes`). */
  records: string;
  open?: (folder: string, store: string, machine: Machine) => Promise<SnapshotStore>;
  /** A host's git and files, for the records of conversations on other hosts; without it those are kept. */
  machineFor?: (host: string) => Machine;
  log?: (message: string, error: unknown) => void;
}

const logError = (message: string, error: unknown) => console.error(`Byre: ${message}`, error);

/**
 * Removes one conversation's record and refs (its session id is the key): whether it is gone. A
 * conversation's on another host has its refs there: its record stays until they can be removed (the host
 * reachable), so none are left behind for good.
 */
export async function forgetChanges(key: string, options: RetentionOptions): Promise<boolean> {
  const record = await loadRecord(options.records, key, () => undefined);
  if (record) {
    let machine = thisMachine;
    if (record.host) {
      if (!options.machineFor) return false;
      machine = options.machineFor(record.host);
    }
    if ((await machine.kinds([record.folder]))[0] !== null) {
      const snapshots = await (options.open ?? openSnapshotStore)(record.folder, record.store, machine);
      await snapshots.forget(key);
    }
  }
  await removeRecord(options.records, key);
  return true;
}

/** Removes every record (and its refs) retention says is past keeping; returns their keys. */
export async function pruneChanges(
  days: number | null,
  options: RetentionOptions,
  now = Date.now(),
): Promise<string[]> {
  if (days === null) return [];
  const removed: string[] = [];
  for (const key of await recordKeys(options.records)) {
    try {
      const record = await loadRecord(options.records, key, () => undefined);
      if (!record || !expired(record, days, now)) continue;
      if (await forgetChanges(key, options)) removed.push(key);
    } catch (error) {
      (options.log ?? logError)(`the snapshots of conversation ${key} could not be removed:`, error);
    }
  }
  return removed;
}

/** Runs `work` in the background: logged if it fails, never awaited by the app. */
export function inBackground(what: string, work: Promise<unknown>): void {
  work.catch((error: unknown) => logError(`${what} failed:`, error));
}
