/**
 * The library of past conversations, as it crosses from main to the renderer: a row per session (the list
 * shows one per family of branches), from Byre's own transcripts and the CLI's session files together;
 * search hits; how far indexing has got; and the files that could not be read. Pure schemas, no Node or DOM.
 */
import { z } from 'zod';

export const SessionId = z.string().min(1).max(200);

export const LibraryRow = z.object({
  sessionId: SessionId,
  /** By the title rules (main/library/titles.ts), or the user's own name for it. */
  title: z.string(),
  /** The folder the session ran in, from its entries' `cwd`; null where no entry says. */
  cwd: z.string().nullable(),
  gitBranch: z.string().nullable(),
  /** The host Byre ran it on over ssh, as the user named it; absent: this computer. */
  host: z.string().nullable().optional(),
  /** When it was last active, ms since the epoch (the last entry's timestamp, else the file's mtime). */
  lastActive: z.number(),
  /** User and assistant messages of the main thread. */
  messageCount: z.number().int().nonnegative(),
  /** Bytes on disk, all of the session's files together. */
  sizeBytes: z.number().int().nonnegative(),
  /** The CLI's session file is there, so the session can be resumed. */
  resumable: z.boolean(),
  /** Byre has a transcript of it (it opens even after the CLI has cleaned its copy up). */
  hasTranscript: z.boolean(),
  /**
   * Branches in its family (forks, and rewinds inside a CLI file); 1 for a lone session. The list shows a
   * family once, as its most recently active branch.
   */
  branchCount: z.number().int().positive(),
  /** The family it belongs to: the session id of the family's root. */
  familyKey: SessionId,
  /**
   * What it cost, all its messages (subagents' too): the CLI's own figure where Byre's transcript has it,
   * else estimated from the pricing table; `usd` null when nothing of it could be priced. The same rules as
   * the Usage view's, so the two never disagree.
   */
  cost: z.object({
    usd: z.number().nonnegative().nullable(),
    estimated: z.boolean(),
  }),
});
export type LibraryRow = z.infer<typeof LibraryRow>;

/** A file the library could not read (or read only in part), and why, in words a person understands. */
export const LibraryProblem = z.object({ path: z.string(), reason: z.string() });
export type LibraryProblem = z.infer<typeof LibraryProblem>;

export const LibraryStatus = z.object({
  /** Conversations whose full text is in the search index, of all that are listed. */
  indexed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** Every known file has been read to its end. */
  done: z.boolean(),
  problems: z.array(LibraryProblem),
  /** The CLI's `cleanupPeriodDays` (30 when unset): how long it keeps its own session files. */
  cleanupPeriodDays: z.number(),
  /** Where the CLI's session files are read from. */
  projectsDir: z.string(),
});
export type LibraryStatus = z.infer<typeof LibraryStatus>;

/** Where a match is marked inside a snippet: the text between these is highlighted, nothing else is markup. */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

export const SearchHit = z.object({
  sessionId: SessionId,
  title: z.string(),
  cwd: z.string().nullable(),
  lastActive: z.number(),
  /** The matching message's text around the match, with the match between MATCH_START and MATCH_END. */
  snippet: z.string(),
  /** The uuid of the message that matched, to open the conversation there; null if the title matched. */
  messageUuid: z.string().nullable(),
});
export type SearchHit = z.infer<typeof SearchHit>;

/** One file of an export, as main builds it. */
export const ExportFile = z.object({
  name: z.string(),
  mediaType: z.string(),
  encoding: z.enum(['utf8', 'base64']),
  data: z.string(),
});
export type ExportFile = z.infer<typeof ExportFile>;

/** 32 random bytes, base64url: a download the browser host offers once (main/downloads.ts). */
export const DownloadId = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/**
 * Where an export went. It can be hundreds of MB, so it never travels as a reply: under Electron main
 * writes it where the user chose in the save dialog; under the browser host the page downloads each file
 * once from the host, by an id that only a proof of the token opens (shared/bridge-auth.ts).
 */
export const ExportDelivery = z.discriminatedUnion('way', [
  /** The first file where the user chose, the others (images of a Markdown export) beside it. */
  z.object({ way: z.literal('saved'), paths: z.array(z.string()) }),
  z.object({ way: z.literal('cancelled') }),
  z.object({ way: z.literal('download'), files: z.array(z.object({ name: z.string(), id: DownloadId })) }),
]);
export type ExportDelivery = z.infer<typeof ExportDelivery>;
