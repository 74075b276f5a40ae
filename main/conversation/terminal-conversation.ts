import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sniffImageType } from '../../shared/images';
import {
  TERMINAL_SCREEN_MAX_CHARS,
  type CommitIdentity,
  type ConversationEvent,
  type ConversationSnapshot,
  type PermissionModeChoice,
  type TerminalSize,
} from '../../shared/ipc';
import type { HookOutput } from '../../shared/protocol';
import { ConversationChanges, type ChangesOptions } from '../changes/conversation-changes';
import { toIpcError } from '../backend/errors';
import { CliExited } from '../lanes/lane';
import type { HookChannel, TerminalHookEvent } from '../lanes/terminal/hook-channel';
import {
  TerminalProcess,
  type FolderSettingsUse,
  type TerminalTransport,
} from '../lanes/terminal/terminal-process';
import { explainRemoteExit } from '../remote/run';
import { DEFAULT_CHECK_LIMITS, DoneWhen, type CheckLimits, type DoneWhenOptions } from './done-when';
import type { LaneConversation } from './lane-conversation';
import { toolDetail, toolEvent } from './turn-activity';
import { WorktreeSetup } from './worktree-setup';
import { EventLog, type EventLogLimits, type EventPage, type EventWindow } from './event-log';

/**
 * A Terminal conversation: the real interactive `claude` in a PTY (main/lanes/terminal), which the tab draws
 * with xterm.js, and what Byre still knows around it. The CLI's own screen is the conversation; Byre follows
 * the turn through the hooks it passed with `--settings` (HookChannel):
 *  - UserPromptSubmit: a turn begins. The folder's snapshot before it is taken first (the hook holds the
 *    prompt a moment for it, as a Stream conversation's send does), and the tab says Claude works;
 *  - PreToolUse: which tool changes which file, for the Changes panel;
 *  - PermissionRequest: the CLI asks the person, in the terminal (the hook answers nothing, so it does): the
 *    tab says "needs you", with what, and a notification says it while the window is in the background;
 *  - Notification: anything else Claude waits for the person about (auto mode's choice, say) says the same;
 *  - Stop: the turn's snapshot, then the "Done when" check, whose failure keeps Claude going (the hook's
 *    `decision: block`), then "done".
 * The transcript is the CLI's own session file, which the library follows as it grows. Byre writes into the
 * terminal only what the person typed or pasted there: it never drives a Terminal conversation.
 */

/** How long a prompt waits for the snapshot of the folder before its turn. */
const SNAPSHOT_HOLD_MS = 2_000;
/** Output is passed on at most this often, in one batch: a frame. */
const OUTPUT_BATCH_MS = 16;
/** A batch goes at once past this size, so a flood of output reaches the screen in steady pieces. */
const OUTPUT_BATCH_CHARS = 256 * 1024;
/**
 * Flow control: past this much output no window has drawn yet, the CLI's output is not read (it blocks on its
 * PTY, as in any terminal whose screen is behind) until the windows are within LOW of it again. So a command
 * that prints gigabytes never outruns the screen and swamps a window's connection.
 */
const UNDRAWN_HIGH_CHARS = 4 * 1024 * 1024;
const UNDRAWN_LOW_CHARS = 1024 * 1024;
/** A window that stopped saying what it drew (closed, reloaded) holds the output back this long at most. */
const STALLED_WINDOW_MS = 5_000;
/** The Stop hook may run the whole check, and a minute more. */
const STOP_HOOK_GRACE_SECONDS = 60;

export interface TerminalConversationOptions {
  id: string;
  cwd: string;
  /** A new session (its id chosen here) or this saved one carried on with `--resume`. */
  resume?: string;
  model?: string;
  /** The opening prompt the person wrote in the new-conversation form. */
  prompt?: string;
  permissionMode: PermissionModeChoice;
  /** Decided by the trust gate before the CLI starts: false runs it without the folder's own settings. */
  folderSettings: FolderSettingsUse;
  env: NodeJS.ProcessEnv;
  identity?: CommitIdentity | null;
  doneWhen?: string;
  checkLimits?: CheckLimits;
  worktree?: ConversationSnapshot['worktree'];
  changes?: ChangesOptions | null;
  /**
   * A new worktree's setup command: it runs first, and the CLI starts once it passed (or the person goes on
   * without it), so that Claude never works in a worktree half set up.
   */
  setup?: string;
  /** Where hooks report; null: nothing here can run them (hookRunner), and the conversation says so. */
  hooks: HookChannel | null;
  /**
   * On another host: its name, how the CLI runs there (ssh in the PTY), how a check runs there, and where
   * the hooks' script is there (null: the host has no node, and the conversation goes without hooks, saying
   * so); `release` undoes what was set up there for the hooks, once the conversation ends.
   */
  host?: {
    name: string;
    transport: TerminalTransport;
    elsewhere: NonNullable<DoneWhenOptions['elsewhere']>;
    hooksThere: { node: string; folder: string } | null;
    /** Writes a file, readable by this user only, into the conversation's private folder there. */
    putFile(folder: string, name: string, bytes: Buffer): Promise<void>;
    release(): void;
  };
  size: TerminalSize;
  eventLogDir: string;
  pageLimits?: Partial<EventLogLimits>;
  emit(event: ConversationEvent, seq: number): void;
  /** The CLI went on in another session (a `/clear`). */
  sessionChanged?(sessionId: string): void;
  /** What the CLI drew, a batch at a time, numbered from 0. */
  output(data: string, seq: number): void;
  notify(notification: { title: string; message: string }): void;
}

export class TerminalConversation implements LaneConversation {
  /** The interactive CLI in a PTY, billed to the plan (see LaneConversation). */
  readonly lane = 'terminal' as const;
  private process: TerminalProcess | null = null;
  /** Images pasted or dropped so far, and the private folder here that holds them (none until one is). */
  private imagesKept = 0;
  private imagesDir: Promise<string> | null = null;
  private imagesDirMade: string | null = null;
  private readonly imageWrites = new Set<Promise<string>>();
  private readonly log: EventLog;
  private emitted = 0;
  /** What the screen has shown lately, for a window that opens later (at most TERMINAL_SCREEN_MAX_CHARS). */
  private readonly screen = new RecentOutput(TERMINAL_SCREEN_MAX_CHARS);
  private pendingOutput = '';
  private outputTimer: NodeJS.Timeout | undefined;
  private outputSeq = 0;
  /** Characters of output sent to windows, all told, and after each batch (by its seq), for flow control. */
  private sentChars = 0;
  private readonly sentAfter = new Map<number, number>();
  /** How far the windows that follow the screen have drawn: the furthest any of them said. */
  private drawnChars = 0;
  private paused: NodeJS.Timeout | null = null;
  /** When a window last said how far it drew: within STALLED_WINDOW_MS, windows follow the screen. */
  private lastDrawnAt = 0;
  private state: 'working' | 'needs_you' | 'done' | null = null;
  private closed = false;
  private size: TerminalSize;
  /** The prompt of the turn running now, by the uuid its Changes step is named by. */
  private turn: string | null = null;
  private unregister: () => void = () => undefined;
  readonly doneWhen: DoneWhen;
  readonly changes: ConversationChanges | null;
  private readonly setup: WorktreeSetup | null;
  /** The session the CLI runs now (a `/clear` in it starts another). */
  sessionId: string;
  /** Unused in this lane: no draft is kept outside the terminal. Present so every open conversation has one. */
  readonly draft = { text: '', images: [] };
  readonly savedBefore = null;
  readonly transcripts: readonly string[] = [];

  private constructor(private readonly options: TerminalConversationOptions) {
    this.size = options.size;
    this.sessionId = options.resume ?? randomUUID();
    this.log = new EventLog(join(options.eventLogDir, `${options.id}.jsonl`), options.pageLimits);
    const emit = (event: ConversationEvent) => this.emit(event);
    this.doneWhen = new DoneWhen({
      cwd: options.cwd,
      command: options.doneWhen ?? '',
      limits: options.checkLimits ?? DEFAULT_CHECK_LIMITS,
      emit,
      // The check's runs are in the conversation's own log; the CLI's session file is the CLI's.
      record: () => undefined,
      notify: options.notify,
      env: options.env,
      // On a host, the check runs there, in the folder there.
      ...(options.host ? { elsewhere: options.host.elsewhere } : {}),
    });
    if (this.doneWhen.current) emit({ kind: 'done_when', command: this.doneWhen.current });
    this.changes = options.changes
      ? ConversationChanges.begin(options.changes, { folder: options.cwd, key: this.sessionId, emit })
      : null;
    this.setup = options.setup
      ? new WorktreeSetup({
          cwd: options.cwd,
          command: options.setup,
          timeoutMs: (options.checkLimits ?? DEFAULT_CHECK_LIMITS).timeoutMs,
          emit,
          record: () => undefined,
          env: options.env,
          ...(options.host ? { elsewhere: options.host.elsewhere } : {}),
        })
      : null;
  }

  /**
   * Starts the CLI in its PTY once the folder's first snapshot is taken (or has taken long), and a new
   * worktree's setup command has passed (the tab shows it run meanwhile).
   */
  static async start(options: TerminalConversationOptions): Promise<TerminalConversation> {
    const conversation = new TerminalConversation(options);
    try {
      await conversation.changes?.readyWithin(5_000);
      const setup = conversation.setup;
      if (setup) {
        void setup.run();
        void setup.opened.then(() => {
          if (!conversation.closed) conversation.launchOrSay();
        });
      } else conversation.launch();
    } catch (error) {
      conversation.changes?.discard();
      conversation.unregister();
      conversation.log.close();
      throw error;
    }
    return conversation;
  }

  get id(): string {
    return this.options.id;
  }

  /** A failed setup command run again, or gone on without (the CLI then starts). */
  setupAction(action: 'retry' | 'skip'): void {
    const setup = this.setup;
    if (!setup?.waiting) return;
    if (action === 'retry') void setup.run();
    else setup.skip();
  }

  /** Whether a failed setup command waits for Run again or Go on without it. */
  get setupWaiting(): boolean {
    return this.setup?.waiting ?? false;
  }

  /** Something the person should know about the conversation's folder. */
  warn(message: string): void {
    this.emit({ kind: 'warning', message });
  }

  /** A start after the setup: a CLI that cannot start says why in the conversation, as a crash would. */
  private launchOrSay(): void {
    try {
      this.launch();
    } catch (error) {
      this.emit({ kind: 'exit', error: toIpcError(error) });
    }
  }

  private launch(): void {
    const { options } = this;
    const host = options.host;
    // On a host, hooks need node there as well as the channel here.
    const hooks = host && !host.hooksThere ? null : options.hooks;
    if (hooks) {
      this.unregister = hooks.register(this.options.id, (event, payload, signal) =>
        this.onHook(event, payload, signal),
      );
    } else {
      const where = host && options.hooks ? `on ${host.name}` : 'on the PATH';
      this.emit({
        kind: 'warning',
        message: `Byre cannot follow this terminal’s turns: the hooks that tell it need Node.js ${where}. Claude Code works as usual; Changes, “Needs you” and “Done when” are off for this conversation until Node.js is installed and it is opened again.`,
      });
    }
    const checkSeconds = Math.ceil((options.checkLimits ?? DEFAULT_CHECK_LIMITS).timeoutMs / 1000);
    this.process = TerminalProcess.start(
      {
        cwd: options.cwd,
        ...(options.resume ? { resume: options.resume } : { sessionId: this.sessionId }),
        ...(options.model ? { model: options.model } : {}),
        ...(options.prompt ? { prompt: options.prompt } : {}),
        permissionMode: options.permissionMode,
        folderSettings: options.folderSettings,
        hooks: hooks
          ? hooks.hooksFor(
              options.id,
              { Stop: checkSeconds + STOP_HOOK_GRACE_SECONDS },
              host?.hooksThere ?? undefined,
            )
          : {},
        identity: options.identity ?? null,
        env: options.env,
        ...(host ? { transport: host.transport } : {}),
        cols: this.size.cols,
        rows: this.size.rows,
      },
      {
        data: (text) => this.onOutput(text),
        exit: ({ code, signal }) => this.onExit(code, signal),
      },
    );
  }

  snapshot(): ConversationSnapshot {
    return {
      conversationId: this.options.id,
      sessionId: this.sessionId,
      cwd: this.options.cwd,
      model: this.options.model ?? null,
      models: [],
      claudeCodeVersion: null,
      permissionMode: this.options.permissionMode,
      commitIdentity: this.options.identity ?? null,
      ...(this.options.folderSettings === 'off' ? { folderSettingsOff: true } : {}),
      ...(this.options.worktree ? { worktree: this.options.worktree } : {}),
      ...(this.options.host ? { host: this.options.host.name } : {}),
      lane: 'terminal',
    };
  }

  /** What a window needs to show its events (checks, Changes, where the turn stands). */
  history(): EventWindow & { seq: number } {
    return { ...this.log.window(), seq: this.emitted };
  }

  historyBefore(before: string): EventPage {
    return this.log.pageBefore(before);
  }

  /** The screen as it stands (its recent output), and the number of the next output batch. */
  screenNow(): { data: string; seq: number } {
    this.flushOutput();
    return { data: this.screen.text(), seq: this.outputSeq };
  }

  /**
   * Keeps an image the person pasted or dropped where the CLI can read it, and gives the path to paste: the
   * CLI takes a pasted path to an image as the image itself ("[Image #1]"), as it does a file dragged into a
   * terminal. Here: a private folder of this conversation's, removed when it ends; on a host: the private
   * folder there that holds its hooks. A file that is not a PNG, JPEG, GIF or WebP is refused.
   */
  async keepImage(bytes: Buffer): Promise<string> {
    const type = sniffImageType(bytes);
    if (!type) throw new ImageNotTaken('This is not a PNG, JPEG, GIF or WebP image.');
    if (this.closed) throw new ImageNotTaken('This conversation has ended.');
    // Before the CLI starts (a setup command runs) or once it has exited, nothing would take the path.
    if (!this.running) throw new ImageNotTaken('Claude Code is not running in this terminal.');
    const name = `image-${++this.imagesKept}.${type.slice('image/'.length)}`;
    const kept = this.writeImage(name, bytes);
    // Closing waits for a write under way, so that the folder it writes into goes after it.
    this.imageWrites.add(kept);
    try {
      return await kept;
    } finally {
      this.imageWrites.delete(kept);
    }
  }

  private async writeImage(name: string, bytes: Buffer): Promise<string> {
    const host = this.options.host;
    if (host) {
      if (!host.hooksThere) {
        throw new ImageNotTaken(
          `Byre has no private folder on ${host.name} to put the image in (it needs Node.js there).`,
        );
      }
      try {
        await host.putFile(host.hooksThere.folder, name, bytes);
      } catch (error) {
        throw new ImageNotTaken(error instanceof Error ? error.message : String(error));
      }
      return `${host.hooksThere.folder}/${name}`;
    }
    try {
      // mkdtemp makes the folder 0700; the file is the person's alone too.
      this.imagesDir ??= mkdtemp(join(tmpdir(), 'byre-paste-'));
      this.imagesDirMade = await this.imagesDir;
      const path = join(this.imagesDirMade, name);
      await writeFile(path, bytes, { mode: 0o600 });
      return path;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ImageNotTaken(
        `It could not be kept for Claude Code in the temporary folder${code ? ` (${code})` : ''}.`,
      );
    }
  }

  /** Removes the images kept here, once the writes under way are done; never throws. */
  private async dropImages(): Promise<void> {
    await Promise.allSettled([...this.imageWrites]);
    const dir = await this.imagesDir?.catch(() => null);
    this.imagesDir = null;
    this.imagesDirMade = null;
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** The same at once, for quitting: a write under way fails on the folder gone. */
  private dropImagesNow(): void {
    const dir = this.imagesDirMade;
    this.imagesDirMade = null;
    if (!dir) return;
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Left in the temporary folder, which the system empties.
    }
  }

  /** What the person typed or pasted. */
  input(data: string): void {
    this.process?.write(data);
  }

  resize(size: TerminalSize): void {
    this.size = size;
    this.process?.resize(size.cols, size.rows);
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  /** Claude works on a turn (or waits on the person in one): its hooks said it began and not yet that it ended. */
  get busy(): boolean {
    return this.running && (this.state === 'working' || this.state === 'needs_you');
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.paused) clearTimeout(this.paused);
    this.doneWhen.stop();
    this.setup?.stop();
    try {
      await this.process?.close();
    } finally {
      this.unregister();
      this.flushOutput();
      this.log.close();
      await this.dropImages();
      this.options.host?.release();
    }
  }

  kill(): void {
    this.closed = true;
    this.doneWhen.stop();
    this.setup?.stop();
    this.process?.kill();
    this.dropImagesNow();
    this.options.host?.release();
  }

  private emit(event: ConversationEvent): void {
    const seq = this.emitted++;
    this.log.append(event);
    this.options.emit(event, seq);
  }

  private setState(state: 'working' | 'needs_you' | 'done', what: string | null = null): void {
    if (state === this.state && what === null) return;
    this.state = state;
    this.emit({ kind: 'activity', state, what });
  }

  private async onHook(
    event: TerminalHookEvent,
    payload: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<HookOutput> {
    // Closing: what the CLI still says on its way out starts nothing.
    if (this.closed) return {};
    switch (event) {
      case 'SessionStart': {
        // `/clear` (or `/resume` in the CLI) goes on in another session: the tab, the library, a resume and a
        // switch of lane follow it.
        const sessionId = typeof payload.session_id === 'string' ? payload.session_id : null;
        if (sessionId && sessionId !== this.sessionId && /^[\w-]{1,100}$/.test(sessionId)) {
          this.sessionId = sessionId;
          this.options.sessionChanged?.(sessionId);
          this.emit({ kind: 'resumed', snapshot: this.snapshot() });
        }
        return {};
      }
      case 'UserPromptSubmit': {
        const prompt = typeof payload.prompt === 'string' ? payload.prompt : '';
        this.doneWhen.stop();
        this.setState('working');
        const changes = this.changes;
        if (changes) {
          // What changed by hand since the last turn is a step of its own, before this turn's.
          await changes.beforeTurn(SNAPSHOT_HOLD_MS);
          const uuid = randomUUID();
          changes.notePrompt(uuid, prompt);
          this.turn = uuid;
        }
        return {};
      }
      case 'PreToolUse': {
        const name = typeof payload.tool_name === 'string' ? payload.tool_name : null;
        const input = payload.tool_input;
        if (name && input && typeof input === 'object' && !Array.isArray(input))
          this.changes?.noteToolUse({ name, input: input as Record<string, unknown> });
        if (name) this.emit(toolEvent(name, input));
        // A question or a plan is asked in the terminal, and waits on the person as a permission does.
        const waits = waitsOnPerson(name, input);
        if (waits) {
          this.setState('needs_you', waits);
          this.options.notify({ title: 'Claude needs you', message: waits });
        } else if (this.state !== 'working') this.setState('working');
        return {};
      }
      case 'PostToolUse':
        // A permission granted: Claude works again.
        if (this.state !== 'working') this.setState('working');
        return {};
      case 'PermissionRequest': {
        const name = typeof payload.tool_name === 'string' ? payload.tool_name : 'a tool';
        const detail = toolDetail(payload.tool_input) ?? '';
        const what = `Claude asks to use ${name}${detail ? `: ${detail.slice(0, 500)}` : ''}`;
        this.setState('needs_you', what);
        this.options.notify({ title: 'Claude needs you', message: what });
        // No decision: the CLI asks the person in the terminal, as it would anywhere.
        return {};
      }
      case 'Notification':
        return this.onNotification(payload);
      case 'Stop':
        return this.onStop(payload, signal);
    }
  }

  private onNotification(payload: Record<string, unknown>): HookOutput {
    const message = typeof payload.message === 'string' ? payload.message.slice(0, 2_000) : '';
    const type = typeof payload.notification_type === 'string' ? payload.notification_type : '';
    // The CLI also says it has been idle a while: that is "done", already said. A permission prompt was said
    // when it came (PermissionRequest). Anything else waits on the person.
    if (type === 'idle_prompt' || /waiting for your input/i.test(message)) return {};
    if (type === 'permission_prompt' && this.state === 'needs_you') return {};
    this.setState('needs_you', message || 'Claude is waiting for you.');
    this.options.notify({ title: 'Claude needs you', message: message || 'Claude is waiting for you.' });
    return {};
  }

  private async onStop(payload: Record<string, unknown>, signal: AbortSignal): Promise<HookOutput> {
    const turn = this.turn;
    this.turn = null;
    // The turn's snapshot first: the check then runs against what the turn did, and Changes show it.
    await this.changes?.endTurn(turn ?? randomUUID());
    const output = await this.doneWhen.hook.callback(payload, signal);
    if (output.decision === 'block') {
      // The check failed: Claude goes on, in the same turn.
      if (turn) this.turn = turn;
      return output;
    }
    this.setState('done');
    if (!this.closed) this.options.notify({ title: 'Claude is done', message: 'The turn ended.' });
    return output;
  }

  private onOutput(text: string): void {
    this.screen.push(text);
    this.pendingOutput += text;
    if (this.pendingOutput.length >= OUTPUT_BATCH_CHARS) this.flushOutput();
    else this.outputTimer ??= setTimeout(() => this.flushOutput(), OUTPUT_BATCH_MS);
  }

  private flushOutput(): void {
    if (this.outputTimer) clearTimeout(this.outputTimer);
    this.outputTimer = undefined;
    if (!this.pendingOutput) return;
    const data = this.pendingOutput;
    this.pendingOutput = '';
    this.sentChars += data.length;
    this.sentAfter.set(this.outputSeq, this.sentChars);
    // With no window drawing (none has it open), the oldest marks go: a window that opens starts afresh.
    if (this.sentAfter.size > 4_096) this.sentAfter.delete(this.sentAfter.keys().next().value ?? -1);
    this.options.output(data, this.outputSeq++);
    if (this.sentChars - this.drawnChars > UNDRAWN_HIGH_CHARS && this.following && !this.paused) {
      this.process?.pause();
      // A window that never says again (closed meanwhile) does not hold the terminal for good.
      this.paused = setTimeout(() => this.resumeOutput(), STALLED_WINDOW_MS);
    }
  }

  private get following(): boolean {
    return Date.now() - this.lastDrawnAt < STALLED_WINDOW_MS;
  }

  /** A window drew the output batch `seq` and all before it. */
  drawn(seq: number): void {
    const upTo = this.sentAfter.get(seq);
    if (upTo === undefined) return;
    this.lastDrawnAt = Date.now();
    this.drawnChars = Math.max(this.drawnChars, upTo);
    for (const key of this.sentAfter.keys()) {
      if (key > seq) break;
      this.sentAfter.delete(key);
    }
    if (this.paused && this.sentChars - this.drawnChars < UNDRAWN_LOW_CHARS) this.resumeOutput();
  }

  private resumeOutput(): void {
    if (this.paused) clearTimeout(this.paused);
    this.paused = null;
    // What was sent before is counted as drawn: the windows catch up from here.
    this.drawnChars = Math.max(this.drawnChars, this.sentChars - UNDRAWN_LOW_CHARS);
    this.process?.resume();
  }

  private onExit(code: number, signal: number | null): void {
    this.flushOutput();
    this.doneWhen.stop();
    if (this.closed) return;
    if (code === 0 && signal === null) {
      this.emit({ kind: 'exit' });
      return;
    }
    const host = this.options.host;
    // What it said is on its screen, above; ssh's own last words are there too, for what they mean.
    const tail = host ? plainText(this.screen.text().slice(-2_000)).trim() : '';
    const exited = new CliExited(signal ? null : code, signal ? signalName(signal) : null, tail);
    this.emit({ kind: 'exit', error: toIpcError(host ? explainRemoteExit(exited, host.name) : exited) });
  }
}

/** A screen's text without its escape sequences: each one a space. */
function plainText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]/g, ' ');
}

function signalName(signal: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, number]) => number === signal);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

/**
 * The last `max` characters or so of a terminal's output, kept as the pieces that came: dropping the oldest
 * pieces costs nothing per piece, where cutting one long string would copy it all each time (megabytes a
 * piece while output floods). What it gives back begins at a line's start, so a window replays it cleanly.
 */
/** An image a Terminal conversation could not take, in words for the person. */
export class ImageNotTaken extends Error {
  override name = 'ImageNotTaken';
}

export class RecentOutput {
  private pieces: string[] = [];
  private first = 0;
  private length = 0;

  constructor(private readonly max: number) {}

  push(text: string): void {
    this.pieces.push(text);
    this.length += text.length;
    while (this.length - (this.pieces[this.first]?.length ?? 0) >= this.max) {
      this.length -= this.pieces[this.first]?.length ?? 0;
      this.first++;
    }
    // Now and then, the dropped pieces go from the array too.
    if (this.first > 1024 && this.first * 2 > this.pieces.length) {
      this.pieces = this.pieces.slice(this.first);
      this.first = 0;
    }
  }

  text(): string {
    const joined = this.pieces.slice(this.first).join('');
    const over = joined.length - this.max;
    if (over <= 0) return joined;
    const cut = joined.indexOf('\n', over);
    return joined.slice(cut < 0 ? over : cut + 1);
  }
}

/** What a tool that asks the person (a question, a plan to approve) waits for, in words; null for others. */
export function waitsOnPerson(tool: string | null, input: unknown): string | null {
  if (tool === 'ExitPlanMode') return 'Claude has a plan for you to approve';
  if (tool !== 'AskUserQuestion') return null;
  const questions = (input as { questions?: unknown } | null)?.questions;
  const first = Array.isArray(questions) ? (questions[0] as { question?: unknown } | undefined) : undefined;
  return typeof first?.question === 'string'
    ? `Claude asks: ${first.question.slice(0, 500)}`
    : 'Claude has a question for you';
}
