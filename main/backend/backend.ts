import { readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  invokeChannels,
  type EventChannel,
  type EventPayload,
  type InvokeChannel,
  type IpcResult,
} from '../../shared/ipc';
import { killAllCliProcesses } from '../claude';
import { killAllChecks } from '../conversation/done-check';
import { EventBatcher } from '../conversation/event-batcher';
import { IdleCollector } from '../conversation/idle-collector';
import { ImageRefs, type StoredImage } from '../conversation/image-refs';
import { SessionLanes } from '../data/session-lanes';
import { ForkRecords } from '../data/fork-records';
import { KeptTabs } from '../data/kept-tabs';
import { LimitWindows } from '../data/limit-windows';
import { ScheduledSends } from '../data/scheduled-sends';
import { SettingsStore } from '../data/settings';
import { FIRST_SCREEN_ROWS, type FirstScreen } from '../../shared/first-screen';
import type { LibraryRow } from '../../shared/library';
import { KeptFirstScreen } from '../data/first-screen-rows';
import { hostFolderKey } from '../data/host-folders';
import { trustForGit } from '../machines/git';
import { TrustGate } from '../data/trust';
import { WorktreeRecords } from '../data/worktree-records';
import { makeDataPrivate } from '../disk/private-files';
import { changesFolders } from '../changes/record';
import { inBackground, pruneChanges } from '../changes/retention';
import { FileIndex } from '../intake/file-index';
import { Library } from '../library/library';
import { toIpcError } from './errors';
import { appHandlers } from './handlers/app';
import { branchHandlers } from './handlers/branches';
import { changesHandlers } from './handlers/changes';
import { conversationHandlers } from './handlers/conversations';
import { libraryHandlers } from './handlers/library';
import { tabsHandlers } from './handlers/tabs';
import { trustHandlers } from './handlers/trust';
import { usageHandlers } from './handlers/usage';
import { limitsHandlers } from './handlers/limits';
import { worktreeFinishHandlers } from './handlers/worktree-finish';
import { worktreeHandlers } from './handlers/worktrees';
import { AccountLimits } from './account-limits';
import { OpenConversations } from './open-conversations';
import { deliverScheduled } from './handlers/limits';
import { ScheduledSender } from './scheduled-sender';
import { WorktreeStatuses } from './worktree-statuses';
import type { BackendOptions } from './options';
import type { EventListener, Handlers, Parts } from './parts';
import { RemoteHosts } from '../remote/hosts';
import { HostCopies } from './host-copies';

/**
 * The backend the UI talks to: it implements the IPC contract once, for both hosts (Electron's ipcMain and
 * the loopback browser bridge). Hosts check who is asking; the backend checks what is asked, here and only
 * here, then routes each channel to its domain's handler (handlers/) and sends events to every window.
 */
export type { BackendOptions } from './options';
export type { EventListener } from './parts';

export class Backend {
  private readonly listeners = new Set<EventListener>();
  private readonly batcher = new EventBatcher((conversationId, events, seq) => {
    this.idle.poke();
    this.emit('conversationEvents', { conversationId, events: this.images.events(events), seq });
  });
  private readonly library: Library;
  private readonly open: OpenConversations;
  private readonly tabs: KeptTabs;
  private readonly eventLogDir: string;
  private readonly images: ImageRefs;
  private readonly settings: SettingsStore;
  private readonly firstScreenRows: KeptFirstScreen | null;
  /** Gives memory back after a burst of events or pages. */
  private readonly idle = new IdleCollector();
  private readonly handlers: Handlers;
  private readonly worktreeStatuses: WorktreeStatuses;
  private readonly hostCopies: HostCopies;
  private readonly scheduled: ScheduledSender;

  constructor(options: BackendOptions) {
    // What this process's conversations show, in a folder of its own: another instance on the same data
    // folder keeps its own. Those of processes that are gone went with them (their transcripts keep it).
    // What an earlier version wrote readable to others becomes private; what is written now is made so.
    void makeDataPrivate(options.dataDir).catch(() => undefined);
    const open = join(options.dataDir, 'open');
    removeDeadProcessFolders(open);
    this.eventLogDir = join(open, String(process.pid));
    this.images = new ImageRefs(join(this.eventLogDir, 'images'));
    const settings = new SettingsStore(options.dataDir);
    this.settings = settings;
    const forks = new ForkRecords(options.dataDir);
    const worktrees = new WorktreeRecords(options.dataDir);
    // A worktree's settings carry its repository's trust: the records say which folders are worktrees. Only
    // this computer's: the repository of a worktree on a host is read there, and a folder of this computer
    // of the same path is another folder, whose trust is never the host's (its worktree asks on its own).
    const trust = new TrustGate(options.dataDir, options.env, Date.now, (folder) => {
      try {
        return worktrees.at(folder)?.repository;
      } catch {
        return undefined;
      }
    });
    // Byre's git runs what a repository's config names (a git-crypt filter) only in a folder the user trusts.
    trustForGit((folder, host, programs) =>
      trust.trustsGitPrograms(host ? hostFolderKey(host, folder) : folder, programs),
    );
    this.library = Library.start({
      dataDir: options.dataDir,
      env: options.env,
      workerPath: options.libraryWorker,
    });
    // Only Electron draws the first screen into its page: its app:// page reaches no one else, while the
    // browser host's page is served to whoever asks at its address, without the token (the socket is what
    // needs it), so it holds nothing of the library.
    this.firstScreenRows =
      options.host === 'electron'
        ? new KeptFirstScreen(options.dataDir, () => this.library.list({ limit: FIRST_SCREEN_ROWS }))
        : null;
    this.library.onChange(() => {
      this.emit('libraryChanged', {});
      this.firstScreenRows?.changed();
    });
    // What the index says once it is open, kept for the next start.
    this.firstScreenRows?.changed();
    this.library.onUsageChange(() => this.emit('usageChanged', {}));
    const emit: EventListener = (channel, payload) => this.emit(channel, payload);
    this.worktreeStatuses = new WorktreeStatuses(
      worktrees,
      (payload) => this.emit('worktreesChanged', payload),
      // Called only once a status is asked for, when `remote` is long made.
      (host) => remote.machine(host),
    );
    const worktreesChanged = () => this.worktreeStatuses.changed();
    const limits = new AccountLimits(
      new LimitWindows(options.dataDir),
      () => settings.values.limitAlertPercent / 100,
      {
        changed: (payload) => this.emit('limitsChanged', payload),
        notify: (conversationId, title, message) =>
          this.emit('notification', { conversationId, title, message }),
      },
    );
    const remote = new RemoteHosts(() => {
      const chosen = options.sshConfigFile ?? settings.values.sshConfigFile;
      return chosen
        ? { file: chosen, chosen: true }
        : { file: join(homedir(), '.ssh', 'config'), chosen: false };
    }, options.env);
    // Those of conversations on other hosts are removed there, when the host can be reached.
    inBackground(
      'removing old snapshots',
      pruneChanges(settings.values.snapshotRetentionDays, {
        ...changesFolders(options.dataDir),
        machineFor: (host) => remote.machine(host),
      }),
    );
    const copies = new HostCopies(
      options.dataDir,
      remote,
      () => settings.hostsUsed,
      () => this.library.refresh(),
    );
    this.hostCopies = copies;
    this.open = new OpenConversations(trust, {
      options,
      settings,
      forks,
      lanes: new SessionLanes(options.dataDir),
      library: this.library,
      images: this.images,
      batcher: this.batcher,
      eventLogDir: this.eventLogDir,
      emit,
      worktrees,
      worktreesChanged,
      rateLimit: (conversationId, info) => limits.heard(conversationId, info),
      remote,
      hostSessionsChanged: (host) => copies.soon(host),
    });
    this.scheduled = new ScheduledSender(
      new ScheduledSends(options.dataDir),
      (send, stillWanted) =>
        deliverScheduled(this.open, this.library, send, stillWanted, {
          forks: () => forks.list(),
          // The sessions the tabs show now (a rewound tab shows its new branch; the old may still run).
          shown: () =>
            new Set(this.tabs.current().tabs.flatMap((tab) => (tab.sessionId ? [tab.sessionId] : []))),
        }),
      (sends) => this.emit('scheduledSendsChanged', { sends }),
    );
    this.tabs = new KeptTabs(
      options.dataDir,
      (conversationId) =>
        this.open.all().find((conversation) => conversation.snapshot().conversationId === conversationId)
          ?.draft.text,
    );
    const parts: Parts = {
      options,
      settings,
      library: this.library,
      images: this.images,
      files: new FileIndex(),
      trust,
      open: this.open,
      tabs: this.tabs,
      worktrees,
      worktreeStatuses: this.worktreeStatuses,
      worktreesChanged,
      limits,
      scheduled: this.scheduled,
      remote,
    };
    this.handlers = {
      ...appHandlers(parts),
      ...conversationHandlers(parts, () => this.batcher.flush()),
      ...trustHandlers(parts),
      ...libraryHandlers(parts),
      ...branchHandlers(parts),
      ...changesHandlers(parts),
      ...tabsHandlers(parts),
      ...worktreeHandlers(parts),
      ...worktreeFinishHandlers(parts),
      ...usageHandlers(parts),
      ...limitsHandlers(parts),
      remoteHosts: async () => remote.list(),
      remoteFolders: async ({ host, prefix }) => {
        const folders = await remote.folders(host, prefix);
        // The host was picked and answers: the library's copy of its sessions is brought up to date.
        copies.soon(host);
        return { folders, recent: settings.recentFoldersOn(host) };
      },
      acceptHostKey: async ({ host, fingerprints }) => {
        await remote.acceptHostKey(host, fingerprints);
        return {};
      },
    };
    // What waits from before (sent at once if its time came while Byre was closed), once all is wired.
    this.scheduled.start();
    copies.start();
  }

  /** Validates a request against the contract, runs it, and returns a plain result or error. */
  async invoke(channel: string, payload: unknown): Promise<IpcResult<unknown>> {
    if (!Object.hasOwn(invokeChannels, channel)) {
      return { ok: false, error: { name: 'UnknownChannel', message: `No such channel: ${channel}` } };
    }
    const name = channel as InvokeChannel;
    this.idle.poke();
    const parsed = invokeChannels[name].request.safeParse(payload ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        error: {
          name: 'InvalidRequest',
          message: `Invalid ${name} request: ${parsed.error.issues[0]?.message}`,
        },
      };
    }
    try {
      const handler = this.handlers[name] as (request: unknown) => Promise<unknown>;
      return { ok: true, value: await handler(parsed.data) };
    } catch (error) {
      return { ok: false, error: toIpcError(error) };
    }
  }

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every conversation's CLI process cleanly, in parallel. */
  async dispose(): Promise<void> {
    this.batcher.flush();
    this.idle.stop();
    this.hostCopies.stop();
    // Before the conversations end: their drafts go with them.
    this.tabs.flush();
    await this.scheduled.stop();
    // While the library still answers.
    await this.firstScreenRows?.flush();
    await Promise.all([this.open.closeAll(), this.library.close(), this.worktreeStatuses.settled()]);
    rmSync(this.eventLogDir, { recursive: true, force: true });
  }

  /**
   * What Electron draws into the page it serves (shared/first-screen.ts): the library's newest rows and the
   * theme; null for the browser host, whose page anyone at its address can read. The rows as last known
   * (kept from the last run, at a start), at once; with none kept, the library's own if it answers within
   * `withinMs`, else null (it is still opening its index, say), as it would hold the whole page back.
   */
  async firstScreen(withinMs: number): Promise<FirstScreen | null> {
    if (!this.firstScreenRows) return null;
    const screen = (rows: LibraryRow[]) => ({ rows, theme: this.settings.values.theme, now: Date.now() });
    const kept = this.firstScreenRows.current();
    if (kept.length > 0) return screen(kept);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), withinMs)));
    const rows = this.library.list({ limit: FIRST_SCREEN_ROWS }).catch(() => null);
    try {
      const listed = await Promise.race([rows, late]);
      return listed ? screen(listed) : null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** An image a window was sent by reference (main/conversation/image-refs.ts), by its hash. */
  image(hash: string): StoredImage | undefined {
    return this.images.read(hash);
  }

  /** For quitting without waiting. */
  killAll(): void {
    killAllCliProcesses();
    this.open.killAll();
    killAllChecks();
  }

  private emit<C extends EventChannel>(channel: C, payload: EventPayload<C>): void {
    for (const listener of this.listeners) listener(channel, payload);
  }
}

/** Removes the folders under `dir` named for a process that no longer runs. */
function removeDeadProcessFolders(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (/^\d+$/.test(name) && !processRuns(Number(name)))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
