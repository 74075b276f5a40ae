import { randomUUID } from 'node:crypto';
import type { ScheduledSend } from '../../../shared/ipc';
import type { HandlersOf, Parts } from '../parts';
import type { OpenConversations } from '../open-conversations';
import { NoLimitReached } from '../errors';

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
    cancelScheduledSend: async ({ id }) => {
      scheduled.cancel(id);
      return {};
    },
  };
}

/**
 * Sends a kept message: to the open conversation of its session if there is one, else by resuming the saved
 * session (as "Resume" in the library does), whose events then reach every window.
 */
export async function deliverScheduled(open: OpenConversations, send: ScheduledSend): Promise<void> {
  const conversation =
    (await open.withSessionOrResuming(send.sessionId)) ?? (await open.resume(send.sessionId));
  conversation.send(send.text);
}
