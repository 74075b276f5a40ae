import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TextShardWriter, type TextOp } from './text-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-shards-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const adds = (count: number, fileId: number): TextOp[] =>
  Array.from({ length: count }, (_, n) => ({
    op: 'add',
    fileId,
    sessionId: 's',
    uuid: `${fileId}-${n}`,
    text: `message ${n}`,
    output: '',
    // Lines without timestamps all get their file's time: one millisecond for all of them.
    time: 1_000,
  }));

function ids(path: string): number[] {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT id FROM messages').all() as { id: number }[];
  db.close();
  return rows.map((row) => row.id);
}

describe('message ids in text shards', () => {
  it('never repeat across shards, even with more messages in one millisecond than it has ids', () => {
    const shards = 3;
    const paths = Array.from({ length: shards }, (_, shard) => join(dir, `library-text-${shard}.sqlite`));
    paths.forEach((path, shard) => {
      const writer = new TextShardWriter(path, shard, shards);
      writer.apply(adds(800, shard));
      writer.close();
    });
    const all = paths.flatMap(ids);
    expect(all).toHaveLength(800 * shards);
    expect(new Set(all).size).toBe(all.length);
  });
});
