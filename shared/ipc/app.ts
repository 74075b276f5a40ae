/**
 * The app as a whole: what it is and where it runs, its settings, "Commit as", and the host's own services
 * (links, the folder picker). Channels that are about no one conversation.
 */
import { z } from 'zod';
import { IMAGE_LIMITS } from '../images';
import { Empty } from './refs';
import { HostName } from './remote';

/**
 * How much Claude may do without asking, as the user picks it (the CLI's permission modes; its `dontAsk`,
 * which denies whatever is not allowed already, is not offered).
 */
export const PermissionModeChoice = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
export type PermissionModeChoice = z.infer<typeof PermissionModeChoice>;

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

export const Theme = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof Theme>;

/**
 * How a conversation talks to Claude Code, and so what it bills to (cli-facts 19): `stream` runs the CLI in
 * stream-json mode (every event typed; a subscription bills it to the Agent SDK credit, an API key to the
 * API), `terminal` runs the real interactive CLI in a terminal (a subscription's plan limits).
 */
export const Lane = z.enum(['stream', 'terminal']);
export type Lane = z.infer<typeof Lane>;
/** What each lane bills to, in plain words: the same in the form, the header, the tab and the Usage view. */
export const LANE_BILLING: Record<Lane, string> = {
  terminal: 'Plan limits',
  stream: 'Agent SDK credit or API',
};
/** The lane new conversations get: `auto` follows the login (a subscription: terminal; an API key: stream). */
export const LaneChoice = z.enum(['auto', 'stream', 'terminal']);
export type LaneChoice = z.infer<typeof LaneChoice>;

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
  /** The lane new conversations start in. */
  defaultLane: LaneChoice,
  /** Images with a longer side are scaled down to it before sending. */
  imageMaxLongSide: z
    .number({ error: 'The image size limit is a number of pixels.' })
    .int('The image size limit is a whole number of pixels.')
    .min(200, 'The image size limit is at least 200 pixels.')
    .max(IMAGE_LIMITS.maxSide, `The image size limit is at most ${IMAGE_LIMITS.maxSide} pixels.`),
  theme: Theme,
  /** System notifications when a reply ends or Claude asks, while Byre is in the background. */
  notifications: z.boolean(),
  /** After each turn, Claude Code guesses the next prompt for the empty composer: one more model request a turn. */
  promptSuggestions: z.boolean(),
  /**
   * How many days the Changes panel's snapshots of a conversation are kept after its last turn; null: as
   * long as the conversation is in the library. Removing a conversation removes them at once.
   */
  snapshotRetentionDays: z
    .number({ error: 'The days to keep snapshots are a number.' })
    .int('The days to keep snapshots are a whole number.')
    .min(1, 'Snapshots are kept at least 1 day.')
    .max(3650, 'Snapshots are kept at most 3,650 days.')
    .nullable(),
  /**
   * The one ssh config file: the hosts "Where" lists come from it, and every ssh Byre runs is given it; null:
   * `~/.ssh/config` of the home folder.
   */
  sshConfigFile: z
    .string()
    .trim()
    .min(1, 'Enter the path to an ssh config file, or leave it empty for ~/.ssh/config.')
    .max(4096, 'That path is too long.')
    .nullable(),
  /** "Notify at": the share of a plan limit (a percent) at which a notification says how much is used. */
  limitAlertPercent: z
    .number({ error: 'The limit notification is at a percent.' })
    .int('The limit notification is at a whole percent.')
    .min(1, 'The limit notification is at 1% at least.')
    .max(100, 'The limit notification is at 100% at most.'),
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
  /** The lane that conversation starts in (`--lane=`); null: the default. */
  initialLane: Lane.nullable(),
  recentFolders: z.array(z.string()),
  /** The permission mode new conversations start in (a setting). */
  defaultPermissionMode: PermissionModeChoice,
  /** The lane new conversations start in: the setting, or for `auto` the login's (`login`). */
  defaultLane: Lane,
  /** How Claude Code is logged in, as far as Byre can tell: what `auto` follows. */
  login: z.enum(['subscription', 'api', 'unknown']),
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

export const appChannels = {
  appInfo: { request: Empty, response: AppInfo },
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
  /** The permission mode new conversations start in; kept in the settings. */
  setDefaultPermissionMode: {
    request: z.object({ mode: PermissionModeChoice }),
    response: Empty,
  },
  /** "Commit as": the identity for all folders, and the one for `cwd` that overrides it (null: none set). */
  commitIdentity: {
    /** `host`: the folder is on that host. */
    request: z.object({ cwd: z.string().min(1).max(4096), host: HostName.optional() }),
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
      host: HostName.optional(),
      identity: CommitIdentity.nullable(),
    }),
    response: Empty,
  },
  /** Opens an http(s) link the user clicked in the system browser (Electron; a browser opens its own tab). */
  openLink: {
    request: z.object({ url: z.url({ protocol: /^https?$/ }).max(8192) }),
    response: Empty,
  },
  /** The native folder picker (Electron only; a browser has none). */
  pickFolder: { request: Empty, response: z.object({ path: z.string().nullable() }) },
  /** Whether a typed folder exists (NotAFolder if not), before a conversation is started in it. */
  checkFolder: {
    request: z.object({ cwd: z.string().min(1).max(4096) }),
    response: z.object({ path: z.string() }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
