/**
 * The library's channels: every past conversation, its branches, search, and a saved conversation read,
 * resumed, renamed, hidden or exported.
 */
import { z } from 'zod';
import { Family } from '../branches';
import { ExportDelivery, LibraryRow, LibraryStatus, SearchHit, SessionId } from '../library';
import { Lane } from './app';
import { ConversationEvent, ConversationSnapshot, TerminalSize } from './conversation';
import { Empty } from './refs';

/** A page of a saved conversation: its events in file order, and where the page before it ends (null: none). */
const SavedPage = z.object({
  events: z.array(z.lazy(() => ConversationEvent)),
  before: z.string().nullable(),
  /** Lines that could not be read and were left out. */
  skipped: z.number().int().nonnegative(),
});

export const libraryChannels = {
  /** Every past conversation Byre knows of, newest first; optionally only those of one folder. */
  libraryList: {
    /**
     * `limit`: at most this many rows, the newest (the window's first screen, asked before the whole list
     * so that it shows at once).
     */
    request: z.object({
      folder: z.string().max(4096).nullable().optional(),
      limit: z.number().int().positive().max(100_000).optional(),
    }),
    response: z.object({ rows: z.array(LibraryRow) }),
  },
  /** How far indexing has got, and the files that could not be read. */
  libraryStatus: { request: Empty, response: LibraryStatus },
  /** Every branch of the family a saved conversation belongs to (Byre's forks, the CLI's, in-file rewinds). */
  libraryFamily: { request: z.object({ sessionId: SessionId }), response: Family },
  /**
   * Full-text search across every conversation, best first. Search as you type: `part: 'titles'` answers
   * the conversations whose titles match at once, `all` (the default) then adds the messages. A `searcher`
   * (one per search box) numbers its searches with `seq`: a higher number supersedes every search it has
   * running, which stops and fails with SearchSuperseded; the same number (titles, then all) shares one.
   */
  librarySearch: {
    request: z.object({
      query: z.string().min(1).max(500),
      folder: z.string().max(4096).nullable().optional(),
      part: z.enum(['titles', 'all']).optional(),
      searcher: z.string().min(1).max(100).optional(),
      seq: z.number().int().nonnegative().optional(),
    }),
    response: z.object({ hits: z.array(SearchHit) }),
  },
  /** A saved conversation's last screenful, read-only; `before` fetches the page before it. */
  openSaved: {
    request: z.object({ sessionId: SessionId }),
    response: SavedPage.extend({ row: LibraryRow }),
  },
  /**
   * A branch inside one CLI file (a rewind the CLI made in place): the entries on the chain that ends at
   * `leafUuid`, read-only, as one page (`before` is null).
   */
  openSavedBranch: {
    request: z.object({ sessionId: SessionId, leafUuid: z.string().min(1).max(200) }),
    response: SavedPage.extend({ row: LibraryRow }),
  },
  /** The page of a saved conversation that ends where `before` says. */
  openSavedBefore: {
    request: z.object({ sessionId: SessionId, before: z.string().max(10_000) }),
    response: SavedPage,
  },
  /** Continues a saved conversation in a new CLI process (`--resume`), in a tab of its own. */
  resumeSaved: {
    request: z.object({
      sessionId: SessionId,
      /** The lane to go on in; absent: the one it last ran in (a session Byre never ran: the default). */
      lane: Lane.optional(),
      /** A Terminal conversation's first size. */
      size: TerminalSize.optional(),
    }),
    response: ConversationSnapshot,
  },
  /**
   * When the CLI's copy is gone and `--resume` cannot work: a new conversation in the same folder whose first
   * message carries the old one as context.
   */
  continueSaved: { request: z.object({ sessionId: SessionId }), response: ConversationSnapshot },
  /** Renames a conversation in Byre's own data; the CLI's files are never edited. */
  renameSaved: {
    request: z.object({ sessionId: SessionId, title: z.string().trim().min(1).max(200) }),
    response: Empty,
  },
  /** Removes a conversation from Byre's list; its files stay where they are. */
  hideSaved: { request: z.object({ sessionId: SessionId }), response: Empty },
  exportSaved: {
    request: z.object({ sessionId: SessionId, format: z.enum(['markdown', 'jsonl']) }),
    response: ExportDelivery,
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
