import { randomUUID } from 'node:crypto';
import type { ForkRecord } from '../../../shared/branches';
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
      const { sessionId, cwd, host } = conversation.snapshot();
      const send: ScheduledSend = {
        id: randomUUID(),
        sessionId,
        cwd,
        host: host ?? null,
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
 * The session a kept message goes to: its own, unless the conversation moved on, since the message was kept,
 * to a branch made from it (a rewind is a fork): then the branch a tab shows. Refused when branches made since
 * are shown in more than one tab: which one it was meant for is not Byre's to guess.
 */
export function sessionToSend(
  send: Pick<ScheduledSend, 'sessionId' | 'createdAt'>,
  forks: readonly ForkRecord[],
  shown: ReadonlySet<string>,
): { sessionId: string } | { refused: string } {
  if (shown.has(send.sessionId)) return { sessionId: send.sessionId };
  const since: string[] = [];
  for (let at = [send.sessionId]; at.length > 0;) {
    const next = forks
      .filter((fork) => at.includes(fork.parentSessionId) && fork.createdAt >= send.createdAt)
      .map((fork) => fork.sessionId)
      .filter((id) => !since.includes(id));
    since.push(...next);
    at = next;
  }
  const branches = since.filter((id) => shown.has(id));
  if (branches.length === 1 && branches[0]) return { sessionId: branches[0] };
  if (branches.length > 1) {
    return {
      refused:
        'The conversation was branched since this message was kept, and more than one tab shows a branch of it: send it from the one it is for.',
    };
  }
  return { sessionId: send.sessionId };
}

/**
 * Sends a kept message: to the conversation's current branch (sessionToSend), open or resumed as "Resume" in
 * the library does, whose events then reach every window; only in the folder and on the host it was kept
 * for. Cancelled while the session was being found or resumed, it is not sent (the resumed conversation stays
 * open, as Resume leaves it).
 */
export async function deliverScheduled(
  open: OpenConversations,
  library: Library,
  send: ScheduledSend,
  stillWanted: () => boolean = () => true,
  branches: { forks: () => readonly ForkRecord[]; shown: () => ReadonlySet<string> } = {
    forks: () => [],
    shown: () => new Set(),
  },
): Promise<Delivery> {
  const target = sessionToSend(send, branches.forks(), branches.shown());
  if ('refused' in target) throw new Error(target.refused);
  const { sessionId } = target;
  const live = await open.withSessionOrResuming(sessionId);
  if (!live) await untilIndexed(library, sessionId, stillWanted);
  if (!stillWanted()) return 'not wanted';
  const where = live ? live.snapshot() : await library.row(sessionId);
  const host = where?.host ?? null;
  if (where && (where.cwd !== send.cwd || host !== (send.host ?? null))) {
    const kept = `${send.cwd}${send.host ? ` on ${send.host}` : ''}`;
    const now = `${where.cwd ?? 'another folder'}${host ? ` on ${host}` : ''}`;
    throw new Error(
      `This message was kept for the conversation in ${kept}, which is now in ${now}: it was not sent.`,
    );
  }
  const conversation = live ?? (await open.resumeStream(sessionId));
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
