import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { worktreeLayout } from '../../../shared/worktrees';
import { stopIfSuperseded } from '../search-lanes';
import type { FileKind } from '../rules/entries';
import { CHUNK_BYTES } from '../../disk/files';

/**
 * The kinds of file the index reads: the two kinds of session file, and a subagent's transcript (the CLI's
 * `<session>/subagents/*.jsonl`), read only for its usage, which counts toward its parent session.
 */
export type IndexedKind = FileKind | 'subagent';
import { bucketOf, type MessageUsage, type TurnCost, type UsageLane } from '../rules/usage';
import {
  isDamaged,
  openDatabase,
  OtherLayout,
  prepareShards,
  removeDatabase,
  removeShards,
  shardPath,
} from './text-store';

/**
 * The library's index on disk: SQLite (WAL) through better-sqlite3. Everything in it is rebuilt from the
 * session files, so a damaged or outdated index is simply deleted and built again; one that cannot be opened
 * for any other reason is kept, and the error is reported.
 *
 * - `files`: each session file with how far it has been read (offset, a hash of its head to notice a
 *   rewrite) and what it says about its session so far (`facts`, and `preview` from its head and tail).
 * - `sessions`: one row per session id, what the list shows, recomputed from its files.
 * - the messages' texts and their full-text index are in shards of their own (text-store.ts), attached here
 *   as `text0`, `text1`, … to search them.
 * - `uuids`: each message uuid of a session once, so a message both a transcript and the CLI's file hold is
 *   indexed once, and a summary's leaf can be checked.
 * - `usage_messages`: each API message's tokens once per session, keyed by its message id, so the CLI's
 *   per-content-block lines, a tail read later and a transcript holding the same message all land on one row
 *   (the last line read holds it: its usage is the message's final one). `usage_turns`: a Byre turn's real
 *   cost, which replaces the estimate of the messages it covers. `usage_buckets`: their sums per session,
 *   model and 15-minute UTC bucket, kept by triggers as rows come and go, which the Usage view queries.
 */

const SCHEMA_VERSION = 9;

/**
 * A file with less than this left to read skips the preview and is read at once, first (a conversation being
 * written now). In the SQL as a literal, so that the partial index of such files answers nextRead.
 */
export const SMALL_REMAINDER = CHUNK_BYTES;

/** Files the full read has yet to go through (the work queue of nextRead); the queries repeat it as it is. */
const UNREAD = `present = 1 AND needs_preview = 0 AND state IN ('reading', 'skipping') AND offset < size`;
const UNREAD_SMALL = `${UNREAD} AND size - offset <= ${SMALL_REMAINDER}`;
const PROBLEM = `state = 'empty' OR problem IS NOT NULL OR bad_lines > 0 OR non_utf8_lines > 0 OR long_lines > 0`;
const ROW_CLI_FILE = `kind = 'cli' AND present = 1 AND state != 'sidechain'`;

const SCHEMA = `
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  session_id TEXT,
  present INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime REAL NOT NULL,
  offset INTEGER NOT NULL,
  head_len INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  needs_preview INTEGER NOT NULL,
  facts TEXT NOT NULL,
  preview TEXT,
  problem TEXT,
  bad_lines INTEGER NOT NULL,
  non_utf8_lines INTEGER NOT NULL,
  long_lines INTEGER NOT NULL
);
CREATE INDEX files_session ON files(session_id);
-- The work queues (previewQueue, nextRead), asked before every step: only the files waiting in them.
CREATE INDEX files_preview ON files(mtime) WHERE present = 1 AND needs_preview = 1;
CREATE INDEX files_unread ON files(mtime)
  WHERE ${UNREAD};
-- Of those, the ones with little left to read, which nextRead takes first.
CREATE INDEX files_unread_small ON files(mtime)
  WHERE ${UNREAD_SMALL};
-- Files with a problem (status() lists them): a file's counts come after its facts, which a scan would read.
CREATE INDEX files_problems ON files(path) WHERE ${PROBLEM};
-- The CLI files that make rows, by session id, to find two claiming one id (status() asks each time).
CREATE INDEX files_cli_sessions ON files(session_id) WHERE ${ROW_CLI_FILE};
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  cwd TEXT,
  git_branch TEXT,
  host TEXT,
  last_active REAL NOT NULL,
  message_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  resumable INTEGER NOT NULL,
  has_transcript INTEGER NOT NULL,
  indexed INTEGER NOT NULL,
  hidden INTEGER NOT NULL,
  renamed INTEGER NOT NULL,
  forked_from TEXT,
  rewinds INTEGER NOT NULL
);
CREATE INDEX sessions_recent ON sessions(hidden, last_active DESC);
CREATE TABLE layout (text_shards INTEGER NOT NULL);
CREATE TABLE uuids (
  session_id TEXT NOT NULL,
  uuid TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  PRIMARY KEY (session_id, uuid)
) WITHOUT ROWID;
CREATE INDEX uuids_file ON uuids(file_id);
CREATE TABLE usage_messages (
  session_id TEXT NOT NULL,
  key TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  model TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  time REAL NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  est_usd REAL,
  covered INTEGER NOT NULL,
  -- The lane it was asked through (rules/usage.ts, UsageLane): what it bills to.
  lane TEXT NOT NULL,
  PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
CREATE INDEX usage_messages_file ON usage_messages(file_id);
-- The usage since a limit window began (windowUsage) asks for the last few hours' messages only.
CREATE INDEX usage_messages_time ON usage_messages(time);
CREATE TABLE usage_turns (
  file_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  session_id TEXT NOT NULL,
  model TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  time REAL NOT NULL,
  usd REAL NOT NULL,
  PRIMARY KEY (file_id, key, model)
) WITHOUT ROWID;
CREATE INDEX usage_turns_time ON usage_turns(time);
CREATE TABLE usage_buckets (
  session_id TEXT NOT NULL,
  model TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  -- A turn's real cost is a Stream turn's: only stream-json runs report one.
  lane TEXT NOT NULL DEFAULT 'stream',
  input INTEGER NOT NULL DEFAULT 0,
  output INTEGER NOT NULL DEFAULT 0,
  cache_write INTEGER NOT NULL DEFAULT 0,
  cache_read INTEGER NOT NULL DEFAULT 0,
  -- Estimates of the messages no turn's real cost covers, and how many of them were priced.
  est_usd REAL NOT NULL DEFAULT 0,
  estimated INTEGER NOT NULL DEFAULT 0,
  -- Tokens of uncovered messages whose model has no price.
  unpriced INTEGER NOT NULL DEFAULT 0,
  real_usd REAL NOT NULL DEFAULT 0,
  real_turns INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, session_id, model, lane)
) WITHOUT ROWID;
CREATE INDEX usage_buckets_session ON usage_buckets(session_id);
-- The buckets' cost summed per session, kept by triggers on them, so the list reads a row's cost by its key.
CREATE TABLE usage_sessions (
  session_id TEXT PRIMARY KEY,
  est_usd REAL NOT NULL DEFAULT 0,
  estimated INTEGER NOT NULL DEFAULT 0,
  unpriced INTEGER NOT NULL DEFAULT 0,
  real_usd REAL NOT NULL DEFAULT 0,
  real_turns INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
${sessionCostTrigger('add', 'AFTER INSERT ON usage_buckets', [['NEW', 1]])}
${sessionCostTrigger('change', 'AFTER UPDATE ON usage_buckets', [
  ['OLD', -1],
  ['NEW', 1],
])}
${usageTrigger('add_message', 'AFTER INSERT ON usage_messages', [['NEW', 1]])}
${usageTrigger('remove_message', 'AFTER DELETE ON usage_messages', [['OLD', -1]])}
${usageTrigger('change_message', 'AFTER UPDATE ON usage_messages', [
  ['OLD', -1],
  ['NEW', 1],
])}
CREATE TRIGGER usage_add_turn AFTER INSERT ON usage_turns BEGIN
  INSERT INTO usage_buckets (session_id, model, bucket, real_usd, real_turns)
    VALUES (NEW.session_id, NEW.model, NEW.bucket, NEW.usd, 1)
  ON CONFLICT DO UPDATE SET real_usd = real_usd + excluded.real_usd, real_turns = real_turns + 1;
END;
CREATE TRIGGER usage_remove_turn AFTER DELETE ON usage_turns BEGIN
  UPDATE usage_buckets SET real_usd = real_usd - OLD.usd, real_turns = real_turns - 1
    WHERE session_id = OLD.session_id AND model = OLD.model AND bucket = OLD.bucket AND lane = 'stream';
END;
`;

/** A trigger that adds (sign 1) or takes away (-1) a message row's share of its bucket. */
function usageTrigger(name: string, when: string, rows: [string, number][]): string {
  const steps = rows.map(([row, sign]) => {
    const uncovered = `(1 - ${row}.covered)`;
    const values = [
      `${sign} * ${row}.input`,
      `${sign} * ${row}.output`,
      `${sign} * ${row}.cache_write`,
      `${sign} * ${row}.cache_read`,
      `${sign} * ${uncovered} * COALESCE(${row}.est_usd, 0)`,
      `${sign} * ${uncovered} * (${row}.est_usd IS NOT NULL)`,
      `${sign} * ${uncovered} * (${row}.est_usd IS NULL) * (${row}.input + ${row}.output + ${row}.cache_write + ${row}.cache_read)`,
    ];
    return `INSERT INTO usage_buckets (session_id, model, bucket, lane, input, output, cache_write, cache_read,
      est_usd, estimated, unpriced)
      VALUES (${row}.session_id, ${row}.model, ${row}.bucket, ${row}.lane, ${values.join(', ')})
    ON CONFLICT DO UPDATE SET input = input + excluded.input, output = output + excluded.output,
      cache_write = cache_write + excluded.cache_write, cache_read = cache_read + excluded.cache_read,
      est_usd = est_usd + excluded.est_usd, estimated = estimated + excluded.estimated,
      unpriced = unpriced + excluded.unpriced;`;
  });
  return `CREATE TRIGGER usage_${name} ${when} BEGIN\n${steps.join('\n')}\nEND;`;
}

/** A trigger that adds (sign 1) or takes away (-1) a bucket row's cost from its session's sum. */
function sessionCostTrigger(name: string, when: string, rows: [string, number][]): string {
  const columns = ['est_usd', 'estimated', 'unpriced', 'real_usd', 'real_turns'];
  const steps = rows.map(([row, sign]) => {
    const values = columns.map((column) => `${sign} * ${row}.${column}`);
    const sums = columns.map((column) => `${column} = ${column} + excluded.${column}`);
    return `INSERT INTO usage_sessions (session_id, ${columns.join(', ')})
      VALUES (${row}.session_id, ${values.join(', ')})
    ON CONFLICT DO UPDATE SET ${sums.join(', ')};`;
  });
  return `CREATE TRIGGER usage_session_${name} ${when} BEGIN\n${steps.join('\n')}\nEND;`;
}

/** How far a file has been read, and whether it needs reading at all. */
export type FileState =
  /** Read up to `offset`, the end of a complete line; the rest (if any) is still to read. */
  | 'reading'
  /** Read to the end but for an unfinished last line, read when the file changes. */
  | 'tail'
  /** `offset` is inside a line too long to index; reading resumes by skipping to its end. */
  | 'skipping'
  /** A subagent's file: not a conversation of its own. */
  | 'sidechain'
  | 'empty'
  /** A transcript of a run that never got a session id (the CLI never answered). */
  | 'no-session'
  /** Opening or reading it failed (see `problem`); tried again when it changes. */
  | 'unreadable';

export interface FileRow {
  id: number;
  path: string;
  kind: IndexedKind;
  session_id: string | null;
  present: number;
  size: number;
  mtime: number;
  offset: number;
  head_len: number;
  head_hash: string;
  state: FileState;
  needs_preview: number;
  facts: string;
  preview: string | null;
  problem: string | null;
  bad_lines: number;
  non_utf8_lines: number;
  long_lines: number;
}

export type FilePatch = Partial<Omit<FileRow, 'id' | 'path' | 'kind'>>;

export interface SessionRow {
  session_id: string;
  title: string;
  cwd: string | null;
  git_branch: string | null;
  /** The host Byre ran it on over ssh; null: this computer. */
  host: string | null;
  last_active: number;
  message_count: number;
  size_bytes: number;
  resumable: number;
  has_transcript: number;
  indexed: number;
  hidden: number;
  renamed: number;
  /** The session the CLI says this one was forked from (`forkedFrom` in its file), if any. */
  forked_from: string | null;
  /** Rewinds in place in its CLI file: each leaves a read-only branch. */
  rewinds: number;
}

/** A session's cost as its usage buckets sum it (usage_sessions), in the buckets' terms. */
export interface SessionCostRow {
  est_usd: number;
  estimated: number;
  unpriced: number;
  real_usd: number;
  real_turns: number;
}

/** `row_order`: the session row's rowid, which orders rows of the same last activity as the index does. */
export type ListedSessionRow = SessionRow & SessionCostRow & { row_order: number };
/** As much of a session as a search hit shows. */
export type SearchedSessionRow = Pick<SessionRow, 'session_id' | 'title' | 'cwd' | 'last_active'>;

/** What the list needs to put a session in its family. */
export type FamilyLinkRow = Pick<SessionRow, 'session_id' | 'forked_from' | 'rewinds'>;

export interface MessageCandidateRow {
  id: number;
  session_id: string;
  uuid: string | null;
  text: string;
}

/** A session's usage of one model in one 15-minute bucket, with what the report shows of its session. */
export interface UsageBucketRow {
  session_id: string;
  model: string;
  bucket: number;
  lane: UsageLane;
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
  est_usd: number;
  estimated: number;
  unpriced: number;
  real_usd: number;
  real_turns: number;
  title: string;
  cwd: string | null;
}

/** A session's usage over some span, in the buckets' terms, with what the report shows of its session. */
export type WindowUsageRow = Omit<UsageBucketRow, 'model' | 'bucket' | 'lane'>;

export interface ProblemFileRow {
  path: string;
  state: FileState;
  problem: string | null;
  bad_lines: number;
  non_utf8_lines: number;
  long_lines: number;
}

export interface CandidateQuery {
  /** An FTS5 query over the trigrams of what was said, or null. */
  match: string | null;
  /** An FTS5 query over the words of what was said and of tool output, or null. */
  wordMatch: string | null;
  folder: string | null;
  /** Only messages with a smaller id (older), to page back through the candidates. */
  before: number;
  limit: number;
  /**
   * Words every candidate must hold, checked by SQLite (LIKE, which ignores the case of ASCII letters only),
   * so that messages holding a word's trigrams but not the word never leave the database.
   */
  words: string[];
  /** Asked every few candidates: true when the search has been superseded, which then throws SearchSuperseded. */
  superseded?: () => boolean;
}

/** How many candidates are read between two looks at whether their search is still wanted. */
const CANDIDATES_BETWEEN_LOOKS = 64;

/** The index's files are there but could not be opened, for a reason other than damage. */
export class IndexUnavailable extends Error {
  override readonly name = 'IndexUnavailable';
}

export class IndexStore {
  private readonly db: Database.Database;
  private readonly patchStatements = new Map<string, Database.Statement>();
  /** Candidate queries by shard, index, folder filter and number of words checked. */
  private readonly candidateStatements = new Map<
    string,
    Database.Statement<[Record<string, unknown>], number>
  >();
  /** Messages by id, for each shard. */
  private readonly messageStatements = new Map<
    string,
    Database.Statement<[string], MessageCandidateRow & { output: string }>
  >();
  private readonly statements;

  /** How many text shards the index has (decided when it was made). */
  readonly textShards: number;

  /** `textShards`: how many shards a new index gets. */
  constructor(
    readonly dataDir: string,
    textShards: number,
  ) {
    this.db = openIndex(dataDir, textShards);
    const db = this.db;
    // A repository's worktrees are in its folder, as the sidebar groups them.
    db.function('worktree_home', { deterministic: true }, (cwd: unknown) =>
      typeof cwd === 'string' ? (worktreeLayout(cwd)?.repository ?? null) : null,
    );
    this.textShards = shardCount(db);
    const shards = shardNames(this.textShards);
    this.statements = {
      fileByPath: db.prepare<[string], FileRow>('SELECT * FROM files WHERE path = ?'),
      fileById: db.prepare<[number], FileRow>('SELECT * FROM files WHERE id = ?'),
      presentFiles: db.prepare<[], Pick<FileRow, 'path' | 'kind'>>(
        'SELECT path, kind FROM files WHERE present = 1',
      ),
      insertFile: db.prepare(
        `INSERT INTO files (path, kind, session_id, present, size, mtime, offset, head_len, head_hash, state,
           needs_preview, facts, preview, problem, bad_lines, non_utf8_lines, long_lines)
         VALUES (@path, @kind, @session_id, 1, @size, @mtime, 0, 0, '', @state, @needs_preview, @facts, NULL,
           NULL, 0, 0, 0)`,
      ),
      filesOfSession: db.prepare<[string], FileRow>('SELECT * FROM files WHERE session_id = ? ORDER BY id'),
      previewQueue: db.prepare<[number], FileRow>(
        'SELECT * FROM files WHERE present = 1 AND needs_preview = 1 ORDER BY mtime DESC LIMIT ?',
      ),
      // Small remainders first (a conversation being written now), then the newest files.
      nextSmallRead: db.prepare<[], FileRow>(
        `SELECT * FROM files INDEXED BY files_unread_small WHERE ${UNREAD_SMALL} ORDER BY mtime DESC LIMIT 1`,
      ),
      nextRead: db.prepare<[], FileRow>(
        `SELECT * FROM files INDEXED BY files_unread WHERE ${UNREAD} ORDER BY mtime DESC LIMIT 1`,
      ),
      insertUuid: db.prepare('INSERT OR IGNORE INTO uuids (session_id, uuid, file_id) VALUES (?, ?, ?)'),
      hasUuid: db.prepare<[string, string], { one: number }>(
        'SELECT 1 AS one FROM uuids WHERE session_id = ? AND uuid = ?',
      ),
      deleteUuids: db.prepare('DELETE FROM uuids WHERE file_id = ?'),
      putUsageMessage: db.prepare(
        `INSERT INTO usage_messages (session_id, key, file_id, model, bucket, time, input, output, cache_write,
           cache_read, est_usd, covered, lane)
         VALUES (@session_id, @key, @file_id, @model, @bucket, @time, @input, @output, @cache_write, @cache_read,
           @est_usd, 0, @lane)
         ON CONFLICT DO UPDATE SET file_id = excluded.file_id, model = excluded.model, bucket = excluded.bucket,
           time = excluded.time, lane = excluded.lane,
           input = excluded.input, output = excluded.output, cache_write = excluded.cache_write,
           cache_read = excluded.cache_read, est_usd = excluded.est_usd
         WHERE (excluded.output, excluded.input + excluded.cache_write + excluded.cache_read)
           >= (usage_messages.output, usage_messages.input + usage_messages.cache_write + usage_messages.cache_read)`,
      ),
      coverUsageMessages: db.prepare(
        `UPDATE usage_messages SET covered = 1
         WHERE session_id = ? AND covered = 0 AND key IN (SELECT value FROM json_each(?))`,
      ),
      putUsageTurn: db.prepare(
        `INSERT OR IGNORE INTO usage_turns (file_id, key, session_id, model, bucket, time, usd)
         VALUES (@file_id, @key, @session_id, @model, @bucket, @time, @usd)`,
      ),
      deleteUsageMessages: db.prepare('DELETE FROM usage_messages WHERE file_id = ?'),
      deleteUsageTurns: db.prepare('DELETE FROM usage_turns WHERE file_id = ?'),
      usageBuckets: db.prepare<[{ from: number }], UsageBucketRow>(
        `SELECT b.*, s.title, s.cwd FROM usage_buckets b JOIN sessions s ON s.session_id = b.session_id
         WHERE s.hidden = 0 AND b.bucket >= @from`,
      ),
      usageBucketsIn: db.prepare<[{ from: number; folder: string }], UsageBucketRow>(
        `SELECT b.*, s.title, s.cwd FROM usage_buckets b JOIN sessions s ON s.session_id = b.session_id
         WHERE s.hidden = 0 AND b.bucket >= @from AND ${IN_FOLDER('s.cwd', '@folder')}`,
      ),
      windowMessages: db.prepare<[{ since: number }], WindowUsageRow>(
        `SELECT m.session_id, s.title, s.cwd, SUM(m.input) AS input, SUM(m.output) AS output,
           SUM(m.cache_write) AS cache_write, SUM(m.cache_read) AS cache_read,
           SUM((1 - m.covered) * COALESCE(m.est_usd, 0)) AS est_usd,
           SUM((1 - m.covered) * (m.est_usd IS NOT NULL)) AS estimated,
           SUM((1 - m.covered) * (m.est_usd IS NULL) * (m.input + m.output + m.cache_write + m.cache_read))
             AS unpriced,
           0 AS real_usd, 0 AS real_turns
         FROM usage_messages m JOIN sessions s ON s.session_id = m.session_id
         WHERE m.time >= @since AND s.hidden = 0 GROUP BY m.session_id`,
      ),
      windowTurns: db.prepare<[{ since: number }], WindowUsageRow>(
        `SELECT t.session_id, s.title, s.cwd, 0 AS input, 0 AS output, 0 AS cache_write, 0 AS cache_read,
           0 AS est_usd, 0 AS estimated, 0 AS unpriced, SUM(t.usd) AS real_usd, COUNT(*) AS real_turns
         FROM usage_turns t JOIN sessions s ON s.session_id = t.session_id
         WHERE t.time >= @since AND s.hidden = 0 GROUP BY t.session_id`,
      ),
      aheadOfShards: db.prepare<[], FileRow>(
        shards
          .map(
            (shard) => `SELECT f.* FROM files f LEFT JOIN ${shard}.marks k ON k.file_id = f.id
              WHERE f.id % ${shards.length} = ${shards.indexOf(shard)} AND f.present = 1
                AND ((k.offset IS NULL AND f.offset > 0) OR k.offset <> f.offset)`,
          )
          .join(' UNION ALL '),
      ),
      session: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
      upsertSession: db.prepare(
        `INSERT OR REPLACE INTO sessions (session_id, title, cwd, git_branch, host, last_active, message_count,
           size_bytes, resumable, has_transcript, indexed, hidden, renamed, forked_from, rewinds)
         VALUES (@session_id, @title, @cwd, @git_branch, @host, @last_active, @message_count, @size_bytes,
           @resumable, @has_transcript, @indexed, @hidden, @renamed, @forked_from, @rewinds)`,
      ),
      deleteSession: db.prepare('DELETE FROM sessions WHERE session_id = ?'),
      listedSession: db.prepare<[string], ListedSessionRow>(`${LISTED} WHERE s.session_id = ?`),
      listedSessions: db.prepare<[], ListedSessionRow>(LISTED),
      searchedSessions: db.prepare<[], SearchedSessionRow>(
        'SELECT session_id, title, cwd, last_active FROM sessions WHERE hidden = 0 ORDER BY last_active DESC',
      ),
      searchedSessionsIn: db.prepare<[{ folder: string }], SearchedSessionRow>(
        `SELECT session_id, title, cwd, last_active FROM sessions s
           WHERE hidden = 0 AND ${IN_FOLDER('s.cwd', '@folder')} ORDER BY last_active DESC`,
      ),
      familyLinks: db.prepare<[], FamilyLinkRow>('SELECT session_id, forked_from, rewinds FROM sessions'),
      customizedSessions: db.prepare<[], { session_id: string }>(
        'SELECT session_id FROM sessions WHERE hidden = 1 OR renamed = 1',
      ),
      // As the two queues ask, so that their indexes answer.
      pendingWork: db.prepare<[], { one: number }>(
        `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM files WHERE present = 1 AND needs_preview = 1)
           OR EXISTS (SELECT 1 FROM files WHERE ${UNREAD})`,
      ),
      problemFiles: db.prepare<[number], ProblemFileRow>(
        `SELECT path, state, problem, bad_lines, non_utf8_lines, long_lines FROM files INDEXED BY files_problems
           WHERE ${PROBLEM} ORDER BY path LIMIT ?`,
      ),
      sharedSessionFiles: db.prepare<[], FileRow>(
        `SELECT * FROM files WHERE ${ROW_CLI_FILE} AND session_id IN (
           SELECT session_id FROM files INDEXED BY files_cli_sessions WHERE ${ROW_CLI_FILE}
           GROUP BY session_id HAVING COUNT(*) > 1)`,
      ),
    };
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  close(): void {
    this.db.close();
  }

  file(path: string): FileRow | undefined {
    return this.statements.fileByPath.get(path);
  }

  fileById(id: number): FileRow | undefined {
    return this.statements.fileById.get(id);
  }

  presentFiles(): Pick<FileRow, 'path' | 'kind'>[] {
    return this.statements.presentFiles.all();
  }

  insertFile(file: {
    path: string;
    kind: IndexedKind;
    session_id: string | null;
    size: number;
    mtime: number;
    state: FileState;
    needs_preview: number;
    facts: string;
  }): FileRow {
    this.statements.insertFile.run(file);
    const row = this.file(file.path);
    if (!row) throw new Error(`The index lost ${file.path} as it was added.`);
    return row;
  }

  updateFile(id: number, patch: FilePatch): void {
    const keys = Object.keys(patch).sort();
    if (keys.length === 0) return;
    const signature = keys.join(',');
    let statement = this.patchStatements.get(signature);
    if (!statement) {
      statement = this.db.prepare(
        `UPDATE files SET ${keys.map((key) => `${key} = @${key}`).join(', ')} WHERE id = @id`,
      );
      this.patchStatements.set(signature, statement);
    }
    statement.run({ ...patch, id });
  }

  filesOfSession(sessionId: string): FileRow[] {
    return this.statements.filesOfSession.all(sessionId);
  }

  previewQueue(limit: number): FileRow[] {
    return this.statements.previewQueue.all(limit);
  }

  /** The next file to read on: one with little left (SMALL_REMAINDER) first, then the newest. */
  nextRead(): FileRow | undefined {
    return this.statements.nextSmallRead.get() ?? this.statements.nextRead.get();
  }

  hasPendingWork(): boolean {
    return this.statements.pendingWork.get() !== undefined;
  }

  /**
   * Whether a message is new to its session (a uuid already seen, from another file of it, is not); it is
   * remembered as seen. A message without a uuid is always new.
   */
  claimMessage(fileId: number, sessionId: string, uuid: string | null): boolean {
    if (uuid === null) return true;
    return this.statements.insertUuid.run(sessionId, uuid, fileId).changes > 0;
  }

  /** Forgets which messages a file held (before it is read again from the start). */
  forgetUuids(fileId: number): void {
    this.statements.deleteUuids.run(fileId);
  }

  /**
   * Files a message's usage under its session. A message's usage only grows as it streams (Byre's transcript
   * has it as its first block ended, the CLI's file as it ended), so the line that says most holds the row,
   * whichever file is read last.
   */
  putUsageMessage(fileId: number, sessionId: string, usage: MessageUsage): void {
    this.statements.putUsageMessage.run({
      session_id: sessionId,
      key: usage.key,
      file_id: fileId,
      model: usage.model,
      bucket: bucketOf(usage.time),
      time: usage.time,
      input: usage.input,
      output: usage.output,
      cache_write: usage.cacheWrite,
      cache_read: usage.cacheRead,
      est_usd: usage.estUsd,
      lane: usage.lane,
    });
  }

  /** Files a turn's real cost (a row per model it used), which from now on stands for the estimates of the messages it covers. */
  putUsageTurn(fileId: number, sessionId: string, turn: TurnCost): void {
    if (turn.covers.length > 0) {
      this.statements.coverUsageMessages.run(sessionId, JSON.stringify(turn.covers));
    }
    for (const part of turn.parts) {
      this.statements.putUsageTurn.run({
        file_id: fileId,
        key: turn.key,
        session_id: sessionId,
        model: part.model,
        bucket: bucketOf(turn.time),
        time: turn.time,
        usd: part.usd,
      });
    }
  }

  /** Forgets the usage a file gave (before it is read again from the start). */
  forgetUsage(fileId: number): void {
    this.statements.deleteUsageMessages.run(fileId);
    this.statements.deleteUsageTurns.run(fileId);
  }

  /** The usage sums of visible sessions from bucket `from` (ms) on, optionally in a folder and its worktrees. */
  usageBuckets(from: number, folder: string | null): UsageBucketRow[] {
    return folder === null
      ? this.statements.usageBuckets.all({ from })
      : this.statements.usageBucketsIn.all({ from, folder });
  }

  /**
   * Each visible session's usage since `since` (ms), by the messages' own times: its messages' tokens and
   * estimates, and separately the real costs of its turns that ended since then (to be summed by session).
   */
  windowUsage(since: number): { messages: WindowUsageRow[]; turns: WindowUsageRow[] } {
    return {
      messages: this.statements.windowMessages.all({ since }),
      turns: this.statements.windowTurns.all({ since }),
    };
  }

  /**
   * Files whose shard is out of step with how far they were read: behind (the app stopped before it caught
   * up) or ahead (a forget for a file read again from the start never arrived).
   */
  filesOutOfStepWithShards(): FileRow[] {
    return this.statements.aheadOfShards.all();
  }

  hasUuid(sessionId: string, uuid: string): boolean {
    return this.statements.hasUuid.get(sessionId, uuid) !== undefined;
  }

  session(sessionId: string): SessionRow | undefined {
    return this.statements.session.get(sessionId);
  }

  putSession(row: SessionRow): void {
    this.statements.upsertSession.run(row);
  }

  deleteSession(sessionId: string): void {
    this.statements.deleteSession.run(sessionId);
  }

  /** A session's row with its cost, as the list shows it. */
  listedSession(sessionId: string): ListedSessionRow | undefined {
    return this.statements.listedSession.get(sessionId);
  }

  /** Every session with its cost, hidden ones too, in no particular order (ListedSessions keeps them). */
  listedSessions(): ListedSessionRow[] {
    return this.statements.listedSessions.all();
  }

  /**
   * What a search hit shows of each session not hidden (of one folder, if given), newest first: without the
   * list's cost join, which a search asked twice a keystroke (titles, then all) has no use for.
   */
  searchedSessions(folder: string | null): SearchedSessionRow[] {
    return folder === null
      ? this.statements.searchedSessions.all()
      : this.statements.searchedSessionsIn.all({ folder });
  }

  /** Every session, hidden ones too (a hidden session still links its family's branches). */
  familyLinks(): FamilyLinkRow[] {
    return this.statements.familyLinks.all();
  }

  /** Sessions the index marks as renamed or hidden (to check against library.json when it opens). */
  customizedSessions(): string[] {
    return this.statements.customizedSessions.all().map((row) => row.session_id);
  }

  problemFiles(limit: number): ProblemFileRow[] {
    return this.statements.problemFiles.all(limit);
  }

  /** CLI files that claim a session id another present CLI file claims too. */
  sharedSessionFiles(): FileRow[] {
    return this.statements.sharedSessionFiles.all();
  }

  /**
   * Messages of visible sessions that may match (what was said holds every trigram of the query, or the
   * message holds every word of it), newest first, older than `before`. The caller checks each one.
   */
  candidates(query: CandidateQuery): MessageCandidateRow[] {
    // Words with letters beyond ASCII are left to the caller's check: LIKE would miss their other case.
    const words = query.words.filter((word) => /^[\x20-\x7e]+$/.test(word));
    const params: Record<string, unknown> = { before: query.before, limit: query.limit };
    if (query.folder !== null) params.folder = query.folder;
    words.forEach((word, n) => {
      params[`word${n}`] = `%${word.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    });
    const indexes = [
      { index: 'message_text', match: query.match },
      { index: 'message_words', match: query.wordMatch },
    ] as const;
    // The ids of each shard's newest candidates from each index, then the newest of them all (ids never
    // repeat across shards; a message both indexes found is taken once); only those are read.
    const shards = shardNames(this.textShards);
    const shardOfId = new Map<number, string>();
    for (const shard of shards) {
      for (const { index, match } of indexes) {
        if (match === null) continue;
        const statement = this.candidateStatement(shard, index, query.folder, words.length);
        let read = 0;
        for (const id of statement.iterate({ ...params, match })) {
          shardOfId.set(id, shard);
          read += 1;
          if (read % CANDIDATES_BETWEEN_LOOKS === 0) stopIfSuperseded(query.superseded);
        }
        stopIfSuperseded(query.superseded);
      }
    }
    const newest = [...shardOfId.keys()].sort((a, b) => b - a).slice(0, query.limit);
    const rows = shards.flatMap((shard) => {
      const inShard = newest.filter((id) => shardOfId.get(id) === shard);
      return inShard.length > 0 ? this.messageStatement(shard).all(JSON.stringify(inShard)) : [];
    });
    return rows
      .map(({ output, ...row }) => (output === '' ? row : { ...row, text: `${row.text}\n${output}` }))
      .sort((a, b) => b.id - a.id);
  }

  private messageStatement(shard: string) {
    let statement = this.messageStatements.get(shard);
    if (!statement) {
      statement = this.db.prepare<[string], MessageCandidateRow & { output: string }>(
        `SELECT id, session_id, uuid, text, output FROM ${shard}.messages
         WHERE id IN (SELECT value FROM json_each(?))`,
      );
      this.messageStatements.set(shard, statement);
    }
    return statement;
  }

  private candidateStatement(shard: string, index: string, folder: string | null, words: number) {
    const key = `${shard}:${index}:${folder === null ? 'all' : 'folder'}:${words}`;
    let statement = this.candidateStatements.get(key);
    if (!statement) {
      const likes = Array.from(
        { length: words },
        (_, n) => ` AND (m.text LIKE @word${n} ESCAPE '\\' OR m.output LIKE @word${n} ESCAPE '\\')`,
      ).join('');
      const inFolder = folder === null ? '' : ` AND ${IN_FOLDER('s.cwd', '@folder')}`;
      statement = this.db
        .prepare<[Record<string, unknown>], number>(
          `SELECT t.rowid FROM ${shard}.${index} t
           JOIN ${shard}.messages m ON m.id = t.rowid
           JOIN main.sessions s ON s.session_id = m.session_id
         WHERE t.${index} MATCH @match AND t.rowid < @before AND s.hidden = 0${inFolder}${likes}
         ORDER BY t.rowid DESC LIMIT @limit`,
        )
        .pluck();
      this.candidateStatements.set(key, statement);
    }
    return statement;
  }
}

/** Sessions with their cost; a session with no usage yet costs nothing known. */
const LISTED = `SELECT s.*, s.rowid AS row_order, COALESCE(u.est_usd, 0) AS est_usd, COALESCE(u.estimated, 0) AS estimated,
  COALESCE(u.unpriced, 0) AS unpriced, COALESCE(u.real_usd, 0) AS real_usd, COALESCE(u.real_turns, 0) AS real_turns
  FROM sessions s LEFT JOIN usage_sessions u ON u.session_id = s.session_id`;

/**
 * SQL for "`cwd` is in `folder`": the folder itself, or one of the repository's worktrees there
 * (`<folder>/.claude/worktrees/<name>`); worktree_home is asked only of paths that start with the folder.
 */
const IN_FOLDER = (cwd: string, folder: string) =>
  `(${cwd} = ${folder} OR (substr(${cwd}, 1, length(${folder})) = ${folder} AND worktree_home(${cwd}) = ${folder}))`;

/** The shards' names as attached to the main index. */
function shardNames(count: number): string[] {
  return Array.from({ length: count }, (_, shard) => `text${shard}`);
}

function shardCount(db: Database.Database): number {
  const row = db.prepare<[], { text_shards: number }>('SELECT text_shards FROM layout').get();
  if (!row || !Number.isInteger(row.text_shards) || row.text_shards < 1) {
    throw new OtherLayout('The index does not say how many text shards it has.');
  }
  return row.text_shards;
}

/**
 * Opens the index and attaches its shards. A new index starts new shards; if any part is damaged or of an
 * older layout, all of it is deleted and started anew (it is all rebuilt from the session files). Any other
 * failure leaves every file as it is and throws IndexUnavailable.
 */
function openIndex(dataDir: string, textShards: number): Database.Database {
  try {
    return openAll(dataDir, textShards);
  } catch (error) {
    if (!isDamaged(error)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new IndexUnavailable(
        `The search index in ${dataDir} could not be opened (${reason}). Its files were left as they are.`,
        { cause: error },
      );
    }
    removeDatabase(join(dataDir, MAIN_FILE));
    removeShards(dataDir);
    return openAll(dataDir, textShards);
  }
}

const MAIN_FILE = 'library.sqlite';
/** Page caches: better-sqlite3's default is 16 MB a database, more than these tables need. */
const MAIN_CACHE_KB = 8192;
const SHARD_SEARCH_CACHE_KB = 4096;

function openAll(dataDir: string, textShards: number): Database.Database {
  let created = false;
  const db = openDatabase(join(dataDir, MAIN_FILE), SCHEMA, SCHEMA_VERSION, () => {
    created = true;
    removeShards(dataDir);
  });
  try {
    if (created) db.prepare('INSERT INTO layout (text_shards) VALUES (?)').run(textShards);
    const count = shardCount(db);
    db.pragma(`cache_size = ${-MAIN_CACHE_KB}`);
    prepareShards(dataDir, count);
    shardNames(count).forEach((name, shard) => {
      db.prepare('ATTACH DATABASE ? AS ' + name).run(shardPath(dataDir, shard));
      // Here the shards are only searched.
      db.pragma(`${name}.cache_size = ${-SHARD_SEARCH_CACHE_KB}`);
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
