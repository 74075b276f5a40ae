import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { IMAGE_LIMITS } from '../shared/images';
import { AppSettings, CommitIdentity, DoneWhenCommand, PermissionModeChoice } from '../shared/ipc';
import { DEFAULT_CHECK_LIMITS, type CheckLimits } from './done-when';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files';

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
  /** The claude program chosen in settings; null: found (PATH, the usual places, node_modules). */
  cliPath: AppSettings.shape.cliPath.default(null),
  defaultModel: AppSettings.shape.defaultModel.default(null),
  theme: AppSettings.shape.theme.default('system'),
  notifications: AppSettings.shape.notifications.default(true),
  /** Images with a longer side are scaled down to it before sending (the size the model works at). */
  imageMaxLongSide: z
    .number()
    .int()
    .min(200)
    .max(IMAGE_LIMITS.maxSide)
    .default(IMAGE_LIMITS.defaultMaxLongSide),
  /** How much Claude may do without asking in a new conversation: it asks first unless told otherwise. */
  defaultPermissionMode: PermissionModeChoice.default('default'),
  /** "Commit as", for every folder unless the folder has its own. */
  commitAs: CommitIdentity.nullable().default(null),
  commitAsByFolder: z.record(z.string(), CommitIdentity).default({}),
  /** The "Done when" command new conversations in a folder start with, by folder. */
  doneWhenByFolder: z.record(z.string(), DoneWhenCommand).default({}),
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
const BY_FOLDER = { doneWhenByFolder: DoneWhenCommand, commitAsByFolder: CommitIdentity } as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_RECENT = 12;

/**
 * Settings as one small JSON file, replaced atomically so a crash never leaves half of it. Each field is
 * read on its own: one that is not valid takes its default and is reported (`problems`), and the others
 * are kept. Fields this version does not know are kept too, for the version that wrote them. A file that
 * is not JSON at all is set aside, never overwritten.
 */
export class SettingsStore {
  private readonly file: string;
  private settings: Settings;
  /** What else the file held, written back as it was. */
  private readonly unknown = new Map<string, unknown>();
  /** What was wrong with the file as it was read, one sentence each. */
  readonly problems: string[] = [];

  constructor(readonly dataDir: string) {
    makePrivateDir(dataDir);
    this.file = join(dataDir, 'settings.json');
    this.settings = this.load();
  }

  /** What the settings screen shows and sets. */
  get values(): AppSettings {
    const { cliPath, defaultModel, defaultPermissionMode, imageMaxLongSide, theme, notifications } =
      this.settings;
    return { cliPath, defaultModel, defaultPermissionMode, imageMaxLongSide, theme, notifications };
  }

  /** Saves the given values (already checked by the caller) together, in one write. */
  update(values: Partial<AppSettings>): void {
    this.settings = { ...this.settings, ...values };
    this.save();
  }

  get imageMaxLongSide(): number {
    return this.settings.imageMaxLongSide;
  }

  get defaultPermissionMode(): PermissionModeChoice {
    return this.settings.defaultPermissionMode;
  }

  setDefaultPermissionMode(mode: PermissionModeChoice): void {
    this.settings = { ...this.settings, defaultPermissionMode: mode };
    this.save();
  }

  /** The "Done when" command for new conversations in `folder` (empty: none). */
  doneWhenFor(folder: string): string {
    return Object.hasOwn(this.settings.doneWhenByFolder, folder)
      ? (this.settings.doneWhenByFolder[folder] ?? '')
      : '';
  }

  setDoneWhenFor(folder: string, command: string): void {
    const { [folder]: _old, ...rest } = this.settings.doneWhenByFolder;
    const trimmed = command.trim();
    this.settings = { ...this.settings, doneWhenByFolder: trimmed ? { ...rest, [folder]: trimmed } : rest };
    this.save();
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
    if (scope === 'global') {
      this.settings = { ...this.settings, commitAs: identity };
    } else {
      const { [scope.folder]: _old, ...rest } = this.settings.commitAsByFolder;
      this.settings = {
        ...this.settings,
        commitAsByFolder: identity ? { ...rest, [scope.folder]: identity } : rest,
      };
    }
    this.save();
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

  addRecentFolder(folder: string): void {
    const rest = this.settings.recentFolders.filter((existing) => existing !== folder);
    this.settings = { ...this.settings, recentFolders: [folder, ...rest].slice(0, MAX_RECENT) };
    this.save();
  }

  private load(): Settings {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.problems.push(
          `${this.file} could not be read (${(error as Error).message}); the defaults are used.`,
        );
      }
      return Settings.parse({});
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      const aside = `${this.file}.damaged-${Date.now()}`;
      try {
        renameSync(this.file, aside);
        this.problems.push(
          `${this.file} was not valid settings; it was kept as ${aside} and the defaults are used.`,
        );
      } catch {
        this.problems.push(`${this.file} was not valid settings; the defaults are used.`);
      }
      return Settings.parse({});
    }
    const fields = raw as Record<string, unknown>;
    const read: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      // Own keys only: "constructor" or "__proto__" in the file are not settings.
      const schema = Object.hasOwn(Settings.shape, key) ? Settings.shape[key as keyof Settings] : undefined;
      if (!schema) {
        this.unknown.set(key, value);
        continue;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) {
        read[key] = parsed.data;
      } else if (Object.hasOwn(BY_FOLDER, key) && isPlainObject(value)) {
        // One folder's bad entry costs that folder its setting, not every folder theirs.
        read[key] = this.validEntries(key, value, BY_FOLDER[key as keyof typeof BY_FOLDER]);
      } else {
        const fallback = JSON.stringify(schema.parse(undefined));
        const why = parsed.error.issues[0]?.message ?? 'not valid';
        this.problems.push(`In ${this.file}, "${key}" is not valid (${why}); ${fallback} is used instead.`);
      }
    }
    return Settings.parse(read);
  }

  private validEntries(
    key: string,
    value: Record<string, unknown>,
    schema: z.ZodType,
  ): Record<string, unknown> {
    const kept: Record<string, unknown> = {};
    for (const [folder, entry] of Object.entries(value)) {
      const parsed = schema.safeParse(entry);
      if (parsed.success) {
        kept[folder] = parsed.data;
      } else {
        const why = parsed.error.issues[0]?.message ?? 'not valid';
        this.problems.push(`In ${this.file}, "${key}" for ${folder} is not valid (${why}); it was left out.`);
      }
    }
    return kept;
  }

  private save(): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    const content = { ...Object.fromEntries(this.unknown), ...this.settings };
    writeFileSync(temp, JSON.stringify(content, null, 2), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, this.file);
  }
}
