/**
 * One open conversation: what it is (its snapshot), what happens in it (its events, in order), and the
 * channels that drive it (start, send, answer, stop, page back).
 */
import { z } from 'zod';
import { IMAGE_LIMITS, MAX_IMAGE_FILE_BYTES } from '../images';
import { SessionId } from '../library';
import { ModelInfo, type CliMessage } from '../protocol';
import { CommitIdentity, Lane, PermissionModeChoice } from './app';
import { ElicitationAnswer, ElicitationRequestEvent, ElicitationResolvedEvent } from './elicitation';
import { IpcError } from './errors';
import { SavedDraft, ShownImage } from './intake';
import { Interaction, PlanAnswer, QuestionsAnswer } from './questions';
import { ConversationId, ConversationRef, Empty, Uuid } from './refs';
import { HostName } from './remote';
import { NewWorktree, SetupRun } from './worktrees';

/** A slash command the CLI offers (`/compact`, a skill, a project command), for the composer's `/` menu. */
export const SlashCommand = z.object({
  /** Without the slash. */
  name: z.string().min(1).max(200),
  description: z.string().max(2_000),
  /** What the command takes after its name, e.g. "<file>"; empty when nothing. */
  argumentHint: z.string().max(200),
});
export type SlashCommand = z.infer<typeof SlashCommand>;

export const ConversationSnapshot = z.object({
  conversationId: ConversationId,
  sessionId: z.string(),
  cwd: z.string(),
  /** The model the session runs, when known (init tells it on the first turn). */
  model: z.string().nullable(),
  models: z.array(ModelInfo),
  claudeCodeVersion: z.string().nullable(),
  /** The permission mode the CLI runs in now. */
  permissionMode: PermissionModeChoice,
  /** Who the commits Claude makes here are by (its process was launched with it); null: git's own setting. */
  commitIdentity: CommitIdentity.nullable().optional(),
  /** The slash commands the CLI reported when it started. */
  commands: z.array(SlashCommand).optional(),
  /** Its process runs without the folder's own settings and MCP servers: the folder is not trusted. */
  folderSettingsOff: z.boolean().optional(),
  /**
   * The git worktree it runs in (its `cwd`), made by Byre from `base`; null or absent: its own folder. How
   * the worktree stands (ahead, behind, files) comes with the `worktreesChanged` event.
   */
  worktree: z
    .object({ repository: z.string(), name: z.string(), branch: z.string(), base: z.string().nullable() })
    .nullable()
    .optional(),
  /** The host it runs on, over ssh, as the user named it; null or absent: this computer. */
  host: z.string().nullable().optional(),
  /** Its lane; absent: stream. */
  lane: Lane.optional(),
});
export type ConversationSnapshot = z.infer<typeof ConversationSnapshot>;

/** How full the context window is. */
export const ContextUsage = z.object({
  usedTokens: z.number().nonnegative(),
  maxTokens: z.number().positive(),
  /** What fills it, by category, as the CLI reports it; free space last. */
  categories: z.array(
    z.object({
      name: z.string(),
      tokens: z.number().nonnegative(),
      kind: z.enum(['used', 'deferred', 'buffer', 'free', 'other']),
    }),
  ),
});
export type ContextUsage = z.infer<typeof ContextUsage>;

/** The longest "Done when" command (a shell command line). */
export const DONE_WHEN_MAX_CHARS = 4_000;
export const DoneWhenCommand = z.string().max(DONE_WHEN_MAX_CHARS);

/**
 * One run of a conversation's "Done when" check, which Byre runs when Claude stops (its Stop hook): running,
 * then how it ended. A failed check keeps Claude going, up to `maxRounds` runs in a row.
 */
export const CheckRun = z.object({
  id: z.string().min(1).max(100),
  command: DoneWhenCommand,
  /** Which run this is since the user's message (1-based), of at most `maxRounds`. */
  round: z.number().int().positive(),
  maxRounds: z.number().int().positive(),
  /** The CLI's `stop_hook_active`: Claude is stopping again after a check kept it going. */
  stopHookActive: z.boolean(),
  /** When it started, ms since the epoch. */
  startedAt: z.number(),
  status: z.enum(['running', 'passed', 'failed', 'stopped']),
  /** What happened, in words: "exit 0", "exit 1", "command not found (exit 127)", "timed out after 10 min". */
  summary: z.string(),
  durationMs: z.number().nonnegative().nullable(),
  /** The end of its output (stdout and stderr as they came), at most CHECK_OUTPUT_SHOWN_CHARS. */
  output: z.string(),
  /** Output was dropped: more than 1 MB came, or more than is shown. */
  outputTruncated: z.boolean(),
  /** It failed on the last round allowed: Claude was let stop anyway. */
  gaveUp: z.boolean(),
});
export type CheckRun = z.infer<typeof CheckRun>;
export const CHECK_OUTPUT_SHOWN_CHARS = 64 * 1024;

/** Events about one conversation, in order. */
export const ConversationEvent = z.discriminatedUnion('kind', [
  /** A line from the CLI (control lines excluded). Text deltas may be merged, at most one batch a frame. */
  z.object({
    kind: z.literal('message'),
    message: z.custom<CliMessage>((value) => typeof value === 'object'),
  }),
  /** A prompt the user sent, echoed so every window shows it at once. */
  z.object({
    kind: z.literal('prompt'),
    uuid: Uuid,
    text: z.string(),
    images: z.array(ShownImage).optional(),
    /** When main sent it (ms since the epoch): how long the model then thinks is measured from it. */
    at: z.number().optional(),
  }),
  z.object({ kind: z.literal('prompt_cancelled'), uuid: Uuid }),
  z.object({ kind: z.literal('title'), title: z.string() }),
  z.object({ kind: z.literal('notify'), message: z.string(), title: z.string().optional() }),
  /** Something the user should know that does not stop the conversation. */
  z.object({ kind: z.literal('warning'), message: z.string() }),
  /** A line the app could not understand; the conversation goes on. */
  z.object({ kind: z.literal('bad_line'), problem: z.string() }),
  z.object({ kind: z.literal('model'), model: z.string() }),
  /** The CLI process ended; `error` is set when it was not asked to. */
  z.object({ kind: z.literal('exit'), error: IpcError.optional() }),
  /** A new process took over (resume after a crash). */
  z.object({ kind: z.literal('resumed'), snapshot: ConversationSnapshot }),
  /** Claude asks before it uses a tool (`can_use_tool`); it waits until answered, cancelled or stopped. */
  z.object({
    kind: z.literal('permission_request'),
    requestId: z.string(),
    toolName: z.string(),
    /** The name to show (the CLI's `display_name`, else the tool's name). */
    displayName: z.string(),
    input: z.record(z.string(), z.unknown()),
    /** The tool call it is about, when the CLI says. */
    toolUseId: z.string().nullable(),
    description: z.string().nullable(),
    blockedPath: z.string().nullable(),
    /** What "Always allow" would remember, in words (e.g. "Bash(touch allowed.txt) in this project"); null: nothing to remember. */
    remember: z.string().nullable(),
    /** Set for a question or a plan from Claude (not a permission): its card is a form of its own. */
    interaction: Interaction.optional(),
    /** For a Write over an existing text file: what the file holds while the request waits. */
    fileBefore: z.string().optional(),
  }),
  /** A permission request is no longer waiting. */
  z.object({
    kind: z.literal('permission_resolved'),
    requestId: z.string(),
    outcome: z.enum(['allowed', 'denied', 'cancelled']),
    /** Why it ended, in words, for a cancelled one (e.g. "Claude stopped waiting for an answer."). */
    reason: z.string().nullable(),
  }),
  ElicitationRequestEvent,
  ElicitationResolvedEvent,
  /** The permission mode changed (set here or by the CLI, e.g. leaving plan mode). */
  z.object({ kind: z.literal('permission_mode'), mode: PermissionModeChoice }),
  /** The conversation's "Done when" command changed (empty: no check). */
  z.object({ kind: z.literal('done_when'), command: DoneWhenCommand }),
  /** A run of the "Done when" check started or ended: its card in the conversation. */
  z.object({ kind: z.literal('check'), check: CheckRun }),
  /** The last check's result, for the header, without its card (what a window opening later starts from). */
  z.object({ kind: z.literal('check_status'), check: CheckRun }),
  /**
   * The conversation's Changes moved on: a snapshot was taken (a turn ended, a revert was done). `steps`:
   * how many steps it has now. A Changes panel that is open fetches its view again.
   */
  z.object({ kind: z.literal('changes'), steps: z.number().int().nonnegative() }),
  /**
   * The repository's setup command in a new worktree ("Run in each new worktree"), before the first turn:
   * its card. Messages sent meanwhile wait for it; a failed one waits for "Run again" or "Go on without it".
   */
  z.object({ kind: z.literal('setup'), run: SetupRun }),
  /**
   * Where the turn stands, as every lane can tell (a Terminal conversation from its hooks): Claude works, it
   * waits for the person (`what` it waits for: a permission, a question), or its turn is done.
   */
  z.object({
    kind: z.literal('activity'),
    state: z.enum(['working', 'needs_you', 'done']),
    what: z.string().max(2_000).nullable(),
  }),
  /**
   * A tool Claude uses, as every lane can tell (a Terminal conversation from its PreToolUse hook): its name
   * and what it works on (a command, a file), for a tab or a row that says what a turn is doing.
   */
  z.object({
    kind: z.literal('tool'),
    name: z.string().max(200),
    detail: z.string().max(500).nullable(),
  }),
]);
export type ConversationEvent = z.infer<typeof ConversationEvent>;

/** A terminal's size, in character cells. */
export const TerminalSize = z.object({
  cols: z.number().int().min(2).max(1_000),
  rows: z.number().int().min(1).max(1_000),
});
export type TerminalSize = z.infer<typeof TerminalSize>;
/** A Terminal conversation's size until its window says (that of a terminal nobody resized). */
export const DEFAULT_TERMINAL_SIZE: TerminalSize = { cols: 80, rows: 24 };
/** The most one input carries (a long paste is sent in pieces). */
export const TERMINAL_INPUT_MAX_CHARS = 64 * 1024;
/** How much of a Terminal conversation's output main keeps for a window that opens it. */
export const TERMINAL_SCREEN_MAX_CHARS = 2 * 1024 * 1024;

export const conversationChannels = {
  /** Opens a conversation: a new CLI process in `cwd`. */
  startConversation: {
    request: z.object({
      cwd: z.string().min(1).max(4096),
      model: z.string().min(1).max(200).optional(),
      /** Otherwise the default permission mode of the settings. */
      permissionMode: PermissionModeChoice.optional(),
      /** In a new git worktree of the repository `cwd` is in, made from `base` (`cwd` must be in one). */
      worktree: NewWorktree.optional(),
      /**
       * The first message, sent once the conversation is ready (after a worktree's setup command); a
       * worktree without a name is named from it.
       */
      firstMessage: z.string().max(1_000_000).optional(),
      /** On another host, over ssh (`cwd` is a folder there); absent: this computer. */
      host: HostName.optional(),
      /**
       * With `host`: carry on this session there (a tab kept across a restart). On this computer a saved
       * session is opened from the library, then resumed.
       */
      resume: SessionId.optional(),
      /** Its lane; absent: the settings' default for the login. */
      lane: Lane.optional(),
      /** A Terminal conversation's first size, so the CLI draws its first screen to fit. */
      size: TerminalSize.optional(),
    }),
    response: ConversationSnapshot,
  },
  /** Changes how much Claude may do without asking, from its next step (`set_permission_mode`). */
  setPermissionMode: {
    request: ConversationRef.extend({ mode: PermissionModeChoice }),
    response: z.object({ mode: PermissionModeChoice }),
  },
  /** How full the context window is (`get_context_usage`), for the header's meter and its breakdown. */
  contextUsage: { request: ConversationRef, response: ContextUsage },
  /** The MCP servers of the conversation, each with its status, error and tools (`mcp_status`). */
  mcpStatus: {
    request: ConversationRef,
    response: z.object({
      servers: z.array(
        z.object({
          name: z.string(),
          status: z.string(),
          error: z.string().nullable(),
          tools: z.array(z.string()),
          /** Byre's own server (its tools, such as set_title): the app needs it, so it offers no Disable. */
          builtIn: z.boolean(),
        }),
      ),
    }),
  },
  /** Disables or enables one of the conversation's MCP servers (`mcp_toggle`). */
  mcpToggle: {
    request: ConversationRef.extend({ serverName: z.string().min(1).max(200), enabled: z.boolean() }),
    response: Empty,
  },
  /** Connects a failed MCP server of the conversation again (`mcp_reconnect`). */
  mcpReconnect: {
    request: ConversationRef.extend({ serverName: z.string().min(1).max(200) }),
    response: Empty,
  },
  /** Stops a background task: a subagent or a shell command (`stop_task`, with the task_* events' id). */
  stopTask: { request: ConversationRef.extend({ taskId: z.string().min(1).max(200) }), response: Empty },
  /** Answers a permission request (a `permission_request` event) that is still waiting. */
  answerPermission: {
    request: ConversationRef.extend({
      requestId: z.string().min(1).max(100),
      answer: z.discriminatedUnion('behavior', [
        /** `remember`: also allow it from now on, as the request's `remember` says. */
        z.object({ behavior: z.literal('allow'), remember: z.boolean() }),
        /** `message`: why, for Claude; empty for no reason. */
        z.object({ behavior: z.literal('deny'), message: z.string().max(10_000) }),
      ]),
    }),
    /** `answered` false: it was no longer waiting (answered elsewhere, cancelled or stopped). */
    response: z.object({ answered: z.boolean() }),
  },
  /** Answers (or skips) Claude's questions: a waiting request whose `interaction` is `questions`. */
  answerQuestions: {
    request: ConversationRef.extend({ requestId: z.string().min(1).max(100), answer: QuestionsAnswer }),
    response: z.object({ answered: z.boolean() }),
  },
  /** Approves a plan (and goes on in the mode chosen) or keeps planning: `interaction` `plan`. */
  answerPlan: {
    request: ConversationRef.extend({ requestId: z.string().min(1).max(100), answer: PlanAnswer }),
    response: z.object({ answered: z.boolean() }),
  },
  /** Answers an MCP server's question (an `elicitation_request` event) that is still waiting. */
  answerElicitation: {
    request: ConversationRef.extend({ requestId: z.string().min(1).max(100), answer: ElicitationAnswer }),
    /** `answered` false: it was no longer waiting. */
    response: z.object({ answered: z.boolean() }),
  },
  /** Images first, then the text; a turn may hold images without text, or text without images. */
  send: {
    request: ConversationRef.extend({
      text: z.string().max(1_000_000),
      images: z.array(ShownImage).max(IMAGE_LIMITS.maxImagesPerTurn).default([]),
      uuid: Uuid.optional(),
    })
      .refine(
        (request) => request.text.trim().length > 0 || request.images.length > 0,
        'A message needs text or an image.',
      )
      .refine(
        (request) =>
          request.images.reduce((sum, image) => sum + image.data.length, 0) <=
          IMAGE_LIMITS.maxTurnBase64Length,
        'The images of one message are too large together.',
      ),
    response: z.object({ uuid: Uuid }),
  },
  /**
   * The conversation's "Done when" command, from its next stop; with `folderDefault`, also the one new
   * conversations in its folder start with.
   */
  setDoneWhen: {
    request: ConversationRef.extend({ command: DoneWhenCommand, folderDefault: z.boolean() }),
    response: z.object({ command: DoneWhenCommand }),
  },
  /** Keeps the conversation's unsent draft in main, replacing the one before. */
  setDraft: { request: ConversationRef.extend({ draft: SavedDraft }), response: Empty },
  /** Stops the running turn; queued messages stay queued. */
  interrupt: { request: ConversationRef, response: Empty },
  cancelQueued: {
    request: ConversationRef.extend({ uuid: Uuid }),
    response: z.object({ cancelled: z.boolean() }),
  },
  setModel: {
    request: ConversationRef.extend({ model: z.string().min(1).max(200) }),
    response: z.object({ model: z.string() }),
  },
  /** After the CLI exited unexpectedly: a new process that continues the same session. */
  resume: { request: ConversationRef, response: ConversationSnapshot },
  /**
   * The conversations open in main, with what has happened in each, so a window that reloads (or a
   * second window) shows them instead of starting over.
   */
  listConversations: {
    request: Empty,
    response: z.object({
      conversations: z.array(
        z.object({
          snapshot: ConversationSnapshot,
          /** What it is as a whole (title, model, mode, process) from before the screenful, to apply first. */
          prelude: z.array(z.lazy(() => ConversationEvent)),
          /** Its last screenful. */
          events: z.array(z.lazy(() => ConversationEvent)),
          /** How many events it has had: those numbered below this are in the window or before it. */
          seq: z.number().int().nonnegative(),
          /** Where the page before the screenful ends (for `conversationBefore`); null: nothing is earlier. */
          before: z.string().max(100).nullable(),
          /** The message being written in it when the window went (setDraft). */
          draft: SavedDraft,
          /**
           * Resumed from the library: the saved page before the resume (`openSavedBefore`), read once the
           * window has read back to the start of main's log; null when there is none.
           */
          savedBefore: z.string().max(1000).nullable(),
        }),
      ),
    }),
  },
  /** The page of an open conversation's history that ends where `before` says, as the user scrolls up. */
  conversationBefore: {
    request: ConversationRef.extend({ before: z.string().min(1).max(100) }),
    response: z.object({ events: z.array(z.lazy(() => ConversationEvent)), before: z.string().nullable() }),
  },
  /** Ends the conversation's CLI process cleanly. */
  closeConversation: { request: ConversationRef, response: Empty },
  /**
   * Carries the conversation on in the other lane: the same session, resumed there, its process in this
   * lane ended. Refused while Claude works. The tab follows the new conversation's id.
   */
  switchLane: {
    request: ConversationRef.extend({ lane: Lane, size: TerminalSize.optional() }),
    response: z.object({
      snapshot: ConversationSnapshot,
      /** Into the Stream lane: where its history before the switch ends, as a saved page cursor. */
      savedBefore: z.string().max(1000).nullable(),
    }),
  },
  /** What the person typed, pasted or chose to send into a Terminal conversation, as the terminal encodes it. */
  terminalInput: {
    request: ConversationRef.extend({ data: z.string().min(1).max(TERMINAL_INPUT_MAX_CHARS) }),
    response: Empty,
  },
  /**
   * A window drew a Terminal conversation's output up to the batch `seq`: main reads the CLI's output only
   * as fast as the windows that follow it draw (flow control).
   */
  terminalDrawn: {
    request: ConversationRef.extend({ seq: z.number().int().nonnegative() }),
    response: Empty,
  },
  /**
   * An image pasted or dropped into a Terminal conversation: main keeps it where its CLI can read it (a
   * private folder here, or the conversation's own folder on its host) and gives the path, which the window
   * pastes into the terminal as the CLI takes images ("[Image #1]"). Refused when it is not an image.
   */
  terminalImage: {
    request: ConversationRef.extend({
      name: z.string().min(1).max(1000),
      data: z.base64().max(Math.ceil(MAX_IMAGE_FILE_BYTES / 3) * 4),
    }),
    response: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), path: z.string().min(1).max(4096) }),
      z.object({ ok: z.literal(false), message: z.string() }),
    ]),
  },
  /** A Terminal conversation's screen changed size. */
  terminalResize: { request: ConversationRef.extend(TerminalSize.shape), response: Empty },
  /**
   * What a Terminal conversation's screen has shown lately (its output since it started, at most
   * TERMINAL_SCREEN_MAX_CHARS), for a window that opens it: written into a fresh terminal, it draws the screen
   * as it stands. `seq`: the number of the next output event, which the window applies after this.
   */
  terminalScreen: {
    request: ConversationRef,
    response: z.object({ data: z.string(), seq: z.number().int().nonnegative() }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
