/**
 * What comes into a conversation from outside the CLI: images (checked, scaled, kept by reference), the
 * unsent draft, the @-file picker's matches, and the protocol inspector's transcript lines.
 */
import { z } from 'zod';
import { IMAGE_LIMITS, IMAGE_REF_PREFIX, MAX_IMAGE_FILE_BYTES } from '../images';

// Kept in the schema-free images module (a window reads them before it builds any schema); said here too.
export { IMAGE_REF_PREFIX, MAX_IMAGE_FILE_BYTES };
import { SessionId } from '../library';
import { ImageMediaType } from '../protocol';
import { ConversationId, ConversationRef } from './refs';

/** An image ready to send: checked and, where needed, scaled down by main. */
export const PreparedImage = z.object({
  name: z.string().max(1000),
  mediaType: ImageMediaType,
  data: z.base64().min(1),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  originalWidth: z.number().int().positive(),
  originalHeight: z.number().int().positive(),
  resized: z.boolean(),
});
export type PreparedImage = z.infer<typeof PreparedImage>;

/** An image in a turn, as the user line carries it. */
export const TurnImage = z.object({ mediaType: ImageMediaType, data: z.base64().min(1) });
export type TurnImage = z.infer<typeof TurnImage>;

/** An image as an event shows it: its base64, or a reference to it. */
export const ShownImage = z.object({
  mediaType: ImageMediaType,
  data: z.union([z.base64().min(1), z.string().regex(/^ref:[0-9a-f]{64}$/)]),
});

/** An image of an unsent draft, as main keeps it: by reference (a small one inline). */
export const DraftImage = PreparedImage.extend({ data: ShownImage.shape.data });
export type DraftImage = z.infer<typeof DraftImage>;

/**
 * The message being written in a conversation, kept in main so that a reload (or another window) finds it
 * where it was left: its text, and the images attached so far that are ready to send.
 */
export const SavedDraft = z.object({
  text: z.string().max(1_000_000),
  images: z.array(DraftImage).max(IMAGE_LIMITS.maxImagesPerTurn),
});
export type SavedDraft = z.infer<typeof SavedDraft>;
export const EMPTY_SAVED_DRAFT: SavedDraft = { text: '', images: [] };

/** A path in a conversation's folder and where the query's characters fell in it (to show them). */
export const FileMatch = z.object({ path: z.string(), indexes: z.array(z.number().int().nonnegative()) });
export type FileMatch = z.infer<typeof FileMatch>;

/** One line of a transcript, for the protocol inspector: which file and line, its direction and its JSON. */
export const ProtocolLine = z.object({
  /** Index in the session's transcripts, oldest first. */
  file: z.number().int().nonnegative(),
  line: z.number().int().positive(),
  dir: z.enum(['send', 'recv', 'byre']),
  /** `assistant`, `system/init`, `control_request/can_use_tool`… */
  type: z.string(),
  text: z.string(),
  /** What was cut or changed to show it, in words (the transcript has it whole); null: shown whole. */
  cut: z.string().nullable(),
});
export type ProtocolLine = z.infer<typeof ProtocolLine>;

export const ProtocolLinesRequest = z.object({
  target: z.union([z.object({ conversationId: ConversationId }), z.object({ sessionId: SessionId })]),
  /** The message the lines are behind; null: the whole session. */
  behind: z
    .object({
      uuids: z.array(z.string().min(1).max(100)).max(20),
      apiMessageIds: z.array(z.string().min(1).max(200)).max(20),
      toolUseIds: z.array(z.string().min(1).max(200)).max(500),
    })
    .nullable(),
  /** Only lines of these types; null: all. */
  types: z.array(z.string().max(200)).max(100).nullable(),
  /** Lines whose JSON holds this (any case). */
  query: z.string().max(1000),
  limit: z.number().int().min(1).max(5_000),
});
export type ProtocolLinesRequest = z.infer<typeof ProtocolLinesRequest>;

export const ProtocolLinesResponse = z.object({
  /** The first `limit` lines that match, in file order. */
  lines: z.array(ProtocolLine),
  /** How many match in all. */
  total: z.number().int().nonnegative(),
  /** The types of lines behind the message (or in the session), with how many of each, for the filter. */
  types: z.array(z.object({ type: z.string(), count: z.number().int().positive() })),
  /** Transcripts read; none means Byre has no transcript of this session (made in a terminal). */
  files: z.number().int().nonnegative(),
  /** Lines (or files) that could not be read. */
  unreadable: z.number().int().nonnegative(),
});
export type ProtocolLinesResponse = z.infer<typeof ProtocolLinesResponse>;

export const intakeChannels = {
  /** Checks one image file by its content and scales it to fit; a refusal names the file and the reason. */
  prepareImage: {
    request: z.object({
      name: z.string().min(1).max(1000),
      data: z.base64().max(Math.ceil(MAX_IMAGE_FILE_BYTES / 3) * 4),
      /** How many images the turn will hold with this one (the API allows fewer pixels for many). */
      imagesInTurn: z.number().int().min(1),
    }),
    response: z.discriminatedUnion('ok', [
      /** `ref`: how main keeps it from now on, for the draft (see SavedDraft). */
      z.object({ ok: z.literal(true), image: PreparedImage, ref: ShownImage.shape.data }),
      z.object({
        ok: z.literal(false),
        reason: z.enum(['not_an_image', 'unreadable', 'too_many', 'too_large', 'turn_too_large']),
        message: z.string(),
      }),
    ]),
  },
  /**
   * The files and folders of the conversation's folder that match `query` fuzzily, best first (an empty
   * query: the top of the folder), for the composer's `@` picker. Folders end in `/`.
   */
  findFiles: {
    request: ConversationRef.extend({ query: z.string().max(1000), limit: z.number().int().min(1).max(200) }),
    response: z.object({ matches: z.array(FileMatch), total: z.number().int(), truncated: z.boolean() }),
  },
  /** Raw transcript lines behind a message, or of the whole session, for the protocol inspector. */
  protocolLines: { request: ProtocolLinesRequest, response: ProtocolLinesResponse },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
