import type { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { startWorker } from '../library/start-worker';

/**
 * The Rewind dialog's line counts, worked out in a worker thread: a diff may take up to 200 ms a file, and a
 * rewind may touch dozens of files, which on main's event loop would stall every window and conversation.
 * Main sends one file's two texts at a time and waits for its counts before sending the next, so it never
 * copies more than one file's worth in one go. The messages are checked with zod both ways.
 */

export const LineCounts = z.object({
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
export type LineCounts = z.infer<typeof LineCounts>;

export const DiffRequest = z.object({ id: z.number().int(), now: z.string(), before: z.string() });
export type DiffRequest = z.infer<typeof DiffRequest>;

/** How long one file's diff may take (countLines); the app's budget unless a test sets another. */
export const DiffWorkerSetup = z.object({ timeoutMs: z.number().int().positive().optional() });
export type DiffWorkerSetup = z.infer<typeof DiffWorkerSetup>;

/** Null counts: the diff took too long (countLines). */
export const DiffReply = z.object({ id: z.number().int(), counts: LineCounts.nullable() });
export type DiffReply = z.infer<typeof DiffReply>;

/** Counts the lines a restore adds and removes, from a file's text now to its text then. */
export type LineCounter = (now: string, before: string) => Promise<LineCounts | null>;

interface Pending {
  resolve: (counts: LineCounts | null) => void;
  reject: (error: Error) => void;
}

/** One worker for one preview: started at its first diff (a preview with none starts none), ended after. */
export class DiffWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(
    private readonly script: string,
    private readonly setup: DiffWorkerSetup = {},
  ) {}

  readonly count: LineCounter = (now, before) =>
    new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.started().postMessage({ id, now, before } satisfies DiffRequest);
    });

  async close(): Promise<void> {
    this.fail(new Error('The preview is over.'));
    await this.worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.script, this.setup);
    // A preview never keeps the app running.
    worker.unref();
    worker.on('message', (raw: unknown) => {
      const reply = DiffReply.safeParse(raw);
      if (!reply.success) return this.fail(new Error('The diff worker answered something unexpected.'));
      this.pending.get(reply.data.id)?.resolve(reply.data.counts);
      this.pending.delete(reply.data.id);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => this.fail(new Error('The diff worker stopped.')));
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
  }
}
