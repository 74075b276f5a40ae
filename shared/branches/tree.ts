import type { ChatMessage, ConversationState } from '../conversation';
import type { SessionTarget } from '../ipc';
import { shortText } from './family';
import type { BranchInfo } from './index';

/**
 * The one branch tree: a conversation rewound and carried on is a family of sessions, each branch linked to
 * its parent by key and fork point. The library builds it from the files (family.ts), a tab adds the
 * branches it makes (a rewind not yet sent, a fork) and the branches it runs; the switcher and the tree read
 * it through these pure functions.
 *
 * A branch's view is the whole conversation as it reads in that branch: the part it shares with its parent,
 * then its own messages. Where two branches part, the message after the fork point carries a switcher.
 */

/**
 * A branch of the tree, as the library reads it (BranchInfo) or a tab makes it: a rewind not yet sent has a
 * key of its own (`pending:…`) and no session yet.
 */
export type BranchNode = Omit<BranchInfo, 'sessionId' | 'title'> & { sessionId: string | null };

/** A rewind waiting for its first message: the view is cut before `messageId`, whose text is in the composer. */
export const PENDING_PREFIX = 'pending:';

export function isPending(branch: BranchNode | undefined): boolean {
  return !!branch?.key.startsWith(PENDING_PREFIX);
}

/**
 * The conversation up to (not including) the message at `index` of its order: later messages, and the tool
 * calls and subagent messages only they hold, are left out. Nothing is running in what is kept.
 */
export function truncateConversation(state: ConversationState, index: number): ConversationState {
  const order = state.order.slice(0, Math.max(0, index));
  const keptMessages: Record<string, ChatMessage> = {};
  const keptTools: ConversationState['tools'] = {};
  const keep = (id: string) => {
    const message = state.messages[id];
    if (!message || keptMessages[id]) return;
    keptMessages[id] = message;
    if (message.role !== 'assistant') return;
    for (const part of message.parts) {
      if (part.kind !== 'tool') continue;
      const tool = state.tools[part.toolUseId];
      if (!tool) continue;
      keptTools[tool.id] = tool.status === 'running' ? { ...tool, status: 'interrupted' } : tool;
      for (const child of tool.children) keep(child);
    }
  };
  for (const id of order) keep(id);
  return {
    ...state,
    order,
    messages: keptMessages,
    tools: keptTools,
    pending: [],
    streams: {},
    // Questions the original is waiting on are its own, not the cut copy's.
    permissionRequests: [],
    status: state.status === 'exited' ? 'exited' : 'idle',
  };
}

export type ForkPoint = { ok: true; at: string | null; keep: number } | { ok: false; reason: string };

/**
 * Where a rewind to just before user message `messageId` forks: at the last entry before it, which is the
 * previous reply's last line (cli-facts 8: forking at the user line itself would merge the new prompt into
 * it). Before the first message, nothing is kept: a new session in the same folder.
 */
export function rewindPoint(state: ConversationState, messageId: string): ForkPoint {
  const index = state.order.indexOf(messageId);
  const message = state.messages[messageId];
  if (index < 0 || message?.role !== 'user')
    return { ok: false, reason: 'That message is not here any more.' };
  if (message.status !== 'sent' || !message.uuid) {
    return {
      ok: false,
      reason:
        'Claude Code does not know this message yet (it is still queued or being sent), so there is nothing to rewind to.',
    };
  }
  for (let at = index - 1; at >= 0; at -= 1) {
    const before = state.messages[state.order[at] ?? ''];
    if (!before || before.role === 'result' || before.role === 'notice') continue;
    if (before.role === 'assistant' && before.uuid && !before.streaming)
      return { ok: true, at: before.uuid, keep: index };
    return {
      ok: false,
      reason:
        'The reply before this message was never saved whole (it was stopped, or it is still coming), so the conversation cannot be rewound to here.',
    };
  }
  return { ok: true, at: null, keep: index };
}

/** Where "Fork from here" on an assistant message forks: at its last line, keeping it and its turn's result. */
export function forkAfter(state: ConversationState, messageId: string): ForkPoint {
  const index = state.order.indexOf(messageId);
  const message = state.messages[messageId];
  if (index < 0 || message?.role !== 'assistant')
    return { ok: false, reason: 'That message is not here any more.' };
  if (!message.uuid || message.streaming) {
    return { ok: false, reason: 'This reply is not saved whole yet; wait for it to finish.' };
  }
  let keep = index + 1;
  while (keep < state.order.length && state.messages[state.order[keep] ?? '']?.role === 'result') keep += 1;
  return { ok: true, at: message.uuid, keep };
}

/** The index in `state.order` of the message whose (last line's) uuid is `uuid`; -1 if none. */
export function indexOfUuid(state: ConversationState, uuid: string | null): number {
  if (uuid === null) return -1;
  return state.order.findIndex((id) => {
    const message = state.messages[id];
    return (message?.role === 'user' || message?.role === 'assistant') && message.uuid === uuid;
  });
}

/**
 * Where branches that share `forkPointUuid` part in a view: the index of the first message after it (a turn's
 * result row after the fork point is still shared); -1 if the fork point is not in the view.
 */
export function partIndex(state: ConversationState, forkPointUuid: string | null): number {
  const fork = forkPointUuid === null ? -1 : indexOfUuid(state, forkPointUuid);
  if (forkPointUuid !== null && fork < 0) return -1;
  for (let index = fork + 1; index < state.order.length; index += 1) {
    const role = state.messages[state.order[index] ?? '']?.role;
    if (role === 'user' || role === 'assistant') return index;
  }
  return -1;
}

/** Siblings that part at one point: the parent (continuing its own way) and its children forked there. */
export interface PartGroup {
  /** Branch keys, the parent first, then the children by when they parted. */
  keys: string[];
  /** The last entry they share. */
  forkPointUuid: string | null;
  /** Which of them this view is. */
  at: number;
}

/**
 * For the branch shown: the messages where it parts from siblings, each with its group. The message after a
 * fork point is where branches part; in the shown branch that may be its own first message (it is a child)
 * or a later message it shares with children forked from it.
 */
export function partPoints(
  branches: readonly BranchNode[],
  currentKey: string,
  state: ConversationState,
): Map<string, PartGroup> {
  const points = new Map<string, PartGroup>();
  const byKey = new Map(branches.map((branch) => [branch.key, branch]));
  const lineage: string[] = [];
  for (let key: string | null = currentKey; key !== null && !lineage.includes(key);) {
    lineage.push(key);
    key = byKey.get(key)?.parentKey ?? null;
  }
  // Every branch of the lineage may have children that part somewhere in this view.
  for (const parentKey of lineage) {
    const children = branches.filter((branch) => branch.parentKey === parentKey && !isPending(branch));
    for (const forkPointUuid of new Set(children.map((child) => child.forkPointUuid))) {
      const keys = [
        parentKey,
        ...children
          .filter((child) => child.forkPointUuid === forkPointUuid)
          .sort((a, b) => a.partedAt - b.partedAt)
          .map((child) => child.key),
      ];
      // The view reads as the member of the group it is, or descends from.
      const at = keys.indexOf(lineage.find((key) => keys.includes(key)) ?? '');
      const parts = partIndex(state, forkPointUuid);
      if (at < 0 || parts < 0) continue;
      const messageId = state.order[parts];
      if (messageId && !points.has(messageId)) points.set(messageId, { keys, at, forkPointUuid });
    }
  }
  return points;
}

/**
 * The session that made the file checkpoints of a user message shown in a branch: the branch itself for its
 * own messages; for a message it shares with its parent (at or before its fork point), the parent's, and so
 * on up. Checkpoints are kept by the session that ran the turn.
 */
export function checkpointOwner<B extends BranchNode>(
  branches: readonly B[],
  currentKey: string,
  state: ConversationState,
  messageId: string,
): B | undefined {
  const byKey = new Map(branches.map((branch) => [branch.key, branch]));
  const index = state.order.indexOf(messageId);
  let branch = byKey.get(currentKey);
  while (branch?.parentKey) {
    const fork = branch.forkPointUuid === null ? -1 : indexOfUuid(state, branch.forkPointUuid);
    if (index > fork) break;
    branch = byKey.get(branch.parentKey);
  }
  while (branch && isPending(branch) && branch.parentKey) branch = byKey.get(branch.parentKey);
  return branch;
}

/** How main finds a branch's session: its live conversation, or the saved session. */
export function targetOf(branch: {
  conversationId: string | null;
  sessionId: string | null;
}): SessionTarget | null {
  if (branch.conversationId) return { conversationId: branch.conversationId };
  if (branch.sessionId) return { sessionId: branch.sessionId };
  return null;
}

/** User and assistant messages of the main thread, as the tree counts them. */
export function countMessages(state: ConversationState): number {
  return state.order.filter((id) => {
    const role = state.messages[id]?.role;
    return role === 'user' || role === 'assistant';
  }).length;
}

/** A message's text as the tree shows it for a branch's first message (one cut, the library's). */
export function summary(text: string): string {
  return shortText(text) || '(images)';
}
