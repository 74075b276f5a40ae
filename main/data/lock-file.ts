import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { errorCode } from '../disk/files';
import { PRIVATE_FILE_MODE } from '../disk/private-files';

/**
 * A lock between processes that share a data folder: a small JSON file that exists while one of them holds
 * it, naming that process's pid (and whatever else it wants the others to know, e.g. the browser host's
 * address). Two Byre processes on one folder must not both rewrite a file from what they read (the second
 * would undo the first), and must not both serve it. The file appears whole, by a hard link that fails if
 * it exists, so a reader never sees one half written; one whose process is gone (a crash, a kill -9) is
 * stale and is taken over. Synchronous, as the files it guards are read and written synchronously.
 */

const Holder = z.looseObject({ pid: z.number().int().positive(), token: z.string() });
/** Who holds a lock, as its file says: the pid, and the details the holder wrote. */
export type LockHolder = z.infer<typeof Holder>;

export type TakeResult = { taken: true } | { taken: false; holder: LockHolder };

/** How long `hold` waits for another process to finish its change before giving up with an error. */
const HOLD_WAIT_MS = 10_000;

export class LockFile {
  /** Tells this holder's lock from another's, also another thread's of the same process. */
  private readonly token = randomUUID();
  private held = false;

  constructor(readonly path: string) {}

  /**
   * Takes the lock unless a live process holds it; then says who does. `details` go into the file for
   * the others to read (see `holder`).
   */
  tryTake(details: Record<string, unknown> = {}): TakeResult {
    const content = this.content(details);
    // A few rounds: each lost race (the lock released or taken over meanwhile) is worth one more look.
    for (let round = 0; round < 5; round += 1) {
      const temp = `${this.path}.${this.token}.new`;
      writeFileSync(temp, content, { mode: PRIVATE_FILE_MODE });
      try {
        linkSync(temp, this.path);
        this.held = true;
        return { taken: true };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      } finally {
        unlinkSync(temp);
      }
      const found = this.read();
      if (found === 'missing') continue;
      if (found.holder && isAlive(found.holder.pid)) return { taken: false, holder: found.holder };
      this.takeOver(found.text);
    }
    throw new Error(`${this.path} keeps changing; another Byre seems to be starting and stopping.`);
  }

  /** Runs `fn` holding the lock, first waiting (briefly) for another process to finish with it. */
  hold<R>(fn: () => R): R {
    const deadline = Date.now() + HOLD_WAIT_MS;
    let wait = 2;
    for (;;) {
      const result = this.tryTake();
      if (result.taken) break;
      if (Date.now() > deadline) {
        throw new Error(
          `${this.path} is held by another Byre (process ${result.holder.pid}), which did not let go of it; try again.`,
        );
      }
      pause(wait);
      wait = Math.min(wait * 2, 50);
    }
    try {
      return fn();
    } finally {
      this.release();
    }
  }

  /** Rewrites what the held lock says (the browser host's address, known only once it listens). */
  describe(details: Record<string, unknown>): void {
    if (!this.held) throw new Error(`${this.path} is not held here.`);
    const temp = `${this.path}.${this.token}.new`;
    writeFileSync(temp, this.content(details), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, this.path);
  }

  /** Lets go of the lock if this holder has it; another holder's lock is never removed. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const found = this.read();
    if (found !== 'missing' && found.holder?.token === this.token) unlinkSync(this.path);
  }

  private content(details: Record<string, unknown>): string {
    return JSON.stringify({ ...details, pid: process.pid, token: this.token });
  }

  /** The lock's text and holder (null: not a lock this code wrote, so stale), or 'missing'. */
  private read(): 'missing' | { text: string; holder: LockHolder | null } {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return 'missing';
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    return { text, holder: Holder.safeParse(raw).data ?? null };
  }

  /**
   * Removes a stale lock, if it is still the one judged stale: another process may have taken it over and
   * made its own meanwhile. Moving it aside first, then looking, means a live lock is never deleted (it is
   * put back), where "look, then delete" could delete one made between the two.
   */
  private takeOver(staleText: string): void {
    const aside = `${this.path}.${this.token}.stale`;
    try {
      renameSync(this.path, aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    if (readFileSync(aside, 'utf8') !== staleText) {
      try {
        linkSync(aside, this.path);
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    unlinkSync(aside);
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** Blocks this thread for `ms`: the lock is held for milliseconds, and the callers are synchronous. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
