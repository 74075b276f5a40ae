/**
 * The tabs of the window, kept by main so that they come back after Byre quits and starts again: the
 * window tells main its tabs each time they change, and a window that opens asks which tabs were open.
 * Drafts travel with them: a live conversation's from `setDraft`, a tab not yet resumed's from the file.
 */
import { z } from 'zod';
import { SessionId } from '../library';
import { ConversationId, Empty } from './refs';
import { HostName } from './remote';

/** At most this many tabs are kept: more than anyone keeps open, few enough that the file stays small. */
export const MAX_KEPT_TABS = 200;

/** A tab as the window tells it: which conversation it shows, if it has said anything yet. */
export const WindowTab = z.object({
  /** Its conversation in main, while it runs (its draft is that conversation's). */
  conversationId: ConversationId.nullable(),
  /** The saved session it shows; null for a conversation that was never sent anything. */
  sessionId: SessionId.nullable(),
  cwd: z.string().max(4096),
  /** The host it runs on, over ssh; null or absent: this computer. */
  host: HostName.nullable().optional(),
});
export type WindowTab = z.infer<typeof WindowTab>;

/** A tab as it comes back: its session (to open saved, with Resume) or only its folder, and its draft. */
export const KeptTab = z.object({
  /** Its conversation in main when it was told: after a reload, still the one the window shows. */
  conversationId: ConversationId.nullable(),
  sessionId: SessionId.nullable(),
  /** '' for a saved tab told while it was still opening (its folder not yet read). */
  cwd: z.string().max(4096),
  /** The host it ran on, over ssh: it comes back there. Null or absent: this computer. */
  host: HostName.nullable().optional(),
  draft: z.string().max(1_000_000),
});
export type KeptTab = z.infer<typeof KeptTab>;

export const tabsChannels = {
  /** The window's tabs in order, and the index of the open one (null: none is). */
  setOpenTabs: {
    request: z.object({
      tabs: z.array(WindowTab).max(MAX_KEPT_TABS),
      active: z.number().int().nonnegative().nullable(),
    }),
    response: Empty,
  },
  /**
   * The tabs that were open: when Byre quit, or as this window last told them (a reload). `problem` says
   * why none could be read back (a damaged file, set aside), if so.
   */
  openTabs: {
    request: Empty,
    response: z.object({
      tabs: z.array(KeptTab),
      active: z.number().int().nonnegative().nullable(),
      problem: z.string().nullable(),
    }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
