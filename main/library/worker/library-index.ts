import { basename, dirname, join, relative, sep } from 'node:path';
import type { Family, ForkRecord } from '../../../shared/branches';
import type { LibraryProblem, LibraryRow, LibraryStatus, SearchHit } from '../../../shared/library';
import type { ConversationUsage, UsageReport } from '../../../shared/ipc/usage';
import { ForkRecords } from '../../data/fork-records';
import { LibraryChoices } from '../../data/library-choices';
import { describeError, errorCode, nodeFs, readAt, type FileStat, type LibraryFs } from '../../disk/files';
import { readFamily } from '../family';
import { hostOfCopyFolder, remoteCopiesDir } from '../remote-copies';
import { emptyFacts } from '../rules/entries';
import type { MessageUsage, UsageRead } from '../rules/usage';
import { familiesOf, familySource, toLibraryRow, type Families } from './families';
import type { SessionFiles, WindowUsage } from './messages';
import { DEFAULT_CLEANUP_PERIOD_DAYS, libraryProblems, readCleanupPeriodDays } from './problems';
import { ListedSessions } from './listed';
import { sameRow, sessionFiles, sessionRow } from './rows';
import { hash, readPreview, readWindow, STEP_BYTES, type TimedMessage } from './read';
import { searchIndex, type SearchRequest, type Superseded } from './search';
import { usageDayConversations, usageReport, windowUsage, type UsageQuery } from './usage-report';
import {
  IndexStore,
  SMALL_REMAINDER,
  type FamilyLinkRow,
  type FileRow,
  type IndexedKind,
  type ListedSessionRow,
} from './store';
import { InlineShards, type TextShards } from './text-shards';
import { defaultShardCount, shardOf, type TextOp } from './text-store';

/**
 * The library's index, in one plain synchronous class: it finds the session files, reads what is cheap first
 * (each file's head and tail, so rows are listable at once), then reads every file to its end in bounded
 * steps for the full-text index, and answers list, search and status from SQLite (the list a row per family
 * of branches; a family's tree is read from its files on request). It never holds a whole file in memory and
 * never edits one. The worker drives it (`scan`, `notice`, `step`) between requests.
 *
 * This class holds the index's state and files what is found; the work is in its own files: reading a file
 * (read.ts), a session's row (rows.ts), families (families.ts), search (search.ts) and problems (problems.ts).
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

/** A step previews at most this many new files. */
const PREVIEWS_PER_STEP = 16;
/** A step reads on in at most this many files (most are smaller than STEP_BYTES, some are empty). */
const FILES_PER_STEP = 64;

export class LibraryIndex {
  readonly transcriptsDir: string;
  readonly projectsDir: string;
  /** Where other hosts' sessions are copied to (remote-copies.ts). */
  readonly remoteDir: string;
  private readonly store: IndexStore;
  /** The list's rows, kept in step with the sessions table as rows are worked out again. */
  private readonly listed: ListedSessions;
  private familiesFrom: { links: FamilyLinkRow[]; records: ForkRecord[]; families: Families } | null = null;
  /** Each session row's list row, as last made (a refreshed session row is a new object). */
  private readonly libraryRows = new WeakMap<ListedSessionRow, LibraryRow>();
  private readonly text: TextShards;
  /** What the current transaction has for each text shard, kept once it commits. */
  private outbox: TextOp[][];
  /**
   * What committed transactions had for the shards, sent together once it is large enough or the index has
   * nothing more to read: a shard's writer builds its full-text index fastest from large transactions.
   */
  private unsent: TextOp[][];
  private unsentBytes = 0;
  /** Transactions open (one inside another is a savepoint). */
  private transactions = 0;
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
  /** The index took in usage since `takeUsageChanged` was last asked. */
  private usageGrew = false;
  private cleanupPeriodDays = DEFAULT_CLEANUP_PERIOD_DAYS;
  /** Sessions whose row must be worked out again from their files. */
  private readonly dirty = new Set<string>();

  constructor(private readonly options: LibraryIndexOptions) {
    this.transcriptsDir = join(options.dataDir, 'transcripts');
    this.projectsDir = join(options.configDir, 'projects');
    this.remoteDir = remoteCopiesDir(options.dataDir);
    this.fs = options.fs ?? nodeFs;
    this.now = options.now ?? Date.now;
    this.choices = new LibraryChoices(options.dataDir);
    this.forks = new ForkRecords(options.dataDir);
    this.forkRecords = this.readForkRecords();
    this.store = new IndexStore(options.dataDir, options.textShardCount ?? defaultShardCount());
    this.listed = new ListedSessions(this.store);
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
    // One inside another is a savepoint: if it fails, only what it gave the shards is dropped.
    const kept = this.outbox.map((ops) => ops.length);
    let result: T;
    this.transactions += 1;
    try {
      result = this.store.transaction(work);
    } catch (error) {
      this.outbox.forEach((ops, shard) => ops.splice(kept[shard] ?? 0));
      this.listed.clear();
      throw error;
    } finally {
      this.transactions -= 1;
    }
    if (this.transactions > 0) return result;
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

  /** Whether the index took in usage since the last call (for the `usageChanged` event). */
  takeUsageChanged(): boolean {
    const grew = this.usageGrew;
    this.usageGrew = false;
    return grew;
  }

  // Finding files

  /** Lists both folders and stats every file: new and changed files are queued, gone ones marked. */
  scan(): void {
    const problems: LibraryProblem[] = [];
    const found = new Map<string, IndexedKind>();
    for (const entry of this.listFolder(this.transcriptsDir, problems)) {
      if (entry.isFile() && entry.name.endsWith('.jsonl'))
        found.set(join(this.transcriptsDir, entry.name), 'transcript');
    }
    this.findCliFiles(this.projectsDir, found, problems);
    // Other hosts' sessions, as the library copied them (main/remote/library-pull.ts).
    for (const host of this.listFolder(this.remoteDir, problems)) {
      if (host.isDirectory() && hostOfCopyFolder(host.name) !== null)
        this.findCliFiles(join(this.remoteDir, host.name, 'projects'), found, problems);
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

  /** The CLI's files in a projects folder: sessions at the top level of each project's folder, and subagents'. */
  private findCliFiles(projectsDir: string, found: Map<string, IndexedKind>, problems: LibraryProblem[]) {
    for (const project of this.listFolder(projectsDir, problems)) {
      if (!project.isDirectory()) continue;
      const folder = join(projectsDir, project.name);
      // Sessions at the top level; subagents' files in <session>/subagents/, read for their usage only.
      for (const entry of this.listFolder(folder, problems)) {
        if (entry.isFile() && entry.name.endsWith('.jsonl')) found.set(join(folder, entry.name), 'cli');
        if (!entry.isDirectory()) continue;
        for (const path of this.subagentFiles(join(folder, entry.name), problems))
          found.set(path, 'subagent');
      }
    }
  }

  /**
   * Stats just these paths (a watcher saw them change); paths that are not session files are ignored. A
   * session file's subagents are looked at with it: they are not watched (one watch each would be too many),
   * and the session's file grows when one of them hands back.
   */
  notice(paths: Iterable<string>): void {
    this.transaction(() => {
      for (const path of paths) {
        const kind = this.kindOf(path);
        if (kind) this.noticeFile(path, kind);
        if (kind !== 'cli') continue;
        const sessionFolder = join(dirname(path), basename(path, '.jsonl'));
        for (const subagent of this.subagentFiles(sessionFolder, [])) this.noticeFile(subagent, 'subagent');
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

  private kindOf(path: string): IndexedKind | null {
    if (!path.endsWith('.jsonl')) return null;
    if (dirname(path) === this.transcriptsDir) return 'transcript';
    let inProjects = relative(this.projectsDir, path).split(sep);
    if (inProjects[0] === '..') {
      // A host's copied projects folder: <remote>/<host>/projects/…
      if (this.hostOfPath(path) === null) return null;
      inProjects = relative(this.remoteDir, path).split(sep).slice(2);
    }
    if (inProjects.length === 4 && inProjects[2] === SUBAGENTS) return 'subagent';
    return inProjects.length === 2 ? 'cli' : null;
  }

  /** The host a file is a copy from (under remoteDir), as the user named it; null: this computer's. */
  private hostOfPath(path: string): string | null {
    const inRemote = relative(this.remoteDir, path).split(sep);
    if (inRemote[0] === '..' || inRemote[1] !== 'projects' || inRemote.length < 3) return null;
    return hostOfCopyFolder(inRemote[0] ?? '');
  }

  /** The subagents' transcripts in a session's own folder (`<session>/subagents/*.jsonl`). */
  private subagentFiles(sessionFolder: string, problems: LibraryProblem[]): string[] {
    const folder = join(sessionFolder, SUBAGENTS);
    return this.listFolder(folder, problems)
      .filter((file) => file.isFile() && file.name.endsWith('.jsonl'))
      .map((file) => join(folder, file.name));
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

  private noticeFile(path: string, kind: IndexedKind): void {
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
      const sessionId = sessionOfPath(path, kind);
      this.store.insertFile({
        path,
        kind,
        session_id: sessionId,
        size: stat.size,
        mtime: stat.mtimeMs,
        state: stat.size === 0 ? 'empty' : 'reading',
        // A subagent's file gives its session no title or folder: there is nothing to preview.
        needs_preview: stat.size === 0 || kind === 'subagent' ? 0 : 1,
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
      needs_preview:
        row.kind !== 'subagent' && stat.size > 0 && (offset === 0 || stat.size - offset > SMALL_REMAINDER)
          ? 1
          : 0,
    });
    this.touch(row.session_id);
  }

  /** Forgets what was read from a file, to read it again from the start. */
  private reset(row: FileRow, withSiblings: boolean): void {
    this.store.forgetUuids(row.id);
    this.store.forgetUsage(row.id);
    this.outbox[shardOf(row.id, this.store.textShards)]?.push({ op: 'forget', fileId: row.id });
    this.store.updateFile(row.id, {
      offset: 0,
      head_len: 0,
      head_hash: '',
      state: 'reading',
      needs_preview: row.kind === 'subagent' ? 0 : 1,
      facts: JSON.stringify(emptyFacts(row.kind === 'transcript' ? null : row.session_id)),
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
    const next = this.store.nextRead();
    if (next) this.transaction(() => this.readOn(next));
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
    const kind = row.kind;
    if (kind === 'subagent') {
      this.store.updateFile(row.id, { needs_preview: 0 });
      return;
    }
    this.withFile(row, (fd) => {
      const { preview, sessionId, sidechain } = readPreview(this.fs, fd, { ...row, kind });
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

  /**
   * A step's full read: STEP_BYTES from where the last step stopped, of the next file and, if it ends sooner,
   * of the files after it, in one transaction (each file's read a savepoint of its own, which a failure
   * rolls back alone): most session files are smaller than a step, and a commit each was a good part of the
   * index's time. A file whose read ends otherwise (it failed, is a subagent's or has no session id) ends the
   * step.
   */
  private readOn(first: FileRow): void {
    let bytes = 0;
    let row: FileRow | undefined = first;
    for (let files = 0; row && files < FILES_PER_STEP; files++) {
      bytes += this.readMore(row);
      if (bytes >= STEP_BYTES) return;
      row = this.store.nextRead();
    }
  }

  /** The full read of a few MB of one file, each message into the full-text index; the bytes it read on. */
  private readMore(row: FileRow): number {
    let bytes = STEP_BYTES;
    this.withFile(row, (fd) => {
      bytes = this.transaction(() => this.readWindow(fd, row));
    });
    return bytes;
  }

  private readWindow(fd: number, row: FileRow): number {
    const read = readWindow(this.fs, fd, row, (sessionId, message) =>
      this.addMessage(row.id, sessionId, message),
    );
    if (read.read === 'sidechain') {
      this.store.updateFile(row.id, { state: 'sidechain', preview: null });
      this.touch(row.session_id);
      this.recomputeDirty();
      return STEP_BYTES;
    }
    if (read.read === 'no-session') {
      // Nothing to file it under: leave it unread until it changes.
      this.store.updateFile(row.id, {
        state: 'no-session',
        preview: null,
        problem: read.eof ? null : 'No session id was found in its first 64 MB; it was skipped.',
      });
      this.changed = true;
      return STEP_BYTES;
    }
    this.store.updateFile(row.id, read.patch);
    this.fileUsage(row.id, read.sessionId, read.usage);
    if (read.usage.length > 0) this.usageGrew = true;
    this.outbox[shardOf(row.id, this.store.textShards)]?.push({
      op: 'mark',
      fileId: row.id,
      offset: read.end,
    });
    if (row.session_id !== null && row.session_id !== read.sessionId) this.touch(row.session_id);
    this.touch(read.sessionId);
    this.recomputeDirty();
    return read.end - row.offset;
  }

  /**
   * Files a window's usage. The CLI writes a line per content block of an API message, each with the
   * message's usage so far: of a message's lines only the one putUsageMessage would keep (the last of those
   * that say most) is written, so that the usage triggers run once a message rather than once a block. A
   * turn's cost is filed where it comes, after the messages before it.
   */
  private fileUsage(fileId: number, sessionId: string, usage: UsageRead[]): void {
    const messages = new Map<string, MessageUsage>();
    const flush = () => {
      for (const message of messages.values()) this.store.putUsageMessage(fileId, sessionId, message);
      messages.clear();
    };
    for (const used of usage) {
      if (used.kind === 'turn') {
        flush();
        this.store.putUsageTurn(fileId, sessionId, used);
        continue;
      }
      const kept = messages.get(used.key);
      if (!kept || saysAsMuch(used, kept)) messages.set(used.key, used);
    }
    flush();
  }

  // Sessions

  private recomputeDirty(): void {
    for (const sessionId of this.dirty) this.recompute(sessionId);
    this.dirty.clear();
  }

  /** Works out a session's row from all its files (rows.ts); one that holds no conversation is dropped. */
  private recompute(sessionId: string): void {
    const before = this.store.session(sessionId);
    const row = sessionRow(this.store, this.choices, sessionId, (path) => this.hostOfPath(path));
    if (row === null) {
      if (before) {
        this.store.deleteSession(sessionId);
        this.changed = true;
        this.listed.refresh(sessionId);
      }
      return;
    }
    // The row may be the same while its cost is not (its usage grew): the list's copy is read again.
    if (!before || !sameRow(before, row)) {
      this.store.putSession(row);
      this.changed = true;
    }
    this.listed.refresh(sessionId);
  }

  // Answers

  /**
   * A row per family, newest first: the family's most recently active branch, so that opening it carries on
   * where the user was.
   */
  list(folder: string | null = null, limit = Infinity): LibraryRow[] {
    const families = this.families();
    const shown = new Set<string>();
    const rows: LibraryRow[] = [];
    for (const session of this.listed.visible(folder)) {
      if (rows.length >= limit) break;
      const row = this.libraryRow(session, families);
      if (shown.has(row.familyKey)) continue;
      shown.add(row.familyKey);
      rows.push(row);
    }
    return rows;
  }

  /** One session's row, whichever branch of its family it is (the list shows only the newest). */
  row(sessionId: string): LibraryRow | null {
    const session = this.store.listedSession(sessionId);
    return session ? toLibraryRow(session, this.families()) : null;
  }

  /** The families, worked out again only when a session's link or Byre's records of its forks changed. */
  private families(): Families {
    const links = this.listed.links();
    if (this.familiesFrom?.links !== links || this.familiesFrom.records !== this.forkRecords) {
      this.familiesFrom = { links, records: this.forkRecords, families: familiesOf(links, this.forkRecords) };
    }
    return this.familiesFrom.families;
  }

  /** A session's row as the list shows it, made again only when its session row or its family changed. */
  private libraryRow(session: ListedSessionRow, families: Families): LibraryRow {
    const made = this.libraryRows.get(session);
    const familyKey = families.rootOf.get(session.session_id) ?? session.session_id;
    if (
      made &&
      made.familyKey === familyKey &&
      made.branchCount === (families.branchCount.get(familyKey) ?? 1)
    )
      return made;
    const row = toLibraryRow(session, families);
    this.libraryRows.set(session, row);
    return row;
  }

  /** Every branch of the family `sessionId` belongs to, read from its sessions' files. */
  async family(sessionId: string): Promise<Family> {
    return readFamily(familySource(this.store, this.forkRecords, sessionId), this.fs);
  }

  /**
   * Titles and messages that hold every word of the query (as substrings, ignoring case). Title matches lead
   * (a title is what a person remembers), newest first; then messages, ranked by a BM25 score lifted for
   * recent ones. A session shows a few hits at most.
   */
  search(request: SearchRequest, superseded?: Superseded): SearchHit[] {
    return searchIndex(this.store, request, this.now, superseded);
  }

  /** The Usage view's figures, from the usage sums the index keeps as it reads (usage-report.ts). */
  usageReport(query: UsageQuery): UsageReport {
    return usageReport(this.store, query, this.now(), !this.status().done);
  }

  /** The conversations with usage on one local day, most costly first. */
  usageDayConversations(query: {
    day: string;
    folder: string | null;
    timeZone: string;
  }): ConversationUsage[] {
    return usageDayConversations(this.store, query);
  }

  /** The usage since `since` (ms), by conversation, most tokens first (usage-report.ts). */
  windowUsage(since: number): WindowUsage {
    return windowUsage(this.store, since);
  }

  status(): LibraryStatus {
    const counts = this.listed.counts();
    return {
      indexed: counts.indexed,
      total: counts.total,
      done: this.scanned && !this.store.hasPendingWork() && this.textIdle(),
      problems: libraryProblems(this.store, this.scanProblems),
      cleanupPeriodDays: this.cleanupPeriodDays,
      projectsDir: this.projectsDir,
    };
  }

  /** The files of one session, for opening, exporting or resuming it; transcripts oldest first. */
  files(sessionId: string): SessionFiles | null {
    if (!this.store.session(sessionId)) return null;
    const present = () => sessionFiles(this.store, sessionId).filter((file) => file.row.present === 1);
    const cliFile =
      present().find((file) => file.row.kind === 'cli')?.row.path ?? this.unreadCliFile(sessionId);
    let session = this.store.session(sessionId);
    if (session?.cwd === null) {
      // Asked for before its files were read far enough to say its folder (a CLI file found on the way,
      // a transcript listed before its init line): read them now, since the folder is what a resume or a
      // fork needs, or it would be refused as not saying one. Rare, and only this session's files.
      this.readSessionNow(sessionId);
      session = this.store.session(sessionId);
    }
    if (!session) return null;
    return {
      cliFile,
      transcripts: present()
        .filter((file) => file.row.kind === 'transcript')
        .map((file) => file.row.path),
      cwd: session.cwd,
      title: session.title,
      host: session.host,
    };
  }

  /** Previews and reads a session's own files to their end, at once (see files()). */
  private readSessionNow(sessionId: string): void {
    for (const listed of this.store.filesOfSession(sessionId)) {
      if (listed.present !== 1 || listed.kind === 'subagent') continue;
      if (listed.needs_preview === 1) this.preview(listed);
      for (
        let row = this.store.fileById(listed.id);
        row && readingOn(row);
        row = this.store.fileById(listed.id)
      ) {
        const before = row.offset;
        this.readMore(row);
        // A read that could not go on (a failure, marked on the file) ends here.
        if ((this.store.fileById(listed.id)?.offset ?? before) <= before) break;
      }
    }
    this.transaction(() => this.recomputeDirty());
  }

  /**
   * The CLI's file of a session that the index has not taken in yet (the CLI wrote it a moment ago, and the
   * watcher has not said so), looked for in every project folder, since the CLI's folder name for a path is
   * its own affair. Noticed on the way, so the next scan need not find it. Without this, a conversation
   * closed and resumed at once was refused as if Claude Code had deleted its copy.
   */
  private unreadCliFile(sessionId: string): string | null {
    for (const project of this.listFolder(this.projectsDir, [])) {
      if (!project.isDirectory()) continue;
      const path = join(this.projectsDir, project.name, `${sessionId}.jsonl`);
      try {
        if (!this.fs.stat(path).isFile()) continue;
      } catch {
        continue;
      }
      this.transaction(() => {
        this.noticeFile(path, 'cli');
        this.recomputeDirty();
      });
      return path;
    }
    return null;
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

/** A file the full read has more of to do. */
function readingOn(row: FileRow): boolean {
  return (
    (row.state === 'reading' || row.state === 'skipping') && row.needs_preview === 0 && row.offset < row.size
  );
}

/** The folder under a session's own folder where the CLI writes its subagents' transcripts. */
const SUBAGENTS = 'subagents';

/**
 * The session a file is of, by its path where the path says: a CLI file is named by its session id, and a
 * subagent's file lives in `<session id>/subagents/`. A transcript says its session id inside.
 */
function sessionOfPath(path: string, kind: IndexedKind): string | null {
  if (kind === 'cli') return basename(path, '.jsonl');
  if (kind === 'subagent') return basename(dirname(dirname(path)));
  return null;
}

/** Text gathered for the shards before it is sent (a few thousand messages). */
const TEXT_SEND_BYTES = 2 * 1024 * 1024;

/** Whether `next` says at least as much as `kept` (as putUsageMessage compares them: output, then the rest). */
function saysAsMuch(next: MessageUsage, kept: MessageUsage): boolean {
  const rest = (usage: MessageUsage) => usage.input + usage.cacheWrite + usage.cacheRead;
  return next.output > kept.output || (next.output === kept.output && rest(next) >= rest(kept));
}

function emptyOutbox(shards: number): TextOp[][] {
  return Array.from({ length: shards }, () => []);
}

function isGone(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
