import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { FileKind, MessageRead } from './entries';

/**
 * The library's index on disk: SQLite (WAL) through better-sqlite3. Everything in it is rebuilt from the
 * session files, so a damaged or outdated index is simply deleted and built again.
 *
 * - `files`: each session file with how far it has been read (offset, a hash of its head to notice a
 *   rewrite) and what it says about its session so far (`facts`, and `preview` from its head and tail).
 * - `sessions`: one row per session id, what the list shows, recomputed from its files.
 * - `messages` + `message_text`: each message's text and its FTS5 trigram index. The index only finds
 *   candidates (detail=none: which messages hold every trigram of a word, half the size and build time of a
 *   full index); the search checks and ranks them. A message's id is its time (ms × 1000 + a sequence
 *   number), so the newest candidates come first straight from the index.
 * - `uuids`: each message uuid of a session once, so a message both a transcript and the CLI's file hold is
 *   indexed once, and a summary's leaf can be checked.
 */

const SCHEMA_VERSION = 1;

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
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  cwd TEXT,
  git_branch TEXT,
  last_active REAL NOT NULL,
  message_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  resumable INTEGER NOT NULL,
  has_transcript INTEGER NOT NULL,
  indexed INTEGER NOT NULL,
  hidden INTEGER NOT NULL,
  renamed INTEGER NOT NULL
);
CREATE INDEX sessions_recent ON sessions(hidden, last_active DESC);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  uuid TEXT,
  text TEXT NOT NULL
);
CREATE INDEX messages_file ON messages(file_id);
CREATE VIRTUAL TABLE message_text USING fts5(
  text, content='messages', content_rowid='id', tokenize='trigram', detail=none
);
CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
  INSERT INTO message_text (message_text, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE uuids (
  session_id TEXT NOT NULL,
  uuid TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  PRIMARY KEY (session_id, uuid)
) WITHOUT ROWID;
CREATE INDEX uuids_file ON uuids(file_id);
`;

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
  kind: FileKind;
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
  last_active: number;
  message_count: number;
  size_bytes: number;
  resumable: number;
  has_transcript: number;
  indexed: number;
  hidden: number;
  renamed: number;
}

export interface MessageCandidateRow {
  id: number;
  session_id: string;
  uuid: string | null;
  text: string;
}

export interface ProblemFileRow {
  path: string;
  state: FileState;
  problem: string | null;
  bad_lines: number;
  non_utf8_lines: number;
  long_lines: number;
}

export interface CandidateQuery {
  /** An FTS5 query over trigrams. */
  match: string;
  folder: string | null;
  /** Only messages with a smaller id (older), to page back through the candidates. */
  before: number;
  limit: number;
  /**
   * Words every candidate must hold, checked by SQLite (LIKE, which ignores the case of ASCII letters only),
   * so that messages holding a word's trigrams but not the word never leave the database.
   */
  words: string[];
}

export class IndexStore {
  private readonly db: Database.Database;
  private readonly patchStatements = new Map<string, Database.Statement>();
  /** Candidate queries by folder filter and number of words checked. */
  private readonly candidateStatements = new Map<
    string,
    Database.Statement<[Record<string, unknown>], MessageCandidateRow>
  >();
  private sequence = 0;
  private readonly statements;

  constructor(readonly path: string) {
    this.db = openIndex(path);
    const db = this.db;
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
      nextRead: db.prepare<[number], FileRow>(
        `SELECT * FROM files WHERE present = 1 AND needs_preview = 0 AND state IN ('reading', 'skipping')
           AND offset < size ORDER BY (size - offset > ?), mtime DESC LIMIT 1`,
      ),
      insertUuid: db.prepare('INSERT OR IGNORE INTO uuids (session_id, uuid, file_id) VALUES (?, ?, ?)'),
      hasUuid: db.prepare<[string, string], { one: number }>(
        'SELECT 1 AS one FROM uuids WHERE session_id = ? AND uuid = ?',
      ),
      insertMessage: db.prepare(
        'INSERT OR IGNORE INTO messages (id, file_id, session_id, uuid, text) VALUES (?, ?, ?, ?, ?)',
      ),
      appendMessage: db.prepare('INSERT INTO messages (file_id, session_id, uuid, text) VALUES (?, ?, ?, ?)'),
      insertText: db.prepare('INSERT INTO message_text (rowid, text) VALUES (?, ?)'),
      deleteMessages: db.prepare('DELETE FROM messages WHERE file_id = ?'),
      deleteUuids: db.prepare('DELETE FROM uuids WHERE file_id = ?'),
      session: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE session_id = ?'),
      upsertSession: db.prepare(
        `INSERT OR REPLACE INTO sessions (session_id, title, cwd, git_branch, last_active, message_count,
           size_bytes, resumable, has_transcript, indexed, hidden, renamed)
         VALUES (@session_id, @title, @cwd, @git_branch, @last_active, @message_count, @size_bytes, @resumable,
           @has_transcript, @indexed, @hidden, @renamed)`,
      ),
      deleteSession: db.prepare('DELETE FROM sessions WHERE session_id = ?'),
      visibleSessions: db.prepare<[], SessionRow>(
        'SELECT * FROM sessions WHERE hidden = 0 ORDER BY last_active DESC',
      ),
      visibleSessionsIn: db.prepare<[string], SessionRow>(
        'SELECT * FROM sessions WHERE hidden = 0 AND cwd = ? ORDER BY last_active DESC',
      ),
      customizedSessions: db.prepare<[], { session_id: string }>(
        'SELECT session_id FROM sessions WHERE hidden = 1 OR renamed = 1',
      ),
      counts: db.prepare<[], { total: number; indexed: number | null }>(
        'SELECT COUNT(*) AS total, SUM(indexed) AS indexed FROM sessions WHERE hidden = 0',
      ),
      pendingWork: db.prepare<[], { one: number }>(
        `SELECT 1 AS one FROM files WHERE present = 1
           AND (needs_preview = 1 OR (state IN ('reading', 'skipping') AND offset < size)) LIMIT 1`,
      ),
      problemFiles: db.prepare<[number], ProblemFileRow>(
        `SELECT path, state, problem, bad_lines, non_utf8_lines, long_lines FROM files
           WHERE state = 'empty' OR problem IS NOT NULL OR bad_lines > 0 OR non_utf8_lines > 0 OR long_lines > 0
           ORDER BY path LIMIT ?`,
      ),
      sharedSessionFiles: db.prepare<[], FileRow>(
        `SELECT * FROM files WHERE kind = 'cli' AND present = 1 AND state != 'sidechain' AND session_id IN (
           SELECT session_id FROM files WHERE kind = 'cli' AND present = 1 AND state != 'sidechain'
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
    kind: FileKind;
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

  nextRead(smallRemainder: number): FileRow | undefined {
    return this.statements.nextRead.get(smallRemainder);
  }

  hasPendingWork(): boolean {
    return this.statements.pendingWork.get() !== undefined;
  }

  /** Indexes a message once per session: a uuid already seen (from another file of it) is skipped. */
  addMessage(fileId: number, sessionId: string, message: MessageRead & { time: number }): void {
    if (message.uuid !== null) {
      const fresh = this.statements.insertUuid.run(sessionId, message.uuid, fileId).changes > 0;
      if (!fresh) return;
    }
    if (message.text === null) return;
    const id = this.insertMessage(fileId, sessionId, message.uuid, message.text, message.time);
    this.statements.insertText.run(id, message.text);
  }

  private insertMessage(fileId: number, sessionId: string, uuid: string | null, text: string, time: number) {
    const ms = Math.min(Math.max(0, Math.floor(time)), LATEST_TIME);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const id = ms * IDS_PER_MS + (this.sequence++ % IDS_PER_MS);
      if (this.statements.insertMessage.run(id, fileId, sessionId, uuid, text).changes > 0) return id;
    }
    // A thousand messages in one millisecond: any free id will do.
    return this.statements.appendMessage.run(fileId, sessionId, uuid, text).lastInsertRowid;
  }

  /** Forgets everything read from a file (before it is read again from the start). */
  deleteFileData(fileId: number): void {
    // A trigger takes each message out of the full-text index too.
    this.statements.deleteMessages.run(fileId);
    this.statements.deleteUuids.run(fileId);
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

  visibleSessions(folder: string | null): SessionRow[] {
    return folder === null
      ? this.statements.visibleSessions.all()
      : this.statements.visibleSessionsIn.all(folder);
  }

  /** Sessions the index marks as renamed or hidden (to check against library.json when it opens). */
  customizedSessions(): string[] {
    return this.statements.customizedSessions.all().map((row) => row.session_id);
  }

  counts(): { total: number; indexed: number } {
    const row = this.statements.counts.get();
    return { total: row?.total ?? 0, indexed: row?.indexed ?? 0 };
  }

  problemFiles(limit: number): ProblemFileRow[] {
    return this.statements.problemFiles.all(limit);
  }

  /** CLI files that claim a session id another present CLI file claims too. */
  sharedSessionFiles(): FileRow[] {
    return this.statements.sharedSessionFiles.all();
  }

  /**
   * Messages of visible sessions that may match (they hold every trigram of the query), newest first, older
   * than `before`. The caller checks each one.
   */
  candidates(query: CandidateQuery): MessageCandidateRow[] {
    // Words with letters beyond ASCII are left to the caller's check: LIKE would miss their other case.
    const words = query.words.filter((word) => /^[\x20-\x7e]+$/.test(word));
    const key = `${query.folder === null ? 'all' : 'folder'}:${words.length}`;
    let statement = this.candidateStatements.get(key);
    if (!statement) {
      const likes = words.map((_, n) => ` AND m.text LIKE @word${n} ESCAPE '\\'`).join('');
      const inFolder = query.folder === null ? '' : ' AND s.cwd = @folder';
      statement = this.db.prepare<[Record<string, unknown>], MessageCandidateRow>(
        `${CANDIDATES}${inFolder}${likes} ORDER BY message_text.rowid DESC LIMIT @limit`,
      );
      this.candidateStatements.set(key, statement);
    }
    const params: Record<string, unknown> = { match: query.match, before: query.before, limit: query.limit };
    if (query.folder !== null) params.folder = query.folder;
    words.forEach((word, n) => {
      params[`word${n}`] = `%${word.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    });
    return statement.all(params);
  }
}

/** When a message was written, from its id. */
export function messageTime(id: number): number {
  return Math.floor(id / IDS_PER_MS);
}

const IDS_PER_MS = 1000;
/** Ids stay exact in a JavaScript number up to here (the year 2096). */
const LATEST_TIME = 4e12;

const CANDIDATES = `
  SELECT m.id AS id, m.session_id AS session_id, m.uuid AS uuid, m.text AS text
  FROM message_text
    JOIN messages m ON m.id = message_text.rowid
    JOIN sessions s ON s.session_id = m.session_id
  WHERE message_text MATCH @match AND message_text.rowid < @before AND s.hidden = 0`;

/** Opens the index, or, if it is damaged or of an older layout, deletes it and starts a new one. */
function openIndex(path: string): Database.Database {
  try {
    return openAs(path);
  } catch {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    return openAs(path);
  }
}

/**
 * Under `npm start` with Electron, better-sqlite3 as compiled for Electron's ABI (scripts/start.mjs); elsewhere
 * the module's own build.
 */
const NATIVE_BINDING: Database.Options = process.env.BYRE_SQLITE_BINDING
  ? { nativeBinding: process.env.BYRE_SQLITE_BINDING }
  : {};

function openAs(path: string): Database.Database {
  let db = new Database(path, NATIVE_BINDING);
  try {
    if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      db = new Database(path, NATIVE_BINDING);
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
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
