/**
 * The event channels: what main tells the renderer without being asked, each with its payload's schema.
 */
import { z } from 'zod';
import { ConversationEvent } from './conversation';
import { ConversationId, Empty } from './refs';
import { usageEvents } from './usage';
import { WorktreeStatus } from './worktrees';

export const eventChannels = {
  conversationEvents: z.object({
    conversationId: ConversationId,
    events: z.array(ConversationEvent),
    /**
     * The number of the batch's last event in its conversation (they count from 0). A window built from
     * `listConversations` already holds every event numbered below its `seq`.
     */
    seq: z.number().int().nonnegative(),
  }),
  /** The library's rows or indexing status changed: fetch them again. */
  libraryChanged: Empty,
  /** Something the user should notice even when the app is in the background. */
  notification: z.object({ conversationId: ConversationId, title: z.string(), message: z.string() }),
  /** How Byre's worktrees stand changed (made, a turn ended in one, merged, removed): all of them, as now. */
  worktreesChanged: z.object({ worktrees: z.array(WorktreeStatus) }),
  /**
   * What a Terminal conversation's CLI drew, as it came (coalesced to a batch a frame). `seq` counts its
   * batches from 0, so a window that read `terminalScreen` applies only those from its `seq` on.
   */
  terminalOutput: z.object({
    conversationId: ConversationId,
    data: z.string(),
    seq: z.number().int().nonnegative(),
  }),
  /** Byre was launched again with a folder while it runs (Electron): start a conversation there. */
  secondLaunch: z.object({ folder: z.string() }),
  ...usageEvents,
} satisfies Record<string, z.ZodType>;

export type EventChannel = keyof typeof eventChannels;
export type EventPayload<C extends EventChannel> = z.infer<(typeof eventChannels)[C]>;
