import { join } from 'node:path';
import { ForkRecord, ForkRecordsFile } from '../../shared/branches';
import { JsonFile } from './json-file';

/**
 * Byre's record of the forks it made: `branches.json` in the data folder. A fork made with `--fork-session`
 * copies the parent's entries with their uuids and carries no mark of where it came from, so this file is
 * the only place that says which session a fork parts from, and where. The CLI's files are never edited.
 * A JsonFile: a crash never leaves half of it, and each fork is added to the file as it is then, so two
 * Byre processes on one data folder both keep theirs.
 */

export const FORK_RECORDS_FILE = 'branches.json';

export class ForkRecords {
  private readonly file: JsonFile<ForkRecordsFile>;

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, FORK_RECORDS_FILE), ForkRecordsFile, () => ({
      version: 1,
      forks: [],
    }));
  }

  /** Every fork Byre recorded, oldest first; none when the file is missing or damaged. */
  list(): ForkRecord[] {
    return this.file.read().forks;
  }

  add(record: ForkRecord): void {
    const fork = ForkRecord.parse(record);
    this.file.update((current) => ({ version: 1, forks: [...current.forks, fork] }));
  }
}
