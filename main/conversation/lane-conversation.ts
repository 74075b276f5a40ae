import type { ConversationSnapshot, Lane, SavedDraft } from '../../shared/ipc';
import type { ConversationChanges } from '../changes/conversation-changes';
import type { DoneWhen } from './done-when';
import type { EventPage, EventWindow } from './event-log';

/**
 * What every open conversation is, whatever its lane: the one face the backend, the library, Changes and
 * "Done when" see. Each lane's conversation implements it over its own process (main/lanes/): a Stream one
 * over the stream-json driver, a Terminal one over the interactive CLI in a PTY and its hooks. Turns, tools
 * and waiting reach windows in the lane-neutral events (`activity`, `tool`, `changes`) either emits.
 */
export interface LaneConversation {
  readonly lane: Lane;
  readonly id: string;
  /** The session its CLI runs now. */
  readonly sessionId: string;
  /** A turn runs, waits on the person, or waits to run: switching lanes now would cut it off. */
  readonly busy: boolean;
  /** Its "Done when" check, run as each turn ends. */
  readonly doneWhen: DoneWhen;
  /** Its Changes (main/changes), null when off. */
  readonly changes: ConversationChanges | null;
  /** The message being written in it, for a window that opens later (none is kept in the Terminal lane). */
  readonly draft: SavedDraft;
  /** Where its history before this process ends in the CLI's file (a resumed Stream one), else null. */
  readonly savedBefore: string | null;
  /** Byre's own transcripts of its CLI runs, oldest first (a Terminal conversation's is the CLI's file). */
  readonly transcripts: readonly string[];
  /** Whether a failed setup command waits for Run again or Go on without it. */
  readonly setupWaiting: boolean;
  snapshot(): ConversationSnapshot;
  /** What a window needs to show it as it stands, and the events' seq it stands at. */
  history(): EventWindow & { seq: number };
  /** The page of its history that ends where `before` (from an earlier page) says. */
  historyBefore(before: string): EventPage;
  setupAction(action: 'retry' | 'skip'): void;
  /** Something the person should know about it, said in it. */
  warn(message: string): void;
  /** Ends its CLI and all it started, cleanly. */
  close(): Promise<void>;
  /** Ends its CLI and all it started at once (quitting). */
  kill(): void;
}
