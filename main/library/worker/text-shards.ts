import {
  receiveMessageOnPort,
  type MessagePort,
  type ResourceLimits,
  type Worker,
} from 'node:worker_threads';
import { z } from 'zod';
import { shardPath, TextOp, TextShardWriter } from './text-store';

/**
 * Where the index sends message texts: to each shard's writer, in the order the main index committed them.
 * In tests (and wherever one core is all there is to use) the writers run inline; in the app each shard's
 * writer is a worker thread of its own, so the full-text index is built on every core while the index's
 * own thread reads and parses the files.
 */
export interface TextShards {
  /** Sends each shard its ops (`ops[k]` to shard k); the main index has committed what they follow from. */
  send(ops: readonly TextOp[][]): void;
  /** Every op sent has been written. */
  idle(): boolean;
  /** So much waits to be written that reading should pause until the shards catch up (`onWake`). */
  backlogged(): boolean;
  close(): Promise<void>;
}

export class InlineShards implements TextShards {
  private readonly writers: TextShardWriter[] = [];

  constructor(dataDir: string, shards: number) {
    for (let shard = 0; shard < shards; shard += 1) {
      this.writers.push(new TextShardWriter(shardPath(dataDir, shard), shard, shards));
    }
  }

  send(ops: readonly TextOp[][]): void {
    ops.forEach((batch, shard) => {
      if (batch.length > 0) this.writers[shard]?.apply(batch);
    });
  }

  idle(): boolean {
    return true;
  }

  backlogged(): boolean {
    return false;
  }

  close(): Promise<void> {
    for (const writer of this.writers.splice(0)) writer.close();
    return Promise.resolve();
  }
}

export const TextWorkerSetup = z.object({
  role: z.literal('text'),
  path: z.string().min(1),
  shard: z.number().int().nonnegative(),
  shards: z.number().int().positive(),
});
export type TextWorkerSetup = z.infer<typeof TextWorkerSetup>;

export const ToTextWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ops'), id: z.number().int(), ops: z.array(TextOp) }),
  z.object({ type: z.literal('close') }),
]);
export type ToTextWorker = z.infer<typeof ToTextWorker>;

export const FromTextWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('applied'), id: z.number().int() }),
  z.object({ type: z.literal('error'), id: z.number().int(), message: z.string() }),
  z.object({ type: z.literal('closed') }),
]);
export type FromTextWorker = z.infer<typeof FromTextWorker>;

/** Text waiting to be written beyond this pauses reading; it resumes once below half of it. */
const BACKLOG_BYTES = 4 * 1024 * 1024;

/**
 * A writer holds little at a time (a few MB of text, each piece dead once written): a small young
 * generation keeps the garbage between collections, and so the app's memory, small.
 */
export const TEXT_WORKER_LIMITS: ResourceLimits = {
  maxYoungGenerationSizeMb: 2,
  maxOldGenerationSizeMb: 128,
};

export interface ThreadedShardsOptions {
  dataDir: string;
  shards: number;
  start: (setup: TextWorkerSetup, limits: ResourceLimits) => Worker;
  /** Reading may go on again (the backlog shrank), or every op sent is written. */
  onWake: () => void;
  /** A shard's writer failed or died: what it had not written is lost, and its files must be checked. */
  onLost: (shard: number, error: unknown) => void;
}

interface Shard {
  worker: Worker;
  /** Bytes of text sent, by batch id, not yet written. */
  pending: Map<number, number>;
}

export class ThreadedShards implements TextShards {
  /** Each shard's writer, started when it is first sent something (a restart with nothing new starts none). */
  private readonly shards: (Shard | null)[];
  private nextId = 1;
  private waiting = 0;
  private paused = false;
  private closing = false;

  constructor(private readonly options: ThreadedShardsOptions) {
    this.shards = Array.from({ length: options.shards }, () => null);
  }

  private startShard(index: number): Shard {
    const setup: TextWorkerSetup = {
      role: 'text',
      path: shardPath(this.options.dataDir, index),
      shard: index,
      shards: this.options.shards,
    };
    const worker = this.options.start(setup, TEXT_WORKER_LIMITS);
    const shard: Shard = { worker, pending: new Map() };
    worker.on('message', (raw: unknown) => {
      const message = FromTextWorker.safeParse(raw);
      if (!message.success) return;
      if (message.data.type === 'applied') this.written(shard, message.data.id);
      if (message.data.type === 'error') {
        this.written(shard, message.data.id);
        this.options.onLost(index, new Error(message.data.message));
      }
    });
    worker.on('error', (error) => this.lost(index, shard, error));
    worker.on('exit', (code) => {
      if (!this.closing) this.lost(index, shard, new Error(`The text writer stopped (exit code ${code}).`));
    });
    return shard;
  }

  private lost(index: number, shard: Shard, error: unknown): void {
    if (this.closing || this.shards[index] !== shard) return;
    for (const id of [...shard.pending.keys()]) this.written(shard, id);
    void shard.worker.terminate();
    this.shards[index] = this.startShard(index);
    this.options.onLost(index, error);
  }

  private written(shard: Shard, id: number): void {
    const bytes = shard.pending.get(id);
    if (bytes === undefined) return;
    shard.pending.delete(id);
    this.waiting -= bytes;
    if (this.paused && this.waiting < BACKLOG_BYTES / 2) {
      this.paused = false;
      this.options.onWake();
    } else if (this.idle()) {
      this.options.onWake();
    }
  }

  send(ops: readonly TextOp[][]): void {
    ops.forEach((batch, index) => {
      if (batch.length === 0 || index >= this.shards.length) return;
      const shard = (this.shards[index] ??= this.startShard(index));
      const id = this.nextId++;
      // Each op counts at least a little, so a flood of marks and forgets is bounded too.
      const bytes = batch.reduce(
        (sum, op) => sum + 64 + (op.op === 'add' ? op.text.length + op.output.length : 0),
        0,
      );
      shard.pending.set(id, bytes);
      this.waiting += bytes;
      shard.worker.postMessage({ type: 'ops', id, ops: batch } satisfies ToTextWorker);
    });
    if (this.waiting >= BACKLOG_BYTES) this.paused = true;
  }

  idle(): boolean {
    return this.shards.every((shard) => !shard || shard.pending.size === 0);
  }

  backlogged(): boolean {
    return this.paused;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.shards.map(
        (shard) =>
          shard &&
          new Promise<void>((resolve) => {
            shard.worker.once('exit', () => resolve());
            shard.worker.postMessage({ type: 'close' } satisfies ToTextWorker);
          }),
      ),
    );
  }
}

/**
 * A shard's writer thread: applies what it is sent in the order sent, and says so. Batches that queued up
 * while it wrote are written together in one transaction (fewer, larger segments for FTS5 to merge).
 */
export function runTextWorker(setup: TextWorkerSetup, port: MessagePort): void {
  const writer = new TextShardWriter(setup.path, setup.shard, setup.shards);
  port.on('message', (first: unknown) => {
    const ids: number[] = [];
    const ops: TextOp[] = [];
    let closing = false;
    for (let raw: unknown = first; raw !== undefined; raw = receiveMessageOnPort(port)?.message) {
      const parsed = ToTextWorker.safeParse(raw);
      if (!parsed.success) {
        // Answered all the same, or the index would wait for it forever.
        const id = (raw as { id?: unknown } | null)?.id;
        if (typeof id === 'number') {
          port.postMessage({
            type: 'error',
            id,
            message: `A batch was not understood: ${parsed.error.message}`,
          });
        }
        continue;
      }
      if (parsed.data.type === 'close') {
        closing = true;
        break;
      }
      ids.push(parsed.data.id);
      ops.push(...parsed.data.ops);
    }
    let failure: string | null = null;
    try {
      if (ops.length > 0) writer.apply(ops);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    for (const id of ids) {
      port.postMessage(
        (failure === null
          ? { type: 'applied', id }
          : { type: 'error', id, message: failure }) satisfies FromTextWorker,
      );
    }
    if (closing) {
      writer.close();
      port.postMessage({ type: 'closed' } satisfies FromTextWorker);
      port.close();
    }
  });
}
