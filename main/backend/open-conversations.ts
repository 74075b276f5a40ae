import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import {
  DEFAULT_TERMINAL_SIZE,
  type ConversationEvent,
  type ConversationSnapshot,
  type EventChannel,
  type EventPayload,
  type Lane,
  type NewWorktree,
  type PermissionModeChoice,
  type SessionTarget,
  type TerminalSize,
  type TurnImage,
} from '../../shared/ipc';
import type { RateLimitInfo } from '../../shared/protocol';
import { CliExited } from '../claude';
import { Busy, Conversation, type ConversationOptions } from '../conversation/conversation';
import type { EventBatcher } from '../conversation/event-batcher';
import type { ImageRefs } from '../conversation/image-refs';
import type { ForkRecords } from '../data/fork-records';
import type { SessionLanes } from '../data/session-lanes';
import { defaultLane, loginOf } from '../lanes/login';
import type { SettingsStore } from '../data/settings';
import { TrustNeeded, type TrustGate } from '../data/trust';
import { hostFolderKey } from '../data/host-folders';
import { hostFolder } from './host-trust';
import type { WorktreeRecords } from '../data/worktree-records';
import {
  createWorktree,
  gitForWorktrees,
  removeWorktree,
  WorktreeRefused,
  type Repository,
  type Worktree,
} from '../worktrees/worktrees';
import { settingsKey, where } from '../machines/where';
import {
  hasSubmodules,
  mainRepositoryOf,
  newWorktreeName,
  NOT_A_REPOSITORY,
  recreateIfGone,
} from './worktree-choices';
import type { Machine } from '../machines/machine';
import { changesFolders, HOST_SNAPSHOTS } from '../changes/record';
import { openSnapshotStore } from '../changes/snapshot-store';
import { checkOutgoingImage } from '../intake/images';
import type { Library } from '../library/library';
import {
  TerminalConversation,
  type TerminalConversationOptions,
} from '../conversation/terminal-conversation';
import type { LaneConversation } from '../conversation/lane-conversation';
import type { InLane, OpenConversation } from '../conversation/open-conversation';
import { HOOK_SCRIPT, HookChannel, hookRunner } from '../lanes/terminal/hook-channel';
import { cliCursorAt } from '../library/read-session';
import type { RemoteHosts, SocketForward } from '../remote/hosts';
import { explainCheckExit, RemoteProblem } from '../remote/run';
import {
  CliCopyGone,
  ImageGone,
  NoSuchConversation,
  NotSupported,
  NoSuchSession,
  NotAFolder,
  UnknownMessage,
} from './errors';
import type { BackendOptions } from './options';

/**
 * The conversations open in this process, and how one starts: afresh, resumed, forked, or in a process of
 * its own for one request. Every conversation, of either lane on either computer, starts by one path
 * (`start`): its folder is found and checked where it runs (`place`), the trust gate decides on the folder's
 * own settings, and what is kept by folder is looked up the same way; only then does its lane begin.
 */
export class OpenConversations {
  /** Every open conversation, of both lanes, by id. */
  private readonly open = new Map<string, OpenConversation>();
  /** Worktrees being made, by repository: one at a time, as git's own worktree list takes them. */
  private readonly making = new Map<string, Promise<unknown>>();
  /** Worktrees just made whose own files wait for the user's trust, by the start that made them. */
  private readonly awaitingTrust = new Map<
    string,
    { repository: Repository; made: Worktree; host: string | null }
  >();
  /**
   * Saved sessions whose CLI is starting, in either lane, on either computer: a second ask joins the first,
   * since two CLIs carrying on one session would both write its file.
   */
  private readonly resuming = new Map<string, { lane: Lane; started: Promise<OpenConversation> }>();
  /** Where local Terminal conversations' hooks report, opened with the first of them and closed at the end. */
  private hookChannel: Promise<HookChannel | null> | undefined;

  constructor(
    /** Every CLI starts through the gate: a folder's own settings run only once the user trusts them. */
    private readonly trust: TrustGate,
    private readonly parts: {
      options: BackendOptions;
      settings: SettingsStore;
      forks: ForkRecords;
      /** The lane Byre last ran each session in (lanes.json). */
      lanes: SessionLanes;
      library: Library;
      images: ImageRefs;
      batcher: EventBatcher;
      eventLogDir: string;
      emit: <C extends EventChannel>(channel: C, payload: EventPayload<C>) => void;
      /** The worktrees Byre made (worktrees.json). */
      worktrees: WorktreeRecords;
      /** How a worktree stands may have changed: the windows are told, in a moment. */
      worktreesChanged: () => void;
      /** A conversation heard how the plan's limits stand (a `rate_limit_event`). */
      rateLimit?: (conversationId: string, info: RateLimitInfo) => void;
      /** Other hosts, over ssh. */
      remote: RemoteHosts;
      /** A conversation on `host` wrote to its session there: the library's copy may be behind. */
      hostSessionsChanged?: (host: string) => void;
    },
  ) {}

  /** Every open conversation, of both lanes. */
  all(): OpenConversation[] {
    return [...this.open.values()];
  }

  /** A Stream conversation: what only the stream-json lane can do is asked of it. */
  get(conversationId: string): Conversation {
    const conversation = this.find(conversationId);
    if (conversation.lane === 'stream') return conversation;
    throw new NotSupported(
      'This is a Terminal conversation: Claude Code runs in its terminal, so do this there (its own commands and keys), or continue it in the Stream lane.',
    );
  }

  /** A conversation of either lane, for what every lane can do (Changes, "Done when", listing, closing). */
  any(conversationId: string): LaneConversation {
    return this.find(conversationId);
  }

  private find(conversationId: string): OpenConversation {
    const conversation = this.open.get(conversationId);
    if (!conversation) throw new NoSuchConversation('That conversation is closed.');
    return conversation;
  }

  /** A Terminal conversation. */
  terminal(conversationId: string): TerminalConversation {
    const conversation = this.find(conversationId);
    if (conversation.lane === 'terminal') return conversation;
    throw new NotSupported('This conversation runs in the Stream lane: it has no terminal.');
  }

  async close(conversationId: string): Promise<void> {
    const conversation = this.open.get(conversationId);
    this.open.delete(conversationId);
    await conversation?.close();
  }

  /**
   * Ends every conversation's CLI process cleanly, in parallel. A worktree made for a start whose trust
   * question was never answered (its window closed first) goes too: no conversation ever worked in it.
   */
  async closeAll(): Promise<void> {
    const unanswered = [...this.awaitingTrust.values()];
    this.awaitingTrust.clear();
    await Promise.all([
      ...this.all().map((conversation) => conversation.close()),
      ...unanswered.map(async ({ repository, made, host }) => {
        this.parts.worktrees.forget(made.path, host);
        await removeWorktree(repository, made, true).catch(() => undefined);
      }),
    ]);
    this.open.clear();
    const hooks = this.hookChannel;
    this.hookChannel = undefined;
    (await hooks?.catch(() => undefined))?.close();
    await this.closeHosts();
  }

  /** Ends every CLI at once, both lanes, and what each started (app quit). */
  killAll(): void {
    for (const conversation of this.open.values()) conversation.kill();
  }

  /** The lane new conversations get: the setting, or the login's. */
  defaultLane(): Lane {
    return defaultLane(this.parts.settings.values.defaultLane, loginOf(this.parts.options.env));
  }

  /**
   * The lane a saved session goes on in: the one Byre last ran it in (a Terminal one is kept in lanes.json,
   * a Stream one has Byre's transcripts), else, for one Byre never ran, the default.
   */
  laneOf(sessionId: string, saved: { transcripts: readonly string[] }): Lane {
    return this.parts.lanes.of(sessionId) ?? (saved.transcripts.length > 0 ? 'stream' : this.defaultLane());
  }

  /** The lane Byre last ran a session in, if it kept one (a Terminal one: lanes.json). */
  lastLane(sessionId: string): Lane | null {
    return this.parts.lanes.of(sessionId) ?? null;
  }

  /** The open conversation of a saved session, in either lane. */
  withSession(sessionId: string): OpenConversation | undefined {
    return this.all().find((conversation) => conversation.sessionId === sessionId);
  }

  /** The open Stream conversation of a saved session, or one resuming: a request joins it rather than start another. */
  async withSessionOrResuming(sessionId: string): Promise<Conversation | undefined> {
    const open = this.withSession(sessionId) ?? (await this.resuming.get(sessionId)?.started);
    return open?.lane === 'stream' ? open : undefined;
  }

  /**
   * A conversation the UI shows in a tab, of either lane, on this computer or a host: the one way every
   * conversation starts. Carrying on a saved session (`launch.resume`) joins a start of it under way, and
   * finds an open one; in the other lane, that is refused, for one session never has two CLIs.
   */
  start<L extends Lane>(start: Start & { lane: L }): Promise<InLane<L>>;
  start(start: Start): Promise<OpenConversation>;
  async start(start: Start): Promise<OpenConversation> {
    const { resume } = start.launch;
    if (!resume) {
      const conversation = await this.startNow(start);
      this.begin(conversation, start);
      return conversation;
    }
    const open = this.withSession(resume);
    if (open) return this.sameLane(open, start.lane);
    const under = this.resuming.get(resume);
    if (under) return this.sameLane(await under.started, start.lane);
    const started = this.recreate(start.host, start.cwd)
      .then(() => this.startNow(start))
      .then((conversation) => {
        this.begin(conversation, start);
        return conversation;
      })
      .finally(() => this.resuming.delete(resume));
    this.resuming.set(resume, { lane: start.lane, started });
    return started;
  }

  /** An open conversation of a session asked for in `lane`: itself, or a refusal saying where it is open. */
  private sameLane(open: OpenConversation, lane: Lane): OpenConversation {
    if (open.lane === lane) return open;
    throw new NotSupported(
      open.lane === 'terminal'
        ? 'This conversation is open in the Terminal lane: type there, or continue it in the Stream lane from its tab.'
        : 'This conversation is open in the Stream lane: continue it in the Terminal lane from its tab.',
    );
  }

  private async startNow(start: Start): Promise<OpenConversation> {
    const { lane, host, launch, firstMessage } = start;
    const place = await this.place(host, start.cwd);
    const id = randomUUID();
    const wiring = this.wiring(id, place, lane);
    const prompt = firstMessage?.trim() ? firstMessage : undefined;
    const conversation =
      lane === 'terminal'
        ? await this.terminalIn(place, { ...launch, ...(prompt ? { prompt } : {}) }, wiring, start)
        : await this.streamIn(place, launch, wiring);
    this.open.set(id, conversation);
    if (conversation.lane === 'terminal') this.noteTerminalLane(conversation.sessionId);
    try {
      // A worktree's conversations are the repository's: it is the folder the user will look for.
      if (host) this.parts.settings.addRecentFolderOn(host, place.settingsFolder);
      else this.parts.settings.addRecentFolder(place.settingsFolder);
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
    return conversation;
  }

  /**
   * What a conversation begins with once started: its notes, then (a Stream one) its setup and the first
   * message. A Terminal one ran its setup before its CLI and opened with the first message as its prompt.
   */
  private begin(conversation: OpenConversation, start: Start): void {
    for (const note of start.notes ?? []) conversation.warn(note);
    if (conversation.lane === 'terminal') return;
    if (start.setup) conversation.runSetup(start.setup);
    if (start.firstMessage?.trim()) conversation.send(start.firstMessage);
  }

  /**
   * Where a conversation runs, found and checked there: a folder here (which must exist), or one on a host
   * (its CLI found, the folder checked, each failure said in words: RemoteProblem). What is kept by folder
   * ("Done when", "Commit as", recent folders) is a Byre worktree's repository's.
   */
  private async place(host: string | null, cwd: string): Promise<Place> {
    if (host) {
      const remote = await this.parts.remote.prepare(host, cwd);
      const folder = remote.folder;
      return {
        host,
        folder,
        remote,
        settingsFolder: this.parts.worktrees.at(folder, host)?.repository ?? folder,
        inWorktree: this.parts.worktrees.at(folder, host) !== undefined,
      };
    }
    const folder = resolve(cwd);
    if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
    const record = this.parts.worktrees.at(folder);
    return {
      host: null,
      folder,
      remote: null,
      settingsFolder: record?.repository ?? folder,
      inWorktree: record !== undefined,
    };
  }

  /** What every conversation starts with, in either lane, from the folder it runs in and where that is. */
  private perFolder(place: Place) {
    const { settings, options } = this.parts;
    const { host, remote, folder, settingsFolder } = place;
    const on = where(this.parts.remote, host);
    return {
      cwd: folder,
      env: this.cliEnv(),
      checkLimits: settings.checkLimits,
      worktree: this.worktreeOf(folder, host),
      doneWhen: settings.doneWhenFor(settingsFolder, host ?? undefined),
      identity: settings.commitIdentityFor(settingsKey(on, settingsFolder)),
      // A host's snapshots are taken there, by git there, with their private files in the home folder there;
      // the record of them is kept here with the others.
      changes: !remote
        ? changesFolders(options.dataDir)
        : remote.home
          ? {
              records: changesFolders(options.dataDir).records,
              store: posix.join(remote.home, HOST_SNAPSHOTS),
              host: remote.name,
              open: (at: string, store: string) => openSnapshotStore(at, store, remote.machine),
            }
          : null,
      eventLogDir: this.parts.eventLogDir,
      ...(options.pageLimits ? { pageLimits: options.pageLimits } : {}),
    };
  }

  /** The Stream lane: the CLI in stream-json mode, each of its processes started through the trust gate. */
  private streamIn(place: Place, launch: Launch, wiring: Wiring): Promise<Conversation> {
    const { options, settings } = this.parts;
    const { host, remote, folder } = place;
    const there = host ? hostFolder(this.parts.remote, host, folder) : undefined;
    return Conversation.start({
      ...launch,
      ...this.perFolder(place),
      ...wiring,
      permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
      // A host's own settings, read there at each start, are loaded once trusted, as a folder's here are.
      startSession: (session) => this.trust.startSession(session, there),
      // "Always allow" writes into the folder's settings: the change is the user's own, and asks nothing.
      remembered: (suggestions) =>
        host
          ? this.trust.expectFor(hostFolderKey(host, folder), suggestions)
          : this.trust.expect(folder, suggestions),
      planApproval: {
        mode: () => settings.planApprovalMode,
        remember: (mode) => settings.setPlanApprovalMode(mode),
      },
      promptSuggestions: settings.values.promptSuggestions,
      transcriptDir: join(options.dataDir, 'transcripts'),
      appVersion: options.version,
      ...(remote ? { host: remote } : {}),
    });
  }

  /**
   * The Terminal lane: the real interactive CLI in a PTY of `size` (over ssh in a terminal the host gives,
   * for a host), its hooks reporting here. The trust gate decides before anything starts: TrustNeeded here
   * starts nothing, and the window asks, then starts the same again.
   */
  private async terminalIn(
    place: Place,
    launch: Launch,
    wiring: Wiring,
    start: Pick<Start, 'size' | 'setup'>,
  ): Promise<TerminalConversation> {
    const { settings } = this.parts;
    const { host, remote, folder } = place;
    const folderSettings = host
      ? await this.trust.folderSettingsOn(hostFolder(this.parts.remote, host, folder))
      : this.trust.folderSettingsFor(folder);
    const hooks = remote
      ? await this.hooksOnHost(remote)
      : { channel: await this.localHooks(), host: null, release: null };
    try {
      return await TerminalConversation.start({
        ...this.perFolder(place),
        ...wiring,
        ...(launch.resume ? { resume: launch.resume } : {}),
        ...(launch.model ? { model: launch.model } : {}),
        ...(launch.prompt ? { prompt: launch.prompt } : {}),
        permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
        folderSettings,
        hooks: hooks.channel,
        ...(hooks.host ? { host: hooks.host(folder) } : {}),
        size: start.size ?? DEFAULT_TERMINAL_SIZE,
        ...(start.setup ? { setup: start.setup } : {}),
        output: (data, seq) => this.parts.emit('terminalOutput', { conversationId: wiring.id, data, seq }),
        sessionChanged: (sessionId) => this.noteTerminalLane(sessionId),
      });
    } catch (error) {
      hooks.release?.();
      throw error;
    }
  }

  /** The channel local Terminal conversations' hooks report to, opened with the first of them. */
  private localHooks(): Promise<HookChannel | null> {
    if (!this.hookChannel) {
      const runner = hookRunner(this.cliEnv());
      // A channel that cannot open (a temp folder that cannot be written, say) leaves this conversation
      // without hooks, saying so, and the next start tries again.
      this.hookChannel = (runner ? HookChannel.open(runner) : Promise.resolve(null)).catch(
        (error: unknown) => {
          console.error('Byre: the Terminal hooks channel could not open:', error);
          this.hookChannel = undefined;
          return null;
        },
      );
    }
    return this.hookChannel;
  }

  /**
   * A Terminal conversation's hooks on a host: they run there with the host's node, and reach a channel of
   * this conversation's own here through a socket ssh forwards (a secret of its own, written there 0600).
   * Without node there, the conversation goes without hooks, and says so.
   */
  private async hooksOnHost(remote: PreparedHost): Promise<{
    channel: HookChannel | null;
    host: (folder: string) => NonNullable<TerminalConversationOptions['host']>;
    release: () => void;
  }> {
    let channel: HookChannel | null = null;
    let there: { node: string; folder: string; forward: SocketForward } | null = null;
    try {
      channel = await HookChannel.open({ path: process.execPath, env: {} });
      there = await remote.terminal.prepareHooks(channel.secretText, HOOK_SCRIPT, channel.socketPath);
    } catch (error) {
      channel?.close();
      if (error instanceof RemoteProblem) throw error;
      console.error('Byre: the hooks of a Terminal conversation on a host could not be set up:', error);
      channel = null;
    }
    const forward = channel && there ? there.forward : null;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      channel?.close();
      if (there && forward) void remote.terminal.releaseHooks(there.folder, forward);
    };
    const host = remote.name;
    return {
      channel,
      release,
      host: (folder) => ({
        name: host,
        transport: (cli) => remote.terminal.command(folder, cli),
        elsewhere: {
          via: (command: string) => remote.check(folder, command),
          failure: (code, output, reached) => explainCheckExit(code, output, host, reached),
        },
        hooksThere: forward && there ? { node: there.node, folder: there.folder } : null,
        putFile: (at, file, bytes) => remote.terminal.putFile(at, file, bytes),
        release,
      }),
    };
  }

  /** A session goes on in the terminal when resumed later (after a restart too). */
  private noteTerminalLane(sessionId: string): void {
    try {
      this.parts.lanes.note(sessionId, 'terminal');
    } catch (error) {
      console.error('Byre: could not keep the lane of a Terminal conversation:', error);
    }
  }

  /**
   * A saved session carried on in a tab, in `lane`, where it ran (a host's, there, where its CLI's file is),
   * its worktree made again if it was removed: one process however many windows (or clicks) ask at once.
   */
  async resume(sessionId: string, lane: Lane = 'stream', size?: TerminalSize): Promise<OpenConversation> {
    const open = this.withSession(sessionId);
    if (open) return this.sameLane(open, lane);
    const under = this.resuming.get(sessionId);
    if (under) return this.sameLane(await under.started, lane);
    const started = this.resumeNow(sessionId, lane, size).finally(() => this.resuming.delete(sessionId));
    this.resuming.set(sessionId, { lane, started });
    return started;
  }

  private async resumeNow(sessionId: string, lane: Lane, size?: TerminalSize): Promise<OpenConversation> {
    const saved = await this.saved(sessionId);
    const launch = { resume: sessionId };
    const sized = size ? { size } : {};
    if (saved.host) {
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      await this.recreate(saved.host, saved.cwd);
      return this.startNow({ lane, host: saved.host, cwd: saved.cwd, launch, ...sized });
    }
    if (!saved.cliFile) throw new CliCopyGone('resume');
    // What the file holds now is the history before this process: the pages a window reads past the start
    // of a Stream conversation's log of it (which begins here). Gone since the library read it: none.
    const before = lane === 'stream' ? (statSync(saved.cliFile, { throwIfNoEntry: false })?.size ?? 0) : 0;
    await this.recreate(null, saved.cwd);
    const cwd = existingFolder(saved.cwd);
    const conversation = await this.startNow({ lane, host: null, cwd, launch, ...sized });
    if (conversation.lane === 'stream') conversation.savedBefore = before > 0 ? cliCursorAt(before) : null;
    return conversation;
  }

  /** A Stream conversation of a saved session (a scheduled send's, say): the open one, or resumed. */
  async resumeStream(sessionId: string): Promise<Conversation> {
    const conversation = await this.resume(sessionId, 'stream');
    if (conversation.lane !== 'stream')
      throw new NotSupported('This conversation runs in the Terminal lane.');
    return conversation;
  }

  /**
   * An open conversation carried on in the other lane: the same session (`--resume`), in the same folder, its
   * process in this lane ended first. Refused while Claude works, which the switch would cut off.
   */
  async switchLane(conversationId: string, lane: Lane, size: TerminalSize): Promise<OpenConversation> {
    const open = this.find(conversationId);
    const { sessionId, cwd, host = null, permissionMode } = open.snapshot();
    if (open.lane === lane) return open;
    if (open.busy) {
      throw new Busy('Claude is working: wait for the turn to end (or stop it), then switch.');
    }
    // What can refuse the switch asks before the open conversation ends: a folder whose settings changed
    // since it started needs the person's trust (TrustNeeded), and it goes on as it was meanwhile. A host's
    // folder is judged by its files there.
    if (host) await this.trust.folderSettingsOn(hostFolder(this.parts.remote, host, cwd));
    else this.trust.folderSettingsFor(cwd);
    await this.close(conversationId);
    const launch = { resume: sessionId, permissionMode };
    if (lane === 'terminal') return this.start({ lane, host, cwd, launch, size });
    if (this.parts.lanes.of(sessionId) === 'terminal') this.parts.lanes.note(sessionId, 'stream');
    // From the library, so that a window reads its history before the switch as pages of the saved session;
    // one the library has not read yet starts at the switch.
    return this.resume(sessionId, 'stream').catch((error: unknown) => {
      if (error instanceof NoSuchSession) return this.start({ lane, host, cwd, launch });
      throw error;
    });
  }

  /** How a conversation the UI shows in a tab reaches every window: its events, and its notifications. */
  private wiring(id: string, place: Pick<Place, 'host' | 'inWorktree'>, lane: Lane): Wiring {
    const { host, inWorktree } = place;
    return {
      id,
      emit: (event, seq) => {
        this.parts.batcher.push(id, event, seq);
        // A turn ended in a worktree (its snapshot was taken, or its result came): how it stands moved.
        if (inWorktree && turnEnded(event, lane)) this.parts.worktreesChanged();
        // A turn ended on a host, or its CLI did: the host's session file grew, for the library to copy.
        if (host && (turnEnded(event, lane) || event.kind === 'exit')) this.parts.hostSessionsChanged?.(host);
        if (event.kind === 'message' && event.message.type === 'rate_limit_event')
          this.parts.rateLimit?.(id, event.message.rate_limit_info);
      },
      notify: ({ title, message }) => this.parts.emit('notification', { conversationId: id, title, message }),
    };
  }

  /**
   * A new conversation in a new worktree of the repository `cwd` is in, made from `worktree.base` and
   * named by the user or from the first message. The repository's trust is asked for before anything is
   * made; anything failing after the worktree was made removes it and its branch again, so nothing is left
   * half-made. Its setup command runs before the first turn, and the first message waits for it.
   */
  async startInWorktree(start: Start, worktree: NewWorktree): Promise<OpenConversation> {
    const { host, cwd, firstMessage } = start;
    if (start.launch.resume)
      throw new NotSupported('A saved conversation is resumed where it ran, never in a new worktree.');
    const on = where(this.parts.remote, host);
    const { machine } = on;
    await gitForWorktrees(machine);
    const { worktrees, settings } = this.parts;
    const repository = await mainRepositoryOf(cwd, worktrees, on);
    if (!repository) throw new WorktreeRefused(NOT_A_REPOSITORY);
    // TrustNeeded here leaves nothing behind: the window asks, then starts the same again. (A host's
    // folder's own settings are read there as its conversation starts.)
    if (!host) this.trust.folderSettingsFor(repository.top);
    const branch = await machine.git(['show-ref', '--verify', '--quiet', `refs/heads/${worktree.base}`], {
      cwd: repository.top,
    });
    // A start that waited for the trust of the worktree's own files (its base's settings differ from the
    // main checkout's) is asked again, the same: it carries on in the worktree it made, not in another.
    const asked = JSON.stringify([
      host,
      repository.top,
      worktree.base,
      worktree.name ?? null,
      firstMessage ?? '',
    ]);
    const waiting = this.awaitingTrust.get(asked)?.made;
    this.awaitingTrust.delete(asked);
    // Named and made one at a time in a repository: two at once would pick the same name, and git's
    // worktree list does not take two additions at once.
    const made =
      waiting && (await machine.isFolder(waiting.path)) && worktrees.at(waiting.path, host)
        ? waiting
        : await this.oneAtATime(settingsKey(on, repository.commonDir), async () =>
            createWorktree(
              repository,
              worktree.base,
              await newWorktreeName(repository, worktrees, worktree, firstMessage ?? '', host),
            ),
          );
    const name = made.branch;
    const notes: string[] = [];
    const setup = settings.worktreeSetupFor(settingsKey(on, repository.top));
    let conversation: OpenConversation;
    let started: Start;
    try {
      if (made !== waiting) {
        worktrees.add({
          path: made.path,
          repository: repository.top,
          commonDir: repository.commonDir,
          name,
          branch: made.branch,
          // A detached HEAD's commit (or any commit) has no branch to merge into.
          base: branch.code === 0 ? worktree.base : null,
          baseCommit: made.baseCommit,
          createdAt: Date.now(),
          removedAt: null,
          ...(host ? { host } : {}),
        });
        // Fetched only when asked: a submodule comes from a server the repository names (.gitmodules).
        if (await hasSubmodules(made.path, machine)) {
          notes.push(
            ...(worktree.submodules
              ? await initSubmodules(made.path, machine)
              : [
                  'Its submodules were not fetched, as you chose: `git submodule update --init` in the worktree fetches them.',
                ]),
          );
        }
      }
      // Its setup runs first; the first message waits for it (or, in the Terminal lane, the CLI does).
      started = { ...start, cwd: made.path, ...(setup ? { setup } : {}), notes };
      conversation = await this.startNow(started);
    } catch (error) {
      if (error instanceof TrustNeeded && error.folder === made.path) {
        // The window asks about the worktree's own files, which must be there to be shown; then it asks
        // for this start again.
        this.awaitingTrust.set(asked, { repository, made, host });
        this.parts.worktreesChanged();
        throw error;
      }
      worktrees.forget(made.path, host);
      await removeWorktree(repository, made, true).catch(() => undefined);
      throw error;
    }
    this.parts.worktreesChanged();
    // Outside the cleanup above: the conversation runs in the worktree now, whatever its first send meets.
    this.begin(conversation, started);
    return conversation;
  }

  private oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.making.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.catch(() => undefined);
    this.making.set(key, settled);
    void settled.then(() => {
      if (this.making.get(key) === settled) this.making.delete(key);
    });
    return mine;
  }

  /** What a conversation's snapshot says of the Byre worktree it runs in, if it does. */
  private worktreeOf(folder: string, host: string | null = null): ConversationSnapshot['worktree'] {
    const record = this.parts.worktrees.at(folder, host);
    return record
      ? { repository: record.repository, name: record.name, branch: record.branch, base: record.base }
      : null;
  }

  /**
   * A worktree of a saved conversation that was removed (or deleted by hand), made again from its branch
   * before it carries on, here or on its host. A host that cannot be asked is said by the start itself, in
   * ssh's words.
   */
  private async recreate(host: string | null, cwd: string | null): Promise<void> {
    const remade = host
      ? await recreateIfGone(cwd, this.parts.worktrees, where(this.parts.remote, host)).catch(
          (error: unknown) => {
            if (error instanceof WorktreeRefused) throw error;
            return false;
          },
        )
      : await recreateIfGone(cwd, this.parts.worktrees);
    if (remade) this.parts.worktreesChanged();
  }

  /** Closes the connections to other hosts, once their conversations have ended. */
  async closeHosts(): Promise<void> {
    await this.parts.remote.closeAll();
  }

  /**
   * Runs `work` in a Stream CLI resumed for it alone, for a saved session with no process: no tab and no
   * events, and the process is closed afterwards, whatever happened.
   */
  async inTemporaryProcess<T>(sessionId: string, work: (conversation: Conversation) => Promise<T>) {
    // A session never has two CLIs: one open in the Terminal lane (or starting) is the one that runs.
    if (this.withSession(sessionId) || this.resuming.has(sessionId)) {
      throw new NotSupported(
        'This conversation is open in the Terminal lane: do this in its terminal, or close its tab first.',
      );
    }
    const saved = await this.saved(sessionId);
    const quiet: Wiring = { id: randomUUID(), emit: () => undefined, notify: () => undefined };
    let place: Place;
    if (saved.host) {
      // Where its session is: the library's copy of it is for reading.
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      place = await this.place(saved.host, saved.cwd);
    } else {
      if (!saved.cliFile) throw new CliCopyGone('files');
      await this.recreate(null, saved.cwd);
      place = await this.place(null, existingFolder(saved.cwd));
    }
    const conversation = await this.streamIn(place, { resume: sessionId }, quiet);
    try {
      return await work(conversation);
    } finally {
      await conversation.close();
    }
  }

  /**
   * The images of a message to send: what prepareImage gave the window, checked again since main trusts no
   * window, or images a window was sent by reference (a message sent again), read back.
   */
  async outgoingImages(images: readonly TurnImage[]): Promise<TurnImage[]> {
    const checked: TurnImage[] = [];
    for (const image of images) {
      const bytes = this.parts.images.resolve(image);
      if (bytes === undefined) {
        throw new ImageGone('An image of this message is no longer available; attach it again.');
      }
      await checkOutgoingImage(bytes, images.length);
      checked.push(bytes);
    }
    return checked;
  }

  /**
   * A new branch: `from` carried on after its entry `at` in a conversation of its own (at null: a fresh one in
   * the same folder), recorded in branches.json, and sent its first message.
   */
  async fork(from: SessionTarget, at: string | null, body: { text: string; images: TurnImage[] }) {
    const message = { ...body, images: await this.outgoingImages(body.images) };
    const parent = await this.forkParent(from, at !== null);
    // A branch asks as much as the conversation it comes from.
    const mode = parent.permissionMode ? { permissionMode: parent.permissionMode } : {};
    const launch = at === null ? mode : { ...mode, fork: { parentSessionId: parent.sessionId, at } };
    // A branch of a conversation on another host runs there, where its session is.
    const conversation = await this.start({
      lane: 'stream',
      host: parent.host ?? null,
      cwd: parent.cwd,
      launch,
    }).catch((error: unknown) => {
      throw explainForkFailure(error);
    });
    try {
      this.parts.forks.add({
        sessionId: conversation.snapshot().sessionId,
        parentSessionId: parent.sessionId,
        forkPointUuid: at,
        createdAt: Date.now(),
      });
    } catch (error) {
      // Unrecorded, the branch would be lost from its family: better no fork than a stray one.
      this.open.delete(conversation.id);
      await conversation.close();
      throw error;
    }
    this.parts.library.refresh();
    const uuid = conversation.send(message.text, message.images);
    return { snapshot: conversation.snapshot(), uuid, parentSessionId: parent.sessionId };
  }

  /** The session a fork parts from and its folder; `resumed` when the fork keeps part of it (needs its CLI file). */
  private async forkParent(
    from: SessionTarget,
    resumed: boolean,
  ): Promise<{
    sessionId: string;
    cwd: string;
    permissionMode?: PermissionModeChoice;
    host?: string | null;
  }> {
    if ('conversationId' in from) return this.get(from.conversationId).snapshot();
    const open = this.withSession(from.sessionId);
    if (open?.lane === 'stream') return open.snapshot();
    const saved = await this.saved(from.sessionId);
    if (saved.host) {
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      return { sessionId: from.sessionId, cwd: saved.cwd, host: saved.host };
    }
    if (resumed && !saved.cliFile) throw new CliCopyGone('fork');
    return { sessionId: from.sessionId, cwd: existingFolder(saved.cwd) };
  }

  /** A saved conversation's files, or a clear error. */
  async saved(sessionId: string) {
    const files = await this.parts.library.files(sessionId);
    if (!files) throw new NoSuchSession('That conversation is no longer in the library.');
    return files;
  }

  /** The environment CLI processes get: the settings' claude program, unless BYRE_CLAUDE_PATH names one. */
  cliEnv(): NodeJS.ProcessEnv {
    const { options, settings } = this.parts;
    const chosen = settings.values.cliPath;
    return chosen && !options.env.BYRE_CLAUDE_PATH
      ? { ...options.env, BYRE_CLAUDE_PATH: chosen }
      : options.env;
  }
}

/** How a conversation starts: its lane, the computer and folder it runs in, and how. */
export interface Start {
  lane: Lane;
  /** The host it runs on, over ssh (`cwd` is a folder there); null: this computer. */
  host: string | null;
  cwd: string;
  launch: Launch;
  /** A Terminal conversation's first size (otherwise a default, until its window says). */
  size?: TerminalSize;
  /** A new worktree's setup command: it runs before Claude's first turn. */
  setup?: string;
  /**
   * The new-conversation form's first message: a Stream conversation sends it once started (after its setup),
   * a Terminal one opens with it as its prompt, as `claude "…"` takes it in a terminal.
   */
  firstMessage?: string;
  /** Said in the conversation before anything else (a new worktree whose submodules could not be set up). */
  notes?: readonly string[];
}

/** Where a conversation runs, found and checked there. */
interface Place {
  host: string | null;
  /** Its folder: absolute here, as the host names it there. */
  folder: string;
  /** The host, prepared; null here. */
  remote: PreparedHost | null;
  /** Where what is kept by folder is looked up: a Byre worktree's repository, else the folder. */
  settingsFolder: string;
  /** It is a worktree Byre made. */
  inWorktree: boolean;
}

type PreparedHost = Awaited<ReturnType<RemoteHosts['prepare']>>;
type Wiring = Pick<ConversationOptions, 'id' | 'emit' | 'notify'>;

/** How a new conversation starts: afresh, resuming a saved session, or as a fork of one. */
export type Launch = Pick<ConversationOptions, 'model' | 'resume' | 'fork'> & {
  /** Otherwise the settings' default. */
  permissionMode?: PermissionModeChoice;
  /** A Terminal conversation's opening prompt. */
  prompt?: string;
};

/** An event that ends a turn: its Changes snapshot, or its result. */
function turnEnded(event: ConversationEvent, lane: Lane): boolean {
  return (
    event.kind === 'changes' ||
    (event.kind === 'message' && event.message.type === 'result') ||
    // A Terminal conversation's Stop hook (a Stream one's result, above, says it first).
    (lane === 'terminal' && event.kind === 'activity' && event.state === 'done')
  );
}

/**
 * A new worktree of a repository with submodules gets them checked out too (git leaves them empty); what
 * went wrong is a note for the conversation, not a failed start.
 */
async function initSubmodules(path: string, machine: Machine): Promise<string[]> {
  const done = await machine.git(['submodule', 'update', '--init', '--recursive'], { cwd: path });
  if (done.code === 0) return [];
  const said = done.stderr.trim().split('\n').slice(-1)[0] ?? '';
  return [`The submodules could not be set up in the worktree${said ? `: ${said}` : '.'}`];
}

/** A saved conversation's folder, if it still exists. */
export function existingFolder(cwd: string | null): string {
  if (!cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
  if (!isDirectory(cwd)) throw new NotAFolder(`The conversation's folder ${cwd} no longer exists.`);
  return cwd;
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A fork whose CLI would not start, in words a person understands (from the CLI's stderr, 2.1.332). */
function explainForkFailure(error: unknown): unknown {
  if (!(error instanceof CliExited)) return error;
  if (/No message found with message\.uuid/i.test(error.stderrTail)) {
    return new UnknownMessage(
      'That message is not in the saved conversation (it may not have been saved yet, or it comes from before Byre kept message ids), so the conversation cannot be rewound to it.',
    );
  }
  if (/No conversation found/i.test(error.stderrTail)) return new CliCopyGone('fork', 'maybeNeverSaved');
  return error;
}
