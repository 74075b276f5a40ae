import type { AppInfo, Lane } from '../../shared/ipc';
import type { ExportDelivery, ExportFile } from '../../shared/library';
import type { EventLogLimits } from '../conversation/event-log';

/** What a host gives the backend: who it is, where the data lives, and what only that host can do. */
export interface BackendOptions {
  host: AppInfo['host'];
  version: string;
  dataDir: string;
  initialCwd: string | null;
  /** The lane the conversation in `initialCwd` starts in (`--lane=`); null or absent: the default. */
  initialLane?: Lane | null;
  /** The environment CLI processes inherit (CLAUDECODE is removed by the driver). */
  env: NodeJS.ProcessEnv;
  pickFolder?: () => Promise<string | null>;
  /** Opens a URL in the system browser; only a desktop host has one to open. */
  openExternal?: (url: string) => Promise<void>;
  /** Opens a folder in the system's file manager. */
  openFolder?: (path: string) => Promise<void>;
  /** Opens a terminal in a folder (a worktree's "Open folder"). */
  openTerminal?: (path: string) => Promise<void>;
  /** Hands an export's files to the user: a save dialog, or downloads (shared/library.ts ExportDelivery). */
  deliverExport?: (files: ExportFile[]) => Promise<ExportDelivery>;
  /** The library's worker script: the build's `library-worker.js` beside the host's entry. */
  libraryWorker: string;
  /** The rewind preview's diff worker: the build's `rewind-diff-worker.js` beside the host's entry. */
  rewindDiffWorker: string;
  /**
   * The one ssh config file: the hosts listed come from it and every ssh is given it. Otherwise
   * `~/.ssh/config` of os.homedir(), where it is there.
   */
  sshConfigFile?: string;
  /** How open conversations are paged to a window (tests make pages small). */
  pageLimits?: Partial<EventLogLimits>;
}
