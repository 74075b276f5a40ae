import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ThreadedShards, type TextWorkerSetup, type ToTextWorker } from './text-shards';
import { shardOf, type TextOp } from './text-store';

const SHARDS = 2;

/** A writer thread that does nothing until the test says what it did. */
class FakeWriter extends EventEmitter {
  readonly received: ToTextWorker[] = [];
  terminated = false;
  constructor(readonly setup: TextWorkerSetup) {
    super();
  }
  postMessage(message: ToTextWorker): void {
    this.received.push(message);
    if (message.type === 'close') queueMicrotask(() => this.emit('exit', 0));
  }
  terminate(): Promise<number> {
    this.terminated = true;
    return Promise.resolve(1);
  }
  /** Says every batch it was sent is written. */
  writeAll(): void {
    for (const message of this.received.splice(0)) {
      if (message.type === 'ops') this.emit('message', { type: 'applied', id: message.id });
    }
  }
}

function harness() {
  const writers: FakeWriter[] = [];
  const wakes: number[] = [];
  const lost: number[] = [];
  const shards = new ThreadedShards({
    dataDir: '/nowhere',
    shards: SHARDS,
    start: (setup) => {
      const writer = new FakeWriter(setup);
      writers.push(writer);
      return writer as unknown as Worker;
    },
    onWake: () => wakes.push(1),
    onLost: (shard) => lost.push(shard),
  });
  return { shards, writers, wakes, lost };
}

const add = (fileId: number, text: string): TextOp => ({
  op: 'add',
  fileId,
  sessionId: 's',
  uuid: null,
  text,
  output: '',
  time: 0,
});

/** Ops for one file, sent to its shard. */
function toShards(fileId: number, ops: TextOp[]): TextOp[][] {
  const all: TextOp[][] = Array.from({ length: SHARDS }, () => []);
  all[shardOf(fileId, SHARDS)] = ops;
  return all;
}

describe('text shards in threads', () => {
  it('starts a writer only once there is something for its shard', () => {
    const { shards, writers } = harness();
    expect(writers).toHaveLength(0);
    expect(shards.idle()).toBe(true);
    shards.send(toShards(1, [add(1, 'hello')]));
    expect(writers.map((writer) => writer.setup.shard)).toEqual([shardOf(1, SHARDS)]);
    expect(shards.idle()).toBe(false);
  });

  it('pauses reading while the writers are far behind, and wakes it once they catch up', () => {
    const { shards, writers, wakes } = harness();
    const big = 'x'.repeat(1024 * 1024);
    for (let n = 0; n < 3; n += 1) shards.send(toShards(0, [add(0, big)]));
    expect(shards.backlogged()).toBe(false);
    shards.send(toShards(0, [add(0, big), add(0, big)]));
    expect(shards.backlogged()).toBe(true);
    writers[0]!.writeAll();
    expect(shards.backlogged()).toBe(false);
    expect(shards.idle()).toBe(true);
    expect(wakes.length).toBeGreaterThan(0);
  });

  it('restarts a writer that dies, and has its files checked again', () => {
    const { shards, writers, lost } = harness();
    shards.send(toShards(1, [add(1, 'hello'), { op: 'mark', fileId: 1, offset: 10 }]));
    writers[0]!.emit('exit', 1);
    expect(lost).toEqual([shardOf(1, SHARDS)]);
    expect(writers[0]!.terminated).toBe(true);
    expect(writers).toHaveLength(2);
    // What the dead writer had not written is given up on (the files are read again instead).
    expect(shards.idle()).toBe(true);
    shards.send(toShards(1, [add(1, 'again')]));
    expect(writers[1]!.received).toHaveLength(1);
  });

  it('has the files checked again when a writer fails a batch', () => {
    const { shards, writers, lost } = harness();
    shards.send(toShards(1, [add(1, 'hello')]));
    const sent = writers[0]!.received[0];
    if (sent?.type !== 'ops') throw new Error('expected a batch');
    writers[0]!.emit('message', { type: 'error', id: sent.id, message: 'disk full' });
    expect(lost).toEqual([shardOf(1, SHARDS)]);
    expect(shards.idle()).toBe(true);
  });

  it('closes every writer it started', async () => {
    const { shards, writers } = harness();
    shards.send(toShards(0, [add(0, 'a')]));
    shards.send(toShards(1, [add(1, 'b')]));
    await shards.close();
    expect(writers.map((writer) => writer.received.at(-1)?.type)).toEqual(['close', 'close']);
  });
});
