import { z } from 'zod';
import { Family } from '../../../shared/branches';
import { LibraryRow, LibraryStatus, SearchHit, SessionId } from '../../../shared/library';
import { SEARCH_LANES } from '../search-lanes';
import { UsageRange, UsageReport, ConversationUsage, usageChannels } from '../../../shared/ipc/usage';

/**
 * The messages between main and the library's worker thread, checked with zod on both sides: main trusts
 * no structured clone blindly, and the worker answers only requests it understands.
 */

export const WorkerSetup = z.object({
  dataDir: z.string().min(1),
  /** The CLI's config folder ($CLAUDE_CONFIG_DIR or ~/.claude). */
  configDir: z.string().min(1),
  /** How often everything is looked at again, in case a watcher missed a change (default a minute). */
  rescanMs: z.number().int().positive().optional(),
  /** The searchers' lanes (search-lanes.ts): where main says a search has been superseded. */
  lanes: z.instanceof(SharedArrayBuffer).optional(),
});
export type WorkerSetup = z.infer<typeof WorkerSetup>;

export const DEFAULT_SEARCH_LIMIT = 50;

const Folder = z.string().max(4096).nullable();

export const LibraryRequest = z.discriminatedUnion('op', [
  z.object({ op: z.literal('list'), folder: Folder, limit: z.number().int().positive().optional() }),
  z.object({
    op: z.literal('search'),
    query: z.string().max(1000),
    folder: Folder,
    limit: z.number().int().positive().max(1000),
    /** `titles`: only the conversations whose titles match (answered at once); `all`: titles, then messages. */
    part: z.enum(['titles', 'all']),
    /** Its lane and generation, if a newer search of the same searcher can supersede it. */
    ticket: z
      .object({
        lane: z
          .number()
          .int()
          .nonnegative()
          .max(SEARCH_LANES - 1),
        generation: z.number().int().positive(),
      })
      .optional(),
  }),
  z.object({ op: z.literal('status') }),
  z.object({ op: z.literal('files'), sessionId: SessionId }),
  z.object({ op: z.literal('rename'), sessionId: SessionId, title: z.string().max(1000) }),
  z.object({ op: z.literal('hide'), sessionId: SessionId }),
  z.object({ op: z.literal('row'), sessionId: SessionId }),
  z.object({ op: z.literal('family'), sessionId: SessionId }),
  z.object({
    op: z.literal('usageReport'),
    range: UsageRange,
    folder: Folder,
    timeZone: z.string().max(100),
  }),
  z.object({
    op: z.literal('usageDay'),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    folder: Folder,
    timeZone: z.string().max(100),
  }),
  z.object({ op: z.literal('windowUsage'), since: z.number().nonnegative() }),
]);
export type LibraryRequest = z.infer<typeof LibraryRequest>;
export type LibraryOp = LibraryRequest['op'];

export const SessionFiles = z.object({
  cliFile: z.string().nullable(),
  transcripts: z.array(z.string()),
  cwd: z.string().nullable(),
  title: z.string(),
  /** The host Byre ran it on over ssh: its CLI's file is there. Null: this computer. */
  host: z.string().nullable().optional(),
});
export type SessionFiles = z.infer<typeof SessionFiles>;

/** The usage since a limit window began, as the channel answers it. */
const WindowUsage = usageChannels.windowUsage.response;
export type WindowUsage = z.infer<typeof WindowUsage>;

/** What each request answers. */
export const replies = {
  list: z.array(LibraryRow),
  search: z.array(SearchHit),
  status: LibraryStatus,
  files: SessionFiles.nullable(),
  rename: z.null(),
  hide: z.null(),
  row: LibraryRow.nullable(),
  family: Family,
  usageReport: UsageReport,
  usageDay: z.array(ConversationUsage),
  windowUsage: WindowUsage,
} satisfies Record<LibraryOp, z.ZodType>;
export type Reply<Op extends LibraryOp> = z.infer<(typeof replies)[Op]>;

/** The library knows no session by that id. Its name crosses from the worker, and on to the renderer. */
export class NoSuchSession extends Error {
  override readonly name = 'NoSuchSession';
}

export const ToWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request'), id: z.number().int(), request: LibraryRequest }),
  z.object({ type: z.literal('refresh') }),
  z.object({ type: z.literal('close') }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

export const FromWorker = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reply'), id: z.number().int(), value: z.unknown() }),
  z.object({
    type: z.literal('failure'),
    id: z.number().int(),
    error: z.object({ name: z.string(), message: z.string() }),
  }),
  /** Rows or status changed (already throttled by the worker); `usage`: the index took in usage too. */
  z.object({ type: z.literal('changed'), usage: z.boolean().optional() }),
  /** Something went wrong outside any request; the worker carries on. */
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({ type: z.literal('closed') }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
