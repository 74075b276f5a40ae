import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files';
import { join } from 'node:path';
import { ForkRecord, ForkRecordsFile } from '../shared/branches';
import { errorCode } from './library/files';

/**
 * Byre's record of the forks it made: `branches.json` in the data folder. A fork made with `--fork-session`
 * copies the parent's entries with their uuids and carries no mark of where it came from, so this file is
 * the only place that says which session a fork parts from, and where. The CLI's files are never edited.
 * Replaced atomically (temp file, then rename), so a crash never leaves half of it.
 */

export const FORK_RECORDS_FILE = 'branches.json';

export class ForkRecords {
  private readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = join(dataDir, FORK_RECORDS_FILE);
  }

  /** Every fork Byre recorded, oldest first; none when the file is missing or cannot be read. */
  list(): ForkRecord[] {
    const raw = this.read();
    if (raw === null) return [];
    return ForkRecordsFile.safeParse(safeJson(raw)).data?.forks ?? [];
  }

  add(record: ForkRecord): void {
    const fork = ForkRecord.parse(record);
    const raw = this.read();
    let forks: ForkRecord[] = [];
    if (raw !== null) {
      const parsed = ForkRecordsFile.safeParse(safeJson(raw));
      if (parsed.success) forks = parsed.data.forks;
      // Never overwrite what cannot be read: set it aside where a person can still find it.
      else renameSync(this.file, `${this.file}.damaged-${Date.now()}`);
    }
    const next: ForkRecordsFile = { version: 1, forks: [...forks, fork] };
    makePrivateDir(this.dataDir);
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(next, null, 2), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, this.file);
  }

  /** The file's text, or null when there is none yet. */
  private read(): string | null {
    try {
      return readFileSync(this.file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
  }
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
