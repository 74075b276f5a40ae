import { join } from 'node:path';
import { z } from 'zod';
import { KeptTab, MAX_KEPT_TABS, type WindowTab } from '../../shared/ipc';
import { makePrivateDir } from '../disk/private-files';
import { JsonFile } from './json-file';

/**
 * The tabs that were open, in `tabs.json` in the data folder, so that they come back after Byre quits: in
 * their order, the open one open, each with its unsent draft. The window tells main its tabs as they change
 * (`tell`); the file is written a moment later, and at once when Byre quits (`flush`). What `current()`
 * gives is what a window opening now reopens: the file as it was at startup until a window has told its
 * tabs, then that window's tabs, so a reload brings back the same tabs and not a second set.
 *
 * A tab that was never sent anything and has no draft is not kept: it holds nothing to bring back. A draft
 * is a live conversation's as main keeps it (`draftOf`); a tab reopened and not yet resumed keeps the draft
 * it came back with. A damaged file is set aside and reported once (`problem`); nothing else is lost.
 */
const TabsFile = z.object({
  tabs: z.array(KeptTab).max(MAX_KEPT_TABS),
  /** Where in `tabs` the open one is. */
  active: z.number().int().nonnegative().nullable(),
});
type TabsFile = z.infer<typeof TabsFile>;

const EMPTY: TabsFile = { tabs: [], active: null };

/** How long a change waits before it is written: a burst of changes (tabs reopening) is one write. */
const WRITE_DELAY_MS = 300;

export class KeptTabs {
  readonly problem: string | null;
  private readonly file: JsonFile<TabsFile>;
  /** The drafts of tabs that came back and have not been resumed, by session. */
  private readonly reopenedDrafts: Map<string, string>;
  private readonly atStartup: TabsFile;
  private told: { tabs: WindowTab[]; active: number | null } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    dataDir: string,
    private readonly draftOf: (conversationId: string) => string | undefined,
  ) {
    makePrivateDir(dataDir);
    let problem: string | null = null;
    this.file = new JsonFile(join(dataDir, 'tabs.json'), TabsFile, () => EMPTY, {
      report: (why) => (problem = `The tabs open when Byre last quit could not be reopened: ${why}`),
    });
    // Under the lock, as a change would be, so that a damaged file is set aside (and said) at once.
    this.atStartup = this.file.update((current) => current);
    this.problem = problem;
    this.reopenedDrafts = new Map(
      this.atStartup.tabs.flatMap((tab) => (tab.sessionId && tab.draft ? [[tab.sessionId, tab.draft]] : [])),
    );
  }

  /** The tabs a window opening now reopens. */
  current(): TabsFile {
    if (!this.told) return this.atStartup;
    const kept: KeptTab[] = [];
    let active: number | null = null;
    this.told.tabs.forEach((tab, index) => {
      const live = tab.conversationId === null ? undefined : this.draftOf(tab.conversationId);
      const draft = live ?? (tab.sessionId ? this.reopenedDrafts.get(tab.sessionId) : undefined) ?? '';
      if (tab.sessionId === null && draft === '') return;
      if (index === this.told?.active) active = kept.length;
      kept.push({
        conversationId: tab.conversationId,
        sessionId: tab.sessionId,
        cwd: tab.cwd,
        ...(tab.host ? { host: tab.host } : {}),
        draft,
      });
    });
    return { tabs: kept, active };
  }

  /** The window's tabs as they are now; written shortly. */
  tell(tabs: WindowTab[], active: number | null): void {
    this.told = { tabs, active };
    this.changed();
  }

  /** A draft changed: the file follows, if a window has said which tabs it shows. */
  changed(): void {
    if (!this.told || this.timer) return;
    this.timer = setTimeout(() => this.flush(), WRITE_DELAY_MS);
    this.timer.unref?.();
  }

  /** Writes what is waiting now (Byre is quitting). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    const next = this.current();
    try {
      this.file.update(() => next);
    } catch (error) {
      // The folder went read-only or full: the tabs on screen are unharmed, and the next change tries again.
      console.error(`Byre could not keep the open tabs: ${error instanceof Error ? error.message : error}`);
    }
  }
}
