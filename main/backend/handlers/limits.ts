import { randomUUID } from 'node:crypto';
import type { ScheduledSend } from '../../../shared/ipc';
import type { HandlersOf, Parts } from '../parts';
import type { Library } from '../../library/library';
import type { OpenConversations } from '../open-conversations';
import { NoLimitReached } from '../errors';
import type { Delivery } from '../scheduled-sender';

/** Plan limits, and messages kept for when a limit resets (issue 29). */
export function limitsHandlers(
  parts: Parts,
): HandlersOf<'limits' | 'sendWhenLimitResets' | 'scheduledSends' | 'cancelScheduledSend'> {
  const { limits, open, scheduled } = parts;
  return {
    limits: async () => limits.current(),
    sendWhenLimitResets: async ({ conversationId, text }) => {
      const conversation = open.get(conversationId);
      const info = limits.last(conversationId);
      if (info?.status !== 'rejected') {
        throw new NoLimitReached('This conversation has not reached a limit: send the message now.');
      }
      if (info.resetsAt === undefined) {
        throw new NoLimitReached(
          'Claude Code did not say when this limit resets, so Byre cannot wait for it.',
        );
      }
      const now = Date.now();
      if (info.resetsAt * 1000 <= now) {
        throw new NoLimitReached('This limit has already reset: send the message now.');
      }
      const { sessionId, cwd } = conversation.snapshot();
      const send: ScheduledSend = {
        id: randomUUID(),
        sessionId,
        cwd,
        text,
        sendAt: info.resetsAt * 1000,
        createdAt: now,
        failed: null,
      };
      scheduled.add(send);
      return send;
    },
    scheduledSends: async () => ({ sends: scheduled.all() }),
    cancelScheduledSend: async ({ id }) => ({ cancelled: scheduled.cancel(id) }),
  };
}

/**
 * Sends a kept message: to the open conversation of its session if there is one, else by resuming the saved
 * session (as "Resume" in the library does), whose events then reach every window. Cancelled while the
 * session was being found or resumed, it is not sent (the resumed conversation stays open, as Resume leaves it).
 */
export async function deliverScheduled(
  open: OpenConversations,
  library: Library,
  send: ScheduledSend,
  stillWanted: () => boolean = () => true,
): Promise<Delivery> {
  const live = await open.withSessionOrResuming(send.sessionId);
  if (!live) await untilIndexed(library, send.sessionId, stillWanted);
  if (!stillWanted()) return 'not wanted';
  const conversation = live ?? (await open.resumeStream(send.sessionId));
  if (!stillWanted()) return 'not wanted';
  conversation.send(send.text);
  return 'sent';
}

/** How long a send at start waits for the library to read the session's files, at most. */
const INDEX_WAIT_MS = 120_000;

/**
 * Right after Byre starts, the library may not have read the session's files yet: a send due then waits
 * for it (until it knows the session, or has read everything and does not), rather than fail at once.
 */
async function untilIndexed(library: Library, sessionId: string, stillWanted: () => boolean): Promise<void> {
  const until = Date.now() + INDEX_WAIT_MS;
  while (Date.now() < until && stillWanted()) {
    if (await library.files(sessionId)) return;
    if ((await library.status()).done) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
