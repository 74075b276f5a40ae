import { join } from 'node:path';
import { z } from 'zod';
import { JsonFile } from './json-file';
import { makePrivateDir } from '../disk/private-files';

/**
 * What the user decided about past conversations: their own names for them, and the ones taken off Byre's
 * list. This is user data, so it lives in `library.json` beside the index, never in the index (which can be
 * deleted and rebuilt) and never in the CLI's files. A JsonFile: a crash never leaves half of it, and each
 * choice is added to the file as it is then, so two Byre processes on one data folder both keep theirs.
 */
const ChoicesFile = z.object({
  renames: z.record(z.string(), z.string()).default({}),
  hidden: z.array(z.string()).default([]),
});
type ChoicesFile = z.infer<typeof ChoicesFile>;

export class LibraryChoices {
  private readonly file: JsonFile<ChoicesFile>;
  /** As this process last read or wrote them: reads come from here, changes from the file. */
  private choices: ChoicesFile;
  private hiddenIds: Set<string>;

  constructor(dataDir: string) {
    makePrivateDir(dataDir);
    this.file = new JsonFile(join(dataDir, 'library.json'), ChoicesFile, () => ChoicesFile.parse({}));
    // Read under the lock, as a change would be, so that a damaged file is set aside at once.
    this.choices = this.file.update((current) => current);
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
    const clean = title.trim();
    this.change((choices) => {
      const { [sessionId]: _previous, ...others } = choices.renames;
      return { ...choices, renames: clean ? { ...others, [sessionId]: clean } : others };
    });
  }

  hide(sessionId: string): void {
    if (this.hiddenIds.has(sessionId)) return;
    this.change((choices) =>
      choices.hidden.includes(sessionId) ? choices : { ...choices, hidden: [...choices.hidden, sessionId] },
    );
  }

  private change(fn: (choices: ChoicesFile) => ChoicesFile): void {
    this.choices = this.file.update(fn);
    this.hiddenIds = new Set(this.choices.hidden);
  }
}
