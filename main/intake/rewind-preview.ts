import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { diffLines } from 'diff';
import type { FileChange, FileRewind } from '../../shared/ipc';
import { chainParent } from '../library/rules/entries';
import { eachEntry } from '../library/family';
import { nodeFs } from '../disk/files';
import { isRecord } from '../library/rules/json';
import type { LineCounter, LineCounts } from './rewind-diff';

/**
 * What restoring files to just before a message would do to each file, for the Rewind dialog. The CLI's dry
 * run (`rewind_files`) answers which files change and the lines added and removed in all, not per file. Per
 * file, this works out the same from what the CLI records anyway:
 * - the content a file goes back to is its content before the first change a file tool (Write, Edit) made
 *   to it after the message: that tool's result (`toolUseResult.originalFile` in the session's CLI file,
 *   the Agent SDK's FileWriteOutput / FileEditOutput; null, with `type: "create"`, for a file it created);
 * - its content now is on disk;
 * - the lines added and removed between the two, as a line diff counts them.
 * The figures are shown only if they add up to the CLI's own totals; otherwise (a change made in a way
 * this cannot see) null, and the dialog shows the totals alone. The diffs are counted by `count`: in the app,
 * a worker thread (rewind-diff.ts), one file at a time.
 */

/** Files larger than this are not read to count their lines. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What a file tool said about the file it changed: its content before, or that it made it. */
interface FileBefore {
  path: string;
  /** Null: the tool created it (it did not exist before). */
  content: string | null;
}

export async function fileChanges(
  configDir: string,
  sessionId: string,
  userMessageUuid: string,
  preview: FileRewind,
  count: LineCounter,
): Promise<FileChange[] | null> {
  if (!preview.canRewind || preview.filesChanged.length === 0) return null;
  const cliFile = findCliFile(configDir, sessionId);
  if (!cliFile) return null;
  const wanted = new Set(preview.filesChanged.map((path) => resolve(path)));
  const befores = await firstChangesAfter(cliFile, userMessageUuid, wanted);
  if (!befores) return null;
  const changes: FileChange[] = [];
  for (const path of preview.filesChanged) {
    const before = befores.get(resolve(path));
    const now = readText(path);
    if (before === undefined || now === undefined) return null;
    const counts = await count(now, before ?? '');
    if (!counts) return null;
    changes.push({ path, ...counts, byCommand: false });
  }
  const insertions = changes.reduce((sum, change) => sum + change.insertions, 0);
  const deletions = changes.reduce((sum, change) => sum + change.deletions, 0);
  return insertions === preview.insertions && deletions === preview.deletions ? changes : null;
}

/**
 * A file's diff may take this long at most (the dialog waits for it); a longer one is given up, and the
 * dialog shows the totals alone.
 */
const DIFF_TIMEOUT_MS = 200;

/**
 * Lines the restore adds and removes, going from the file as it is to what it was; null if the diff took
 * longer than `timeoutMs`.
 */
export function countLines(now: string, before: string, timeoutMs = DIFF_TIMEOUT_MS): LineCounts | null {
  const parts = diffLines(now, before, { timeout: timeoutMs });
  if (!parts) return null;
  let insertions = 0;
  let deletions = 0;
  for (const part of parts) {
    if (part.added) insertions += part.count;
    else if (part.removed) deletions += part.count;
  }
  return { insertions, deletions };
}

/** The session's CLI file: `<config>/projects/<encoded folder>/<session id>.jsonl`. */
function findCliFile(configDir: string, sessionId: string): string | null {
  // A session id names a file: nothing that could lead out of its folder.
  if (!/^[\w-]+$/.test(sessionId)) return null;
  const projects = join(configDir, 'projects');
  let folders: string[];
  try {
    folders = readdirSync(projects);
  } catch {
    return null;
  }
  for (const folder of folders) {
    const path = join(projects, folder, `${sessionId}.jsonl`);
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * For each wanted path, what the first file tool to change it after the message found there (a string, or
 * null for a file it created), on the conversation's current branch: the entries from the message to the
 * last one of the main thread, and the tool results that hang off them (of tool calls made in parallel,
 * only the last result is on the chain; the others end where they are). Null if the message is not on
 * that branch.
 */
async function firstChangesAfter(
  cliFile: string,
  messageUuid: string,
  wanted: ReadonlySet<string>,
): Promise<Map<string, string | null> | null> {
  const parents = new Map<string, string | null>();
  const changed = new Map<string, FileBefore[]>();
  let leaf: string | null = null;
  const opened = await eachEntry(nodeFs, cliFile, (entry) => {
    const uuid = typeof entry.uuid === 'string' ? entry.uuid : null;
    if (!uuid || entry.isSidechain === true || entry.type === 'progress') return;
    parents.set(uuid, chainParent(entry));
    leaf = uuid;
    const befores = fileBefores(entry.toolUseResult).filter((before) => wanted.has(before.path));
    if (befores.length > 0) changed.set(uuid, befores);
  });
  if (!opened) return null;
  // The branch from the leaf back to the message (which is not after itself).
  const branch = new Set<string>();
  for (let at: string | null = leaf; at !== messageUuid; at = parents.get(at) ?? null) {
    // Not on the branch, or (in a damaged file) a loop.
    if (at === null || branch.has(at)) return null;
    branch.add(at);
  }
  const onBranch = (uuid: string) => {
    const parent = parents.get(uuid) ?? null;
    return branch.has(uuid) || (parent !== null && branch.has(parent));
  };
  const befores = new Map<string, string | null>();
  // In the order they were written.
  for (const [uuid, changes] of changed) {
    if (!onBranch(uuid)) continue;
    for (const before of changes) if (!befores.has(before.path)) befores.set(before.path, before.content);
  }
  return befores;
}

/** What a Write or Edit tool's result says the file was before it; nothing for other tools. */
function fileBefores(result: unknown): FileBefore[] {
  if (!isRecord(result) || typeof result.filePath !== 'string') return [];
  const path = resolve(result.filePath);
  if (result.type === 'create') return [{ path, content: null }];
  // An update whose earlier content was too large to include says null: unknown, so no figures.
  return typeof result.originalFile === 'string' ? [{ path, content: result.originalFile }] : [];
}

/** A file's text now; '' if it does not exist; undefined if it cannot be read or is too large to count. */
function readText(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? '' : undefined;
  }
}
