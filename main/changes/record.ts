/**
 * A conversation's Changes record, kept in `<dataDir>/changes/<key>.json`: where its snapshots are, the one
 * it started from, and each step (a turn, a revert, an undo) with the snapshots either side and what changed
 * which file. The key is the CLI session id the conversation started with, so a conversation resumed from
 * the library finds its record and carries on, and a fork (a session of its own) starts its own.
 *
 * Written atomically (a temporary file renamed over the old one) and private; read through zod. A damaged
 * record is set aside as `<key>.json.damaged` with a warning and the conversation starts afresh: losing the
 * panel's history is better than losing the conversation.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ChangeCause, ChangeStep } from '../../shared/ipc';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../disk/private-files';

/**
 * Where a conversation's snapshots on another host keep their private files there, under its home folder:
 * Byre's state, as the data folder is here.
 */
export const HOST_SNAPSHOTS = '.local/state/byre/snapshots';

/** Where Changes keep their state in the data folder: the snapshots' store and the records. */
export function changesFolders(dataDir: string): { store: string; records: string } {
  return { store: join(dataDir, 'snapshots'), records: join(dataDir, 'changes') };
}

const Commit = z.string().regex(/^[0-9a-f]{40,64}$/);

export const StoredStep = z.object({
  step: ChangeStep,
  /** The snapshot before the step and after it. */
  before: Commit,
  after: Commit,
  /**
   * For a revert or an undo: the tree Byre last knew the folder as, with only the files the step wrote
   * changed. A file changed by hand before the revert, and left as it was, still counts as changed since:
   * the revert's own snapshots would otherwise take the hand edit in as known.
   */
  baseline: Commit.optional(),
  files: z.array(z.object({ path: z.string(), causes: z.array(ChangeCause) })),
});
export type StoredStep = z.infer<typeof StoredStep>;

export const ChangesRecord = z.object({
  version: z.literal(1),
  key: z.string().min(1),
  /** The conversation's folder, and the store its snapshots are in (Snapshots.open takes both). */
  folder: z.string(),
  store: z.string(),
  /** The host they are on, for a conversation on another host (both paths are its); absent for this computer. */
  host: z.string().min(1).optional(),
  start: Commit,
  /** Turns ended so far: the next is turn `turns + 1`. */
  turns: z.number().int().nonnegative(),
  steps: z.array(StoredStep),
  /** When the record last changed, for retention (ms since the epoch). */
  updatedAt: z.number(),
});
export type ChangesRecord = z.infer<typeof ChangesRecord>;

/** A record key as a file name: session ids are UUIDs, but nothing read from outside names a path. */
function fileOf(dir: string, key: string): string {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(key) || key.startsWith('.')) {
    throw new Error(`"${key}" cannot name a Changes record.`);
  }
  return join(dir, `${key}.json`);
}

/** The record of `key`, null when there is none; a damaged one is set aside and `warn`ed about. */
export async function loadRecord(
  dir: string,
  key: string,
  warn: (message: string) => void,
): Promise<ChangesRecord | null> {
  const file = fileOf(dir, key);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = ChangesRecord.safeParse(safeJson(text));
  if (parsed.success && parsed.data.key === key) return parsed.data;
  await rename(file, `${file}.damaged`).catch(() => undefined);
  warn(
    `The Changes record of this conversation (${file}) could not be read, so it was set aside as ${file}.damaged. Changes are counted afresh from now.`,
  );
  return null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function saveRecord(dir: string, record: ChangesRecord): Promise<void> {
  const file = fileOf(dir, record.key);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(record), { mode: PRIVATE_FILE_MODE });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function removeRecord(dir: string, key: string): Promise<void> {
  await rm(fileOf(dir, key), { force: true });
}

/** Every record's key in `dir` (none when it does not exist yet). */
export async function recordKeys(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
}

/** When a record's conversation last changed anything: its last step, or when the record was written. */
export function lastActivity(record: ChangesRecord): number {
  return record.steps.at(-1)?.step.at ?? record.updatedAt;
}

/** Whether retention removes a record now: its last activity is older than `days` (null: kept). */
export function expired(record: ChangesRecord, days: number | null, now: number): boolean {
  return days !== null && now - lastActivity(record) > days * 24 * 60 * 60 * 1000;
}
