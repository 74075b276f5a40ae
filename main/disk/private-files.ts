import { closeSync, mkdirSync, openSync } from 'node:fs';
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What Byre keeps is as private as the CLI's own session files (0600): transcripts hold whole
 * conversations. Its folders are made 0700 and its files 0600 when created, and `makeDataPrivate` fixes the
 * modes of what an earlier version left readable to others.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` and any missing parents as private folders (ones that exist keep their mode). */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `path` empty and private if it does not exist, so that what then opens it (SQLite, say, which
 * gives its -wal and -shm files the database file's mode) keeps it private.
 */
export function touchPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

/** Byre's own entries in its data folder: only these are changed, whatever else the folder holds. */
const OWN_FILE =
  /^(settings|library|branches|trust)\.json(\..+)?$|^library(-text-\d+)?\.sqlite(-wal|-shm|-journal)?$|^host\.lock$/;
const OWN_FOLDERS = new Set(['transcripts', 'open', 'snapshots', 'changes']);

/**
 * Makes the data folder and Byre's entries in it private: folders 0700, files 0600, never following a
 * link. Returns how many modes it changed; an entry it cannot change is left as it is.
 */
export async function makeDataPrivate(dataDir: string): Promise<number> {
  let changed = 0;
  const fix = async (path: string, recurse: boolean): Promise<void> => {
    let stats;
    try {
      stats = await lstat(path);
    } catch {
      return;
    }
    const mode = stats.isDirectory() ? PRIVATE_DIR_MODE : stats.isFile() ? PRIVATE_FILE_MODE : null;
    if (mode === null) return;
    if ((stats.mode & 0o777 & ~mode) !== 0) {
      try {
        await chmod(path, mode);
        changed += 1;
      } catch {
        // Not ours to change (another owner): left as it is.
      }
    }
    if (recurse && stats.isDirectory()) {
      for (const name of await readdir(path).catch(() => [])) await fix(join(path, name), true);
    }
  };
  await fix(dataDir, false);
  for (const name of await readdir(dataDir).catch(() => [])) {
    if (OWN_FOLDERS.has(name)) await fix(join(dataDir, name), true);
    else if (OWN_FILE.test(name)) await fix(join(dataDir, name), false);
  }
  return changed;
}
