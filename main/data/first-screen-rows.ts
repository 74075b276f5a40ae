import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FirstScreenRows } from '../../shared/first-screen';
import type { LibraryRow } from '../../shared/library';
import { PRIVATE_FILE_MODE } from '../disk/private-files';

/**
 * The library's newest rows as the host last knew them, kept in `first-screen.json` in the data folder: what
 * a host draws into the app's page (shared/first-screen.ts) at once on the next start, while the library's
 * worker is still opening its index. Kept current as the library changes: 2 s after a change at most once
 * every 2 s (a reply streaming changes its row all the time), and at once when Byre quits, unless the
 * library takes longer than a second to say. Written to a temp file and renamed over, off the main thread's
 * way; it is only ever a head start, so a file missing, damaged or from another version is no first screen,
 * nothing more. The app's first render takes the rows from the page, and the whole list as it is now
 * follows.
 */
export const FIRST_SCREEN_FILE = 'first-screen.json';

/** How long after a change the rows are asked for and written. */
const WRITE_DELAY_MS = 2_000;
/** How long quitting waits for the library's last answer: a start quit at once has no index open yet. */
const FLUSH_WAIT_MS = 1_000;

export class KeptFirstScreen {
  private rows: LibraryRow[];
  private written: string;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly path: string;

  constructor(
    dataDir: string,
    /** The library's newest rows now. */
    private readonly list: () => Promise<LibraryRow[]>,
  ) {
    this.path = join(dataDir, FIRST_SCREEN_FILE);
    this.written = '';
    this.rows = [];
    try {
      const text = readFileSync(this.path, 'utf8');
      const parsed = FirstScreenRows.safeParse(JSON.parse(text));
      if (parsed.success) {
        this.rows = parsed.data;
        this.written = text;
      }
    } catch {
      // None yet, or not readable: the first page goes without.
    }
  }

  /** The rows to draw now: the last the library said, or those kept from the last run. */
  current(): LibraryRow[] {
    return this.rows;
  }

  /** The library changed: its rows are asked for again 2 s after, at most once every 2 s. */
  changed(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, WRITE_DELAY_MS);
    this.timer.unref?.();
  }

  /** Asks for the rows now and keeps them (the file only when they differ); one at a time. */
  refresh(): Promise<void> {
    this.running = this.running.then(async () => {
      let rows: LibraryRow[];
      try {
        rows = await this.list();
      } catch {
        return; // The library is not running: what was kept stays.
      }
      this.rows = rows;
      const text = JSON.stringify(rows);
      if (text === this.written) return;
      const temp = `${this.path}.${process.pid}.tmp`;
      try {
        await writeFile(temp, text, { mode: PRIVATE_FILE_MODE });
        await rename(temp, this.path);
        this.written = text;
      } catch {
        // A full disk or a folder gone: the next change tries again.
      }
    });
    return this.running;
  }

  /** On quitting, before the library closes: a change still waiting is written now. */
  async flush(): Promise<void> {
    this.stopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      void this.refresh();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_WAIT_MS)));
    await Promise.race([this.running, late]);
    clearTimeout(timer);
  }
}
