import { watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';
import type { LibraryIndex } from './library-index';

/**
 * Keeps the index current while the app runs: it works through the index in small steps, yielding to the
 * event loop between them so requests are answered promptly, and watches Byre's transcripts folder and the
 * CLI's projects folder so a session being written shows up within a moment (a folder that does not exist
 * yet is looked for again every second). Changes are told at most a few times a second.
 */

export interface LiveIndexOptions {
  /** Told (throttled) when rows or status changed. */
  onChange: () => void;
  /** Whether to watch the folders; tests that drive everything by hand turn it off. */
  watch?: boolean;
  /** A full rescan every so often, in case a watcher missed something (e.g. inotify limits). */
  rescanMs?: number;
  /** At most one change notice per this long. */
  changeIntervalMs?: number;
  /** Watch events are gathered this long before the files they name are looked at. */
  gatherMs?: number;
  /** A folder that cannot be watched yet is tried again after this long. */
  retryWatchMs?: number;
  onError?: (error: unknown) => void;
}

export class LiveIndex {
  private readonly watchers: FSWatcher[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly noticed = new Set<string>();
  private scanWanted = false;
  private scheduled = false;
  private gathering = false;
  private closed = false;
  private lastNotice = 0;
  private noticeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly index: LibraryIndex,
    private readonly options: LiveIndexOptions,
  ) {}

  start(): void {
    this.refresh();
    if (this.options.watch === false) return;
    this.watchFolder(this.index.transcriptsDir, false, (name) => [join(this.index.transcriptsDir, name)]);
    this.watchFolder(this.index.projectsDir, true, (name) => {
      const parts = name.split(sep);
      // <project>/<session>.jsonl is a session file; a new <project> folder needs a scan of it.
      if (parts.length === 2) return [join(this.index.projectsDir, name)];
      return parts.length === 1 ? 'scan' : [];
    });
    const rescan = setInterval(() => this.refresh(), this.options.rescanMs ?? 60_000);
    rescan.unref();
    this.timers.add(rescan);
  }

  /** Looks at every file again (stat only for those unchanged) and reads what is new. */
  refresh(): void {
    this.scanWanted = true;
    this.schedule();
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.splice(0)) watcher.close();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    clearTimeout(this.noticeTimer);
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.tick();
    });
  }

  /** One piece of work, then back to the event loop: a pending scan, noticed paths, or an index step. */
  private tick(): void {
    if (this.closed) return;
    let more: boolean;
    try {
      if (this.scanWanted) {
        this.scanWanted = false;
        this.noticed.clear();
        this.index.scan();
        more = true;
      } else if (this.noticed.size > 0) {
        const paths = [...this.noticed];
        this.noticed.clear();
        this.index.notice(paths);
        more = true;
      } else {
        more = this.index.step();
      }
    } catch (error) {
      // The index reports bad files as problems; anything else is a bug, told once, and the loop waits.
      this.options.onError?.(error);
      more = false;
    }
    this.tellChanges();
    if (more || this.scanWanted || this.noticed.size > 0) this.schedule();
  }

  private tellChanges(): void {
    // A notice already on its way covers this change too.
    if (!this.index.takeChanged() || this.noticeTimer !== undefined) return;
    const interval = this.options.changeIntervalMs ?? 250;
    const wait = Math.max(0, this.lastNotice + interval - Date.now());
    this.noticeTimer = setTimeout(() => {
      this.noticeTimer = undefined;
      this.lastNotice = Date.now();
      if (!this.closed) this.options.onChange();
    }, wait);
  }

  /**
   * Watches a folder; `paths` turns an event's file name into the files to look at ('scan' for all). A
   * folder that is missing (the CLI has not run yet) or goes away is watched again once it is back.
   */
  private watchFolder(
    folder: string,
    recursive: boolean,
    paths: (name: string) => string[] | 'scan',
  ): boolean {
    if (this.closed) return false;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { recursive, persistent: false }, (_event, name) => {
        const found = name ? paths(name.toString()) : 'scan';
        if (found === 'scan') this.scanWanted = true;
        else for (const path of found) this.noticed.add(path);
        this.gather();
      });
    } catch {
      const retry = setTimeout(() => {
        this.timers.delete(retry);
        // It may have appeared with files in it already.
        if (this.watchFolder(folder, recursive, paths)) this.refresh();
      }, this.options.retryWatchMs ?? 1000);
      this.timers.add(retry);
      return false;
    }
    this.watchers.push(watcher);
    watcher.on('error', () => {
      watcher.close();
      this.watchers.splice(this.watchers.indexOf(watcher), 1);
      if (this.watchFolder(folder, recursive, paths)) this.refresh();
    });
    return true;
  }

  /** Events come in bursts (a line written is several); they are looked at together, a moment later. */
  private gather(): void {
    if (this.gathering || this.closed) return;
    this.gathering = true;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.gathering = false;
      this.schedule();
    }, this.options.gatherMs ?? 100);
    this.timers.add(timer);
  }
}
