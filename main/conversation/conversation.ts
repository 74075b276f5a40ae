import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  PermissionModeChoice,
  type CommitIdentity,
  type ConversationEvent,
  ContextUsage,
  type ConversationSnapshot,
  type FileRewind,
  type InvokeResponse,
  type PlanAnswer,
  type PlanApprovalMode,
  type QuestionsAnswer,
  type TurnImage,
  EMPTY_SAVED_DRAFT,
  type SavedDraft,
  type SlashCommand,
  type ElicitationAnswer,
} from '../../shared/ipc';
import type { InitializeResponse, OutgoingUserContent } from '../../shared/protocol';
import {
  BYRE_MCP_SERVER,
  StreamTail,
  type StreamProcess,
  type SessionEvent,
  type SessionOptions,
} from '../lanes/stream';
import { CliExited } from '../lanes/lane';
import { EventLog, type EventLogLimits, type EventPage, type EventWindow } from './event-log';
import { toIpcError } from '../backend/errors';
import { Permissions, type PermissionAnswer } from './permissions';
import { Elicitations } from './elicitations';
import { CHECK_LINE, HOST_LINE, SETUP_LINE } from '../../shared/saved-session';
import { DEFAULT_CHECK_LIMITS, DoneWhen, type CheckLimits, type DoneWhenOptions } from './done-when';
import { atMost, ConversationChanges, type ChangesOptions } from '../changes/conversation-changes';
import { rewindFiles } from '../changes/rewind';
import { HeldPrompts } from './held-prompts';
import { fileRewind } from './file-rewind';
import { WorktreeSetup } from './worktree-setup';
import type { LaneConversation } from './lane-conversation';
import { toolEventsOf, TurnActivity } from './turn-activity';
import type { RemoteHost } from '../remote/hosts';
import { explainCheckExit, explainRemoteExit } from '../remote/run';

/** How long a conversation's start waits for its folder's first snapshot, beyond the CLI's own start. */
const FIRST_SNAPSHOT_WAIT_MS = 5_000;
/** How long a prompt that starts a turn waits for the folder's snapshot before it. */
const SNAPSHOT_HOLD_MS = 2_000;

/**
 * One open conversation: a CLI session and everything the UI needs to follow it. When the CLI exits on its
 * own, the conversation stays; `resume` starts a new process that continues the same session.
 */

export interface ConversationOptions {
  id: string;
  cwd: string;
  model?: string;
  /** How much Claude may do without asking, at the start. */
  permissionMode: PermissionModeChoice;
  /** Continue this saved session (`--resume`) rather than start a new one. */
  resume?: string;
  /**
   * Start as a fork (not with `resume`): a new session that carries on `parentSessionId` after its entry
   * `at`, leaving the parent untouched.
   */
  fork?: Fork;
  env: NodeJS.ProcessEnv;
  /** The setting: whether its CLI suggests a next prompt after each turn (one more model request a turn). */
  promptSuggestions?: boolean;
  transcriptDir: string;
  /** Where what the conversation has shown is kept while it is open (see EventLog). */
  eventLogDir: string;
  pageLimits?: Partial<EventLogLimits>;
  appVersion: string;
  /** Who the commits Claude makes are by (GIT_AUTHOR_* and GIT_COMMITTER_*); null: git's own setting. */
  identity?: CommitIdentity | null;
  /** The "Done when" check it starts with (empty: none), and how far a failing one may go. */
  doneWhen?: string;
  checkLimits?: CheckLimits;
  /** The git worktree Byre made that it runs in (its `cwd`); null or absent: none. */
  worktree?: ConversationSnapshot['worktree'];
  /** Where its Changes snapshots and record are kept; null or absent: no Changes. */
  changes?: ChangesOptions | null;
  /** Starts each of its CLI processes: the trust gate (main/data/trust.ts), which decides on the folder's settings. */
  startSession(options: SessionOptions): Promise<StreamProcess>;
  /** The host it runs on, over ssh (its `cwd` is a folder there); null or absent: this computer. */
  host?: RemoteHost | null;
  /** What "Always allow" told the CLI to keep in the folder's settings (see Permissions). */
  remembered?(suggestions: readonly unknown[]): void;
  /** The mode the last approved plan went on in, offered first next time, and where the next is kept. */
  planApproval?: { mode(): PlanApprovalMode; remember(mode: PlanApprovalMode): void };
  /** `seq`: the event's number in the conversation, from 0. */
  emit(event: ConversationEvent, seq: number): void;
  notify(notification: { title: string; message: string }): void;
}

type McpServerStatus = InvokeResponse<'mcpStatus'>['servers'][number];

export interface Fork {
  parentSessionId: string;
  at: string;
}

export class Conversation implements LaneConversation {
  /** The stream-json lane: every event typed, control requests (see LaneConversation). */
  readonly lane = 'stream' as const;
  private session: StreamProcess;
  private readonly transcriptPaths: string[] = [];
  private model: string | null;
  private permissionMode: PermissionModeChoice;
  private readonly permissions: Permissions;
  /** What the CLI's last system/init said it can do (`capabilities`). */
  private capabilities: readonly string[] = [];
  private readonly elicitations: Elicitations;
  private resuming: Promise<ConversationSnapshot> | undefined;
  /** Set while a new process takes the running one's place (useFolderSettings). */
  private replacing: Promise<ConversationSnapshot> | undefined;
  /**
   * Everything shown so far, for a window that opens later; stream deltas are left out (the complete lines
   * follow), and so are thinking_tokens lines (a running estimate, telemetry: nothing shows them).
   */
  private readonly log: EventLog;
  /**
   * For a conversation resumed from the library: where its history before this process ends in the CLI's
   * file (a saved-page cursor), for a window that reads back past the start of the log. Null otherwise.
   */
  savedBefore: string | null = null;
  /** The message being written in it, as the window last said (setDraft), for a window that opens later. */
  draft: SavedDraft = EMPTY_SAVED_DRAFT;
  /** The replies still streaming, whose deltas the log leaves out. */
  private readonly tail = new StreamTail();
  private closed = false;
  /** Processes closed on purpose to be replaced: their exit is no news to the user. */
  private readonly replaced = new WeakSet<StreamProcess>();
  /** Events emitted so far. */
  private emitted = 0;
  /** The events held back until the ended turn's snapshot is taken (see `holdFor`); null: none held. */
  private holding: ConversationEvent[] | null = null;
  private holds = 0;
  /** Prompts waiting for the snapshot before their turn, or for a new worktree's setup (see send). */
  private readonly held: HeldPrompts;
  /** A new worktree's setup command, once it was asked to run. */
  private setup: WorktreeSetup | null = null;
  /** Where its turn stands (working, needs you, done), told as a Terminal conversation's hooks tell it. */
  private readonly activity = new TurnActivity();

  private readonly options: Omit<ConversationOptions, 'emit'> & { emit(event: ConversationEvent): void };

  private constructor(
    options: ConversationOptions,
    session: StreamProcess,
    permissions: Permissions,
    readonly doneWhen: DoneWhen,
    elicitations: Elicitations,
    /** Its Changes (main/changes), null when off. */
    readonly changes: ConversationChanges | null,
  ) {
    this.session = session;
    this.keepTranscriptPath(session);
    this.permissions = permissions;
    this.elicitations = elicitations;
    this.model = options.model ?? null;
    this.permissionMode = options.permissionMode;
    this.log = new EventLog(join(options.eventLogDir, `${options.id}.jsonl`), options.pageLimits);
    const emit = options.emit;
    this.options = {
      ...options,
      emit: (event) => {
        // While a turn's snapshot is taken, what comes after its result waits behind it, in order.
        if (this.holding) {
          this.holding.push(event);
          return;
        }
        const seq = this.emitted++;
        this.remember(event);
        emit(event, seq);
        // Where the turn stands, in the words every lane gives (see TurnActivity).
        const activity = this.activity.after(event, this.busy);
        if (activity) this.options.emit(activity);
        for (const tool of toolEventsOf(event)) this.options.emit(tool);
      },
    };
    this.held = new HeldPrompts((event) => this.options.emit(event));
    this.follow(session);
  }

  /**
   * What a window needs to show this conversation as it stands: its last screenful, and where it begins,
   * with any reply still streaming as far as it has got.
   */
  history(): EventWindow & { seq: number } {
    const window = this.log.window();
    const streaming = this.tail.lines().map((message): ConversationEvent => ({ kind: 'message', message }));
    return { ...window, events: [...window.events, ...streaming], seq: this.emitted };
  }

  private remember(event: ConversationEvent): void {
    if (event.kind === 'exit' || (event.kind === 'message' && event.message.type === 'result')) {
      // A reply cut off mid-block (an interrupt, a crash) stays in the log as far as it got, before what
      // ended it: the complete line it would have ended with never comes.
      for (const message of this.tail.cutLines()) this.log.append({ kind: 'message', message });
      this.tail.clear();
    }
    if (event.kind === 'message') this.tail.note(event.message);
    if (!isTelemetry(event)) this.log.append(event);
  }

  /** The page of the conversation's history that ends where `before` (from an earlier page) says. */
  historyBefore(before: string): EventPage {
    return this.log.pageBefore(before);
  }

  static async start(options: ConversationOptions): Promise<Conversation> {
    // Requests come only once a turn runs, after the conversation exists; they go through its log.
    const made: { conversation?: Conversation } = {};
    const permissions = new Permissions(
      (event) => made.conversation?.options.emit(event),
      (suggestions) => options.remembered?.(suggestions),
      {
        capabilities: () => made.conversation?.capabilities ?? [],
        approveMode: () => options.planApproval?.mode() ?? 'default',
      },
    );
    const elicitations = new Elicitations((event) => made.conversation?.options.emit(event));
    // A bad line during the handshake waits for the conversation, so it reaches windows and the log too.
    const early: ConversationEvent[] = [];
    const emit = (event: ConversationEvent) =>
      made.conversation ? made.conversation.options.emit(event) : early.push(event);
    const host = options.host ?? null;
    const doneWhen = new DoneWhen({
      cwd: options.cwd,
      command: options.doneWhen ?? '',
      limits: options.checkLimits ?? DEFAULT_CHECK_LIMITS,
      emit,
      record: (check) => made.conversation?.session.recordByre({ type: CHECK_LINE, check }),
      notify: options.notify,
      env: options.env,
      // On a host, the check runs there, in the folder there.
      ...(host ? { elsewhere: elsewhere(host, options.cwd) } : {}),
    });
    if (doneWhen.current) emit({ kind: 'done_when', command: doneWhen.current });
    // Chosen here, not by the driver, so the first snapshot, named by it, is taken while the CLI starts.
    const sessionId = options.resume && !options.fork ? options.resume : randomUUID();
    const changes = options.changes
      ? ConversationChanges.begin(options.changes, { folder: options.cwd, key: sessionId, emit })
      : null;
    const session = await options
      .startSession(
        Conversation.sessionOptions({ ...options, emit }, permissions, doneWhen, elicitations, {
          cwd: options.cwd,
          model: options.model,
          permissionMode: options.permissionMode,
          ...(options.identity ? { identity: options.identity } : {}),
          ...(options.fork
            ? { ...forkLaunch(options.fork), sessionId }
            : options.resume
              ? { resume: options.resume }
              : { sessionId }),
        }),
      )
      .catch((error: unknown) => {
        changes?.discard();
        throw error;
      });
    try {
      // The first snapshot before the first turn, unless it takes long (a big folder): then the turn's
      // snapshot waits for it, and the panel says the first turn may have begun before it was done.
      await changes?.readyWithin(FIRST_SNAPSHOT_WAIT_MS);
      made.conversation = new Conversation(options, session, permissions, doneWhen, elicitations, changes);
    } catch (error) {
      // Never a CLI left running for a start that failed.
      await session.close({ graceMs: 0, termMs: 1_000 });
      throw error;
    }
    for (const event of early) made.conversation.options.emit(event);
    if (session.transcriptError)
      made.conversation.options.emit({ kind: 'warning', message: session.transcriptError });
    return made.conversation;
  }

  get id(): string {
    return this.options.id;
  }

  get sessionId(): string {
    return this.session.id;
  }

  snapshot(): ConversationSnapshot {
    return {
      conversationId: this.options.id,
      sessionId: this.session.id,
      cwd: this.session.cwd,
      model: this.model,
      models: this.session.info.models,
      claudeCodeVersion: this.session.info.claude_code_version ?? null,
      permissionMode: this.permissionMode,
      commitIdentity: this.options.identity ?? null,
      commands: slashCommands(this.session.info),
      ...(this.session.folderSettings === 'off' ? { folderSettingsOff: true } : {}),
      ...(this.options.worktree ? { worktree: this.options.worktree } : {}),
      ...(this.options.host ? { host: this.options.host.name } : {}),
    };
  }

  /**
   * Runs a new worktree's setup command before the first turn: every prompt sent until it passes (or the
   * user goes on without it, `setupAction`) waits, in order.
   */
  runSetup(command: string): void {
    const setup = new WorktreeSetup({
      cwd: this.options.cwd,
      command,
      timeoutMs: (this.options.checkLimits ?? DEFAULT_CHECK_LIMITS).timeoutMs,
      emit: (event) => this.options.emit(event),
      record: (run) => this.session.recordByre({ type: SETUP_LINE, run }),
      env: this.options.env,
      // On a host, it runs there, in the worktree there, as a "Done when" check does.
      ...(this.options.host ? { elsewhere: elsewhere(this.options.host, this.options.cwd) } : {}),
    });
    this.setup = setup;
    this.held.gate(setup.opened);
    void setup.run();
  }

  /** Something the user should know about the conversation's folder, shown in it as a warning. */
  warn(message: string): void {
    this.options.emit({ kind: 'warning', message });
  }

  /** Whether a setup command failed (or was stopped) and waits for Run again or Go on without it. */
  get setupWaiting(): boolean {
    return this.setup?.waiting ?? false;
  }

  /** Runs a failed setup command again, or goes on without it (the waiting messages are sent). */
  setupAction(action: 'retry' | 'skip'): void {
    const setup = this.setup;
    if (!setup?.waiting) return;
    if (action === 'retry') void setup.run();
    else setup.skip();
  }

  /**
   * Sends a prompt. One that would start a turn (none runs) waits, briefly, for the folder's snapshot
   * before it (Changes), so that the turn's changes are only its own; the prompts after it wait behind it,
   * in order. The prompt shows at once either way.
   */
  send(text: string, images: readonly TurnImage[] = [], uuid?: string): string {
    let id: string;
    if (this.replacing) {
      // The CLI is being started again (Trust folder…): the prompt waits for the new one, never the old.
      const waiting = uuid ?? randomUUID();
      this.held.hold(
        { uuid: waiting, send: () => this.write(text, images, waiting) },
        null,
        () => !this.closed,
      );
      id = waiting;
    } else id = this.write(text, images, uuid);
    this.options.emit({ kind: 'prompt', uuid: id, text, images: [...images], at: Date.now() });
    return id;
  }

  /** The prompt to the running CLI, or held until its turn's snapshot; its uuid. */
  private write(text: string, images: readonly TurnImage[], uuid: string | undefined): string {
    const prepared = this.session.prepare(userContent(text, images), uuid ? { uuid } : {});
    const changes = this.changes;
    changes?.notePrompt(prepared.uuid, text);
    const startsTurn = this.session.pendingTurns.length === 0;
    if ((changes && startsTurn) || this.held.any) {
      const session = this.session;
      this.held.hold(
        prepared,
        changes && startsTurn ? () => changes.beforeTurn(SNAPSHOT_HOLD_MS) : null,
        () => session === this.session,
      );
    } else prepared.send();
    return prepared.uuid;
  }

  /** A turn runs, or a prompt waits to be sent. */
  get busy(): boolean {
    return this.session.running && (this.session.pendingTurns.length > 0 || this.held.any);
  }

  /** Stops the running turn; a permission request still waiting is denied, a running check killed. */
  async interrupt(): Promise<void> {
    this.held.dropAll();
    if (this.setup?.isRunning) {
      this.setup.stop();
      this.options.emit({
        kind: 'warning',
        message:
          'The setup command was stopped, and the messages waiting for it were not sent. Messages sent now wait until it is run again, or until you go on without it.',
      });
    }
    this.permissions.denyAll('The user stopped Claude before answering.');
    this.elicitations.cancelAll('The user stopped Claude before answering.');
    this.doneWhen.stop();
    await this.session.interrupt();
  }

  /** How full the context window is. Asked of a CLI that has exited, it refuses: looking starts nothing. */
  async contextUsage(): Promise<ContextUsage> {
    this.mustBeRunning();
    const answer = await this.session.getContextUsage();
    const kind = ContextUsage.shape.categories.element.shape.kind;
    return {
      usedTokens: answer.totalTokens,
      maxTokens: answer.maxTokens,
      categories: answer.categories.map((category) => ({
        name: category.name,
        tokens: category.tokens,
        kind: kind.catch('other').parse(category.kind),
      })),
    };
  }

  async mcpStatus(): Promise<{ servers: McpServerStatus[] }> {
    this.mustBeRunning();
    const answer = await this.session.mcpStatus();
    return {
      servers: answer.mcpServers.map((server) => ({
        name: server.name,
        status: server.status,
        error: server.error ?? null,
        tools: (server.tools ?? []).map((tool) => tool.name),
        builtIn: server.name === BYRE_MCP_SERVER,
      })),
    };
  }

  async mcpToggle(serverName: string, enabled: boolean): Promise<void> {
    this.mustBeRunning();
    await this.session.mcpToggle(serverName, enabled);
  }

  async mcpReconnect(serverName: string): Promise<void> {
    this.mustBeRunning();
    await this.session.mcpReconnect(serverName);
  }

  private mustBeRunning(): void {
    if (!this.session.running) {
      throw new NotRunning('Claude Code is not running in this conversation; resume it to see this.');
    }
  }

  async stopTask(taskId: string): Promise<void> {
    await this.session.stopTask(taskId);
  }

  /** Answers a permission request; false if it is no longer waiting. */
  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.permissions.answer(requestId, answer);
  }

  /** Answers Claude's questions (or skips them); false if they are no longer waiting. */
  answerQuestions(requestId: string, answer: QuestionsAnswer): boolean {
    return this.permissions.answerQuestions(requestId, answer);
  }

  /**
   * Approves a plan and goes on in the mode chosen (the CLI leaves plan mode, the host says for what), or
   * keeps planning, in plan mode still. False if the plan is no longer waiting.
   */
  async answerPlan(requestId: string, answer: PlanAnswer): Promise<boolean> {
    if (!this.permissions.answerPlan(requestId, answer)) return false;
    if (answer.behavior === 'approve') {
      this.options.planApproval?.remember(answer.mode);
      try {
        await this.setPermissionMode(answer.mode);
      } catch (error) {
        // The plan is approved whatever happens here: the answer was sent, and the header says the mode.
        const why = error instanceof Error ? error.message : String(error);
        this.options.emit({
          kind: 'warning',
          message: `The plan was approved, but the mode could not be set: ${why}`,
        });
      }
    }
    return true;
  }

  /** Answers an MCP server's question (elicitation); false if it is no longer waiting. */
  answerElicitation(requestId: string, answer: ElicitationAnswer): boolean {
    return this.elicitations.answer(requestId, answer);
  }

  async setPermissionMode(mode: PermissionModeChoice): Promise<PermissionModeChoice> {
    if (this.session.running) await this.session.setPermissionMode(mode);
    // A process that has exited takes it when it is resumed.
    this.notePermissionMode(mode);
    return mode;
  }

  private notePermissionMode(mode: PermissionModeChoice): void {
    if (mode === this.permissionMode) return;
    this.permissionMode = mode;
    this.options.emit({ kind: 'permission_mode', mode });
  }

  async cancelQueued(uuid: string): Promise<boolean> {
    if (this.held.cancel(uuid)) return true;
    const cancelled = await this.session.cancelQueued(uuid);
    if (cancelled) this.options.emit({ kind: 'prompt_cancelled', uuid });
    return cancelled;
  }

  async setModel(model: string): Promise<string> {
    const answer = await this.session.setModel(model);
    this.model = answer.model ?? model;
    this.options.emit({ kind: 'model', model: this.model });
    return this.model;
  }

  /**
   * Restores the files changed since just before the user message `userMessageUuid`: those of Claude
   * Code's file tools by its checkpoints, the rest (shell commands') from the Changes snapshots; with
   * `dryRun`, only says what that would change. Runs in this session, which made the checkpoints, starting
   * its CLI again if it exited.
   */
  async rewindFiles(userMessageUuid: string, dryRun: boolean): Promise<FileRewind> {
    if (!this.session.running) await this.resume();
    // A restore answers only whether it worked: the preview says which files it changes.
    return rewindFiles(this.changes, userMessageUuid, dryRun, async (dry) =>
      fileRewind(await this.session.rewindFiles(userMessageUuid, dry)),
    );
  }

  /** A new CLI process continuing this session, after the last one exited. */
  resume(): Promise<ConversationSnapshot> {
    if (this.session.running) return Promise.resolve(this.snapshot());
    // A second click (or a second window) while the CLI starts joins the first attempt.
    this.resuming ??= this.resumeNow().finally(() => {
      this.resuming = undefined;
    });
    return this.resuming;
  }

  private async resumeNow(): Promise<ConversationSnapshot> {
    const previous = this.session;
    const base = Conversation.sessionOptions(
      this.options,
      this.permissions,
      this.doneWhen,
      this.elicitations,
      {
        ...previous.resumeOptions(),
        permissionMode: this.permissionMode,
      },
    );
    let session: StreamProcess;
    try {
      session = await this.options.startSession(base);
    } catch (error) {
      // A CLI killed before it saved the first prompt left nothing to resume: start the same id afresh. A fork
      // writes its file (the parent's entries with it) only with that prompt, so it forks again, to its own id.
      if (!(error instanceof CliExited) || !/No conversation found/i.test(error.stderrTail)) throw error;
      const { resume: _resume, ...fresh } = base;
      const origin = this.options.fork ? forkLaunch(this.options.fork) : {};
      session = await this.options.startSession({ ...fresh, ...origin, sessionId: previous.id });
    }
    if (this.closed) {
      // Closed while it was starting: nobody is left to talk to it.
      await session.close();
      throw new Error('The conversation was closed.');
    }
    this.session = session;
    this.keepTranscriptPath(session);
    this.follow(session);
    const snapshot = this.snapshot();
    this.options.emit({ kind: 'resumed', snapshot });
    return snapshot;
  }

  /**
   * Once its folder is trusted: a new process in place of the running one, which ran without the folder's
   * settings. Refused while a reply runs, which the restart would cut off.
   */
  async useFolderSettings(): Promise<ConversationSnapshot> {
    if (this.session.folderSettings === 'loaded') return this.snapshot();
    if (this.session.pendingTurns.length > 0 || this.held.any) {
      throw new Busy('Claude is replying: wait for the reply to finish, or stop it, then try again.');
    }
    const previous = this.session;
    this.replaced.add(previous);
    const replacing = (async () => {
      await previous.close();
      try {
        return await this.resume();
      } catch (error) {
        // The old process is gone and no new one runs: the conversation says so, with Resume, as after a crash.
        this.options.emit({ kind: 'exit', error: toIpcError(error) });
        throw error;
      }
    })();
    // What is sent meanwhile waits for the new process, in order (see send).
    this.replacing = replacing;
    this.held.gate(replacing);
    try {
      return await replacing;
    } finally {
      this.replacing = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    // What waited for a snapshot is kept in the log before it closes.
    if (this.holding) this.release(this.holding);
    this.held.clear();
    this.doneWhen.stop();
    this.setup?.stop();
    try {
      await this.session.close();
    } finally {
      this.log.close();
    }
  }

  kill(): void {
    this.doneWhen.stop();
    this.setup?.stop();
    this.session.kill();
  }

  private static sessionOptions(
    options: Omit<ConversationOptions, 'emit'> & { emit(event: ConversationEvent): void },
    permissions: Permissions,
    doneWhen: DoneWhen,
    elicitations: Elicitations,
    launch: Partial<SessionOptions> & { cwd: string },
  ): SessionOptions {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return {
      ...launch,
      ...(options.host ? { transport: options.host.transport } : {}),
      canUseTool: permissions.canUseTool,
      onElicitation: elicitations.onElicitation,
      hooks: { Stop: [doneWhen.hook] },
      // Every line the app could not read is reported (and the conversation goes on).
      onBadLine: (bad) => options.emit({ kind: 'bad_line', problem: bad.problem }),
      env: options.env,
      ...(options.promptSuggestions === false ? { promptSuggestions: false } : {}),
      appVersion: options.appVersion,
      transcript: join(options.transcriptDir, `${stamp}-${options.id}.jsonl`),
    };
  }

  /** The transcripts of this conversation's CLI runs, oldest first (one more at each resume). */
  get transcripts(): readonly string[] {
    return this.transcriptPaths;
  }

  private keepTranscriptPath(session: StreamProcess): void {
    const path = session.transcriptPath;
    if (path && !this.transcriptPaths.includes(path)) this.transcriptPaths.push(path);
  }

  private follow(session: StreamProcess): void {
    // Each run's transcript says where it ran, for the library (a session on a host resumes there).
    if (this.options.host) session.recordByre({ type: HOST_LINE, host: this.options.host.name });
    session.on((event) => {
      // Events from a process that has been replaced are history.
      if (session !== this.session) return;
      if (event.kind === 'exit' && this.replaced.has(session)) return;
      // A turn's result is shown once the folder as the turn left it is kept: an edit made by hand as soon
      // as the turn shows finished is then the person's, not the turn's (Changes).
      const snapshot = event.kind === 'message' ? this.changes?.note(event.message, event.settles) : null;
      if (snapshot) this.holdFor(snapshot);
      const forwarded = this.translate(event);
      if (forwarded) this.options.emit(forwarded);
    });
  }

  /** Holds every event back until `snapshot` is taken, or SNAPSHOT_HOLD_MS at most; then sends them in order. */
  private holdFor(snapshot: Promise<void>): void {
    const held = (this.holding ??= []);
    // A second turn ending while the first's snapshot is taken: the hold lasts until the later one's.
    const hold = ++this.holds;
    void atMost(snapshot, SNAPSHOT_HOLD_MS).then(() => {
      if (hold === this.holds) this.release(held);
    });
  }

  private release(held: ConversationEvent[]): void {
    if (this.holding !== held) return;
    this.holding = null;
    for (const event of held) this.options.emit(event);
  }

  private translate(event: SessionEvent): ConversationEvent | undefined {
    switch (event.kind) {
      case 'message':
        if (event.message.type === 'system' && event.message.subtype === 'init') {
          this.model = event.message.model;
          this.capabilities = event.message.capabilities ?? [];
        }
        if (
          event.message.type === 'system' &&
          (event.message.subtype === 'init' || event.message.subtype === 'status')
        ) {
          // The CLI changes the mode itself too, e.g. when a plan is accepted: init and status lines say so.
          const mode = PermissionModeChoice.safeParse(event.message.permissionMode);
          if (mode.success) this.notePermissionMode(mode.data);
        }
        return { kind: 'message', message: event.message };
      case 'raw':
        // Already reported through onBadLine.
        return undefined;
      case 'title':
        return { kind: 'title', title: event.title };
      case 'notify':
        this.options.notify({ title: event.title ?? 'Claude', message: event.message });
        return { kind: 'notify', message: event.message, ...(event.title ? { title: event.title } : {}) };
      case 'warning':
        return { kind: 'warning', message: event.message };
      case 'exit':
        this.permissions.denyAll('Claude Code stopped before an answer.');
        this.elicitations.cancelAll('Claude Code stopped before an answer.');
        if (!event.error) return { kind: 'exit' };
        // On another host, ssh's own end (a lost connection, say) is said as such, not as the CLI's.
        return {
          kind: 'exit',
          error: toIpcError(
            this.options.host ? explainRemoteExit(event.error, this.options.host.name) : event.error,
          ),
        };
    }
  }
}

/** The commands the CLI offers, as the `/` menu lists them: one per name, sized to fit the IPC schema. */
export function slashCommands(info: InitializeResponse): SlashCommand[] {
  const seen = new Set<string>();
  const commands: SlashCommand[] = [];
  for (const command of info.commands ?? []) {
    const name = command.name.replace(/^\//, '');
    if (!name || name.length > 200 || seen.has(name)) continue;
    seen.add(name);
    commands.push({
      name,
      description: (command.description ?? '').slice(0, 2_000),
      argumentHint: (command.argumentHint ?? '').slice(0, 200),
    });
  }
  return commands;
}

/** A line a window that opens later has no use for. */
function isTelemetry(event: ConversationEvent): boolean {
  if (event.kind !== 'message') return false;
  const { message } = event;
  return (
    message.type === 'stream_event' || (message.type === 'system' && message.subtype === 'thinking_tokens')
  );
}

/** Something that cannot be done while Claude is replying. */
export class Busy extends Error {
  override name = 'Busy';
}

/** A question only a running CLI can answer, asked of one that has exited. */
export class NotRunning extends Error {
  override name = 'NotRunning';
}

/** The launch options of a fork; the new session's id is chosen by the driver unless given. */
function forkLaunch(fork: Fork): Partial<SessionOptions> {
  return { resume: fork.parentSessionId, resumeSessionAt: fork.at, forkSession: true };
}

/** A user line's content: image blocks first, then the text block (claude-protocol.md); plain text alone. */
export function userContent(text: string, images: readonly TurnImage[]): OutgoingUserContent {
  if (images.length === 0) return text;
  const blocks: Exclude<OutgoingUserContent, string> = images.map((image) => ({
    type: 'image' as const,
    source: { type: 'base64' as const, media_type: image.mediaType, data: image.data },
  }));
  if (text.trim().length > 0) blocks.push({ type: 'text', text });
  return blocks;
}

/** How a check or a setup command runs on a host: there, in the folder there, its exit explained. */
function elsewhere(host: RemoteHost, cwd: string): NonNullable<DoneWhenOptions['elsewhere']> {
  return {
    via: (command: string) => host.check(cwd, command),
    failure: (code: number | null, output: string, reached: boolean) =>
      explainCheckExit(code, output, host.name, reached),
  };
}
