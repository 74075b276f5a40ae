import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-files';
import { join } from 'node:path';
import { z } from 'zod';
import { errorCode } from './files';

/**
 * What the user decided about past conversations: their own names for them, and the ones taken off Byre's
 * list. This is user data, so it lives in `library.json` beside the index, never in the index (which can be
 * deleted and rebuilt) and never in the CLI's files. Replaced atomically, so a crash never leaves half of it.
 */
const ChoicesFile = z.object({
  renames: z.record(z.string(), z.string()).default({}),
  hidden: z.array(z.string()).default([]),
});
type ChoicesFile = z.infer<typeof ChoicesFile>;

export class LibraryChoices {
  private readonly file: string;
  private choices: ChoicesFile;
  private hiddenIds: Set<string>;

  constructor(dataDir: string) {
    makePrivateDir(dataDir);
    this.file = join(dataDir, 'library.json');
    this.choices = this.load();
    this.hiddenIds = new Set(this.choices.hidden);
  }

  rename(sessionId: string): string | null {
    return this.choices.renames[sessionId] ?? null;
  }

  isHidden(sessionId: string): boolean {
    return this.hiddenIds.has(sessionId);
  }

  /** Every session the user renamed or hid. */
  sessionIds(): string[] {
    return [...new Set([...Object.keys(this.choices.renames), ...this.hiddenIds])];
  }

  /** An empty title takes the user's name away again, so the title rules decide. */
  setRename(sessionId: string, title: string): void {
    const { [sessionId]: _previous, ...others } = this.choices.renames;
    const clean = title.trim();
    this.choices = { ...this.choices, renames: clean ? { ...others, [sessionId]: clean } : others };
    this.save();
  }

  hide(sessionId: string): void {
    if (this.hiddenIds.has(sessionId)) return;
    this.hiddenIds.add(sessionId);
    this.choices = { ...this.choices, hidden: [...this.hiddenIds] };
    this.save();
  }

  private load(): ChoicesFile {
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return ChoicesFile.parse({});
      throw error;
    }
    const parsed = ChoicesFile.safeParse(safeJson(raw));
    if (parsed.success) return parsed.data;
    // Never overwrite what cannot be read: set it aside where a person can still find it.
    renameSync(this.file, `${this.file}.damaged-${Date.now()}`);
    return ChoicesFile.parse({});
  }

  private save(): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.choices, null, 2), { mode: PRIVATE_FILE_MODE });
    renameSync(temp, this.file);
  }
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
