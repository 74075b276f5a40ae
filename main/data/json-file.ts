import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { errorCode } from '../disk/files';
import { LockFile } from './lock-file';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../disk/private-files';

/**
 * One small JSON file of Byre's own in the data folder (settings, the library's choices, the fork records),
 * shared by every Byre process on that folder. A change is a read-modify-write under the file's lock, from
 * the file as it is now, so two processes changing it at once both keep their change; it is written to a
 * temp file beside it, synced, and renamed over it (then the folder synced), so a crash or a power cut
 * leaves the old file or the new one, never half of one. Reads take no lock: a rename is atomic.
 *
 * A file that is not JSON or not valid for its schema is never overwritten. `read()` changes nothing on
 * disk and gives `empty()`; the next `update()` sets the file aside as `<name>.damaged-<time>`, says so
 * through `report`, and starts from `empty()`.
 */
export class JsonFile<T> {
  private readonly lock: LockFile;
  private readonly report: (problem: string) => void;

  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
    private readonly empty: () => T,
    options: { lock?: LockFile; report?: (problem: string) => void } = {},
  ) {
    this.lock = options.lock ?? new LockFile(`${path}.lock`);
    this.report = options.report ?? (() => undefined);
  }

  /** The file's value as on disk now: `empty()` when it is missing or damaged. */
  read(): T {
    const found = this.load();
    return found.kind === 'value' ? found.value : this.empty();
  }

  /**
   * Reads the file fresh under its lock, applies `fn` and writes the result, which must fit the schema;
   * returns it. `fn` returning the value it was given writes nothing.
   */
  update(fn: (current: T) => T): T {
    makePrivateDir(dirname(this.path));
    return this.lock.hold(() => {
      const found = this.load();
      if (found.kind === 'damaged') this.setAside(found.why);
      const current = found.kind === 'value' ? found.value : this.empty();
      const next = fn(current);
      if (next === current) return current;
      const checked = this.schema.parse(next);
      this.write(checked);
      return checked;
    });
  }

  private load(): { kind: 'value'; value: T } | { kind: 'missing' } | { kind: 'damaged'; why: string } {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return { kind: 'missing' };
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { kind: 'damaged', why: 'it is not JSON' };
    }
    const parsed = this.schema.safeParse(raw);
    if (parsed.success) return { kind: 'value', value: parsed.data };
    return { kind: 'damaged', why: parsed.error.issues[0]?.message ?? 'it is not valid' };
  }

  private setAside(why: string): void {
    const aside = `${this.path}.damaged-${Date.now()}`;
    renameSync(this.path, aside);
    this.report(`${this.path} could not be used (${why}); it was kept as ${aside}.`);
  }

  private write(value: T): void {
    const temp = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w', PRIVATE_FILE_MODE);
    try {
      writeFileSync(fd, JSON.stringify(value, null, 2));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    syncFolder(dirname(this.path));
  }
}

/** Makes a rename in `folder` durable. Windows cannot open a folder to sync it, and needs no such step. */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
