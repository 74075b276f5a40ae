import { RemoteLibraryPull } from '../remote/library-pull';
import type { RemoteHosts } from '../remote/hosts';

/** How often the hosts conversations ran on are looked at again for sessions made there meanwhile. */
export const HOST_PULL_MS = 2 * 60_000;

/**
 * When the library's copies of other hosts' sessions are brought up to date (main/remote/library-pull.ts):
 * at start and every HOST_PULL_MS for each host Byre has run a conversation on, when a turn there ends, and
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

  /** Pulls every known host now, and again every `everyMs`. */
  start(): void {
    this.pullKnown();
    this.timer = setInterval(() => this.pullKnown(), this.everyMs);
    this.timer.unref();
  }

  /** Pulls `host` in the background; what fails is left for the next time. */
  soon(host: string): void {
    if (this.stopped) return;
    this.pull.pull(host).catch(() => undefined);
  }

  /** Pulls `host`, for a caller that waits for it: what it changed, or why the host could not be reached. */
  now(host: string) {
    return this.pull.pull(host);
  }

  /** No more pulls; one under way is left to end (what it wrote is whole, or is carried on next time). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
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
