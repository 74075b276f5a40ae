/**
 * The one IPC contract between the renderer and main. Each invoke channel names its request and response
 * schema; each event channel names its payload schema. Main's handlers, the preload's `window.byre`, the
 * browser bridge and the renderer's types are all derived from this file.
 */
import { z } from 'zod';
import { IMAGE_LIMITS } from './images';
import { Family } from './branches';
import { ExportDelivery, LibraryRow, LibraryStatus, SearchHit, SessionId } from './library';
import { ImageMediaType, ModelInfo, type CliMessage } from './protocol';

/**
 * How much Claude may do without asking, as the user picks it (the CLI's permission modes; its `dontAsk`,
 * which denies whatever is not allowed already, is not offered).
 */
export const PermissionModeChoice = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
export type PermissionModeChoice = z.infer<typeof PermissionModeChoice>;

const ConversationId = z.string().min(1).max(100);
const Uuid = z.uuid();

/**
 * Who commits Claude makes are by: the CLI is launched with GIT_AUTHOR_* and GIT_COMMITTER_* set to it.
 * None set: git's own configuration decides.
 */
export const CommitIdentity = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Enter the name commits are made as.')
    .max(200, 'The name is too long (200 characters at most).')
    .refine(
      (name) => ![...name].some((char) => char === '<' || char === '>' || char < ' ' || char === '\u007f'),
      'A name cannot hold < >, a line break or other control characters.',
    ),
  email: z
    .string()
    .trim()
    .max(320, 'The email address is too long.')
    .pipe(z.email('Enter an email address such as name@example.com.')),
});
export type CommitIdentity = z.infer<typeof CommitIdentity>;

/** One line of a transcript, for the protocol inspector: which file and line, its direction and its JSON. */
export const ProtocolLine = z.object({
  /** Index in the session's transcripts, oldest first. */
  file: z.number().int().nonnegative(),
  line: z.number().int().positive(),
  dir: z.enum(['send', 'recv', 'byre']),
  /** `assistant`, `system/init`, `control_request/can_use_tool`… */
  type: z.string(),
  text: z.string(),
  /** What was cut or changed to show it, in words (the transcript has it whole); null: shown whole. */
  cut: z.string().nullable(),
});
export type ProtocolLine = z.infer<typeof ProtocolLine>;

export const ProtocolLinesRequest = z.object({
  target: z.union([z.object({ conversationId: ConversationId }), z.object({ sessionId: SessionId })]),
  /** The message the lines are behind; null: the whole session. */
  behind: z
    .object({
      uuids: z.array(z.string().min(1).max(100)).max(20),
      apiMessageIds: z.array(z.string().min(1).max(200)).max(20),
      toolUseIds: z.array(z.string().min(1).max(200)).max(500),
    })
    .nullable(),
  /** Only lines of these types; null: all. */
  types: z.array(z.string().max(200)).max(100).nullable(),
  /** Lines whose JSON holds this (any case). */
  query: z.string().max(1000),
  limit: z.number().int().min(1).max(5_000),
});
export type ProtocolLinesRequest = z.infer<typeof ProtocolLinesRequest>;

export const ProtocolLinesResponse = z.object({
  /** The first `limit` lines that match, in file order. */
  lines: z.array(ProtocolLine),
  /** How many match in all. */
  total: z.number().int().nonnegative(),
  /** The types of lines behind the message (or in the session), with how many of each, for the filter. */
  types: z.array(z.object({ type: z.string(), count: z.number().int().positive() })),
  /** Transcripts read; none means Byre has no transcript of this session (made in a terminal). */
  files: z.number().int().nonnegative(),
  /** Lines (or files) that could not be read. */
  unreadable: z.number().int().nonnegative(),
});
export type ProtocolLinesResponse = z.infer<typeof ProtocolLinesResponse>;

/** A path in a conversation's folder and where the query's characters fell in it (to show them). */
export const FileMatch = z.object({ path: z.string(), indexes: z.array(z.number().int().nonnegative()) });
export type FileMatch = z.infer<typeof FileMatch>;

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

export const Theme = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof Theme>;

/** What the settings screen sets, each checked as it is saved (main checks the CLI path on disk too). */
export const AppSettings = z.object({
  /** The claude program; null: Byre finds one (PATH, the usual places, node_modules). */
  cliPath: z
    .string()
    .trim()
    .min(1, 'Enter the path to the claude program, or leave it empty to let Byre find one.')
    .max(4096, 'That path is too long.')
    .nullable(),
  /** The model new conversations start with; null: the CLI's own default. */
  defaultModel: z
    .string()
    .trim()
    .min(1)
    .max(200, 'A model name is at most 200 characters.')
    .regex(/^[\w.:@[\]/-]+$/, 'A model name has letters, digits and . - _ : / @ [ ] only (e.g. sonnet).')
    .nullable(),
  defaultPermissionMode: PermissionModeChoice,
  /** Images with a longer side are scaled down to it before sending. */
  imageMaxLongSide: z
    .number({ error: 'The image size limit is a number of pixels.' })
    .int('The image size limit is a whole number of pixels.')
    .min(200, 'The image size limit is at least 200 pixels.')
    .max(IMAGE_LIMITS.maxSide, `The image size limit is at most ${IMAGE_LIMITS.maxSide} pixels.`),
  theme: Theme,
  /** System notifications when a reply ends or Claude asks, while Byre is in the background. */
  notifications: z.boolean(),
});
export type AppSettings = z.infer<typeof AppSettings>;

/** The settings screen's view: the values, and what it shows beside them. */
export const SettingsView = z.object({
  values: AppSettings,
  /** BYRE_CLAUDE_PATH, which wins over the setting while it is set. */
  cliFromEnvironment: z.string().nullable(),
  dataDir: z.string(),
  /** Whether the host can open a folder in the file manager. */
  canOpenFolders: z.boolean(),
});
export type SettingsView = z.infer<typeof SettingsView>;

export const AppInfo = z.object({
  host: z.enum(['electron', 'browser']),
  version: z.string(),
  dataDir: z.string(),
  /** A working directory named on the command line: the app opens a conversation there. */
  initialCwd: z.string().nullable(),
  recentFolders: z.array(z.string()),
  /** The permission mode new conversations start in (a setting). */
  defaultPermissionMode: PermissionModeChoice,
  /** What was wrong with the settings file as it was read: the fields that took their defaults. */
  settingsProblems: z.array(z.string()),
  theme: Theme,
  notifications: z.boolean(),
  /** The model new conversations start with when none is asked for; null: the CLI's default. */
  defaultModel: z.string().nullable(),
  /** Where the claude CLI was found, or why it was not. */
  cli: z.discriminatedUnion('found', [
    z.object({ found: z.literal(true), path: z.string() }),
    z.object({ found: z.literal(false), looked: z.array(z.string()), explanation: z.string().optional() }),
  ]),
});
export type AppInfo = z.infer<typeof AppInfo>;

const ConversationRef = z.object({ conversationId: ConversationId });

/** A page of a saved conversation: its events in file order, and where the page before it ends (null: none). */
const SavedPage = z.object({
  events: z.array(z.lazy(() => ConversationEvent)),
  before: z.string().nullable(),
  /** Lines that could not be read and were left out. */
  skipped: z.number().int().nonnegative(),
});

/** An image ready to send: checked and, where needed, scaled down by main. */
export const PreparedImage = z.object({
  name: z.string().max(1000),
  mediaType: ImageMediaType,
  data: z.base64().min(1),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  originalWidth: z.number().int().positive(),
  originalHeight: z.number().int().positive(),
  resized: z.boolean(),
});
export type PreparedImage = z.infer<typeof PreparedImage>;

/** An image in a turn, as the user line carries it. */
export const TurnImage = z.object({ mediaType: ImageMediaType, data: z.base64().min(1) });
export type TurnImage = z.infer<typeof TurnImage>;

/**
 * How an image's bytes are named once main holds them (main/image-refs.ts): `ref:<sha256>` in place of the
 * base64, in events and pages, for the page to load by address (renderer/src/images.ts).
 */
export const IMAGE_REF_PREFIX = 'ref:';
/** An image as an event shows it: its base64, or a reference to it. */
export const ShownImage = z.object({
  mediaType: ImageMediaType,
  data: z.union([z.base64().min(1), z.string().regex(/^ref:[0-9a-f]{64}$/)]),
});

/** An image of an unsent draft, as main keeps it: by reference (a small one inline). */
export const DraftImage = PreparedImage.extend({ data: ShownImage.shape.data });
export type DraftImage = z.infer<typeof DraftImage>;

/**
 * The message being written in a conversation, kept in main so that a reload (or another window) finds it
 * where it was left: its text, and the images attached so far that are ready to send.
 */
export const SavedDraft = z.object({
  text: z.string().max(1_000_000),
  images: z.array(DraftImage).max(IMAGE_LIMITS.maxImagesPerTurn),
});
export type SavedDraft = z.infer<typeof SavedDraft>;
export const EMPTY_SAVED_DRAFT: SavedDraft = { text: '', images: [] };

/** Which session a request is about: a conversation open in main, or a saved one with no process. */
export const SessionTarget = z.union([ConversationRef, z.object({ sessionId: SessionId })]);
export type SessionTarget = z.infer<typeof SessionTarget>;

/** What restoring files to just before a user message would change (a dry run), or did change. */
/** What restoring would do to one file: the lines it would add and remove. */
export const FileChange = z.object({
  path: z.string(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
export type FileChange = z.infer<typeof FileChange>;

export const FileRewind = z.object({
  canRewind: z.boolean(),
  /** Absolute paths. */
  filesChanged: z.array(z.string()),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /**
   * The same per file, in the order of `filesChanged` (a dry run only), or null where they could not be
   * worked out so that they add up to the totals (main/rewind-preview.ts).
   */
  fileChanges: z.array(FileChange).nullable(),
  /** Why nothing can be restored, in words a person understands; null when it can. */
  reason: z.string().nullable(),
});
export type FileRewind = z.infer<typeof FileRewind>;

/** A message's text and images, as the first message of a turn carries them. */
const MessageBody = z
  .object({
    text: z.string().max(1_000_000),
    /** A message sent again (after a rewind, say) may name its images by reference. */
    images: z.array(ShownImage).max(IMAGE_LIMITS.maxImagesPerTurn).default([]),
  })
  .refine(
    (request) => request.text.trim().length > 0 || request.images.length > 0,
    'A message needs text or an image.',
  )
  .refine(
    (request) =>
      request.images.reduce((sum, image) => sum + image.data.length, 0) <= IMAGE_LIMITS.maxTurnBase64Length,
    'The images of one message are too large together.',
  );

/** The largest file the app reads for an image; anything bigger is refused before it is read. */
export const MAX_IMAGE_FILE_BYTES = 40 * 1024 * 1024;
const Empty = z.object({});

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

/** One thing a folder's own settings would do, in words for the trust question. */
export const TrustItem = z.object({
  /** The file it comes from, relative to the folder: `.claude/settings.json`, `.mcp.json`. */
  file: z.string(),
  kind: z.enum([
    'hook',
    'mcpServer',
    'allowRule',
    'askRule',
    'directory',
    'defaultMode',
    'env',
    'helper',
    'plugin',
    'setting',
    'unreadable',
  ]),
  text: z.string(),
});
export type TrustItem = z.infer<typeof TrustItem>;

/** What a folder's own settings would do, and whether Byre may let them. */
export const FolderTrust = z.object({
  /** The folder's real path: trust is kept by it. */
  folder: z.string(),
  /** Of the files that can run code or widen permissions, as they are now; a decision names it. */
  digest: z.string(),
  /** The files hold something that runs code or widens what Claude may do. */
  needsTrust: z.boolean(),
  /** Trusted with these very files (by Byre, or by Claude Code's own trust record). */
  trusted: z.boolean(),
  items: z.array(TrustItem),
  /** The folder was trusted with other files: what is new since, and what went. */
  changed: z.object({ added: z.array(TrustItem), removed: z.array(TrustItem) }).nullable(),
});
export type FolderTrust = z.infer<typeof FolderTrust>;

export const TrustedFolder = z.object({
  folder: z.string(),
  trustedAt: z.number(),
  /** Trusted in Byre, or taken over from Claude Code's own record of the folder. */
  source: z.enum(['byre', 'claude']),
});
export type TrustedFolder = z.infer<typeof TrustedFolder>;

const FolderPath = z.string().min(1).max(4096);

export const invokeChannels = {
  appInfo: { request: Empty, response: AppInfo },
  /** Opens a conversation: a new CLI process in `cwd`. */
  startConversation: {
    request: z.object({
      cwd: z.string().min(1).max(4096),
      model: z.string().min(1).max(200).optional(),
      /** Otherwise the default permission mode of the settings. */
      permissionMode: PermissionModeChoice.optional(),
    }),
    response: ConversationSnapshot,
  },
  /** Changes how much Claude may do without asking, from its next step (`set_permission_mode`). */
  setPermissionMode: {
    request: ConversationRef.extend({ mode: PermissionModeChoice }),
    response: z.object({ mode: PermissionModeChoice }),
  },
  /** The permission mode new conversations start in; kept in the settings. */
  /** The settings screen's values. */
  settings: { request: Empty, response: SettingsView },
  /** Changes some settings; a value that is not valid is refused (InvalidSetting, with the reason), none saved. */
  saveSettings: { request: AppSettings.partial(), response: SettingsView },
  /** Runs `claude --version` with the given program (null: the one Byre would use now). */
  testCli: {
    request: z.object({ path: z.string().trim().max(4096).nullable() }),
    response: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), path: z.string(), version: z.string() }),
      z.object({ ok: z.literal(false), reason: z.string() }),
    ]),
  },
  /** Opens Byre's data folder in the system's file manager. */
  openDataFolder: { request: Empty, response: Empty },
  setDefaultPermissionMode: {
    request: z.object({ mode: PermissionModeChoice }),
    response: Empty,
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
        }),
      ),
    }),
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
  /** Checks one image file by its content and scales it to fit; a refusal names the file and the reason. */
  prepareImage: {
    request: z.object({
      name: z.string().min(1).max(1000),
      data: z.base64().max(Math.ceil(MAX_IMAGE_FILE_BYTES / 3) * 4),
      /** How many images the turn will hold with this one (the API allows fewer pixels for many). */
      imagesInTurn: z.number().int().min(1),
    }),
    response: z.discriminatedUnion('ok', [
      /** `ref`: how main keeps it from now on, for the draft (see SavedDraft). */
      z.object({ ok: z.literal(true), image: PreparedImage, ref: ShownImage.shape.data }),
      z.object({
        ok: z.literal(false),
        reason: z.enum(['not_an_image', 'unreadable', 'too_many', 'too_large', 'turn_too_large']),
        message: z.string(),
      }),
    ]),
  },
  /**
   * The conversation's "Done when" command, from its next stop; with `folderDefault`, also the one new
   * conversations in its folder start with.
   */
  setDoneWhen: {
    request: ConversationRef.extend({ command: DoneWhenCommand, folderDefault: z.boolean() }),
    response: z.object({ command: DoneWhenCommand }),
  },
  /** "Commit as": the identity for all folders, and the one for `cwd` that overrides it (null: none set). */
  commitIdentity: {
    request: z.object({ cwd: z.string().min(1).max(4096) }),
    response: z.object({ global: CommitIdentity.nullable(), folder: CommitIdentity.nullable() }),
  },
  /**
   * Sets "Commit as" for all folders or for `cwd` alone (null clears it), for conversations started from now
   * on (a conversation's Claude keeps the identity it was started with, across restarts too).
   */
  setCommitIdentity: {
    request: z.object({
      scope: z.enum(['global', 'folder']),
      cwd: z.string().min(1).max(4096),
      identity: CommitIdentity.nullable(),
    }),
    response: Empty,
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
  /**
   * The files and folders of the conversation's folder that match `query` fuzzily, best first (an empty
   * query: the top of the folder), for the composer's `@` picker. Folders end in `/`.
   */
  findFiles: {
    request: ConversationRef.extend({ query: z.string().max(1000), limit: z.number().int().min(1).max(200) }),
    response: z.object({ matches: z.array(FileMatch), total: z.number().int(), truncated: z.boolean() }),
  },
  /** Raw transcript lines behind a message, or of the whole session, for the protocol inspector. */
  protocolLines: { request: ProtocolLinesRequest, response: ProtocolLinesResponse },
  /** Ends the conversation's CLI process cleanly. */
  closeConversation: { request: ConversationRef, response: Empty },
  /** Opens an http(s) link the user clicked in the system browser (Electron; a browser opens its own tab). */
  openLink: {
    request: z.object({ url: z.url({ protocol: /^https?$/ }).max(8192) }),
    response: Empty,
  },
  /** What a folder's own settings would do, for the "Trust this folder?" question. */
  folderTrust: { request: z.object({ cwd: FolderPath }), response: FolderTrust },
  /**
   * The answer to that question for the files with `digest`: trust (kept in trust.json) or not (until Byre
   * quits). A digest that no longer matches the files records nothing: the next start asks again.
   */
  decideTrust: {
    request: z.object({ folder: FolderPath, digest: z.string().max(200), trust: z.boolean() }),
    response: Empty,
  },
  trustedFolders: { request: Empty, response: z.object({ folders: z.array(TrustedFolder) }) },
  forgetTrust: { request: z.object({ folder: FolderPath }), response: Empty },
  /** Starts the conversation's CLI again, now with its (trusted) folder's settings; refused mid-reply. */
  useFolderSettings: { request: ConversationRef, response: ConversationSnapshot },
  /** The native folder picker (Electron only; a browser has none). */
  pickFolder: { request: Empty, response: z.object({ path: z.string().nullable() }) },
  /** Whether a typed folder exists (NotAFolder if not), before a conversation is started in it. */
  checkFolder: {
    request: z.object({ cwd: z.string().min(1).max(4096) }),
    response: z.object({ path: z.string() }),
  },

  /** Every past conversation Byre knows of, newest first; optionally only those of one folder. */
  libraryList: {
    request: z.object({ folder: z.string().max(4096).nullable().optional() }),
    response: z.object({ rows: z.array(LibraryRow) }),
  },
  /** How far indexing has got, and the files that could not be read. */
  libraryStatus: { request: Empty, response: LibraryStatus },
  /** Every branch of the family a saved conversation belongs to (Byre's forks, the CLI's, in-file rewinds). */
  libraryFamily: { request: z.object({ sessionId: SessionId }), response: Family },
  /**
   * Restores files to just before a user message, in the session that made their checkpoints (with
   * `dryRun`, only says what it would change). A saved session with no process gets one for the call.
   */
  rewindFiles: {
    request: z.object({ target: SessionTarget, userMessageUuid: Uuid, dryRun: z.boolean() }),
    response: FileRewind,
  },
  /**
   * A new branch: a new CLI process that carries on `from` after the entry `at` (`--resume
   * --resume-session-at --fork-session`; `at` null starts afresh in the same folder), in a conversation of
   * its own, and sends it its first message. The original session is left untouched.
   */
  forkConversation: {
    request: z.object({ from: SessionTarget, at: Uuid.nullable(), message: MessageBody }),
    response: z.object({ snapshot: ConversationSnapshot, uuid: Uuid, parentSessionId: SessionId }),
  },
  /** Full-text search across every conversation, best first. */
  librarySearch: {
    request: z.object({
      query: z.string().min(1).max(500),
      folder: z.string().max(4096).nullable().optional(),
    }),
    response: z.object({ hits: z.array(SearchHit) }),
  },
  /** A saved conversation's last screenful, read-only; `before` fetches the page before it. */
  openSaved: {
    request: z.object({ sessionId: SessionId }),
    response: SavedPage.extend({ row: LibraryRow }),
  },
  /**
   * A branch inside one CLI file (a rewind the CLI made in place): the entries on the chain that ends at
   * `leafUuid`, read-only, as one page (`before` is null).
   */
  openSavedBranch: {
    request: z.object({ sessionId: SessionId, leafUuid: z.string().min(1).max(200) }),
    response: SavedPage.extend({ row: LibraryRow }),
  },
  /** The page of a saved conversation that ends where `before` says. */
  openSavedBefore: {
    request: z.object({ sessionId: SessionId, before: z.string().max(10_000) }),
    response: SavedPage,
  },
  /** Continues a saved conversation in a new CLI process (`--resume`), in a tab of its own. */
  resumeSaved: { request: z.object({ sessionId: SessionId }), response: ConversationSnapshot },
  /**
   * When the CLI's copy is gone and `--resume` cannot work: a new conversation in the same folder whose first
   * message carries the old one as context.
   */
  continueSaved: { request: z.object({ sessionId: SessionId }), response: ConversationSnapshot },
  /** Renames a conversation in Byre's own data; the CLI's files are never edited. */
  renameSaved: {
    request: z.object({ sessionId: SessionId, title: z.string().trim().min(1).max(200) }),
    response: Empty,
  },
  /** Removes a conversation from Byre's list; its files stay where they are. */
  hideSaved: { request: z.object({ sessionId: SessionId }), response: Empty },
  exportSaved: {
    request: z.object({ sessionId: SessionId, format: z.enum(['markdown', 'jsonl']) }),
    response: ExportDelivery,
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type InvokeChannel = keyof typeof invokeChannels;
export type InvokeRequest<C extends InvokeChannel> = z.input<(typeof invokeChannels)[C]['request']>;
export type InvokeResponse<C extends InvokeChannel> = z.infer<(typeof invokeChannels)[C]['response']>;

/** An error as it crosses IPC: a plain object, never a stack trace. */
export const IpcError = z.object({
  name: z.string(),
  message: z.string(),
  /** For CliNotFound: every place looked. */
  looked: z.array(z.string()).optional(),
  /** For CliNotFound: why the path the user chose (BYRE_CLAUDE_PATH) is not the CLI. */
  explanation: z.string().optional(),
  /** For TrustNeeded: the folder whose settings wait for the user's answer. */
  folder: z.string().optional(),
});
export type IpcError = z.infer<typeof IpcError>;

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

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
  }),
  /** A permission request is no longer waiting. */
  z.object({
    kind: z.literal('permission_resolved'),
    requestId: z.string(),
    outcome: z.enum(['allowed', 'denied', 'cancelled']),
    /** Why it ended, in words, for a cancelled one (e.g. "Claude stopped waiting for an answer."). */
    reason: z.string().nullable(),
  }),
  /** The permission mode changed (set here or by the CLI, e.g. leaving plan mode). */
  z.object({ kind: z.literal('permission_mode'), mode: PermissionModeChoice }),
  /** The conversation's "Done when" command changed (empty: no check). */
  z.object({ kind: z.literal('done_when'), command: DoneWhenCommand }),
  /** A run of the "Done when" check started or ended: its card in the conversation. */
  z.object({ kind: z.literal('check'), check: CheckRun }),
  /** The last check's result, for the header, without its card (what a window opening later starts from). */
  z.object({ kind: z.literal('check_status'), check: CheckRun }),
]);
export type ConversationEvent = z.infer<typeof ConversationEvent>;

export const eventChannels = {
  conversationEvents: z.object({
    conversationId: ConversationId,
    events: z.array(ConversationEvent),
    /**
     * The number of the batch's last event in its conversation (they count from 0). A window built from
     * `listConversations` already holds every event numbered below its `seq`.
     */
    seq: z.number().int().nonnegative(),
  }),
  /** The library's rows or indexing status changed: fetch them again. */
  libraryChanged: Empty,
  /** Something the user should notice even when the app is in the background. */
  notification: z.object({ conversationId: ConversationId, title: z.string(), message: z.string() }),
  /** Byre was launched again with a folder while it runs (Electron): start a conversation there. */
  secondLaunch: z.object({ folder: z.string() }),
} satisfies Record<string, z.ZodType>;

export type EventChannel = keyof typeof eventChannels;
export type EventPayload<C extends EventChannel> = z.infer<(typeof eventChannels)[C]>;

/**
 * `window.byre`: one function per invoke channel, one subscription per event channel. Calls resolve to a
 * result object rather than throwing, so nothing depends on how a host carries exceptions.
 */
export type ByreApi = {
  [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<IpcResult<InvokeResponse<C>>>;
} & {
  on<C extends EventChannel>(channel: C, listener: (payload: EventPayload<C>) => void): () => void;
  /** Which host serves this window. */
  readonly host: 'electron' | 'browser';
};

export const invokeChannelNames = Object.keys(invokeChannels) as InvokeChannel[];

/** The IPC channel string for a contract name; one namespace so nothing else can collide. */
export const ipcChannel = (name: InvokeChannel | EventChannel): string => `byre:${name}`;

/** Rebuilds an Error from its IPC form so callers can tell kinds apart by name. */
export function errorFromIpc(error: IpcError): Error & IpcError {
  return Object.assign(new Error(error.message), error);
}
