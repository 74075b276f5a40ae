import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
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
  /** Watch events are gathered until none has come for this long, before the files they name are looked at. */
  gatherMs?: number;
  /**
   * While events keep coming (a conversation streaming into its transcript), the files are looked at no
   * more often than this: reading a file that grows by the millisecond would chase it a line at a time,
   * taking CPU from the conversation being shown.
   */
  busyMs?: number;
  /** A folder that cannot be watched yet is tried again after this long. */
  retryWatchMs?: number;
  onError?: (error: unknown) => void;
  /** Called after each step of work (a scan, a look at changed files, an index step). */
  onWork?: () => void;
}

export class LiveIndex {
  private readonly watchers: FSWatcher[] = [];
  /** Project folders being watched. */
  private readonly projects = new Map<string, FSWatcher>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Files named by watch events still being gathered, and files gathered and waiting to be looked at. */
  private readonly noticed = new Set<string>();
  private readonly due = new Set<string>();
  private scanWanted = false;
  private scheduled = false;
  private gathering = false;
  /** When the gathering started, and when the last watch event came. */
  private gatherStart = 0;
  private lastEvent = 0;
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
    this.watchFolder(this.index.transcriptsDir, (name) => [join(this.index.transcriptsDir, name)], {
      retry: true,
    });
    // Session files lie two levels down (<project>/<session>.jsonl): the projects folder and each project
    // folder are watched on their own. A recursive watch would also watch every subagent file, one inotify
    // watch each, and take long to set up on a large ~/.claude.
    const projects = this.index.projectsDir;
    // An event here is a project folder made or removed (rare): watch it afresh, and look at it.
    this.watchFolder(projects, (name) => (this.watchProject(join(projects, name), true), 'scan'), {
      retry: true,
      onWatching: () => {
        for (const entry of listFolders(projects)) this.watchProject(join(projects, entry));
      },
    });
    const rescan = setInterval(() => this.refresh(), this.options.rescanMs ?? 60_000);
    rescan.unref();
    this.timers.add(rescan);
  }

  /** Goes on with the index's steps (they had stopped: nothing to do, or waiting for the text shards). */
  wake(): void {
    this.schedule();
  }

  /** Looks at every file again (stat only for those unchanged) and reads what is new. */
  refresh(): void {
    this.scanWanted = true;
    this.schedule();
  }

  /** Watches one project folder for its session files (again, with `afresh`: it may be a new one). */
  private watchProject(folder: string, afresh = false): void {
    const existing = this.projects.get(folder);
    if (existing && !afresh) return;
    if (existing) {
      existing.close();
      this.forget(existing);
      this.projects.delete(folder);
    }
    const watcher = this.watchFolder(
      folder,
      (name) => (name.endsWith('.jsonl') ? [join(folder, name)] : []),
      {
        retry: false,
        onGone: () => this.projects.delete(folder),
      },
    );
    if (watcher) this.projects.set(folder, watcher);
  }

  private forget(watcher: FSWatcher): void {
    const at = this.watchers.indexOf(watcher);
    if (at !== -1) this.watchers.splice(at, 1);
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
        this.due.clear();
        this.index.scan();
        more = true;
      } else if (this.due.size > 0) {
        const paths = [...this.due];
        this.due.clear();
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
    this.options.onWork?.();
    if (more || this.scanWanted || this.due.size > 0) this.schedule();
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
   * Watches a folder (not its subfolders); `paths` turns an event's file name into the files to look at
   * ('scan' for all). With `retry`, a folder that is missing (the CLI has not run yet) or goes away is
   * watched again once it is back; `onWatching` runs each time the watch starts.
   */
  private watchFolder(
    folder: string,
    paths: (name: string) => string[] | 'scan',
    how: { retry: boolean; onWatching?: () => void; onGone?: () => void },
  ): FSWatcher | null {
    if (this.closed) return null;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { persistent: false }, (_event, name) => {
        this.changed(name ? paths(name.toString()) : 'scan');
      });
    } catch {
      if (!how.retry) return null;
      const retry = setTimeout(() => {
        this.timers.delete(retry);
        // It may have appeared with files in it already.
        if (this.watchFolder(folder, paths, how)) this.refresh();
      }, this.options.retryWatchMs ?? 1000);
      this.timers.add(retry);
      return null;
    }
    this.watchers.push(watcher);
    how.onWatching?.();
    watcher.on('error', () => {
      watcher.close();
      this.forget(watcher);
      if (!how.retry) {
        how.onGone?.();
        return;
      }
      if (this.watchFolder(folder, paths, how)) this.refresh();
    });
    return watcher;
  }

  /** What a watch event does: these files (or everything) are looked at once the events pause. */
  changed(paths: readonly string[] | 'scan'): void {
    if (paths === 'scan') this.scanWanted = true;
    else for (const path of paths) this.noticed.add(path);
    this.gather();
  }

  /**
   * Events come in bursts (a line written is several); they are looked at together, once they have paused
   * for `gatherMs`, or after `busyMs` if they have not.
   */
  private gather(): void {
    this.lastEvent = performance.now();
    if (this.gathering || this.closed) return;
    this.gathering = true;
    this.gatherStart = this.lastEvent;
    this.waitForPause();
  }

  private waitForPause(): void {
    const gatherMs = this.options.gatherMs ?? 100;
    const busyMs = Math.max(gatherMs, this.options.busyMs ?? 2_000);
    const due = () => Math.min(this.lastEvent + gatherMs, this.gatherStart + busyMs);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.closed) return;
        // More events came while it waited: wait on for the pause after them.
        if (performance.now() < due() - 1) {
          this.waitForPause();
          return;
        }
        this.gathering = false;
        for (const path of this.noticed) this.due.add(path);
        this.noticed.clear();
        this.schedule();
      },
      Math.max(0, due() - performance.now()),
    );
    this.timers.add(timer);
  }
}

/** The folders directly inside `folder`; none if it cannot be read. */
function listFolders(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
