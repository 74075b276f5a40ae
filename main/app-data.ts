import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { IMAGE_LIMITS } from '../shared/images';
import { PermissionModeChoice } from '../shared/ipc';
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
  /** Images with a longer side are scaled down to it before sending (the size the model works at). */
  imageMaxLongSide: z
    .number()
    .int()
    .min(200)
    .max(IMAGE_LIMITS.maxSide)
    .default(IMAGE_LIMITS.defaultMaxLongSide),
  /** How much Claude may do without asking in a new conversation: it asks first unless told otherwise. */
  defaultPermissionMode: PermissionModeChoice.default('default'),
});
export type Settings = z.infer<typeof Settings>;

const MAX_RECENT = 12;

/** Settings as one small JSON file, replaced atomically so a crash never leaves half of it. */
export class SettingsStore {
  private readonly file: string;
  private settings: Settings;

  constructor(readonly dataDir: string) {
    makePrivateDir(dataDir);
    this.file = join(dataDir, 'settings.json');
    this.settings = this.load();
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

  get recentFolders(): string[] {
    return [...this.settings.recentFolders];
  }

  addRecentFolder(folder: string): void {
    const rest = this.settings.recentFolders.filter((existing) => existing !== folder);
    this.settings = { ...this.settings, recentFolders: [folder, ...rest].slice(0, MAX_RECENT) };
    this.save();
  }

  private load(): Settings {
    try {
      return Settings.parse(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch {
      // Missing or damaged settings fall back to defaults; they hold nothing that cannot be rebuilt.
      return Settings.parse({});
    }
  }

  private save(): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.settings, null, 2), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, this.file);
  }
}
