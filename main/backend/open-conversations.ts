import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import type {
  ConversationEvent,
  ConversationSnapshot,
  EventChannel,
  EventPayload,
  Lane,
  NewWorktree,
  PermissionModeChoice,
  SessionTarget,
  TerminalSize,
  TurnImage,
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
import {
  hasSubmodules,
  where,
  mainRepositoryOf,
  newWorktreeName,
  NOT_A_REPOSITORY,
  recreateIfGone,
  settingsKey,
} from './worktree-choices';
import type { Machine } from '../changes/machine';
import { changesFolders, HOST_SNAPSHOTS } from '../changes/record';
import { openSnapshotStore } from '../changes/snapshot-store';
import { checkOutgoingImage } from '../intake/images';
import type { Library } from '../library/library';
import { TerminalConversation } from '../conversation/terminal-conversation';
import { HOOK_SCRIPT, HookChannel, hookRunner } from '../lanes/terminal/hook-channel';
import { cliCursorAt } from '../library/read-session';
import type { RemoteHosts } from '../remote/hosts';
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
 * its own for one request. Every CLI starts here, through the trust gate, with the settings of its folder.
 */
export class OpenConversations {
  private readonly conversations = new Map<string, Conversation>();
  /** Worktrees being made, by repository: one at a time, as git's own worktree list takes them. */
  private readonly making = new Map<string, Promise<unknown>>();
  /** Worktrees just made whose own files wait for the user's trust, by the start that made them. */
  private readonly awaitingTrust = new Map<
    string,
    { repository: Repository; made: Worktree; host: string | null }
  >();
  /** Saved sessions whose CLI is starting, so a second resume joins the first. */
  private readonly resuming = new Map<string, Promise<Conversation>>();
  /** Sessions on other hosts being carried on, by session id. */
  private readonly resumingRemote = new Map<string, Promise<Conversation>>();
  /** The Terminal conversations: the interactive CLI in a PTY (main/lanes/terminal). */
  private readonly terminals = new Map<string, TerminalConversation>();
  /** Saved sessions being carried on in the Terminal lane, so a second ask joins the first. */
  private readonly resumingTerminal = new Map<string, Promise<TerminalConversation>>();
  /** Where their hooks report, opened with the first of them and closed with the last window. */
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

  all(): Conversation[] {
    return [...this.conversations.values()];
  }

  /** A Stream conversation: what only the stream-json lane can do is asked of it. */
  get(conversationId: string): Conversation {
    const conversation = this.conversations.get(conversationId);
    if (conversation) return conversation;
    if (this.terminals.has(conversationId)) {
      throw new NotSupported(
        'This is a Terminal conversation: Claude Code runs in its terminal, so do this there (its own commands and keys), or continue it in the Stream lane.',
      );
    }
    throw new NoSuchConversation('That conversation is closed.');
  }

  /** A conversation of either lane, for what both can do (Changes, "Done when", listing, closing). */
  any(conversationId: string): Conversation | TerminalConversation {
    return this.terminals.get(conversationId) ?? this.get(conversationId);
  }

  /** A Terminal conversation. */
  terminal(conversationId: string): TerminalConversation {
    const terminal = this.terminals.get(conversationId);
    if (terminal) return terminal;
    if (this.conversations.has(conversationId))
      throw new NotSupported('This conversation runs in the Stream lane: it has no terminal.');
    throw new NoSuchConversation('That conversation is closed.');
  }

  /** Every open conversation, of both lanes. */
  everyLane(): (Conversation | TerminalConversation)[] {
    return [...this.conversations.values(), ...this.terminals.values()];
  }

  async close(conversationId: string): Promise<void> {
    const conversation = this.conversations.get(conversationId) ?? this.terminals.get(conversationId);
    this.conversations.delete(conversationId);
    this.terminals.delete(conversationId);
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
      ...this.everyLane().map((conversation) => conversation.close()),
      ...unanswered.map(async ({ repository, made, host }) => {
        this.parts.worktrees.forget(made.path, host);
        await removeWorktree(repository, made, true).catch(() => undefined);
      }),
    ]);
    this.conversations.clear();
    this.terminals.clear();
    const hooks = this.hookChannel;
    this.hookChannel = undefined;
    (await hooks?.catch(() => undefined))?.close();
    await this.closeHosts();
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

  /** A saved session carried on in the Terminal lane (`--resume`), in its folder, its worktree made again. */
  resumeTerminal(sessionId: string, size: TerminalSize): Promise<TerminalConversation> {
    // One CLI per session however many windows (or clicks) ask at once, as for a Stream resume.
    let resuming = this.resumingTerminal.get(sessionId);
    if (!resuming) {
      resuming = this.resumeTerminalNow(sessionId, size).finally(() =>
        this.resumingTerminal.delete(sessionId),
      );
      this.resumingTerminal.set(sessionId, resuming);
    }
    return resuming;
  }

  private async resumeTerminalNow(sessionId: string, size: TerminalSize): Promise<TerminalConversation> {
    const open = this.withSession(sessionId, 'every');
    if (open instanceof TerminalConversation) return open;
    if (open || this.resuming.has(sessionId)) {
      throw new NotSupported(
        'This conversation is open in the Stream lane: continue it in the Terminal lane from its tab.',
      );
    }
    const saved = await this.saved(sessionId);
    if (saved.host) {
      // Where its session is: the library's copy of it is for reading.
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      await this.recreateOnHost(saved.host, saved.cwd);
      return this.startTerminal(saved.cwd, { resume: sessionId }, size, undefined, saved.host);
    }
    if (!saved.cliFile) throw new CliCopyGone('resume');
    await this.recreateWorktree(saved.cwd);
    return this.startTerminal(existingFolder(saved.cwd), { resume: sessionId }, size);
  }

  /**
   * An open conversation carried on in the other lane: the same session (`--resume`), in the same folder, its
   * process in this lane ended first. Refused while Claude works, which the switch would cut off.
   */
  async switchLane(
    conversationId: string,
    lane: Lane,
    size: TerminalSize,
  ): Promise<Conversation | TerminalConversation> {
    const open = this.any(conversationId);
    const { sessionId, cwd, host, permissionMode } = open.snapshot();
    if (open instanceof TerminalConversation === (lane === 'terminal')) return open;
    if (open instanceof TerminalConversation ? open.working : open.busy) {
      throw new Busy('Claude is working: wait for the turn to end (or stop it), then switch.');
    }
    // What can refuse the switch asks before the open conversation ends: a folder whose settings changed
    // since it started needs the person's trust (TrustNeeded), and it goes on as it was meanwhile. A host's
    // folder is judged by its files there.
    if (host) await this.trust.folderSettingsOn(hostFolder(this.parts.remote, host, cwd));
    else this.trust.folderSettingsFor(cwd);
    await this.close(conversationId);
    const launch = { resume: sessionId, permissionMode };
    if (lane === 'terminal') return this.startTerminal(cwd, launch, size, undefined, host ?? null);
    if (this.parts.lanes.of(sessionId) === 'terminal') this.parts.lanes.note(sessionId, 'stream');
    // From the library, so that a window reads its history before the switch as pages of the saved session;
    // one the library has not read yet starts at the switch.
    return this.resume(sessionId).catch((error: unknown) => {
      if (error instanceof NoSuchSession)
        return host ? this.startRemote(host, cwd, launch) : this.start(cwd, launch);
      throw error;
    });
  }

  /** Ends every CLI at once, both lanes (app quit). */
  killAll(): void {
    for (const terminal of this.terminals.values()) terminal.kill();
  }

  /**
   * A Terminal conversation in `cwd`: the real interactive CLI in a PTY of `size`, afresh or carrying on a
   * saved session (`launch.resume`). The trust gate decides before anything starts, as for a Stream one.
   */
  async startTerminal(
    cwd: string,
    launch: Launch,
    size: TerminalSize,
    /** A new worktree's setup command, run before the CLI starts. */
    setup?: string,
    /** The host it runs on (over ssh, in a terminal there); null for this computer. */
    host: string | null = null,
  ): Promise<TerminalConversation> {
    if (host) return this.startTerminalOnHost(host, cwd, launch, size, setup);
    const { options, settings } = this.parts;
    const folder = resolve(cwd);
    if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
    if (launch.resume) {
      // One CLI per session: two would both write its file.
      const open = this.withSession(launch.resume, 'every');
      if (open instanceof TerminalConversation) return open;
      if (open)
        throw new NotSupported(
          'This conversation is open in the Stream lane: close its tab first, then open it in the Terminal lane.',
        );
    }
    // TrustNeeded here starts nothing: the window asks, then starts the same again.
    const folderSettings = this.trust.folderSettingsFor(folder);
    const settingsFolder = this.settingsFolder(folder);
    const id = randomUUID();
    const inWorktree = this.parts.worktrees.at(folder) !== undefined;
    const wiring = this.wiring(id, inWorktree);
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
    const hooks = await this.hookChannel;
    const terminal = await TerminalConversation.start({
      id,
      cwd: folder,
      ...(launch.resume ? { resume: launch.resume } : {}),
      ...(launch.model ? { model: launch.model } : {}),
      ...(launch.prompt ? { prompt: launch.prompt } : {}),
      permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
      folderSettings,
      env: this.cliEnv(),
      identity: settings.commitIdentityFor(settingsFolder),
      doneWhen: settings.doneWhenFor(settingsFolder),
      checkLimits: settings.checkLimits,
      worktree: this.worktreeOf(folder),
      changes: changesFolders(options.dataDir),
      hooks,
      size,
      ...(setup ? { setup } : {}),
      eventLogDir: this.parts.eventLogDir,
      ...(options.pageLimits ? { pageLimits: options.pageLimits } : {}),
      emit: wiring.emit,
      notify: wiring.notify,
      output: (data, seq) => this.parts.emit('terminalOutput', { conversationId: id, data, seq }),
      sessionChanged: (sessionId) => this.noteTerminalLane(sessionId),
    });
    this.keepTerminal(terminal, () => this.parts.settings.addRecentFolder(settingsFolder));
    return terminal;
  }

  /** A session goes on in the terminal when resumed later (after a restart too). */
  private noteTerminalLane(sessionId: string): void {
    try {
      this.parts.lanes.note(sessionId, 'terminal');
    } catch (error) {
      console.error('Byre: could not keep the lane of a Terminal conversation:', error);
    }
  }

  /** A Terminal conversation started: kept open, its lane noted for a resume (after a restart too). */
  private keepTerminal(terminal: TerminalConversation, addRecent: () => void): void {
    this.terminals.set(terminal.id, terminal);
    this.noteTerminalLane(terminal.sessionId);
    try {
      addRecent();
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
  }

  /**
   * A Terminal conversation on a host: the interactive CLI there, in a terminal ssh asks the host for, over
   * the host's one connection. Its hooks run there with the host's node, and reach a channel of this
   * conversation's own here through a socket ssh forwards (a secret of its own, written there 0600). Its
   * folder's settings, Changes, "Done when" and setup command are the host's, as for a Stream one there.
   */
  private async startTerminalOnHost(
    host: string,
    cwd: string,
    launch: Launch,
    size: TerminalSize,
    setup?: string,
  ): Promise<TerminalConversation> {
    if (launch.resume) {
      const open = this.withSession(launch.resume, 'every');
      if (open instanceof TerminalConversation) return open;
      if (open)
        throw new NotSupported(
          'This conversation is open in the Stream lane: close its tab first, then open it in the Terminal lane.',
        );
    }
    const { settings } = this.parts;
    const remote = await this.parts.remote.prepare(host, cwd);
    const folder = remote.folder;
    // TrustNeeded here starts nothing: read there, as each start of a Stream one there reads them.
    const folderSettings = await this.trust.folderSettingsOn(hostFolder(this.parts.remote, host, folder));
    const settingsFolder = this.parts.worktrees.at(folder, host)?.repository ?? folder;
    const id = randomUUID();
    const wiring = this.wiring(id, this.parts.worktrees.at(folder, host) !== undefined, host);
    let channel: HookChannel | null = null;
    let there: { node: string; folder: string } | null = null;
    try {
      channel = await HookChannel.open({ path: process.execPath, env: {} });
      there = await remote.terminal.prepareHooks(channel.secretText, HOOK_SCRIPT);
    } catch (error) {
      channel?.close();
      if (error instanceof RemoteProblem) throw error;
      console.error('Byre: the hooks of a Terminal conversation on a host could not be set up:', error);
      channel = null;
    }
    const forward =
      channel && there ? { there: posix.join(there.folder, 'hooks.sock'), here: channel.socketPath } : null;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      channel?.close();
      if (there && forward) void remote.terminal.releaseHooks(there.folder, forward);
    };
    let terminal: TerminalConversation;
    try {
      terminal = await TerminalConversation.start({
        id,
        cwd: folder,
        ...(launch.resume ? { resume: launch.resume } : {}),
        ...(launch.model ? { model: launch.model } : {}),
        ...(launch.prompt ? { prompt: launch.prompt } : {}),
        permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
        folderSettings,
        env: this.cliEnv(),
        identity: settings.commitIdentityFor(hostFolderKey(host, settingsFolder)),
        doneWhen: settings.doneWhenFor(settingsFolder, host),
        checkLimits: settings.checkLimits,
        worktree: this.worktreeOf(folder, host),
        changes: remote.home
          ? {
              records: changesFolders(this.parts.options.dataDir).records,
              store: posix.join(remote.home, HOST_SNAPSHOTS),
              host,
              open: (at, store) => openSnapshotStore(at, store, remote.machine),
            }
          : null,
        hooks: channel,
        host: {
          name: host,
          transport: (cli) => remote.terminal.command(folder, cli, forward),
          elsewhere: {
            via: (command: string) => remote.check(folder, command),
            failure: (code, output, reached) => explainCheckExit(code, output, host, reached),
          },
          hooksThere: forward ? there : null,
          putFile: (at, file, bytes) => remote.terminal.putFile(at, file, bytes),
          release,
        },
        size,
        ...(setup ? { setup } : {}),
        eventLogDir: this.parts.eventLogDir,
        ...(this.parts.options.pageLimits ? { pageLimits: this.parts.options.pageLimits } : {}),
        emit: wiring.emit,
        notify: wiring.notify,
        output: (data, seq) => this.parts.emit('terminalOutput', { conversationId: id, data, seq }),
        sessionChanged: (sessionId) => this.noteTerminalLane(sessionId),
      });
    } catch (error) {
      release();
      throw error;
    }
    this.keepTerminal(terminal, () => settings.addRecentFolderOn(host, folder));
    return terminal;
  }

  withSession(sessionId: string): Conversation | undefined;
  withSession(sessionId: string, lanes: 'every'): Conversation | TerminalConversation | undefined;
  withSession(sessionId: string, lanes?: 'every'): Conversation | TerminalConversation | undefined {
    const open = lanes ? this.everyLane() : this.all();
    return open.find((conversation) => conversation.snapshot().sessionId === sessionId);
  }

  /** The open conversation of a saved session, or one resuming: a request joins it rather than start another. */
  async withSessionOrResuming(sessionId: string): Promise<Conversation | undefined> {
    return this.withSession(sessionId) ?? (await this.resuming.get(sessionId));
  }

  /** How a conversation the UI shows in a tab reaches every window: its events, and its notifications. */
  private wiring(
    id: string,
    inWorktree: boolean,
    host?: string,
  ): Pick<ConversationOptions, 'id' | 'emit' | 'notify'> {
    return {
      id,
      emit: (event, seq) => {
        this.parts.batcher.push(id, event, seq);
        // A turn ended in a worktree (its snapshot was taken, or its result came): how it stands moved.
        if (inWorktree && turnEnded(event)) this.parts.worktreesChanged();
        // A turn ended on a host, or its CLI did: the host's session file grew, for the library to copy.
        if (host && (turnEnded(event) || event.kind === 'exit')) this.parts.hostSessionsChanged?.(host);
        if (event.kind === 'message' && event.message.type === 'rate_limit_event')
          this.parts.rateLimit?.(id, event.message.rate_limit_info);
      },
      notify: ({ title, message }) => this.parts.emit('notification', { conversationId: id, title, message }),
    };
  }

  /** A conversation the UI can show in a tab: its events reach every window. */
  async start(cwd: string, launch: Launch): Promise<Conversation> {
    const id = randomUUID();
    const inWorktree = this.parts.worktrees.at(resolve(cwd)) !== undefined;
    const conversation = await this.launch(cwd, launch, this.wiring(id, inWorktree));
    this.conversations.set(id, conversation);
    try {
      // A worktree's conversations are the repository's: it is the folder the user will look for.
      this.parts.settings.addRecentFolder(this.settingsFolder(conversation.snapshot().cwd));
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
    return conversation;
  }

  /** A saved session carried on in a tab: one process however many windows (or clicks) ask at once. */
  async resume(sessionId: string): Promise<Conversation> {
    const open = this.withSession(sessionId);
    if (open) return open;
    if (this.withSession(sessionId, 'every') || this.resumingTerminal.has(sessionId)) {
      throw new NotSupported(
        'This conversation is open in the Terminal lane: type there, or continue it in the Stream lane from its tab.',
      );
    }
    let resuming = this.resuming.get(sessionId);
    if (!resuming) {
      resuming = this.resumeNow(sessionId).finally(() => this.resuming.delete(sessionId));
      this.resuming.set(sessionId, resuming);
    }
    return resuming;
  }

  /**
   * A new conversation in a new worktree of the repository `cwd` is in, made from `worktree.base` and
   * named by the user or from the first message. The repository's trust is asked for before anything is
   * made; anything failing after the worktree was made removes it and its branch again, so nothing is left
   * half-made. Its setup command runs before the first turn, and the first message waits for it.
   */
  async startInWorktree(
    cwd: string,
    worktree: NewWorktree,
    firstMessage: string | undefined,
    launch: Launch,
    /** The host the repository is on; null for this computer. */
    host: string | null = null,
    /** With its first size: a Terminal conversation. */
    terminal: TerminalSize | null = null,
  ): Promise<Conversation | TerminalConversation> {
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
    let conversation: Conversation | TerminalConversation;
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
        if (await hasSubmodules(made.path, machine))
          notes.push(...(await initSubmodules(made.path, machine)));
      }
      conversation = terminal
        ? await this.startTerminal(
            made.path,
            { ...launch, ...(firstMessage?.trim() ? { prompt: firstMessage } : {}) },
            terminal,
            setup,
            host,
          )
        : host
          ? await this.startRemote(host, made.path, launch)
          : await this.start(made.path, launch);
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
    for (const message of notes) conversation.warn(message);
    // A Terminal conversation ran its setup first, and took the first message as its opening prompt.
    if (conversation instanceof TerminalConversation) return conversation;
    if (setup) conversation.runSetup(setup);
    if (firstMessage?.trim()) conversation.send(firstMessage);
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

  /** The folder settings kept by folder are looked up by: a Byre worktree's repository, else the folder. */
  private settingsFolder(folder: string): string {
    return this.parts.worktrees.at(folder)?.repository ?? folder;
  }

  /** What a conversation's snapshot says of the Byre worktree it runs in, if it does. */
  private worktreeOf(folder: string, host: string | null = null): ConversationSnapshot['worktree'] {
    const record = this.parts.worktrees.at(folder, host);
    return record
      ? { repository: record.repository, name: record.name, branch: record.branch, base: record.base }
      : null;
  }

  private launch(
    cwd: string,
    launch: Launch,
    wiring: Pick<ConversationOptions, 'id' | 'emit' | 'notify'>,
  ): Promise<Conversation> {
    const { options, settings } = this.parts;
    const folder = resolve(cwd);
    if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
    const settingsFolder = this.settingsFolder(folder);
    return Conversation.start({
      ...this.common(launch, wiring),
      cwd: folder,
      worktree: this.worktreeOf(folder),
      doneWhen: settings.doneWhenFor(settingsFolder),
      identity: settings.commitIdentityFor(settingsFolder),
      remembered: (suggestions) => this.trust.expect(folder, suggestions),
      changes: changesFolders(options.dataDir),
    });
  }

  /** What every conversation starts with, wherever it runs. */
  private common(
    launch: Launch,
    wiring: Pick<ConversationOptions, 'id' | 'emit' | 'notify'>,
  ): Omit<ConversationOptions, 'cwd'> {
    const { options, settings } = this.parts;
    return {
      ...launch,
      permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
      checkLimits: settings.checkLimits,
      ...wiring,
      startSession: (session) => this.trust.startSession(session),
      planApproval: {
        mode: () => settings.planApprovalMode,
        remember: (mode) => settings.setPlanApprovalMode(mode),
      },
      env: this.cliEnv(),
      promptSuggestions: settings.values.promptSuggestions,
      transcriptDir: join(options.dataDir, 'transcripts'),
      eventLogDir: this.parts.eventLogDir,
      ...(options.pageLimits ? { pageLimits: options.pageLimits } : {}),
      appVersion: options.version,
    };
  }

  /**
   * A conversation on another host, over ssh, in a folder there: the host's CLI is found and the folder
   * checked first, each failure said in words (RemoteProblem). Its "Done when" check runs there, and its
   * folder's own settings, read there, are trusted as a folder's here are. Its Changes snapshots and its
   * worktree are git's there, over the same connection.
   */
  async startRemote(host: string, cwd: string, launch: Launch): Promise<Conversation> {
    const { resume } = launch;
    if (!resume) return this.startRemoteNow(host, cwd, launch);
    // One process per session however many windows (or a reload mid-start) ask: two CLIs carrying on one
    // session on the host would both write its file.
    const open = this.withSession(resume);
    if (open) return open;
    let starting = this.resumingRemote.get(resume);
    if (!starting) {
      starting = this.recreateOnHost(host, cwd)
        .then(() => this.startRemoteNow(host, cwd, launch))
        .finally(() => this.resumingRemote.delete(resume));
      this.resumingRemote.set(resume, starting);
    }
    return starting;
  }

  /**
   * A worktree on a host that was removed, made again from its branch before its conversation resumes there,
   * as here. A host that cannot be asked is said by the start itself, in ssh's words.
   */
  private async recreateOnHost(host: string, cwd: string): Promise<void> {
    const remade = await recreateIfGone(cwd, this.parts.worktrees, where(this.parts.remote, host)).catch(
      (error: unknown) => {
        if (error instanceof WorktreeRefused) throw error;
        return false;
      },
    );
    if (remade) this.parts.worktreesChanged();
  }

  private async startRemoteNow(host: string, cwd: string, launch: Launch): Promise<Conversation> {
    const id = randomUUID();
    const inWorktree = this.parts.worktrees.at(cwd, host) !== undefined;
    const conversation = await this.launchRemote(host, cwd, launch, this.wiring(id, inWorktree, host));
    this.conversations.set(id, conversation);
    try {
      this.parts.settings.addRecentFolderOn(host, conversation.snapshot().cwd);
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
    return conversation;
  }

  /** A conversation's CLI on a host, in a folder there, wired as asked. */
  private async launchRemote(
    host: string,
    cwd: string,
    launch: Launch,
    wiring: Pick<ConversationOptions, 'id' | 'emit' | 'notify'>,
  ): Promise<Conversation> {
    const remote = await this.parts.remote.prepare(host, cwd);
    const there = hostFolder(this.parts.remote, host, remote.folder);
    // What is kept by folder (its "Done when", "Commit as") is a worktree's repository's, as here.
    const settingsFolder = this.parts.worktrees.at(remote.folder, host)?.repository ?? remote.folder;
    return Conversation.start({
      ...this.common(launch, wiring),
      // Its own settings, read there at each start, are loaded once trusted, as a folder's here are.
      startSession: (session) => this.trust.startSession(session, there),
      // "Always allow" writes into its settings there: the change is the user's own, and asks nothing.
      remembered: (suggestions) => this.trust.expectFor(hostFolderKey(host, remote.folder), suggestions),
      cwd: remote.folder,
      host: remote,
      worktree: this.worktreeOf(remote.folder, host),
      doneWhen: this.parts.settings.doneWhenFor(settingsFolder, host),
      identity: this.parts.settings.commitIdentityFor(hostFolderKey(host, settingsFolder)),
      // Its snapshots are taken there, by git there, with their private files in the home folder there; the
      // record of them is kept here with the others.
      changes: remote.home
        ? {
            records: changesFolders(this.parts.options.dataDir).records,
            store: posix.join(remote.home, HOST_SNAPSHOTS),
            host,
            open: (folder, store) => openSnapshotStore(folder, store, remote.machine),
          }
        : null,
    });
  }

  /** Closes the connections to other hosts, once their conversations have ended. */
  async closeHosts(): Promise<void> {
    await this.parts.remote.closeAll();
  }

  /**
   * Runs `work` in a CLI resumed for it alone, for a saved session with no process: no tab and no events,
   * and the process is closed afterwards, whatever happened.
   */
  async inTemporaryProcess<T>(sessionId: string, work: (conversation: Conversation) => Promise<T>) {
    const saved = await this.saved(sessionId);
    const quiet = { id: randomUUID(), emit: () => undefined, notify: () => undefined };
    let conversation: Conversation;
    if (saved.host) {
      // Where its session is: the library's copy of it is for reading.
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      conversation = await this.launchRemote(saved.host, saved.cwd, { resume: sessionId }, quiet);
    } else {
      if (!saved.cliFile) throw new CliCopyGone('files');
      await this.recreateWorktree(saved.cwd);
      conversation = await this.launch(existingFolder(saved.cwd), { resume: sessionId }, quiet);
    }
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
    const conversation = await (
      parent.host ? this.startRemote(parent.host, parent.cwd, launch) : this.start(parent.cwd, launch)
    ).catch((error: unknown) => {
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
      this.conversations.delete(conversation.id);
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
    if (open) return open.snapshot();
    const saved = await this.saved(from.sessionId);
    if (saved.host) {
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      return { sessionId: from.sessionId, cwd: saved.cwd, host: saved.host };
    }
    if (resumed && !saved.cliFile) throw new CliCopyGone('fork');
    return { sessionId: from.sessionId, cwd: existingFolder(saved.cwd) };
  }

  private async resumeNow(sessionId: string): Promise<Conversation> {
    const saved = await this.saved(sessionId);
    // A session Byre ran on another host is carried on there, where its CLI's file is.
    if (saved.host) {
      if (!saved.cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
      return this.startRemote(saved.host, saved.cwd, { resume: sessionId });
    }
    if (!saved.cliFile) throw new CliCopyGone('resume');
    // What the file holds now is the history before this process: the pages a window reads past the start
    // of main's log of it (which begins here).
    const before = statSync(saved.cliFile).size;
    await this.recreateWorktree(saved.cwd);
    const conversation = await this.start(existingFolder(saved.cwd), { resume: sessionId });
    conversation.savedBefore = before > 0 ? cliCursorAt(before) : null;
    return conversation;
  }

  /** A saved conversation's worktree, removed (or deleted by hand), made again from its branch. */
  private async recreateWorktree(cwd: string | null): Promise<void> {
    if (await recreateIfGone(cwd, this.parts.worktrees)) this.parts.worktreesChanged();
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

/** How a new conversation starts: afresh, resuming a saved session, or as a fork of one. */
export type Launch = Pick<ConversationOptions, 'model' | 'resume' | 'fork'> & {
  /** Otherwise the settings' default. */
  permissionMode?: PermissionModeChoice;
  /** A Terminal conversation's opening prompt. */
  prompt?: string;
};

/** An event that ends a turn: its Changes snapshot, or its result. */
function turnEnded(event: ConversationEvent): boolean {
  return (
    event.kind === 'changes' ||
    (event.kind === 'message' && event.message.type === 'result') ||
    // A Terminal conversation's Stop hook.
    (event.kind === 'activity' && event.state === 'done')
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
