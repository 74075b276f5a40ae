/**
 * The small schemas the contract's requests name things by (a conversation, a session, a folder), shared by
 * every domain's channels so each is said once.
 */
import { z } from 'zod';
import { SessionId } from '../library';

export const ConversationId = z.string().min(1).max(100);
export const Uuid = z.uuid();
export const Empty = z.object({});
export const FolderPath = z.string().min(1).max(4096);

export const ConversationRef = z.object({ conversationId: ConversationId });

/** Which session a request is about: a conversation open in main, or a saved one with no process. */
export const SessionTarget = z.union([ConversationRef, z.object({ sessionId: SessionId })]);
export type SessionTarget = z.infer<typeof SessionTarget>;
