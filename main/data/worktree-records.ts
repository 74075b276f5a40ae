import { join } from 'node:path';
import { z } from 'zod';
import { hostFolderKey } from './host-folders';
import { JsonFile } from './json-file';

/**
 * Byre's record of the worktrees it made for conversations: `worktrees.json` in the data folder, by the
 * worktree's folder (which is the conversation's `cwd`). It is what says a folder is a worktree of a
 * repository (so the repository's trust, setup command, "Commit as" and "Done when" carry to it), what its
 * base is (for "Merge into", ahead/behind and the Changes panel), and what to make again on Resume once the
 * worktree was removed. Git's own worktree list forgets a removed worktree; this does not.
 */

export const WORKTREE_RECORDS_FILE = 'worktrees.json';

/**
 * What a record is kept under: the worktree's folder here, or its folder on a host as hostFolderKey names
 * it, so that a worktree of the same path on another computer is another worktree.
 */
export function worktreeKey(path: string, host: string | null = null): string {
  return host ? hostFolderKey(host, path) : path;
}

export const WorktreeRecord = z.object({
  /** The worktree's folder, absolute. */
  path: z.string().min(1),
  /** The main checkout's top level. */
  repository: z.string().min(1),
  /** The git folder the repository's worktrees share. */
  commonDir: z.string().min(1),
  name: z.string().min(1),
  branch: z.string().min(1),
  /** The branch it was made from; null when it was made from a detached HEAD's commit. */
  base: z.string().nullable(),
  baseCommit: z.string(),
  createdAt: z.number(),
  /** When Byre removed it (null: it is there, or was made again since). */
  removedAt: z.number().nullable(),
  /** The host it is on, for a worktree of a repository on another host (its paths are the host's). */
  host: z.string().min(1).optional(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecord>;

const WorktreeRecordsFile = z.object({
  version: z.literal(1),
  worktrees: z.record(z.string(), WorktreeRecord),
});
type WorktreeRecordsFile = z.infer<typeof WorktreeRecordsFile>;

export class WorktreeRecords {
  private readonly file: JsonFile<WorktreeRecordsFile>;

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, WORKTREE_RECORDS_FILE), WorktreeRecordsFile, () => ({
      version: 1,
      worktrees: {},
    }));
  }

  /** Every worktree Byre made, removed ones too, oldest first. */
  all(): WorktreeRecord[] {
    return Object.values(this.file.read().worktrees).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The record of the worktree whose folder is `path` (on `host`, or here), if Byre made it. */
  at(path: string, host: string | null = null): WorktreeRecord | undefined {
    // A host's key is never a path of this computer's: one asked for as a folder here finds nothing.
    if (host === null && path.startsWith('ssh://')) return undefined;
    const worktrees = this.file.read().worktrees;
    const key = worktreeKey(path, host);
    return Object.hasOwn(worktrees, key) ? worktrees[key] : undefined;
  }

  add(record: WorktreeRecord): void {
    const checked = WorktreeRecord.parse(record);
    this.file.update((current) => ({
      version: 1,
      worktrees: { ...current.worktrees, [worktreeKey(checked.path, checked.host)]: checked },
    }));
  }

  /** Marks it removed (`at` a time) or there again (null), as the folder now is. */
  setRemoved(path: string, at: number | null, host: string | null = null): void {
    const key = worktreeKey(path, host);
    this.file.update((current) => {
      const record = Object.hasOwn(current.worktrees, key) ? current.worktrees[key] : undefined;
      if (!record || record.removedAt === at) return current;
      return { version: 1, worktrees: { ...current.worktrees, [key]: { ...record, removedAt: at } } };
    });
  }

  /** Forgets it: its branch is gone too, so nothing could make it again. */
  forget(path: string, host: string | null = null): void {
    const key = worktreeKey(path, host);
    this.file.update((current) => {
      if (!Object.hasOwn(current.worktrees, key)) return current;
      const { [key]: _gone, ...worktrees } = current.worktrees;
      return { version: 1, worktrees };
    });
  }
}
