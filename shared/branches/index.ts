/**
 * Branches: a conversation rewound and carried on in a fork is a family of sessions. These schemas cross
 * from main to the renderer (a family and its branches) and describe Byre's own record of its forks
 * (`branches.json` in the data folder). Pure: no Node or DOM.
 */
import { z } from 'zod';
import { SessionId } from '../library';

/** One fork Byre made: a new session that carries on `parentSessionId` after `forkPointUuid`. */
export const ForkRecord = z.object({
  sessionId: SessionId,
  parentSessionId: SessionId,
  /** The last entry of the parent the fork keeps; null when it keeps nothing (forked before the first message). */
  forkPointUuid: z.string().nullable(),
  /** When the fork was made, ms since the epoch. */
  createdAt: z.number(),
});
export type ForkRecord = z.infer<typeof ForkRecord>;

/** `branches.json`: Byre's forks, oldest first. The CLI's files are never edited to record them. */
export const ForkRecordsFile = z.object({
  version: z.literal(1),
  forks: z.array(ForkRecord),
});
export type ForkRecordsFile = z.infer<typeof ForkRecordsFile>;

/** One branch of a family, as the tree and the switcher show it. */
export const BranchInfo = z.object({
  /** A stable key within the family: the session id, or `<session id>#<leaf uuid>` for an in-file branch. */
  key: z.string(),
  sessionId: SessionId,
  /**
   * For a branch inside one CLI file (the CLI rewound in place: its `parentUuid` chains end in several
   * leaves), the uuid of its last entry; null for a branch that is a whole session.
   */
  leafUuid: z.string().nullable(),
  /** The branch it parts from; null for the family's root. */
  parentKey: z.string().nullable(),
  /** The last entry it shares with its parent; null for the root, or a fork that kept nothing. */
  forkPointUuid: z.string().nullable(),
  /** The text of its first message after the fork point (cut to 200 characters). */
  firstMessage: z.string(),
  /** ms since the epoch. */
  lastActive: z.number(),
  /**
   * When it parted from its parent (ms since the epoch): when Byre made the fork, else the time of its first
   * entry after the fork point. The root's is when it began.
   */
  partedAt: z.number(),
  /** User and assistant messages of the main thread, the shared part included. */
  messageCount: z.number().int().nonnegative(),
  /** It can be resumed or forked: a whole session whose CLI file is there (in-file branches cannot). */
  resumable: z.boolean(),
  title: z.string(),
});
export type BranchInfo = z.infer<typeof BranchInfo>;

/** Every branch of one family, the root first, then by when they parted. */
export const Family = z.object({
  rootKey: z.string(),
  branches: z.array(BranchInfo),
});
export type Family = z.infer<typeof Family>;
