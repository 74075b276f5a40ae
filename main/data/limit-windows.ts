import { join } from 'node:path';
import { z } from 'zod';
import { LimitWindow } from '../../shared/ipc';
import type { RateLimitInfo } from '../../shared/protocol';
import { makePrivateDir } from '../disk/private-files';
import { JsonFile } from './json-file';

/**
 * The plan's limit windows as the CLI last reported each (`rate_limit_event`), in `limits.json` in the data
 * folder, so that the header shows them after a restart and before any conversation hears of them again.
 * They are the account's, not a conversation's: every conversation's line updates the window of its kind.
 * A window whose reset time has passed says nothing true any more, and is dropped.
 *
 * It also remembers which window it has warned about, by its reset time, so that the notification at the
 * user's threshold comes once per window per reset, and not again after a restart.
 */
const LimitsFile = z.object({
  windows: z.array(LimitWindow),
  /** The reset time (Unix seconds; 0: not known) of each kind's window last warned about. */
  alerted: z.record(z.string(), z.number()).default({}),
  /** The same, for the window last said to be reached (its limit hit): that is said once too. */
  reached: z.record(z.string(), z.number()).default({}),
});
type LimitsFile = z.infer<typeof LimitsFile>;

const EMPTY: LimitsFile = { windows: [], alerted: {}, reached: {} };

/** What one line changed: whether the windows moved, and whether this is the time to warn. */
export interface NotedLimit {
  changed: boolean;
  /** The window crossed the threshold for the first time since it last reset. */
  alert: boolean;
  /** The first line since the window last reset to say its limit is reached. */
  reached: boolean;
}

export class LimitWindows {
  readonly problem: string | null;
  private readonly file: JsonFile<LimitsFile>;
  private current: LimitsFile;

  constructor(
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    makePrivateDir(dataDir);
    let problem: string | null = null;
    this.file = new JsonFile(join(dataDir, 'limits.json'), LimitsFile, () => EMPTY, {
      report: (why) => (problem = `The limits last reported could not be read: ${why}`),
    });
    this.current = this.file.read();
    this.problem = problem;
  }

  /** The windows whose reset time has not passed, by kind, as last reported. */
  windows(): LimitWindow[] {
    return this.current.windows.filter((window) => !this.expired(window));
  }

  /** Takes in one `rate_limit_event`'s info; `alertAt` is the share (0 to 1) worth a notification. */
  note(info: RateLimitInfo, alertAt: number): NotedLimit {
    const kind = info.rateLimitType;
    if (!kind) {
      // A line that does not say which limit it is cannot be told apart from the others: it changes no
      // window, but a limit reached is still said, once per reset.
      if (info.status !== 'rejected') return { changed: false, alert: false, reached: false };
      let reached = false;
      this.current = this.safely((file) => {
        reached = file.reached[''] !== (info.resetsAt ?? 0);
        return reached ? { ...file, reached: { ...file.reached, '': info.resetsAt ?? 0 } } : file;
      });
      return { changed: false, alert: false, reached };
    }
    const at = this.now();
    let alert = false;
    let reached = false;
    const fresh: LimitWindow = { rateLimitType: kind, info, at };
    const next = this.safely((file) => {
      const windows = [...file.windows.filter((w) => w.rateLimitType !== kind && !this.expired(w)), fresh];
      const reset = info.resetsAt ?? 0;
      const over = info.utilization !== undefined && info.utilization >= alertAt;
      alert = over && file.alerted[kind] !== reset;
      const alerted = alert ? { ...file.alerted, [kind]: reset } : file.alerted;
      reached = info.status === 'rejected' && file.reached[kind] !== reset;
      const reachedAt = reached ? { ...file.reached, [kind]: reset } : file.reached;
      return {
        windows: windows.sort((a, b) => a.rateLimitType.localeCompare(b.rateLimitType)),
        alerted,
        reached: reachedAt,
      };
    });
    this.current = next;
    return { changed: true, alert, reached };
  }

  /** A change written under the file's lock; a folder that cannot be written keeps it in memory only. */
  private safely(fn: (file: LimitsFile) => LimitsFile): LimitsFile {
    try {
      return this.file.update(fn);
    } catch (error) {
      console.error(`Byre could not keep the limits: ${error instanceof Error ? error.message : error}`);
      return fn(this.current);
    }
  }

  private expired(window: LimitWindow): boolean {
    const resetsAt = window.info.resetsAt;
    return resetsAt !== undefined && resetsAt * 1000 <= this.now();
  }
}
