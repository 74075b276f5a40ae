import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { IMAGE_LIMITS } from '../../shared/images';
import {
  AppSettings,
  CommitIdentity,
  DoneWhenCommand,
  PermissionModeChoice,
  PlanApprovalMode,
  SetupCommand,
} from '../../shared/ipc';
import { DEFAULT_CHECK_LIMITS, type CheckLimits } from '../conversation/done-when';
import { JsonFile } from './json-file';
import { makePrivateDir } from '../disk/private-files';
import { hostFolderKey } from './host-folders';

/**
 * Where the app keeps its data: transcripts and settings. Electron passes its userData folder; the browser
 * host uses $XDG_DATA_HOME/byre; BYRE_DATA_DIR overrides both.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, electronUserData?: string): string {
  if (env.BYRE_DATA_DIR) return env.BYRE_DATA_DIR;
  if (electronUserData) return electronUserData;
  const xdg = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(xdg, 'byre');
}

const Settings = z.object({
  recentFolders: z.array(z.string()).default([]),
  /** The folders conversations ran in on each other host, newest first, by the host as the user named it. */
  recentFoldersByHost: z.record(z.string(), z.array(z.string())).default({}),
  /** The claude program chosen in settings; null: found (PATH, the usual places, node_modules). */
  cliPath: AppSettings.shape.cliPath.default(null),
  defaultModel: AppSettings.shape.defaultModel.default(null),
  theme: AppSettings.shape.theme.default('system'),
  notifications: AppSettings.shape.notifications.default(true),
  promptSuggestions: AppSettings.shape.promptSuggestions.default(true),
  /** A month of snapshots after a conversation's last turn: long enough to look back, short enough to prune. */
  snapshotRetentionDays: AppSettings.shape.snapshotRetentionDays.default(30),
  sshConfigFile: AppSettings.shape.sshConfigFile.default(null),
  /** Near enough a limit to say so, yet early enough to pace the rest of the window. */
  limitAlertPercent: AppSettings.shape.limitAlertPercent.default(90),
  /** Images with a longer side are scaled down to it before sending (the size the model works at). */
  imageMaxLongSide: z
    .number()
    .int()
    .min(200)
    .max(IMAGE_LIMITS.maxSide)
    .default(IMAGE_LIMITS.defaultMaxLongSide),
  /** How much Claude may do without asking in a new conversation: it asks first unless told otherwise. */
  defaultPermissionMode: PermissionModeChoice.default('default'),
  /** The lane new conversations start in: by the login unless the user chose. */
  defaultLane: AppSettings.shape.defaultLane.default('auto'),
  /** The mode the last plan approved went on in: the plan card offers it first. */
  planApprovalMode: PlanApprovalMode.default('default'),
  /** "Commit as", for every folder unless the folder has its own. */
  commitAs: CommitIdentity.nullable().default(null),
  commitAsByFolder: z.record(z.string(), CommitIdentity).default({}),
  /** The "Done when" command new conversations in a folder start with, by folder. */
  doneWhenByFolder: z.record(z.string(), DoneWhenCommand).default({}),
  /** "Run in each new worktree": the command a new worktree of a repository is set up with, by its top level. */
  worktreeSetupByRepository: z.record(z.string(), SetupCommand).default({}),
  /** Runs of a failing "Done when" check in a row before Claude is let stop. */
  checkMaxRounds: z.number().int().min(1).max(50).default(DEFAULT_CHECK_LIMITS.maxRounds),
  /** How long one run of the check may take. */
  checkTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(DEFAULT_CHECK_LIMITS.timeoutMs / 1000),
});
export type Settings = z.infer<typeof Settings>;

/** Settings kept per folder: each folder's entry is read on its own. */
const BY_FOLDER = {
  doneWhenByFolder: DoneWhenCommand,
  commitAsByFolder: CommitIdentity,
  worktreeSetupByRepository: SetupCommand,
} as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_RECENT = 12;

/** The file as JSON: any object will do, as each field is read on its own (`readSettings`). */
const SettingsFileSchema = z.custom<Record<string, unknown>>(isPlainObject, 'it is not a JSON object');

/**
 * Settings as one small JSON file (a JsonFile, so a crash never leaves half of it, and two Byre processes
 * on one data folder both keep their changes: each change is made to the file as it is then). Each field
 * is read on its own: one that is not valid takes its default and is reported (`problems`), and the others
 * are kept. Fields this version does not know are kept too, for the version that wrote them. A file that
 * is not JSON at all is set aside, never overwritten.
 */
export class SettingsStore {
  private readonly file: JsonFile<Record<string, unknown>>;
  /** As this process last read or wrote them: reads come from here, changes from the file. */
  private settings: Settings;
  /** What was wrong with the file as it was read, one sentence each. */
  readonly problems: string[] = [];

  constructor(readonly dataDir: string) {
    makePrivateDir(dataDir);
    this.file = new JsonFile(join(dataDir, 'settings.json'), SettingsFileSchema, () => ({}), {
      report: (problem) => this.problems.push(`${problem} The defaults are used.`),
    });
    this.settings = this.load();
  }

  /** What the settings screen shows and sets. */
  get values(): AppSettings {
    const { cliPath, defaultModel, defaultPermissionMode, defaultLane, imageMaxLongSide, theme } =
      this.settings;
    const { notifications } = this.settings;
    const { promptSuggestions, snapshotRetentionDays, limitAlertPercent, sshConfigFile } = this.settings;
    return {
      cliPath,
      defaultModel,
      defaultPermissionMode,
      defaultLane,
      imageMaxLongSide,
      theme,
      notifications,
      promptSuggestions,
      snapshotRetentionDays,
      limitAlertPercent,
      sshConfigFile,
    };
  }

  /** Saves the given values (already checked by the caller) together, in one write. */
  update(values: Partial<AppSettings>): void {
    this.change((settings) => ({ ...settings, ...values }));
  }

  get imageMaxLongSide(): number {
    return this.settings.imageMaxLongSide;
  }

  get defaultPermissionMode(): PermissionModeChoice {
    return this.settings.defaultPermissionMode;
  }

  setDefaultPermissionMode(mode: PermissionModeChoice): void {
    this.change((settings) => ({ ...settings, defaultPermissionMode: mode }));
  }

  get planApprovalMode(): PlanApprovalMode {
    return this.settings.planApprovalMode;
  }

  setPlanApprovalMode(mode: PlanApprovalMode): void {
    if (mode !== this.settings.planApprovalMode)
      this.change((settings) => ({ ...settings, planApprovalMode: mode }));
  }

  /** The "Done when" command for new conversations in `folder` (empty: none). */
  /**
   * The "Done when" command new conversations in `folder` start with; on a host, in that host's folder (a
   * folder of the same path here is another folder).
   */
  doneWhenFor(folder: string, host?: string): string {
    folder = host ? hostFolderKey(host, folder) : folder;
    return Object.hasOwn(this.settings.doneWhenByFolder, folder)
      ? (this.settings.doneWhenByFolder[folder] ?? '')
      : '';
  }

  setDoneWhenFor(folder: string, command: string, host?: string): void {
    folder = host ? hostFolderKey(host, folder) : folder;
    const trimmed = command.trim();
    this.change((settings) => {
      const { [folder]: _old, ...rest } = settings.doneWhenByFolder;
      return { ...settings, doneWhenByFolder: trimmed ? { ...rest, [folder]: trimmed } : rest };
    });
  }

  /** The identity commits in `folder` are made as: the folder's own, else the one for all folders. */
  commitIdentityFor(folder: string): CommitIdentity | null {
    return this.folderCommitIdentity(folder) ?? this.settings.commitAs;
  }

  folderCommitIdentity(folder: string): CommitIdentity | null {
    return Object.hasOwn(this.settings.commitAsByFolder, folder)
      ? (this.settings.commitAsByFolder[folder] ?? null)
      : null;
  }

  get globalCommitIdentity(): CommitIdentity | null {
    return this.settings.commitAs;
  }

  setCommitIdentity(scope: 'global' | { folder: string }, identity: CommitIdentity | null): void {
    this.change((settings) => {
      if (scope === 'global') return { ...settings, commitAs: identity };
      const { [scope.folder]: _old, ...rest } = settings.commitAsByFolder;
      return { ...settings, commitAsByFolder: identity ? { ...rest, [scope.folder]: identity } : rest };
    });
  }

  /** The command each new worktree of `repository` (its top level) is set up with; empty: none. */
  worktreeSetupFor(repository: string): string {
    return Object.hasOwn(this.settings.worktreeSetupByRepository, repository)
      ? (this.settings.worktreeSetupByRepository[repository] ?? '')
      : '';
  }

  /** Every repository's setup command, by its top level. */
  get worktreeSetups(): { repository: string; command: string }[] {
    return Object.entries(this.settings.worktreeSetupByRepository)
      .map(([repository, command]) => ({ repository, command }))
      .sort((a, b) => a.repository.localeCompare(b.repository));
  }

  setWorktreeSetupFor(repository: string, command: string): void {
    const trimmed = command.trim();
    this.change((settings) => {
      const { [repository]: _old, ...rest } = settings.worktreeSetupByRepository;
      return { ...settings, worktreeSetupByRepository: trimmed ? { ...rest, [repository]: trimmed } : rest };
    });
  }

  get checkLimits(): CheckLimits {
    return {
      maxRounds: this.settings.checkMaxRounds,
      timeoutMs: this.settings.checkTimeoutSeconds * 1000,
    };
  }

  get recentFolders(): string[] {
    return [...this.settings.recentFolders];
  }

  /** The folders conversations ran in on `host`, newest first. */
  recentFoldersOn(host: string): string[] {
    return Object.hasOwn(this.settings.recentFoldersByHost, host)
      ? [...(this.settings.recentFoldersByHost[host] ?? [])]
      : [];
  }

  /** The hosts conversations ran on, as the user named them. */
  get hostsUsed(): string[] {
    return Object.keys(this.settings.recentFoldersByHost);
  }

  addRecentFolderOn(host: string, folder: string): void {
    this.change((settings) => {
      const known = Object.hasOwn(settings.recentFoldersByHost, host)
        ? (settings.recentFoldersByHost[host] ?? [])
        : [];
      const folders = [folder, ...known.filter((existing) => existing !== folder)].slice(0, MAX_RECENT);
      return { ...settings, recentFoldersByHost: { ...settings.recentFoldersByHost, [host]: folders } };
    });
  }

  addRecentFolder(folder: string): void {
    this.change((settings) => {
      const rest = settings.recentFolders.filter((existing) => existing !== folder);
      return { ...settings, recentFolders: [folder, ...rest].slice(0, MAX_RECENT) };
    });
  }

  /**
   * The settings at startup, with what was wrong reported. Read under the lock, as a change would be, so
   * that a file that is not JSON is set aside at once and the problem shown says where it went.
   */
  private load(): Settings {
    let fields: Record<string, unknown>;
    try {
      fields = this.file.update((current) => current);
    } catch (error) {
      this.problems.push(
        `${this.file.path} could not be read (${(error as Error).message}); the defaults are used.`,
      );
      return Settings.parse({});
    }
    return readSettings(fields, this.file.path, this.problems).settings;
  }

  /**
   * Changes the settings as the file holds them now (another Byre on this data folder may have changed
   * them since this one read them), keeping the fields this version does not know.
   */
  private change(fn: (settings: Settings) => Settings): void {
    const written = this.file.update((fields) => {
      // What is wrong in the file was reported when it was first read.
      const { settings, unknown } = readSettings(fields, this.file.path, []);
      return { ...unknown, ...fn(settings) };
    });
    this.settings = readSettings(written, this.file.path, []).settings;
  }
}

/**
 * The settings in a settings file's fields, each read on its own (a bad one takes its default and is told
 * to `problems`), and the fields this version does not know.
 */
function readSettings(
  fields: Record<string, unknown>,
  file: string,
  problems: string[],
): { settings: Settings; unknown: Record<string, unknown> } {
  const read: Record<string, unknown> = {};
  const unknown: [string, unknown][] = [];
  for (const [key, value] of Object.entries(fields)) {
    // Own keys only: "constructor" or "__proto__" in the file are not settings.
    const schema = Object.hasOwn(Settings.shape, key) ? Settings.shape[key as keyof Settings] : undefined;
    if (!schema) {
      unknown.push([key, value]);
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      read[key] = parsed.data;
    } else if (Object.hasOwn(BY_FOLDER, key) && isPlainObject(value)) {
      // One folder's bad entry costs that folder its setting, not every folder theirs.
      read[key] = validEntries(key, value, BY_FOLDER[key as keyof typeof BY_FOLDER], file, problems);
    } else {
      const fallback = JSON.stringify(schema.parse(undefined));
      const why = parsed.error.issues[0]?.message ?? 'not valid';
      problems.push(`In ${file}, "${key}" is not valid (${why}); ${fallback} is used instead.`);
    }
  }
  // fromEntries makes own properties, so a "__proto__" field stays a field.
  return { settings: Settings.parse(read), unknown: Object.fromEntries(unknown) };
}

function validEntries(
  key: string,
  value: Record<string, unknown>,
  schema: z.ZodType,
  file: string,
  problems: string[],
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [folder, entry] of Object.entries(value)) {
    const parsed = schema.safeParse(entry);
    if (parsed.success) {
      kept[folder] = parsed.data;
    } else {
      const why = parsed.error.issues[0]?.message ?? 'not valid';
      problems.push(`In ${file}, "${key}" for ${folder} is not valid (${why}); it was left out.`);
    }
  }
  return kept;
}
