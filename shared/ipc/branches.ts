/**
 * Rewind and branches: restoring files to before a message, and forking a session into a branch of its own
 * (DESIGN.md, "Rewind and branches").
 */
import { z } from 'zod';
import { IMAGE_LIMITS } from '../images';
import { SessionId } from '../library';
import { ConversationSnapshot } from './conversation';
import { ShownImage } from './intake';
import { SessionTarget, Uuid } from './refs';

/** What restoring would do to one file: the lines it would add and remove. */
export const FileChange = z.object({
  path: z.string(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /**
   * Changed by a shell command (or by anything but Claude's file tools), which the CLI's checkpoints miss:
   * restored from Byre's snapshot of the folder (the Changes panel's), not by the CLI.
   */
  byCommand: z.boolean().default(false),
});
export type FileChange = z.infer<typeof FileChange>;

/** What restoring files to just before a user message would change (a dry run), or did change. */
export const FileRewind = z.object({
  canRewind: z.boolean(),
  /** Absolute paths. */
  filesChanged: z.array(z.string()),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  /**
   * The same per file, in the order of `filesChanged` (a dry run only), or null where they could not be
   * worked out so that they add up to the totals (main's rewind preview).
   */
  fileChanges: z.array(FileChange).nullable(),
  /** Of `filesChanged`, those Byre's snapshots restore because the CLI's checkpoints do not cover them. */
  byCommand: z.array(z.string()).default([]),
  /** Why nothing can be restored, in words a person understands; null when it can. */
  reason: z.string().nullable(),
});
export type FileRewind = z.infer<typeof FileRewind>;

/** A message's text and images, as the first message of a turn carries them. */
const MessageBody = z
  .object({
    text: z.string().max(1_000_000),
    /** A message sent again (after a rewind, say) may name its images by reference. */
    images: z.array(ShownImage).max(IMAGE_LIMITS.maxImagesPerTurn).default([]),
  })
  .refine(
    (request) => request.text.trim().length > 0 || request.images.length > 0,
    'A message needs text or an image.',
  )
  .refine(
    (request) =>
      request.images.reduce((sum, image) => sum + image.data.length, 0) <= IMAGE_LIMITS.maxTurnBase64Length,
    'The images of one message are too large together.',
  );

export const branchChannels = {
  /**
   * Restores files to just before a user message, in the session that made their checkpoints (with
   * `dryRun`, only says what it would change). A saved session with no process gets one for the call.
   */
  rewindFiles: {
    request: z.object({ target: SessionTarget, userMessageUuid: Uuid, dryRun: z.boolean() }),
    response: FileRewind,
  },
  /**
   * A new branch: a new CLI process that carries on `from` after the entry `at` (`--resume
   * --resume-session-at --fork-session`; `at` null starts afresh in the same folder), in a conversation of
   * its own, and sends it its first message. The original session is left untouched.
   */
  forkConversation: {
    request: z.object({ from: SessionTarget, at: Uuid.nullable(), message: MessageBody }),
    response: z.object({ snapshot: ConversationSnapshot, uuid: Uuid, parentSessionId: SessionId }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
