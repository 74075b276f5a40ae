/**
 * How every worktree Byre made stands, for the windows: computed from the records (worktrees.json) by
 * main/worktrees/status.ts, and sent as the `worktreesChanged` event whenever something may have moved it
 * (a worktree made, removed or made again, a turn ended in one, a merge). One computation at a time: a
 * burst of changes while one runs makes one more, with everything as it is then.
 */
import type { EventPayload, WorktreeStatus } from '../../shared/ipc';
import { thisMachine, type Machine } from '../machines/machine';
import { worktreeKey, type WorktreeRecord, type WorktreeRecords } from '../data/worktree-records';
import { askingStatus, worktreeStatus } from '../worktrees/status';

export class WorktreeStatuses {
  private running: Promise<void> | null = null;
  private again = false;
  /** What each worktree on a host was last said to be, by its record's key: shown while that host is asked. */
  private readonly lastOnHosts = new Map<string, WorktreeStatus>();

  constructor(
    private readonly records: WorktreeRecords,
    private readonly emit: (payload: EventPayload<'worktreesChanged'>) => void,
    /** A host's git and files, for the worktrees of repositories on other hosts. */
    private readonly machineFor: (host: string) => Machine = () => thisMachine,
  ) {}

  /** Every recorded worktree as it stands now (one on a host, as git there says). */
  async all(): Promise<WorktreeStatus[]> {
    return Promise.all(this.records.all().map((record) => this.statusOf(record)));
  }

  private async statusOf(record: WorktreeRecord): Promise<WorktreeStatus> {
    if (!record.host) return worktreeStatus(record);
    const status = await worktreeStatus(record, this.machineFor(record.host));
    this.lastOnHosts.set(worktreeKey(record.path, record.host), status);
    return status;
  }

  /** Something may have changed how one stands: the windows get them all, once this burst is over. */
  changed(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tell().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once no computation runs (for a clean shutdown, and for tests). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async tell(): Promise<void> {
    do {
      this.again = false;
      try {
        const records = this.records.all();
        const statuses = records.map((record) => this.statusOf(record));
        // This computer's worktrees are told at once: a host that is slow to answer, or away (ssh waits
        // for it up to its connect timeout), never holds them back. Its own are told as last known, or as
        // being asked, until it answers.
        if (records.some((record) => record.host)) {
          const local = await Promise.all(
            records.map((record, index) =>
              record.host
                ? (this.lastOnHosts.get(worktreeKey(record.path, record.host)) ??
                  askingStatus({ ...record, host: record.host }))
                : statuses[index],
            ),
          );
          this.emit({ worktrees: local as WorktreeStatus[] });
        }
        this.emit({ worktrees: await Promise.all(statuses) });
      } catch {
        // A record file that cannot be read is reported where it is read; the next change tries again.
      }
    } while (this.again);
  }
}
