import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { familyRoot, sessionParents } from '../../../shared/branch-model';
import type { Family, ForkRecord } from '../../../shared/branches';
import { parseJsonLine } from '../../../shared/json-line';
import {
  MATCH_END,
  MATCH_START,
  type LibraryProblem,
  type LibraryRow,
  type LibraryStatus,
  type SearchHit,
} from '../../../shared/library';
import { ForkRecords } from '../../data/fork-records';
import { LibraryChoices } from '../../data/library-choices';
import {
  emptyFacts,
  FileFacts,
  isSidechainStart,
  MESSAGE_TEXT_CHARS,
  readEntry,
  type FileKind,
  type MessageRead,
} from '../rules/entries';
import {
  CHUNK_BYTES,
  describeError,
  errorCode,
  MAX_LINE_BYTES,
  nodeFs,
  readAt,
  readLines,
  type FileStat,
  type LibraryFs,
} from '../../disk/files';
import { readFamily, type FamilySource } from '../family';
import { DEFAULT_SEARCH_LIMIT, NoSuchSession, type SessionFiles } from './messages';
import {
  containsAll,
  markMatches,
  occurrences,
  parseQuery,
  snippetAround,
  type ParsedQuery,
} from '../rules/query';
import {
  IndexStore,
  type FilePatch,
  type FileRow,
  type FileState,
  type MessageCandidateRow,
  type SessionRow,
} from './store';
import { InlineShards, type TextShards } from './text-shards';
import { defaultShardCount, messageTime, shardOf, type TextOp } from './text-store';
import { shortenStrings } from '../../claude/shorten';
import { chooseTitle } from '../rules/titles';

/**
 * The library's index, in one plain synchronous class: it finds the session files, reads what is cheap first
 * (each file's head and tail, so rows are listable at once), then reads every file to its end in bounded
 * steps for the full-text index, and answers list, search and status from SQLite (the list a row per family
 * of branches; a family's tree is read from its files on request). It never holds a whole file in memory and
 * never edits one. The worker drives it (`scan`, `notice`, `step`) between requests.
 */

export interface LibraryIndexOptions {
  dataDir: string;
  /** The CLI's config folder: $CLAUDE_CONFIG_DIR, or ~/.claude. */
  configDir: string;
  fs?: LibraryFs;
  now?: () => number;
  /** Where message texts are written (the full-text index); by default, inline in this thread. */
  textShards?: (dataDir: string, shards: number) => TextShards;
  /** How many text shards a new index gets (default: one for each core but one). */
  textShardCount?: number;
}

export interface SearchRequest {
  query: string;
  folder?: string | null;
  limit?: number;
}

/** How much of a file's start and end gives its title, folder, branch and last activity (as the SDK reads). */
const PREVIEW_BYTES = 64 * 1024;
/** A rewrite is noticed by a changed hash of this much of the file's start. */
const HASH_BYTES = 4096;
/** A reading step reads about this much before the worker answers requests again. */
const STEP_BYTES = 2 * CHUNK_BYTES;
const PREVIEWS_PER_STEP = 16;
/** A file with less than this left to read skips the preview and is read at once (and first). */
const SMALL_REMAINDER = CHUNK_BYTES;
/** How far into a transcript its session id is looked for before giving up. */
const SESSION_ID_SEARCH_BYTES = 64 * 1024 * 1024;
/** A session shows at most this many hits, so one long conversation cannot fill the results. */
const HITS_PER_SESSION = 3;
const MAX_PROBLEMS = 200;
/** Search: candidates are read this many at a time, up to a limit, until enough match to rank. */
const CANDIDATE_PAGE = 500;
const MAX_CANDIDATES = 5000;
const RANKED_MATCHES = 250;
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_CLEANUP_PERIOD_DAYS = 30;

const Preview = z.object({
  facts: FileFacts,
  /** The file's size when it was previewed. */
  sizeAt: z.number(),
  /** Bytes the preview read, to estimate the message count from. */
  sampled: z.number(),
});
type Preview = z.infer<typeof Preview>;

type TimedMessage = MessageRead & { time: number };

interface SessionFile {
  row: FileRow;
  facts: FileFacts;
}

/** Which family each session belongs to (by its root's session id), and how many branches each family has. */
interface Families {
  rootOf: Map<string, string>;
  branchCount: Map<string, number>;
}

export class LibraryIndex {
  readonly transcriptsDir: string;
  readonly projectsDir: string;
  private readonly store: IndexStore;
  private readonly text: TextShards;
  /** What the current transaction has for each text shard, kept once it commits. */
  private outbox: TextOp[][];
  /**
   * What committed transactions had for the shards, sent together once it is large enough or the index has
   * nothing more to read: a shard's writer builds its full-text index fastest from large transactions.
   */
  private unsent: TextOp[][];
  private unsentBytes = 0;
  private textWasIdle = true;
  private readonly choices: LibraryChoices;
  private readonly forks: ForkRecords;
  /** Byre's records of its forks, as `branches.json` said at the last scan. */
  private forkRecords: ForkRecord[];
  private readonly fs: LibraryFs;
  private readonly now: () => number;
  private scanProblems: LibraryProblem[] = [];
  private scanned = false;
  private changed = false;
  private cleanupPeriodDays = DEFAULT_CLEANUP_PERIOD_DAYS;
  /** Sessions whose row must be worked out again from their files. */
  private readonly dirty = new Set<string>();

  constructor(private readonly options: LibraryIndexOptions) {
    this.transcriptsDir = join(options.dataDir, 'transcripts');
    this.projectsDir = join(options.configDir, 'projects');
    this.fs = options.fs ?? nodeFs;
    this.now = options.now ?? Date.now;
    this.choices = new LibraryChoices(options.dataDir);
    this.forks = new ForkRecords(options.dataDir);
    this.forkRecords = this.readForkRecords();
    this.store = new IndexStore(options.dataDir, options.textShardCount ?? defaultShardCount());
    const shards = this.store.textShards;
    this.outbox = emptyOutbox(shards);
    this.unsent = emptyOutbox(shards);
    this.text = options.textShards?.(options.dataDir, shards) ?? new InlineShards(options.dataDir, shards);
    // library.json is the truth for renames and hidden sessions; the index may be older or newer.
    this.transaction(() => {
      this.resetFilesOutOfStep();
      for (const id of new Set([...this.choices.sessionIds(), ...this.store.customizedSessions()])) {
        this.dirty.add(id);
      }
      this.recomputeDirty();
    });
  }

  /** Closes the index at once; the promise settles once the text shards have written what they were sent. */
  close(): Promise<void> {
    this.store.close();
    this.sendText();
    return this.text.close();
  }

  /** Runs `work` in one transaction of the main index; what it gave the text shards is sent once it commits. */
  private transaction<T>(work: () => T): T {
    let result: T;
    try {
      result = this.store.transaction(work);
    } catch (error) {
      this.outbox = emptyOutbox(this.store.textShards);
      throw error;
    }
    this.outbox.forEach((ops, shard) => {
      for (const op of ops) {
        this.unsent[shard]?.push(op);
        this.unsentBytes += op.op === 'add' ? op.text.length + op.output.length : 0;
      }
    });
    this.outbox = emptyOutbox(this.store.textShards);
    if (this.unsentBytes >= TEXT_SEND_BYTES) this.sendText();
    return result;
  }

  private sendText(): void {
    const ops = this.unsent;
    this.unsent = emptyOutbox(this.store.textShards);
    this.unsentBytes = 0;
    if (ops.some((batch) => batch.length > 0)) this.text.send(ops);
  }

  /** Whether the shards have written everything the index gave them. */
  private textIdle(): boolean {
    return this.unsent.every((ops) => ops.length === 0) && this.text.idle();
  }

  /**
   * Files read further than their shard has written (the app stopped, or a shard's writer failed, before it
   * caught up) are read again from the start.
   */
  private resetFilesOutOfStep(): void {
    for (const row of this.store.filesOutOfStepWithShards()) this.reset(row, false);
  }

  /** A shard's writer lost what it had been sent: check every file against the shards again. */
  repairText(): void {
    this.transaction(() => {
      this.resetFilesOutOfStep();
      this.recomputeDirty();
    });
  }

  private addMessage(fileId: number, sessionId: string, message: TimedMessage): void {
    const claimed = this.store.claimMessage(fileId, sessionId, message.uuid);
    if (!claimed || (message.text === null && message.output === null)) return;
    this.outbox[shardOf(fileId, this.store.textShards)]?.push({
      op: 'add',
      fileId,
      sessionId,
      uuid: message.uuid,
      text: message.text ?? '',
      output: message.output ?? '',
      time: message.time,
    });
  }

  /** Whether rows or status changed since the last call. */
  takeChanged(): boolean {
    const textIdle = this.textIdle();
    if (textIdle !== this.textWasIdle) this.changed = true;
    this.textWasIdle = textIdle;
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  // Finding files

  /** Lists both folders and stats every file: new and changed files are queued, gone ones marked. */
  scan(): void {
    const problems: LibraryProblem[] = [];
    const found = new Map<string, FileKind>();
    for (const entry of this.listFolder(this.transcriptsDir, problems)) {
      if (entry.isFile() && entry.name.endsWith('.jsonl'))
        found.set(join(this.transcriptsDir, entry.name), 'transcript');
    }
    for (const project of this.listFolder(this.projectsDir, problems)) {
      if (!project.isDirectory()) continue;
      const folder = join(this.projectsDir, project.name);
      // Only the top level: subagents' files live in <session>/subagents/ below it.
      for (const entry of this.listFolder(folder, problems)) {
        if (entry.isFile() && entry.name.endsWith('.jsonl')) found.set(join(folder, entry.name), 'cli');
      }
    }
    this.cleanupPeriodDays = readCleanupPeriodDays(this.options.configDir);
    // Byre records a fork, then asks for a refresh: the list's families may have changed.
    const records = this.readForkRecords();
    if (JSON.stringify(records) !== JSON.stringify(this.forkRecords)) this.changed = true;
    this.forkRecords = records;
    this.transaction(() => {
      for (const [path, kind] of found) this.noticeFile(path, kind);
      for (const known of this.store.presentFiles()) {
        if (!found.has(known.path)) this.noticeFile(known.path, known.kind);
      }
      this.recomputeDirty();
    });
    if (JSON.stringify(problems) !== JSON.stringify(this.scanProblems)) this.changed = true;
    this.scanProblems = problems;
    if (!this.scanned) this.changed = true;
    this.scanned = true;
  }

  /** Stats just these paths (a watcher saw them change); paths that are not session files are ignored. */
  notice(paths: Iterable<string>): void {
    this.transaction(() => {
      for (const path of paths) {
        const kind = this.kindOf(path);
        if (kind) this.noticeFile(path, kind);
      }
      this.recomputeDirty();
    });
  }

  /** `branches.json`: none when it is missing, cannot be read or is damaged (the files still make families). */
  private readForkRecords(): ForkRecord[] {
    try {
      return this.forks.list();
    } catch {
      return [];
    }
  }

  private kindOf(path: string): FileKind | null {
    if (!path.endsWith('.jsonl')) return null;
    if (dirname(path) === this.transcriptsDir) return 'transcript';
    const inProjects = relative(this.projectsDir, path).split(sep);
    return inProjects.length === 2 && inProjects[0] !== '..' ? 'cli' : null;
  }

  private listFolder(folder: string, problems: LibraryProblem[]) {
    try {
      return this.fs.readdir(folder);
    } catch (error) {
      // A folder that does not exist yet is no problem: nothing has been written there.
      if (errorCode(error) !== 'ENOENT') {
        problems.push({ path: folder, reason: `This folder could not be read: ${describeError(error)}.` });
      }
      return [];
    }
  }

  private noticeFile(path: string, kind: FileKind): void {
    const row = this.store.file(path);
    let stat: FileStat;
    try {
      stat = this.fs.stat(path);
    } catch (error) {
      if (row && isGone(error)) this.markGone(row);
      return;
    }
    if (!stat.isFile()) {
      if (row) this.markGone(row);
      return;
    }
    if (!row) {
      const sessionId = kind === 'cli' ? basename(path, '.jsonl') : null;
      this.store.insertFile({
        path,
        kind,
        session_id: sessionId,
        size: stat.size,
        mtime: stat.mtimeMs,
        state: stat.size === 0 ? 'empty' : 'reading',
        needs_preview: stat.size === 0 ? 0 : 1,
        facts: JSON.stringify(emptyFacts(sessionId)),
      });
      this.changed = true;
      return;
    }
    if (row.present === 1 && row.size === stat.size && row.mtime === stat.mtimeMs) return;
    this.fileChanged(row, stat);
  }

  private fileChanged(row: FileRow, stat: FileStat): void {
    let rewritten = stat.size < row.offset || !['reading', 'skipping', 'tail'].includes(row.state);
    if (!rewritten && row.head_len > 0) {
      try {
        rewritten = this.hashHead(row.path, row.head_len) !== row.head_hash;
      } catch (error) {
        if (isGone(error)) this.markGone(row);
        else this.markUnreadable(row, error);
        return;
      }
    }
    if (rewritten) this.reset(row, true);
    const offset = rewritten ? 0 : row.offset;
    this.store.updateFile(row.id, {
      present: 1,
      size: stat.size,
      mtime: stat.mtimeMs,
      problem: null,
      state: stat.size === 0 ? 'empty' : rewritten || row.state === 'tail' ? 'reading' : row.state,
      needs_preview: stat.size > 0 && (offset === 0 || stat.size - offset > SMALL_REMAINDER) ? 1 : 0,
    });
    this.touch(row.session_id);
  }

  /** Forgets what was read from a file, to read it again from the start. */
  private reset(row: FileRow, withSiblings: boolean): void {
    this.store.forgetUuids(row.id);
    this.outbox[shardOf(row.id, this.store.textShards)]?.push({ op: 'forget', fileId: row.id });
    this.store.updateFile(row.id, {
      offset: 0,
      head_len: 0,
      head_hash: '',
      state: 'reading',
      needs_preview: 1,
      facts: JSON.stringify(emptyFacts(row.kind === 'cli' ? row.session_id : null)),
      preview: null,
      problem: null,
      bad_lines: 0,
      non_utf8_lines: 0,
      long_lines: 0,
    });
    this.touch(row.session_id);
    if (!withSiblings || row.session_id === null) return;
    // A message both files held was indexed once, under whichever file came first: read them all again.
    for (const sibling of this.store.filesOfSession(row.session_id)) {
      if (sibling.id !== row.id && sibling.present === 1 && sibling.offset > 0) this.reset(sibling, false);
    }
  }

  private markGone(row: FileRow): void {
    if (row.present === 0) return;
    const unfinished = ['reading', 'skipping'].includes(row.state) && row.offset < row.size;
    this.store.updateFile(row.id, {
      present: 0,
      needs_preview: 0,
      problem: unfinished ? 'It was deleted before it was read to the end; what was read is kept.' : null,
    });
    this.touch(row.session_id);
  }

  private markUnreadable(row: FileRow, error: unknown): void {
    this.store.updateFile(row.id, {
      state: 'unreadable',
      needs_preview: 0,
      problem: `It could not be read: ${describeError(error)}.`,
    });
    this.touch(row.session_id);
  }

  private readFailed(row: FileRow, error: unknown): void {
    this.transaction(() => {
      if (isGone(error)) this.markGone(row);
      else this.markUnreadable(row, error);
      this.recomputeDirty();
    });
  }

  private touch(sessionId: string | null): void {
    if (sessionId !== null) this.dirty.add(sessionId);
    this.changed = true;
  }

  private hashHead(path: string, length: number): string {
    const fd = this.fs.open(path);
    try {
      return hash(readAt(this.fs, fd, 0, length));
    } finally {
      this.fs.close(fd);
    }
  }

  // Reading files

  /** Does one bounded piece of work: previews of a few new files, or a few MB of one file. */
  step(): boolean {
    // The shards' writers are behind: wait for them (they wake the loop) rather than pile up text.
    if (this.text.backlogged()) return false;
    const previews = this.store.previewQueue(PREVIEWS_PER_STEP);
    if (previews.length > 0) {
      for (const row of previews) this.preview(row);
      this.transaction(() => this.recomputeDirty());
      return true;
    }
    const next = this.store.nextRead(SMALL_REMAINDER);
    if (next) this.readMore(next);
    if (next && this.store.hasPendingWork()) return true;
    // Nothing more to read for now: what was read goes to the shards, however little.
    this.sendText();
    return false;
  }

  /**
   * The cheap read: the first and last 64 KB of a file give its session's title, folder, branch and last
   * activity, and a message count estimated from their density. The full read replaces it.
   */
  private preview(row: FileRow): void {
    this.withFile(row, (fd) => {
      const lines = this.sampleLines(fd, row);
      const facts = emptyFacts(row.kind === 'cli' ? row.session_id : null);
      const uuids = new Set<string>();
      let sidechain = false;
      lines.values.forEach((value, index) => {
        if (index === 0 && lines.fromStart && isSidechainStart(row.kind, value)) sidechain = true;
        const read = readEntry(row.kind, value, facts);
        if (read?.uuid) uuids.add(read.uuid);
      });
      facts.summaries = facts.summaries
        .filter((summary) => uuids.has(summary.leafUuid))
        .map((summary) => ({ ...summary, verified: true }));
      const preview: Preview = { facts, sizeAt: row.size, sampled: lines.bytes };
      const sessionId = row.session_id ?? facts.sessionId;
      this.transaction(() => {
        this.store.updateFile(row.id, {
          needs_preview: 0,
          preview: JSON.stringify(preview),
          session_id: sessionId,
          ...(sidechain ? { state: 'sidechain' as const } : {}),
        });
      });
      this.touch(sessionId);
    });
  }

  /** Runs `read` on the open file; a file that cannot be opened or read is marked with why. */
  private withFile(row: FileRow, read: (fd: number) => void): void {
    let fd: number;
    try {
      fd = this.fs.open(row.path);
    } catch (error) {
      this.readFailed(row, error);
      return;
    }
    try {
      read(fd);
    } catch (error) {
      this.readFailed(row, error);
    } finally {
      this.fs.close(fd);
    }
  }

  /** The parsed lines of a file's head (if it has not been read yet) and tail. */
  private sampleLines(fd: number, row: FileRow): { values: unknown[]; bytes: number; fromStart: boolean } {
    const fromStart = row.offset === 0;
    const head = fromStart ? readAt(this.fs, fd, 0, Math.min(row.size, PREVIEW_BYTES)) : Buffer.alloc(0);
    const headEnd = fromStart ? head.length : row.offset;
    const tailStart = Math.max(headEnd, row.size - PREVIEW_BYTES);
    const tail =
      tailStart < row.size ? readAt(this.fs, fd, tailStart, row.size - tailStart) : Buffer.alloc(0);
    let texts: string[];
    if (tailStart === headEnd) {
      texts = Buffer.concat([head, tail]).toString('utf8').split('\n');
    } else {
      // The head's last line and the tail's first are cut by the window: both are left out.
      texts = [
        ...head.toString('utf8').split('\n').slice(0, -1),
        ...tail.toString('utf8').split('\n').slice(1),
      ];
    }
    const values: unknown[] = [];
    for (const line of texts) {
      const value = parseLine(line);
      if (value !== undefined) values.push(value);
    }
    return { values, bytes: head.length + tail.length, fromStart };
  }

  /** The full read: a few MB from where the last step stopped, each message into the full-text index. */
  private readMore(row: FileRow): void {
    this.withFile(row, (fd) => this.transaction(() => this.readWindow(fd, row)));
  }

  private readWindow(fd: number, row: FileRow): void {
    const facts = FileFacts.parse(JSON.parse(row.facts));
    // A transcript's session id comes in the CLI's first answer; the preview has usually seen it already.
    facts.sessionId ??= row.session_id;
    let badLines = row.bad_lines;
    let nonUtf8Lines = row.non_utf8_lines;
    let sidechain = false;
    const held: TimedMessage[] = [];
    const index = (message: TimedMessage) => {
      if (facts.sessionId === null) {
        held.push(message);
        return;
      }
      for (const earlier of held.splice(0)) this.addMessage(row.id, facts.sessionId, earlier);
      this.addMessage(row.id, facts.sessionId, message);
    };
    const window = readLines(
      {
        fs: this.fs,
        fd,
        from: row.offset,
        budget: facts.sessionId === null ? SESSION_ID_SEARCH_BYTES : STEP_BYTES,
        skipping: row.state === 'skipping',
      },
      (line, start) => {
        if (!isUtf8(line)) nonUtf8Lines += 1;
        // Only the start of a long string is indexed (MESSAGE_TEXT_CHARS at most): the rest need not be parsed.
        const text = (
          line.length > LONG_LINE_BYTES ? shortenStrings(line, KEPT_STRING_BYTES) : line
        ).toString('utf8');
        if (text.trim() === '') return true;
        const value = parseLine(text);
        if (value === undefined) {
          badLines += 1;
          return true;
        }
        if (start === 0 && isSidechainStart(row.kind, value)) {
          sidechain = true;
          return false;
        }
        const read = readEntry(row.kind, value, facts);
        if (read) index({ ...read, time: read.time ?? row.mtime });
        return true;
      },
    );
    if (sidechain) {
      this.store.updateFile(row.id, { state: 'sidechain', preview: null });
      this.touch(row.session_id);
      this.recomputeDirty();
      return;
    }
    if (facts.sessionId === null) {
      // Nothing to file it under: leave it unread until it changes.
      this.store.updateFile(row.id, {
        state: 'no-session',
        preview: null,
        problem: window.eof ? null : 'No session id was found in its first 64 MB; it was skipped.',
      });
      this.changed = true;
      return;
    }
    for (const earlier of held.splice(0)) this.addMessage(row.id, facts.sessionId, earlier);
    const hashLength = Math.min(HASH_BYTES, window.end);
    const patch: FilePatch = {
      offset: window.end,
      state: window.skipping ? 'skipping' : window.eof && window.end < row.size ? 'tail' : 'reading',
      facts: JSON.stringify(facts),
      session_id: facts.sessionId,
      bad_lines: badLines,
      non_utf8_lines: nonUtf8Lines,
      long_lines: row.long_lines + window.longLines,
      ...(window.end >= row.size ? { preview: null } : {}),
      ...(hashLength > row.head_len
        ? { head_len: hashLength, head_hash: hash(readAt(this.fs, fd, 0, hashLength)) }
        : {}),
    };
    this.store.updateFile(row.id, patch);
    this.outbox[shardOf(row.id, this.store.textShards)]?.push({
      op: 'mark',
      fileId: row.id,
      offset: window.end,
    });
    if (row.session_id !== null && row.session_id !== facts.sessionId) this.touch(row.session_id);
    this.touch(facts.sessionId);
    this.recomputeDirty();
  }

  // Sessions

  private recomputeDirty(): void {
    for (const sessionId of this.dirty) this.recompute(sessionId);
    this.dirty.clear();
  }

  /** Works out a session's row from all its files (one row per session id, whatever holds it). */
  private recompute(sessionId: string): void {
    const files = this.sessionFiles(sessionId);
    const cli = files.filter((file) => file.row.kind === 'cli');
    const transcripts = files.filter((file) => file.row.kind === 'transcript');
    const primary = cli[0];
    const conversational = files.some(({ facts }) => facts.messages > 0 || hasTitle(facts));
    if (!conversational) {
      if (this.store.session(sessionId)) {
        this.store.deleteSession(sessionId);
        this.changed = true;
      }
      return;
    }
    const first = <T>(pick: (facts: FileFacts) => T | null): T | null => {
      for (const file of [...cli, ...transcripts]) {
        const value = pick(file.facts);
        if (value !== null) return value;
      }
      return null;
    };
    // set_title is "the last one said": the newest transcript that has one, else the CLI file's tool call.
    const setTitle =
      [...transcripts].reverse().find((file) => file.facts.setTitle !== null)?.facts.setTitle ??
      first((facts) => facts.setTitle);
    const rename = this.choices.rename(sessionId);
    const title = chooseTitle({
      rename,
      setTitle,
      customTitle: first((facts) => facts.customTitle),
      aiTitle: first((facts) => facts.aiTitle),
      summary: primary ? this.verifiedSummary(sessionId, primary.facts) : null,
      firstPrompt: first((facts) => facts.firstPrompt),
      commandFallback: first((facts) => facts.commandFallback),
    });
    const present = files.filter((file) => file.row.present === 1);
    const transcriptMessages = transcripts.reduce((sum, file) => sum + file.facts.messages, 0);
    const row: SessionRow = {
      session_id: sessionId,
      title,
      cwd: first((facts) => facts.cwd),
      git_branch: primary?.facts.gitBranch ?? null,
      last_active: Math.max(...files.map((file) => file.facts.lastActive ?? file.row.mtime)),
      message_count: Math.max(primary?.facts.messages ?? 0, transcriptMessages),
      size_bytes: present.reduce((sum, file) => sum + file.row.size, 0),
      resumable: cli.some((file) => file.row.present === 1) ? 1 : 0,
      has_transcript: transcripts.some((file) => file.row.present === 1) ? 1 : 0,
      indexed: present.every((file) => isRead(file.row)) ? 1 : 0,
      hidden: this.choices.isHidden(sessionId) ? 1 : 0,
      renamed: rename === null ? 0 : 1,
      forked_from: primary?.facts.forkedFrom?.sessionId ?? null,
      rewinds: primary?.facts.rewinds ?? 0,
    };
    const before = this.store.session(sessionId);
    if (before && sameRow(before, row)) return;
    this.store.putSession(row);
    this.changed = true;
  }

  /**
   * A session's files with what each says so far: CLI files first (the one in use first: present, newest),
   * then transcripts, oldest first. Subagents' files are not the session's.
   */
  private sessionFiles(sessionId: string): SessionFile[] {
    const files = this.store
      .filesOfSession(sessionId)
      .filter((row) => row.state !== 'sidechain')
      .map((row) => ({ row, facts: effectiveFacts(row) }));
    const order = (a: SessionFile, b: SessionFile) => {
      if (a.row.kind !== b.row.kind) return a.row.kind === 'cli' ? -1 : 1;
      if (a.row.kind === 'cli') return b.row.present - a.row.present || b.row.mtime - a.row.mtime;
      return (
        (a.facts.firstActive ?? a.row.mtime) - (b.facts.firstActive ?? b.row.mtime) ||
        a.row.path.localeCompare(b.row.path)
      );
    };
    return files.sort(order);
  }

  private verifiedSummary(sessionId: string, facts: FileFacts): string | null {
    for (const summary of [...facts.summaries].reverse()) {
      if (summary.verified || this.store.hasUuid(sessionId, summary.leafUuid)) return summary.summary;
    }
    return null;
  }

  // Answers

  /**
   * A row per family, newest first: the family's most recently active branch, so that opening it carries on
   * where the user was.
   */
  list(folder: string | null = null): LibraryRow[] {
    const families = this.families();
    const shown = new Set<string>();
    const rows: LibraryRow[] = [];
    for (const session of this.store.visibleSessions(folder)) {
      const row = toLibraryRow(session, families);
      if (shown.has(row.familyKey)) continue;
      shown.add(row.familyKey);
      rows.push(row);
    }
    return rows;
  }

  /** One session's row, whichever branch of its family it is (the list shows only the newest). */
  row(sessionId: string): LibraryRow | null {
    const session = this.store.session(sessionId);
    return session ? toLibraryRow(session, this.families()) : null;
  }

  /** Every branch of the family `sessionId` belongs to, read from its sessions' files. */
  async family(sessionId: string): Promise<Family> {
    return readFamily(this.familySource(sessionId), this.fs);
  }

  private familySource(sessionId: string): FamilySource {
    const { rootOf } = this.families();
    const root = rootOf.get(sessionId);
    if (root === undefined) throw new NoSuchSession('That conversation is not in the library.');
    const members = [...rootOf].filter(([, rootId]) => rootId === root).map(([member]) => member);
    const sessions = members.flatMap((member) => {
      const session = this.store.session(member);
      if (!session) return [];
      const files = this.sessionFiles(member).filter((file) => file.row.present === 1);
      return [
        {
          sessionId: member,
          title: session.title,
          resumable: session.resumable === 1,
          lastActive: session.last_active,
          cliFile: files.find((file) => file.row.kind === 'cli')?.row.path ?? null,
          transcripts: files.filter((file) => file.row.kind === 'transcript').map((file) => file.row.path),
        },
      ];
    });
    const inFamily = new Set(members);
    return { sessionId, sessions, records: this.forkRecords.filter((fork) => inFamily.has(fork.sessionId)) };
  }

  /** Families from Byre's records and the CLI's `forkedFrom`; hidden sessions still link their family. */
  private families(): Families {
    const links = this.store.familyLinks();
    const parents = sessionParents(
      links.map((link) => ({ sessionId: link.session_id, forkedFromSessionId: link.forked_from })),
      this.forkRecords,
    );
    const rootOf = new Map<string, string>();
    const branchCount = new Map<string, number>();
    for (const link of links) {
      const root = familyRoot(parents, link.session_id);
      rootOf.set(link.session_id, root);
      branchCount.set(root, (branchCount.get(root) ?? 0) + 1 + link.rewinds);
    }
    return { rootOf, branchCount };
  }

  /**
   * Titles and messages that hold every word of the query (as substrings, ignoring case). Title matches lead
   * (a title is what a person remembers), newest first; then messages, ranked by a BM25 score lifted for
   * recent ones. A session shows a few hits at most.
   */
  search(request: SearchRequest): SearchHit[] {
    const query = parseQuery(request.query);
    if (query.terms.length === 0) return [];
    const limit = Math.max(1, Math.min(request.limit ?? DEFAULT_SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT));
    const folder = request.folder ?? null;
    const sessions = this.store.visibleSessions(folder);
    const byId = new Map(sessions.map((session) => [session.session_id, session]));
    const titleHits = sessions
      .filter((session) => containsAll(session.title, query.terms))
      .map((session) => ({ session, uuid: null, text: null }));
    const messageHits = this.matchingMessages(query, folder).flatMap((message) => {
      const session = byId.get(message.session_id);
      return session ? [{ session, uuid: message.uuid, text: message.text }] : [];
    });
    const hits: SearchHit[] = [];
    const perSession = new Map<string, number>();
    const seen = new Set<string>();
    for (const { session, uuid, text } of [...titleHits, ...messageHits]) {
      const key = `${session.session_id}\n${uuid}`;
      const count = perSession.get(session.session_id) ?? 0;
      if (seen.has(key) || count >= HITS_PER_SESSION) continue;
      seen.add(key);
      perSession.set(session.session_id, count + 1);
      hits.push({
        sessionId: session.session_id,
        title: session.title,
        cwd: session.cwd,
        lastActive: session.last_active,
        snippet:
          text === null
            ? markMatches(session.title, query.terms, MATCH_START, MATCH_END)
            : snippetAround(markMatches(text, query.terms, MATCH_START, MATCH_END), MATCH_START, MATCH_END),
        messageUuid: uuid,
      });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /**
   * The messages that hold every word, best first. The indexes give candidates newest first, a page at a
   * time; each is checked, and the newest few hundred that match are ranked (BM25's term frequency and
   * length, times a lift for recent messages). FTS5's own bm25() is not used: to weigh a word it reads every
   * message that has it, which for a common word in a large library takes far longer than a search may.
   */
  private matchingMessages(query: ParsedQuery, folder: string | null): MessageCandidateRow[] {
    if (query.match === null && query.words === null) return [];
    const found: MessageCandidateRow[] = [];
    let before = Number.MAX_SAFE_INTEGER;
    for (let scanned = 0; scanned < MAX_CANDIDATES && found.length < RANKED_MATCHES;) {
      const page = this.store.candidates({
        match: query.match,
        wordMatch: query.words,
        folder,
        before,
        limit: CANDIDATE_PAGE,
        words: query.terms,
      });
      for (const row of page) if (containsAll(row.text, query.terms)) found.push(row);
      scanned += page.length;
      const last = page.at(-1);
      if (!last || page.length < CANDIDATE_PAGE) break;
      before = last.id;
    }
    const averageLength = found.reduce((sum, row) => sum + row.text.length, 0) / Math.max(1, found.length);
    const now = this.now();
    const scored = found.map((row) => {
      const folded = row.text.toLowerCase();
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * row.text.length) / averageLength);
      const relevance = query.terms.reduce((sum, term) => {
        const count = occurrences(folded, term);
        return sum + (count * (BM25_K1 + 1)) / (count + norm);
      }, 0);
      const age = Math.max(0, now - messageTime(row.id));
      return { row, score: relevance * (1 + 1 / (1 + age / WEEK_MS)) };
    });
    return scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id).map(({ row }) => row);
  }

  status(): LibraryStatus {
    const counts = this.store.counts();
    const problems = [...this.scanProblems, ...this.fileProblems(), ...this.sharedSessionProblems()];
    return {
      indexed: counts.indexed,
      total: counts.total,
      done: this.scanned && !this.store.hasPendingWork() && this.textIdle(),
      problems: problems.slice(0, MAX_PROBLEMS),
      cleanupPeriodDays: this.cleanupPeriodDays,
      projectsDir: this.projectsDir,
    };
  }

  private fileProblems(): LibraryProblem[] {
    return this.store.problemFiles(MAX_PROBLEMS).map((file) => {
      const reasons: string[] = [];
      if (file.state === 'empty') reasons.push('The file is empty; it was skipped.');
      if (file.problem) reasons.push(file.problem);
      if (file.bad_lines > 0) reasons.push(`${lines(file.bad_lines)} not JSON; skipped.`);
      if (file.non_utf8_lines > 0) {
        reasons.push(`${lines(file.non_utf8_lines)} not valid UTF-8; the unreadable bytes were replaced.`);
      }
      if (file.long_lines > 0) {
        reasons.push(`${lines(file.long_lines)} longer than ${MAX_LINE_BYTES / 1024 / 1024} MB; skipped.`);
      }
      return { path: file.path, reason: reasons.join(' ') };
    });
  }

  /** Two CLI files with one session id make one row; the one not in use is reported. */
  private sharedSessionProblems(): LibraryProblem[] {
    const bySession = new Map<string, FileRow[]>();
    for (const row of this.store.sharedSessionFiles()) {
      if (row.session_id !== null)
        bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row]);
    }
    return [...bySession.values()].flatMap((rows) => {
      const [used, ...others] = rows.sort((a, b) => b.mtime - a.mtime);
      if (!used) return [];
      return others.map((row) => ({
        path: row.path,
        reason: `Another file, ${used.path}, has the same session id (${row.session_id}); only that newer one is used.`,
      }));
    });
  }

  /** The files of one session, for opening, exporting or resuming it; transcripts oldest first. */
  files(sessionId: string): SessionFiles | null {
    const session = this.store.session(sessionId);
    if (!session) return null;
    const files = this.sessionFiles(sessionId).filter((file) => file.row.present === 1);
    return {
      cliFile: files.find((file) => file.row.kind === 'cli')?.row.path ?? null,
      transcripts: files.filter((file) => file.row.kind === 'transcript').map((file) => file.row.path),
      cwd: session.cwd,
      title: session.title,
    };
  }

  /** The user's own name for a session (an empty one gives the title back to the title rules). */
  rename(sessionId: string, title: string): void {
    this.choices.setRename(sessionId, title);
    this.touch(sessionId);
    this.transaction(() => this.recomputeDirty());
  }

  /** Takes a session off Byre's list; its files stay where they are. */
  hide(sessionId: string): void {
    this.choices.hide(sessionId);
    this.touch(sessionId);
    this.transaction(() => this.recomputeDirty());
  }
}

/** Lines longer than this have their long strings cut before they are parsed, to this many bytes. */
const LONG_LINE_BYTES = 64 * 1024;
const KEPT_STRING_BYTES = 2 * MESSAGE_TEXT_CHARS;

/** Text gathered for the shards before it is sent (a few thousand messages). */
const TEXT_SEND_BYTES = 2 * 1024 * 1024;

function emptyOutbox(shards: number): TextOp[][] {
  return Array.from({ length: shards }, () => []);
}

/**
 * What a file says so far: what the full read found up to its offset, completed by the preview of its head
 * and tail until the full read has gone past where the preview looked.
 */
export function effectiveFacts(row: Pick<FileRow, 'facts' | 'preview' | 'offset' | 'size'>): FileFacts {
  const full = FileFacts.parse(JSON.parse(row.facts));
  if (row.preview === null) return full;
  const preview = Preview.parse(JSON.parse(row.preview));
  if (row.offset >= preview.sizeAt) return full;
  const sampled = preview.facts;
  const density = preview.sampled > 0 ? sampled.messages / preview.sampled : 0;
  return {
    sessionId: full.sessionId ?? sampled.sessionId,
    cwd: full.cwd ?? sampled.cwd,
    gitBranch: sampled.gitBranch ?? full.gitBranch,
    firstActive: full.firstActive ?? sampled.firstActive,
    lastActive: maxOf(full.lastActive, sampled.lastActive),
    firstPrompt: full.firstPrompt ?? sampled.firstPrompt,
    commandFallback: full.commandFallback ?? sampled.commandFallback,
    setTitle: sampled.setTitle ?? full.setTitle,
    customTitle: sampled.customTitle ?? full.customTitle,
    aiTitle: sampled.aiTitle ?? full.aiTitle,
    summaries: [...full.summaries, ...sampled.summaries],
    messages: full.messages + Math.round(density * (row.size - row.offset)),
    lastAssistantId: full.lastAssistantId,
    forkedFrom: full.forkedFrom ?? sampled.forkedFrom,
    // A preview's lines are not contiguous: only the full read follows the chain.
    chainLeaf: full.chainLeaf,
    rewinds: full.rewinds,
  };
}

function hasTitle(facts: FileFacts): boolean {
  return facts.setTitle !== null || facts.customTitle !== null || facts.aiTitle !== null;
}

/** Read to its end, or nothing more will be read from it (until it changes). */
function isRead(row: FileRow): boolean {
  const states: FileState[] = ['reading', 'skipping'];
  return row.needs_preview === 0 && (!states.includes(row.state) || row.offset >= row.size);
}

function isGone(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function parseLine(line: string): unknown {
  if (line.trim() === '') return undefined;
  try {
    return parseJsonLine(line);
  } catch {
    return undefined;
  }
}

function hash(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function lines(count: number): string {
  return count === 1 ? '1 line is' : `${count} lines are`;
}

function sameRow(a: SessionRow, b: SessionRow): boolean {
  return (Object.keys(b) as (keyof SessionRow)[]).every((key) => a[key] === b[key]);
}

function toLibraryRow(row: SessionRow, families: Families): LibraryRow {
  const familyKey = families.rootOf.get(row.session_id) ?? row.session_id;
  return {
    sessionId: row.session_id,
    title: row.title,
    cwd: row.cwd,
    gitBranch: row.git_branch,
    lastActive: row.last_active,
    messageCount: row.message_count,
    sizeBytes: row.size_bytes,
    resumable: row.resumable === 1,
    hasTranscript: row.has_transcript === 1,
    branchCount: families.branchCount.get(familyKey) ?? 1,
    familyKey,
  };
}

/** The CLI's `cleanupPeriodDays` from its settings.json: how long it keeps session files. */
export function readCleanupPeriodDays(configDir: string): number {
  try {
    const settings: unknown = JSON.parse(readFileSync(join(configDir, 'settings.json'), 'utf8'));
    const parsed = z.object({ cleanupPeriodDays: z.number().nonnegative() }).safeParse(settings);
    return parsed.success ? parsed.data.cleanupPeriodDays : DEFAULT_CLEANUP_PERIOD_DAYS;
  } catch {
    return DEFAULT_CLEANUP_PERIOD_DAYS;
  }
}
