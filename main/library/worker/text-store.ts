import { readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { touchPrivateFile } from '../../disk/private-files';

/**
 * The library's message texts and their full-text index, in shards beside the main index (library.sqlite):
 * `library-text-<k>.sqlite`, each written by one writer, so that on a machine with more than one core the
 * shards are built in parallel (the trigram index costs ~4 MB of text a second a core; it is most of the
 * index's work). A file's messages all go to one shard, chosen by its id. How many shards is decided when
 * the index is made: a writer for each core beyond the one that reads the files, but at least two (the
 * reader needs less than half a core of a two-core machine) and at most three (each writer thread holds
 * some 20 MB while it works).
 *
 * Each shard holds:
 * - `messages`: each message's text in two parts: what was said (text, tool calls) and what tools answered.
 * - `message_text`: an FTS5 trigram index of what was said, so that any part of an identifier is found.
 * - `message_words`: an FTS5 word index (unicode61) of both parts. Tool output is most of a library's text,
 *   and trigrams cost about four times as much to build as words: in tool output a search finds whole words
 *   (`parse_query` is found by `parse` and by `query`; `parseQuery` only by `parseQuery`).
 *   Both indexes only find candidates (detail=none: which messages hold every token, half the size and build
 *   time of a full index); the search checks and ranks them. A message's id is its time (ms × 1000, plus a
 *   slot × the shard count, plus the shard), so the newest candidates come first straight from the index and
 *   the shards' ids never meet.
 * - `marks`: how far each file's messages have been written. The main index says how far each file was read;
 *   a file whose mark is behind (the app stopped before its shard caught up) is read again.
 */

export const MAX_TEXT_SHARDS = 3;

export function defaultShardCount(): number {
  return Math.min(MAX_TEXT_SHARDS, Math.max(2, availableParallelism() - 1));
}
const SCHEMA_VERSION = 2;
/**
 * A shard is written in large appends (FTS5 segments); 64 KB pages write it in a tenth of the system calls
 * of SQLite's default 4 KB, which on a two-core machine was seconds of a cold index.
 */
const SHARD_PAGE_BYTES = 64 * 1024;

const SCHEMA = `
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  uuid TEXT,
  text TEXT NOT NULL,
  output TEXT NOT NULL
);
CREATE INDEX messages_file ON messages(file_id);
CREATE VIRTUAL TABLE message_text USING fts5(
  text, content='messages', content_rowid='id', tokenize='trigram', detail=none
);
CREATE VIRTUAL TABLE message_words USING fts5(
  text, output, content='messages', content_rowid='id', tokenize='unicode61', detail=none
);
CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
  INSERT INTO message_text (message_text, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO message_words (message_words, rowid, text, output) VALUES ('delete', old.id, old.text, old.output);
END;
CREATE TABLE marks (file_id INTEGER PRIMARY KEY, offset INTEGER NOT NULL);
INSERT INTO message_text (message_text, rank) VALUES ('automerge', 0);
INSERT INTO message_words (message_words, rank) VALUES ('automerge', 0);
`;

const FileId = z.number().int().nonnegative();

/** What a shard's writer is told, in order. */
export const TextOp = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('add'),
    fileId: FileId,
    sessionId: z.string(),
    uuid: z.string().nullable(),
    text: z.string(),
    output: z.string(),
    time: z.number(),
  }),
  /** Forget everything written for a file (it is read again from the start). */
  z.object({ op: z.literal('forget'), fileId: FileId }),
  /** The file's messages up to this offset are all written. */
  z.object({ op: z.literal('mark'), fileId: FileId, offset: z.number().int().nonnegative() }),
]);
export type TextOp = z.infer<typeof TextOp>;

export function shardOf(fileId: number, shards: number): number {
  return fileId % shards;
}

export function shardPath(dataDir: string, shard: number): string {
  return join(dataDir, `library-text-${shard}.sqlite`);
}

/** Every shard file in the data folder, whatever count made them. */
export function shardFiles(dataDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return [];
  }
  return names.filter((name) => /^library-text-\d+\.sqlite$/.test(name)).map((name) => join(dataDir, name));
}

export function removeShards(dataDir: string): void {
  for (const path of shardFiles(dataDir)) removeDatabase(path);
}

export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Under `npm start` with Electron, better-sqlite3 as compiled for Electron's ABI (scripts/start.mjs); elsewhere
 * the module's own build.
 */
export const NATIVE_BINDING: Database.Options = process.env.BYRE_SQLITE_BINDING
  ? { nativeBinding: process.env.BYRE_SQLITE_BINDING }
  : {};

/** A database file Byre made, but of another layout than this version uses: rebuilt like a damaged one. */
export class OtherLayout extends Error {
  override readonly name = 'OtherLayout';
}

/**
 * Whether an open failed because the file itself is bad (damaged, not a database, or of another layout), which
 * rebuilding cures. Anything else (no permission, a lock, a folder in the file's place, a better-sqlite3 built
 * for another runtime) says nothing about the file: deleting it would lose the index and fix nothing.
 */
export function isDamaged(error: unknown): boolean {
  if (error instanceof OtherLayout) return true;
  // better-sqlite3's SqliteError carries SQLite's extended code, e.g. SQLITE_CORRUPT_VTAB.
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/**
 * Opens a database of the given layout, creating it if it is new (`onCreate` runs first). One that is damaged
 * or of another layout throws (see isDamaged): the caller decides what to rebuild.
 */
export function openDatabase(
  path: string,
  schema: string,
  version: number,
  onCreate?: () => void,
  pageSize?: number,
): Database.Database {
  // Created private first: SQLite gives its -wal and -shm files the database file's mode.
  touchPrivateFile(path);
  const db = new Database(path, NATIVE_BINDING);
  try {
    const found = db.pragma('user_version', { simple: true });
    if (found === 0) {
      onCreate?.();
      // Only a new, empty database takes a page size (before WAL, which fixes it).
      if (pageSize !== undefined) db.pragma(`page_size = ${pageSize}`);
      db.pragma('journal_mode = WAL');
      db.transaction(() => {
        db.exec(schema);
        db.pragma(`user_version = ${version}`);
      })();
    } else if (found !== version) {
      throw new OtherLayout(`${path} has layout ${String(found)}, not ${version}.`);
    }
    db.pragma('journal_mode = WAL');
    // The index can always be rebuilt: a crash may lose its last moments, never corrupt it.
    db.pragma('synchronous = NORMAL');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Creates the shards that are missing; throws if one is damaged or of another layout. */
export function prepareShards(dataDir: string, shards: number): void {
  for (let shard = 0; shard < shards; shard += 1) {
    openDatabase(shardPath(dataDir, shard), SCHEMA, SCHEMA_VERSION, undefined, SHARD_PAGE_BYTES).close();
  }
}

const WRITER_CACHE_KB = 4096;
const IDS_PER_MS = 1000;
/** Ids stay exact in a JavaScript number up to here (the year 2096). */
const LATEST_TIME = 4e12;

/** When a message was written, from its id. */
export function messageTime(id: number): number {
  return Math.floor(id / IDS_PER_MS);
}

/** Writes one shard: each batch of ops in one transaction. */
export class TextShardWriter {
  private readonly db: Database.Database;
  private sequence = 0;
  private readonly statements;

  constructor(
    path: string,
    private readonly shard: number,
    private readonly shards: number,
  ) {
    this.db = openDatabase(path, SCHEMA, SCHEMA_VERSION, undefined, SHARD_PAGE_BYTES);
    // Writing mostly appends; better-sqlite3's default page cache (16 MB) buys little here but memory.
    this.db.pragma(`cache_size = ${-WRITER_CACHE_KB}`);
    const db = this.db;
    this.statements = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO messages (id, file_id, session_id, uuid, text, output) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertText: db.prepare('INSERT INTO message_text (rowid, text) VALUES (?, ?)'),
      insertWords: db.prepare('INSERT INTO message_words (rowid, text, output) VALUES (?, ?, ?)'),
      forget: db.prepare('DELETE FROM messages WHERE file_id = ?'),
      forgetMark: db.prepare('DELETE FROM marks WHERE file_id = ?'),
      mark: db.prepare('INSERT OR REPLACE INTO marks (file_id, offset) VALUES (?, ?)'),
      lastId: db.prepare<[], { id: number | null }>('SELECT MAX(id) AS id FROM messages'),
    };
  }

  apply(ops: readonly TextOp[]): void {
    this.db.transaction(() => {
      for (const op of ops) {
        switch (op.op) {
          case 'add':
            this.add(op);
            break;
          case 'forget':
            // A trigger takes each message out of the full-text index too.
            this.statements.forget.run(op.fileId);
            this.statements.forgetMark.run(op.fileId);
            break;
          case 'mark':
            this.statements.mark.run(op.fileId, op.offset);
            break;
        }
      }
    })();
  }

  private add(op: Extract<TextOp, { op: 'add' }>): void {
    let ms = Math.min(Math.max(0, Math.floor(op.time)), LATEST_TIME);
    // Within a millisecond, slot × shards + shard: no two shards ever make the same id.
    const slots = Math.floor(IDS_PER_MS / this.shards);
    for (let attempt = 0; ; attempt += 1) {
      if (attempt >= 4 && (attempt - 4) % slots === 0) {
        // Hundreds of messages in one millisecond (lines without a timestamp): the millisecond after the
        // shard's newest id, a little later in time.
        ms = Math.max(ms, Math.floor((this.statements.lastId.get()?.id ?? 0) / IDS_PER_MS)) + 1;
      }
      const id = ms * IDS_PER_MS + (this.sequence++ % slots) * this.shards + this.shard;
      if (this.statements.insert.run(id, op.fileId, op.sessionId, op.uuid, op.text, op.output).changes > 0) {
        this.statements.insertText.run(id, op.text);
        this.statements.insertWords.run(id, op.text, op.output);
        return;
      }
    }
  }

  close(): void {
    this.db.close();
  }
}
