import { RemoteLibraryPull } from '../remote/library-pull';
import type { RemoteHosts } from '../remote/hosts';

/** How often the hosts conversations ran on are looked at again for sessions made there meanwhile. */
export const HOST_PULL_MS = 2 * 60_000;
/** How long after start the first pull waits. */
const START_DELAY_MS = 10_000;

/**
 * When the library's copies of other hosts' sessions are brought up to date (main/remote/library-pull.ts):
 * shortly after start and every HOST_PULL_MS for each host Byre has run a conversation on, when a turn there ends, and
 * when a host is picked in the new-conversation form. A host that cannot be reached keeps its copy as it
 * is; the next pull tries again.
 */
export class HostCopies {
  private readonly pull: RemoteLibraryPull;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    dataDir: string,
    remote: RemoteHosts,
    /** The hosts conversations ran on (the settings' recent folders by host). */
    private readonly knownHosts: () => string[],
    /** The copies changed: the library looks at them again. */
    changed: () => void,
    private readonly everyMs = HOST_PULL_MS,
  ) {
    this.pull = new RemoteLibraryPull(
      dataDir,
      (host, line, maxBuffer) => remote.runRaw(host, line, maxBuffer),
      changed,
    );
  }

  /**
   * Pulls every known host a moment after start (the first screen and the index go first: a pull reaches
   * out over ssh and asks the library to look again), then every `everyMs`.
   */
  start(): void {
    this.timer = setTimeout(() => {
      this.pullKnown();
      this.timer = setInterval(() => this.pullKnown(), this.everyMs);
      this.timer.unref();
    }, START_DELAY_MS);
    this.timer.unref();
  }

  /** Pulls `host` in the background; what fails is left for the next time. */
  soon(host: string): void {
    if (this.stopped) return;
    this.pull.pull(host).catch(() => undefined);
  }

  /** No more pulls; one under way is left to end (what it wrote is whole, or is carried on next time). */
  stop(): void {
    this.stopped = true;
    // A timeout's and an interval's handle are cleared alike.
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private pullKnown(): void {
    let hosts: string[];
    try {
      hosts = this.knownHosts();
    } catch {
      return;
    }
    for (const host of hosts) this.soon(host);
  }
}
