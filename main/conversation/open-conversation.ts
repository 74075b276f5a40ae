import type { Lane } from '../../shared/ipc';
import type { Conversation } from './conversation';
import type { TerminalConversation } from './terminal-conversation';

/**
 * An open conversation (a LaneConversation, see lane-conversation.ts), told apart by `lane` where only one
 * lane can do a thing: a Stream one (the stream-json driver, every event typed) or a Terminal one (the
 * interactive CLI in a PTY).
 */
export type OpenConversation = Conversation | TerminalConversation;

/** The open conversation of one lane. */
export type InLane<L extends Lane> = Extract<OpenConversation, { lane: L }>;
