import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { z } from 'zod';
import type { Family } from '../../shared/branches';
import type { LibraryRow, LibraryStatus, SearchHit } from '../../shared/library';
import type { ConversationUsage, UsageRange, UsageReport } from '../../shared/ipc/usage';
import {
  DEFAULT_SEARCH_LIMIT,
  FromWorker,
  NoSuchSession,
  replies,
  type LibraryRequest,
  type SessionFiles,
  type ToWorker,
  type WindowUsage,
  type WorkerSetup,
} from './worker/messages';
import { SearchLanes, SearchSuperseded, type SearchTicket } from './search-lanes';
import { startWorker } from './start-worker';

export { NoSuchSession, SearchSuperseded };

export interface SearchOptions {
  query: string;
  folder?: string | null;
  limit?: number;
  /** `titles`: only titles, which is quick; `all` (the default): titles, then messages. */
  part?: 'titles' | 'all';
  /** Who searches (a window's search box), and the number of this search among theirs: see search(). */
  searcher?: string;
  seq?: number;
}

/**
 * The library of past conversations, as main uses it. The index lives in a worker thread (never on main's
 * event loop): this class starts it, sends it requests and checks its answers. If the worker dies it is
 * started again (a few times in a row, counted afresh after a healthy run); the index it keeps on disk makes that cheap.
 */

export interface LibraryOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** test hook: the worker script */
  workerPath?: string;
  /** test hook: how often everything is looked at again (so a test sees the watchers, not the rescan) */
  rescanMs?: number;
  /** test hook: the clock that says how long a worker ran */
  now?: () => number;
}

/** The library's worker is not running (it failed to start, or the library was closed). */
export class LibraryUnavailable extends Error {
  override readonly name = 'LibraryUnavailable';
}

/** A request the worker could not answer. */
export class LibraryFailure extends Error {
  override readonly name = 'LibraryFailure';
}

/** The CLI's config folder: where its `projects/` and `settings.json` are. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/** The index's garbage is short-lived (lines parsed and dropped): a small young generation keeps memory low. */
const INDEX_WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };
const MAX_RESTARTS = 3;
/** A worker that ran this long was healthy: its death starts a new count of restarts. */
export const HEALTHY_MS = 10 * 60_000;
const RESTART_DELAY_MS = 1000;
const CLOSE_TIMEOUT_MS = 5000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class Library {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<() => void>();
  private readonly usageListeners = new Set<() => void>();
  private restarts = 0;
  /** Why the worker last stopped, so a request made after it gave up still says why. */
  private stopped: string | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | null = null;
  /** Shared with the worker (and with the next one, should it be started again). */
  private readonly lanes = new SearchLanes();

  private constructor(private readonly options: LibraryOptions) {}

  /** Returns at once; scanning starts in the worker. */
  static start(options: LibraryOptions): Library {
    const library = new Library(options);
    library.spawn();
    return library;
  }

  /**
   * A row per family of branches (its most recently active one), newest first; hidden sessions left out.
   * `limit`: the newest that many.
   */
  list(request: { folder?: string | null; limit?: number } = {}): Promise<LibraryRow[]> {
    return this.request(
      { op: 'list', folder: request.folder ?? null, ...(request.limit ? { limit: request.limit } : {}) },
      replies.list,
    );
  }

  /** One session's row, whichever branch of its family it is; null if the library does not know it. */
  row(sessionId: string): Promise<LibraryRow | null> {
    return this.request({ op: 'row', sessionId }, replies.row);
  }

  /**
   * Every branch of the family the session belongs to, read from its sessions' files. Rejects with
   * NoSuchSession if the library does not know the session.
   */
  family(sessionId: string): Promise<Family> {
    return this.request({ op: 'family', sessionId }, replies.family);
  }

  /**
   * Titles and messages that hold every word of the query, best first (`part: 'titles'`: titles alone, at
   * once). A search with a `searcher` and its `seq` is superseded by that searcher's next: it stops in the
   * worker, and rejects with SearchSuperseded.
   */
  search(request: SearchOptions): Promise<SearchHit[]> {
    let ticket: SearchTicket | undefined;
    if (request.searcher !== undefined && request.seq !== undefined) {
      const claimed = this.lanes.claim(request.searcher, request.seq);
      if (!claimed) return Promise.reject(new SearchSuperseded('A newer search replaced this one.'));
      ticket = claimed;
    }
    return this.request(
      {
        op: 'search',
        query: request.query,
        folder: request.folder ?? null,
        limit: request.limit ?? DEFAULT_SEARCH_LIMIT,
        part: request.part ?? 'all',
        ...(ticket ? { ticket } : {}),
      },
      replies.search,
    );
  }

  status(): Promise<LibraryStatus> {
    return this.request({ op: 'status' }, replies.status);
  }

  /** The files of one session, for opening / export / resume. Byre transcripts oldest first. */
  files(sessionId: string): Promise<SessionFiles | null> {
    return this.request({ op: 'files', sessionId }, replies.files);
  }

  async rename(sessionId: string, title: string): Promise<void> {
    await this.request({ op: 'rename', sessionId, title }, replies.rename);
  }

  async hide(sessionId: string): Promise<void> {
    await this.request({ op: 'hide', sessionId }, replies.hide);
  }

  /** Re-read now (e.g. after Byre wrote a transcript); normally the watcher does it. */
  refresh(): void {
    this.post({ type: 'refresh' });
  }

  /** Called (debounced, at most ~4 times a second) when rows or status changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` when the index took in more usage (a file was read further). */
  onUsageChange(listener: () => void): () => void {
    this.usageListeners.add(listener);
    return () => this.usageListeners.delete(listener);
  }

  /** The Usage view's figures for a range, in a time zone, optionally for one folder and its worktrees. */
  usageReport(request: { range: UsageRange; folder: string | null; timeZone: string }): Promise<UsageReport> {
    return this.request({ op: 'usageReport', ...request }, replies.usageReport);
  }

  /** The conversations with usage on one local day, most costly first. */
  usageDayConversations(request: {
    day: string;
    folder: string | null;
    timeZone: string;
  }): Promise<ConversationUsage[]> {
    return this.request({ op: 'usageDay', ...request }, replies.usageDay);
  }

  /** The usage since `since` (ms; a limit window's start) by conversation, most tokens first, and in all. */
  windowUsage(since: number): Promise<WindowUsage> {
    return this.request({ op: 'windowUsage', since }, replies.windowUsage);
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    this.worker = null;
    this.failPending(new LibraryUnavailable('The library was closed.'));
    if (!worker) return;
    await new Promise<void>((resolve) => {
      // The worker closes its index and says so; a worker that does not is stopped anyway.
      const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.on('message', (raw: unknown) => {
        if (FromWorker.safeParse(raw).data?.type === 'closed') void worker.terminate();
      });
      worker.postMessage({ type: 'close' } satisfies ToWorker);
    });
  }

  private spawn(): void {
    const path = this.options.workerPath ?? join(import.meta.dirname, 'library-worker.js');
    const setup: WorkerSetup = {
      dataDir: this.options.dataDir,
      configDir: claudeConfigDir(this.options.env),
      ...(this.options.rescanMs ? { rescanMs: this.options.rescanMs } : {}),
      lanes: this.lanes.buffer,
    };
    const now = this.options.now ?? Date.now;
    const startedAt = now();
    const worker = startWorker(path, setup, INDEX_WORKER_LIMITS);
    // The worker never keeps the app running by itself.
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (raw: unknown) => this.receive(raw));
    worker.on('error', (error) => {
      failure = error;
      console.error('Byre: the library worker failed:', error);
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.stopped = failure?.message;
      this.failPending(
        new LibraryUnavailable(`The library stopped${failure ? `: ${failure.message}` : '.'}`),
      );
      // A rare crash after a long healthy run never uses up the restarts a crash loop is stopped by.
      if (now() - startedAt >= HEALTHY_MS) this.restarts = 0;
      if (this.restarts >= MAX_RESTARTS) return;
      this.restarts += 1;
      this.restartTimer = setTimeout(() => this.spawn(), RESTART_DELAY_MS);
      this.restartTimer.unref();
    });
    this.worker = worker;
  }

  private request<T>(request: LibraryRequest, reply: z.ZodType<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.worker || this.closing) {
        const why = !this.closing && this.stopped ? `: ${this.stopped}` : '.';
        reject(new LibraryUnavailable(`The library is not running${why}`));
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, {
        resolve: (value) => {
          const parsed = reply.safeParse(value);
          if (parsed.success) resolve(parsed.data);
          else reject(new LibraryFailure(`The library answered ${request.op} with something unexpected.`));
        },
        reject,
      });
      this.post({ type: 'request', id, request });
    });
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private receive(raw: unknown): void {
    const parsed = FromWorker.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    switch (message.type) {
      case 'reply':
      case 'failure': {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (!pending) return;
        if (message.type === 'reply') pending.resolve(message.value);
        else if (message.error.name === 'NoSuchSession')
          pending.reject(new NoSuchSession(message.error.message));
        else if (message.error.name === 'SearchSuperseded')
          pending.reject(new SearchSuperseded(message.error.message));
        else pending.reject(new LibraryFailure(message.error.message));
        return;
      }
      case 'changed':
        for (const listener of [...this.listeners, ...(message.usage ? this.usageListeners : [])]) {
          try {
            listener();
          } catch (error) {
            console.error('Byre: a library change listener failed:', error);
          }
        }
        return;
      case 'error':
        console.error('Byre: the library index:', message.message);
        return;
      case 'closed':
        return;
    }
  }

  private failPending(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
