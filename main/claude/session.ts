import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
  ElicitationResult,
  HookOutput,
  OutgoingLine,
  lenientResult,
  PermissionResult,
  type CliControlRequestBody,
  type CliMessage,
  type HookEvent,
  type HostControlRequest,
  type HostControlResponse,
  type HostControlSubtype,
  type InitializeResponse,
  type JsonObject,
  type OutgoingUserContent,
  type PermissionMode,
  type ResultMessage,
} from '../../shared/protocol';
import { ControlChannel, DEFAULT_CONTROL_TIMEOUT_MS } from './control';
import { CliExited, InvalidOutgoingMessage, SessionClosed, TurnCancelled } from './errors';
import { decodingLineSink, type BadLine } from './decode';
import { buildLaunch, type FolderSettingsUse, type Launch, type LaunchOptions } from './launch';
import { commandFor } from './cmd-shim';
import { locateCli } from './locate';
import { ByreMcpServer } from './mcp';
import { CliPipe, type CloseTimings, type ExitInfo } from './pipe';
import { TranscriptWriter } from './transcript';
import { StreamTail } from './stream-tail';
import { BYRE_LINE } from '../../shared/saved-session';

/**
 * The protocol layer over the byte pipe: one running `claude` process and its conversation. It sends
 * typed lines, decodes every line once, runs the control channel both ways, serves the byre MCP server,
 * tees lines to a transcript, and settles each prompt's turn on its result.
 */

export type HookCallback = (input: JsonObject, signal: AbortSignal) => Promise<HookOutput> | HookOutput;

export interface HookRegistration {
  /** Tool-name matcher for tool hooks; null or absent matches everything. */
  matcher?: string | null;
  timeoutSeconds?: number;
  callback: HookCallback;
}

export type CanUseTool = (
  request: Extract<CliControlRequestBody, { subtype: 'can_use_tool' }>,
  signal: AbortSignal,
) => Promise<PermissionResult> | PermissionResult;

/** Asks the user what an MCP server's elicitation asks; with none, the CLI is told the user cancelled. */
export type OnElicitation = (
  request: Extract<CliControlRequestBody, { subtype: 'elicitation' }>,
  signal: AbortSignal,
) => Promise<ElicitationResult>;

export type SessionEvent =
  /** A typed line. `settles` names the prompt a result answers; a result without it came unasked. */
  | { kind: 'message'; message: CliMessage; settles?: string }
  /** A line that parsed but that this app does not understand; also reported to onBadLine. */
  | { kind: 'raw'; line: JsonObject; problem: string }
  | { kind: 'title'; title: string }
  | { kind: 'notify'; message: string; title?: string }
  /** Something the user should know that does not stop the conversation. */
  | { kind: 'warning'; message: string }
  /** The process ended. `error` is set when it ended on its own, not because we closed it. */
  | { kind: 'exit'; info: ExitInfo; error?: CliExited };

export interface SessionOptions extends LaunchOptions {
  /** Path to the claude binary; otherwise found by locateCli. */
  cliPath?: string;
  /**
   * Runs the CLI elsewhere (on a remote host, over ssh): given the launch, the local command that runs it
   * there, whose stdin and stdout carry the protocol as the CLI's own do. Without it the CLI runs here.
   */
  transport?: (launch: Launch) => PipeCommand;
  /** The environment the CLI inherits (minus CLAUDECODE); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  hooks?: Partial<Record<HookEvent, HookRegistration[]>>;
  canUseTool?: CanUseTool;
  onElicitation?: OnElicitation;
  onBadLine?: (bad: BadLine) => void;
  /** Write a transcript of this run to this JSONL file. */
  transcript?: string;
  controlTimeoutMs?: number;
  initializeTimeoutMs?: number;
  maxLineBytes?: number;
  /** The version the byre MCP server reports. */
  appVersion?: string;
  /** Ask for a guess at the next prompt after each turn (prompt_suggestion); on unless false. */
  promptSuggestions?: boolean;
}

/** What a pipe runs: a command, its arguments, where, and with what environment. */
export interface PipeCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Its output starts after a line that is this marker (a host's shell may print before it). */
  preamble?: string;
  /** Another process may hold its stdio (PipeOptions.sharedStdio). */
  sharedStdio?: boolean;
}

/** The CLI on this machine: the one chosen, or the one locateCli finds. */
function localCommand(launch: Launch, options: SessionOptions): PipeCommand {
  const cliPath = resolve(locateCli({ explicit: options.cliPath, env: options.env }));
  // On Windows a claude.cmd runs as what it wraps (cmd-shim.ts).
  const { command, args } = commandFor(cliPath, launch.args);
  return { command, args, cwd: launch.cwd, env: launch.env };
}

export interface Turn {
  /** The uuid of the user message; the CLI adopts it, so it can be rewound to later. */
  uuid: string;
  /** Resolves on the turn's result (an error result included); rejects if the CLI exits first. */
  result: Promise<ResultMessage>;
}

interface PendingTurn {
  uuid: string;
  started: boolean;
  resolve(result: ResultMessage): void;
  reject(error: Error): void;
}

type Listener = (event: SessionEvent) => void;

export class Session {
  /** The session id, known before the first turn (a new session is launched with --session-id). */
  readonly id: string;
  readonly cwd: string;
  /** The CLI's answer to initialize: models, commands, account, version. */
  info: InitializeResponse = { models: [] };
  readonly exited: Promise<ExitInfo>;

  private readonly pipe: CliPipe;
  private readonly control: ControlChannel;
  private readonly transcript: TranscriptWriter | undefined;
  /** Replies still streaming, for the transcript if the CLI cuts them off. */
  private readonly tail = new StreamTail();
  /** Why the transcript could not be opened (the conversation goes on without it), or null. */
  readonly transcriptError: string | null = null;

  /** Where this run's transcript is written; null without one. */
  get transcriptPath(): string | null {
    return this.transcript?.path ?? null;
  }
  private readonly mcp: ByreMcpServer;
  private readonly hookCallbacks = new Map<string, HookCallback>();
  private readonly listeners = new Set<Listener>();
  private readonly turns: PendingTurn[] = [];
  private inputEnded = false;
  private exitInfo: ExitInfo | undefined;

  /** Spawns the CLI and completes the initialize handshake. */
  static async start(options: SessionOptions): Promise<Session> {
    const session = new Session(options);
    try {
      await session.initialize(options);
    } catch (error) {
      await session.close({ graceMs: 0, termMs: 1_000 });
      throw error;
    }
    return session;
  }

  private constructor(private readonly options: SessionOptions) {
    const needsNewId = !options.resume || options.forkSession;
    const sessionId = options.sessionId ?? (needsNewId ? randomUUID() : undefined);
    this.id = sessionId ?? options.resume ?? '';
    this.cwd = options.cwd;
    const launch = buildLaunch({ ...options, ...(sessionId ? { sessionId } : {}) }, options.env);

    let transcript: TranscriptWriter | undefined;
    if (options.transcript) {
      const path = options.transcript;
      try {
        transcript = new TranscriptWriter(
          path,
          (error) =>
            this.emit({
              kind: 'warning',
              message: `Byre cannot write this conversation's transcript for now (${path}): ${error.message}. It keeps what comes meanwhile and tries again.`,
            }),
          (dropped) =>
            this.emit({
              kind: 'warning',
              message:
                dropped === 0
                  ? `Byre is writing this conversation's transcript again; nothing was lost.`
                  : `Byre is writing this conversation's transcript again; ${dropped} lines from while it could not are missing from it.`,
            }),
          (lost) =>
            this.emit({
              kind: 'warning',
              message: `Byre could not write the last ${lost} lines of this conversation's transcript before Claude Code exited; the transcript ends without them.`,
            }),
        );
      } catch (error) {
        // A full disk or a read-only data folder must not stop the conversation: it goes on unrecorded.
        this.transcriptError = `Byre cannot write this conversation's transcript (${path}): ${
          error instanceof Error ? error.message : String(error)
        }. The conversation works, but Byre's own history will not have it.`;
      }
    }
    this.transcript = transcript;
    this.mcp = new ByreMcpServer(
      {
        setTitle: (title) => this.emit({ kind: 'title', title }),
        notify: ({ message, title }) => this.emit({ kind: 'notify', message, ...(title ? { title } : {}) }),
      },
      options.appVersion ?? '0.0.0',
    );
    this.control = new ControlChannel(
      (line) => this.write(line),
      (request, signal) => this.answerCliRequest(request, signal),
      options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS,
    );
    const run = options.transport ? options.transport(launch) : localCommand(launch, options);
    this.pipe = new CliPipe(
      {
        ...run,
        ...(options.maxLineBytes ? { maxLineBytes: options.maxLineBytes } : {}),
      },
      {
        ...decodingLineSink({
          message: (message, text) => this.onMessage(message, text),
          raw: (line, problem, text) => this.onRawLine(line, problem, text),
          bad: (bad) => this.badLine(bad),
        }),
        exit: (info) => this.onExit(info),
      },
    );
    this.exited = this.pipe.exited;
  }

  get pid(): number | undefined {
    return this.pipe.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** Whether this process loaded the folder's own settings and MCP servers (see LaunchOptions). */
  get folderSettings(): FolderSettingsUse {
    return this.options.folderSettings ?? 'loaded';
  }

  /** Prompts sent and not yet answered by a result, oldest first. */
  get pendingTurns(): string[] {
    return this.turns.map((turn) => turn.uuid);
  }

  /** Options that start a new process continuing this conversation, e.g. after the CLI exited. */
  resumeOptions(): SessionOptions {
    const { sessionId: _sessionId, resumeSessionAt: _at, forkSession: _fork, ...rest } = this.options;
    return { ...rest, resume: this.id };
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends a user turn: a string, or image blocks followed by a text block. A turn sent while another runs
   * is queued by the CLI and runs after it.
   */
  send(content: OutgoingUserContent, options: { uuid?: string } = {}): Turn {
    return this.prepare(content, options).send();
  }

  /**
   * Checks a user turn as `send` would, throwing what it would throw, and returns the sending for later
   * (when the host has something to do first); the sending checks again that the session still takes it.
   */
  prepare(content: OutgoingUserContent, options: { uuid?: string } = {}): { uuid: string; send(): Turn } {
    if (!this.running || this.inputEnded) throw new SessionClosed('This session no longer takes messages.');
    const uuid = options.uuid ?? randomUUID();
    const line: OutgoingLine = {
      type: 'user',
      message: { role: 'user', content },
      parent_tool_use_id: null,
      session_id: this.id,
      uuid,
    };
    const checked = OutgoingLine.safeParse(line);
    if (!checked.success) throw new InvalidOutgoingMessage(`Not sent: ${checked.error.issues[0]?.message}`);
    return {
      uuid,
      send: () => {
        if (!this.running || this.inputEnded) {
          throw new SessionClosed('This session no longer takes messages.');
        }
        const result = new Promise<ResultMessage>((resolve, reject) => {
          this.turns.push({ uuid, started: false, resolve, reject });
        });
        // Callers that only watch events need not await; a rejection here must not crash the app.
        result.catch(() => undefined);
        this.writeChecked(checked.data).catch((error: unknown) => this.failTurn(uuid, asError(error)));
        return { uuid, result };
      },
    };
  }

  interrupt(): Promise<HostControlResponse<'interrupt'>> {
    return this.request({ subtype: 'interrupt' });
  }

  setModel(model: string | undefined): Promise<HostControlResponse<'set_model'>> {
    return this.request({ subtype: 'set_model', ...(model ? { model } : {}) });
  }

  setPermissionMode(mode: PermissionMode): Promise<HostControlResponse<'set_permission_mode'>> {
    return this.request({ subtype: 'set_permission_mode', mode });
  }

  mcpStatus(): Promise<HostControlResponse<'mcp_status'>> {
    return this.request({ subtype: 'mcp_status' });
  }

  /** Disables or enables one MCP server; the CLI answers at once, and mcp_status shows the new state. */
  mcpToggle(serverName: string, enabled: boolean): Promise<HostControlResponse<'mcp_toggle'>> {
    return this.request({ subtype: 'mcp_toggle', serverName, enabled });
  }

  /** Connects a failed or disconnected MCP server again. */
  mcpReconnect(serverName: string): Promise<HostControlResponse<'mcp_reconnect'>> {
    return this.request({ subtype: 'mcp_reconnect', serverName });
  }

  getContextUsage(): Promise<HostControlResponse<'get_context_usage'>> {
    return this.request({ subtype: 'get_context_usage' });
  }

  rewindFiles(userMessageId: string, dryRun = false): Promise<HostControlResponse<'rewind_files'>> {
    return this.request({ subtype: 'rewind_files', user_message_id: userMessageId, dry_run: dryRun });
  }

  stopTask(taskId: string): Promise<HostControlResponse<'stop_task'>> {
    return this.request({ subtype: 'stop_task', task_id: taskId });
  }

  /** Cancels a queued prompt before it runs (interrupt does not touch queued prompts). */
  async cancelQueued(uuid: string): Promise<boolean> {
    const answer = await this.request({ subtype: 'cancel_async_message', message_uuid: uuid });
    if (answer.cancelled) this.failTurn(uuid, new TurnCancelled(uuid));
    return answer.cancelled;
  }

  /** Stdin EOF: the CLI finishes the running turn and exits. */
  endInput(): void {
    this.inputEnded = true;
    this.pipe.endInput();
  }

  /** Staged, bounded shutdown; resolves when the process is gone. */
  async close(timings?: CloseTimings): Promise<ExitInfo> {
    this.inputEnded = true;
    const info = await this.pipe.close(timings);
    return info;
  }

  /** Immediate kill. */
  kill(): void {
    this.pipe.kill();
  }

  private async initialize(options: SessionOptions): Promise<void> {
    const hooks: Partial<
      Record<HookEvent, { matcher: string | null; hookCallbackIds: string[]; timeout?: number }[]>
    > = {};
    for (const [event, registrations] of Object.entries(options.hooks ?? {}) as [
      HookEvent,
      HookRegistration[],
    ][]) {
      hooks[event] = registrations.map((registration) => {
        const id = `hook_${this.hookCallbacks.size}`;
        this.hookCallbacks.set(id, registration.callback);
        return {
          matcher: registration.matcher ?? null,
          hookCallbackIds: [id],
          ...(registration.timeoutSeconds ? { timeout: registration.timeoutSeconds } : {}),
        };
      });
    }
    // Suggestions of the next prompt come after each turn's result (prompt_suggestion), for the composer.
    this.info = await this.request(
      { subtype: 'initialize', hooks, promptSuggestions: options.promptSuggestions ?? true },
      options.initializeTimeoutMs ?? 60_000,
    );
  }

  private request<S extends HostControlSubtype>(
    request: Extract<HostControlRequest, { subtype: S }>,
    timeoutMs?: number,
  ): Promise<HostControlResponse<S>> {
    if (!this.running) return Promise.reject(this.pipe.exitError());
    return this.control.request(request, timeoutMs);
  }

  private async answerCliRequest(request: CliControlRequestBody, signal: AbortSignal): Promise<JsonObject> {
    switch (request.subtype) {
      case 'mcp_message': {
        if (request.server_name !== this.mcp.name)
          throw new Error(`Unknown MCP server: ${request.server_name}`);
        return { mcp_response: this.mcp.handle(request.message) };
      }
      case 'hook_callback': {
        const callback = this.hookCallbacks.get(request.callback_id);
        if (!callback) throw new Error(`Unknown hook callback: ${request.callback_id}`);
        return HookOutput.parse(await callback(request.input, signal));
      }
      case 'can_use_tool': {
        if (!this.options.canUseTool) {
          return { behavior: 'deny', message: 'Byre has no permission handler for this session.' };
        }
        return PermissionResult.parse(await this.options.canUseTool(request, signal));
      }
      case 'elicitation': {
        if (!this.options.onElicitation) return { action: 'cancel' };
        return ElicitationResult.parse(await this.options.onElicitation(request, signal));
      }
    }
  }

  private write(line: OutgoingLine): Promise<void> {
    const checked = OutgoingLine.safeParse(line);
    if (!checked.success) {
      return Promise.reject(new InvalidOutgoingMessage(`Not sent: ${checked.error.issues[0]?.message}`));
    }
    return this.writeChecked(checked.data);
  }

  private writeChecked(line: OutgoingLine): Promise<void> {
    const text = JSON.stringify(line);
    this.transcript?.record('send', line, text);
    return this.pipe.write(text);
  }

  private onMessage(message: CliMessage, text: string): void {
    if (message.type === 'control_response') this.noteSecrets(message.response);
    if (message.type === 'result') this.recordCutReplies();
    this.tail.note(message);
    this.transcript?.record('recv', message, text);
    this.dispatch(message);
  }

  private onRawLine(line: JsonObject, problem: string, text: string): void {
    this.transcript?.record('recv', line, text);
    // A turn must end on its result, even one this app cannot fully read.
    if (line.type === 'result') {
      const result = lenientResult(line, this.id, typeof line.uuid === 'string' ? line.uuid : randomUUID());
      if (result) {
        this.dispatch(result);
        return;
      }
    }
    // The CLI waits for an answer to every control request, even one we do not understand.
    if (line.type === 'control_request' && typeof line.request_id === 'string') {
      this.control.refuse(line.request_id, `Byre cannot handle this control request: ${problem}`);
    }
    this.emit({ kind: 'raw', line, problem });
  }

  private dispatch(message: CliMessage): void {
    switch (message.type) {
      case 'control_response':
        this.control.handleResponse(message.response);
        return;
      case 'control_request':
        this.control.handleRequest(message.request_id, message.request);
        return;
      case 'control_cancel_request':
        this.control.handleCancel(message.request_id);
        return;
      case 'command_lifecycle':
        this.onLifecycle(message.command_uuid, message.state);
        break;
      // The heartbeat says only that the CLI lives; the transcript has it.
      case 'keep_alive':
        return;
      case 'result': {
        const settles = this.settleTurn(message);
        this.emit({ kind: 'message', message, ...(settles ? { settles } : {}) });
        return;
      }
    }
    this.emit({ kind: 'message', message });
  }

  private onLifecycle(uuid: string, state: 'queued' | 'started' | 'completed' | 'cancelled'): void {
    const turn = this.turns.find((candidate) => candidate.uuid === uuid);
    if (!turn) return;
    if (state === 'started') turn.started = true;
    // A prompt cancelled before it ran gets no result; one cancelled while running still gets its own.
    if (state === 'cancelled' && !turn.started) this.failTurn(uuid, new TurnCancelled(uuid));
  }

  /** Matches a result to the prompt it answers; a turn the CLI started by itself settles nothing. */
  private settleTurn(result: ResultMessage): string | undefined {
    if (result.origin && result.origin.kind !== 'human') return undefined;
    const index = Math.max(
      0,
      this.turns.findIndex((turn) => turn.started),
    );
    const [turn] = this.turns.splice(index, 1);
    if (!turn) return undefined;
    turn.resolve(result);
    return turn.uuid;
  }

  private failTurn(uuid: string, error: Error): void {
    const index = this.turns.findIndex((turn) => turn.uuid === uuid);
    if (index === -1) return;
    const [turn] = this.turns.splice(index, 1);
    turn?.reject(error);
  }

  private noteSecrets(response: { subtype: string; response?: JsonObject }): void {
    const account = response.response?.account;
    if (
      typeof account === 'object' &&
      account !== null &&
      'email' in account &&
      typeof account.email === 'string'
    ) {
      this.transcript?.redact(account.email);
    }
  }

  private onExit(info: ExitInfo): void {
    this.exitInfo = info;
    // After we ended its input the CLI's exit is expected whatever its code: it exits 1 after an error turn.
    const asked = info.expected || this.inputEnded;
    const error = asked ? undefined : new CliExited(info.code, info.signal, info.stderrTail);
    const failure = error ?? new SessionClosed('The session was closed.');
    this.control.failAll(failure);
    for (const turn of this.turns.splice(0)) turn.reject(failure);
    this.recordCutReplies();
    this.transcript?.close();
    this.emit({ kind: 'exit', info, ...(error ? { error } : {}) });
  }

  /** Keeps a line of Byre's own in the transcript, e.g. a run of the "Done when" check. */
  recordByre(msg: JsonObject): void {
    this.transcript?.record(BYRE_LINE, msg);
  }

  /**
   * Replies cut off mid-block (by an interrupt, a crash, the end of input) go into the transcript as far
   * as they had streamed: the transcript leaves stream lines out, and the complete line never comes.
   */
  private recordCutReplies(): void {
    for (const reply of this.tail.cutReplies()) this.transcript?.record(BYRE_LINE, reply);
    this.tail.clear();
  }

  private badLine(bad: BadLine): void {
    // Lines that were not JSON still belong in the record of what the CLI said.
    if (bad.text !== undefined) this.transcript?.record('recv', { type: 'unparsed_line', text: bad.text });
    try {
      this.options.onBadLine?.(bad);
    } catch {
      // A throwing observer must not take the reader down.
    }
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // Listeners are observers; one that throws must not stop the stream for the others.
      }
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
