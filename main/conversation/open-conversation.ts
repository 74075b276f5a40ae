import type { Lane } from '../../shared/ipc';
import type { Conversation } from './conversation';
import type { TerminalConversation } from './terminal-conversation';

/**
 * An open conversation, of either lane, told apart by `lane`: a Stream one (the stream-json driver, every
 * event typed) or a Terminal one (the interactive CLI in a PTY). What both can do (snapshot, history,
 * Changes, "Done when", setup, warn, close) is asked of either without knowing which.
 */
export type OpenConversation = Conversation | TerminalConversation;

/** The open conversation of one lane. */
export type InLane<L extends Lane> = Extract<OpenConversation, { lane: L }>;
