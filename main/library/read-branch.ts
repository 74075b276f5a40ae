import { branchView } from '../../shared/branches/family';
import { SavedSessionEvents } from '../../shared/saved-session';
import { readCliChain } from './family';
import { eachLine, errorCode, nodeFs, type LibraryFs } from '../disk/files';
import { isRecord, text } from './rules/json';
import type { SessionPage } from './read-session';

/**
 * A branch inside one CLI file (a rewind the CLI made in place), opened to read. The file is read twice,
 * entry by entry: once for the chain of parents (the same reading the family is built from, so the view
 * holds every message the tree counts for the branch), and once for the lines on that branch. Only the
 * branch's own events are held, never the file.
 */

/** A larger file is not read whole to show one branch of it. */
export const MAX_BRANCH_FILE_BYTES = 200 * 1024 * 1024;
/** A branch's lines beyond this are too much to send as one page. */
export const MAX_BRANCH_BYTES = 64 * 1024 * 1024;

/** No entry of the file ends the branch asked for (the file was replaced, or the uuid is wrong). */
export class UnknownBranch extends Error {
  override readonly name = 'UnknownBranch';
}

/** The branch is more than one page can carry. */
export class BranchTooLarge extends Error {
  override readonly name = 'BranchTooLarge';
}

/**
 * The events of the branch that ends at `leafUuid`, in file order, as one page (`before` is null). Resolves
 * null if the file is not there.
 */
export async function readBranch(
  cliFile: string,
  leafUuid: string,
  fs: LibraryFs = nodeFs,
): Promise<SessionPage | null> {
  let size: number;
  try {
    size = fs.stat(cliFile).size;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
  if (size > MAX_BRANCH_FILE_BYTES) {
    throw new BranchTooLarge(
      `This conversation's file is ${megabytes(size)} MB; branches are shown from files of up to ${megabytes(MAX_BRANCH_FILE_BYTES)} MB. Open the conversation itself to read its latest branch.`,
    );
  }
  const chain = await readCliChain(fs, cliFile);
  if (!chain) return null;
  const shown = branchView(chain.entries, leafUuid);
  if (!shown) throw new UnknownBranch('That branch is no longer in the conversation.');
  return readShown(fs, cliFile, shown);
}

/** The lines whose uuid is among `shown`, each once, as events. */
async function readShown(fs: LibraryFs, path: string, shown: Set<string>): Promise<SessionPage | null> {
  let fd: number;
  try {
    fd = fs.open(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
  const saved = new SavedSessionEvents('cli');
  let bytes = 0;
  let unreadable = 0;
  try {
    const { longLines } = await eachLine(fs, fd, (line) => {
      const said = line.toString('utf8');
      const uuid = uuidOf(said);
      // A line that is not JSON may have been one of the branch's: it counts as left out.
      if (uuid === undefined) unreadable += 1;
      // A uuid written twice is one entry: the first, as in the tree.
      if (uuid === undefined || uuid === null || !shown.delete(uuid)) return;
      bytes += line.length;
      if (bytes > MAX_BRANCH_BYTES) {
        throw new BranchTooLarge(
          `This branch holds more than ${megabytes(MAX_BRANCH_BYTES)} MB of messages, too much to show at once.`,
        );
      }
      saved.line(said);
    });
    saved.endFile();
    return { events: saved.take(), before: null, skipped: saved.skipped + unreadable + longLines };
  } finally {
    fs.close(fd);
  }
}

/** A line's uuid; null for a line without one; undefined for a line that is not a JSON object. */
function uuidOf(line: string): string | null | undefined {
  if (line.trim() === '') return null;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? text(value.uuid) : undefined;
  } catch {
    return undefined;
  }
}

function megabytes(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}
