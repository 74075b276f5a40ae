import { describe, expect, it } from 'vitest';
import { applyEvents, initialConversation, type ConversationState } from '../conversation';
import type { ConversationEvent } from '../ipc';
import { replyLine as reply, userLine as user } from '../test-support/lines';
import {
  checkpointOwner,
  forkAfter,
  partPoints,
  rewindPoint,
  truncateConversation,
  type BranchNode,
} from './tree';

/** The branch tree's pure rules: where a rewind or a fork cuts a conversation, where branches part, whose checkpoints a message has. */

const conversation = (events: ConversationEvent[]): ConversationState =>
  applyEvents(initialConversation({ sessionId: 's1', cwd: '/w' }), events);

function branch(
  key: string,
  parentKey: string | null,
  forkPointUuid: string | null,
  partedAt = 0,
): BranchNode {
  return {
    key,
    sessionId: key,
    leafUuid: null,
    parentKey,
    forkPointUuid,
    partedAt,
    firstMessage: '',
    lastActive: 0,
    messageCount: 0,
    resumable: true,
  };
}

describe('where a rewind forks', () => {
  const state = conversation([user(1), reply(1), user(2), reply(2)]);

  it('forks before a user message at the last line of the reply before it', () => {
    expect(rewindPoint(state, 'u:user-2')).toEqual({ ok: true, at: 'reply-1', keep: 2 });
  });

  it('keeps nothing when rewinding to the first message (a new session in the same folder)', () => {
    expect(rewindPoint(state, 'u:user-1')).toEqual({ ok: true, at: null, keep: 0 });
  });

  it('refuses a message Claude Code does not know yet, with the reason', () => {
    const queued = applyEvents(state, [
      { kind: 'prompt', uuid: '00000000-0000-4000-8000-000000000001', text: 'later' },
    ]);
    const id = queued.order.at(-1)!;
    const point = rewindPoint(queued, id);
    expect(point.ok).toBe(false);
    expect(point.ok ? '' : point.reason).toMatch(/queued/);
  });

  it('forks after an assistant message, keeping it', () => {
    expect(forkAfter(state, 'a:msg-1')).toEqual({ ok: true, at: 'reply-1', keep: 2 });
  });

  it('cuts the view before the message, leaving later messages and their tools out', () => {
    const cut = truncateConversation(state, 2);
    expect(cut.order).toEqual(['u:user-1', 'a:msg-1']);
    expect(Object.keys(cut.messages).sort()).toEqual(['a:msg-1', 'u:user-1']);
    expect(cut.status).toBe('idle');
  });
});

describe('branches in a view', () => {
  it('puts the switcher on the message where a child parts, in the parent and in the child', () => {
    const parent = conversation([user(1), reply(1), user(2), reply(2)]);
    const child = conversation([user(1), reply(1), user(3, 's2'), reply(3, 's2')]);
    const branches = [
      branch('s1', null, null),
      branch('s2', 's1', 'reply-1', 1),
      branch('s3', 's1', 'reply-1', 2),
    ];
    expect(partPoints(branches, 's1', parent).get('u:user-2')).toEqual({
      keys: ['s1', 's2', 's3'],
      at: 0,
      forkPointUuid: 'reply-1',
    });
    expect(partPoints(branches, 's2', child).get('u:user-3')).toEqual({
      keys: ['s1', 's2', 's3'],
      at: 1,
      forkPointUuid: 'reply-1',
    });
    expect(partPoints(branches, 's2', child).has('u:user-1')).toBe(false);
  });

  it('puts the switcher on the first message after the fork point, not on the turn result in between', () => {
    const result = (n: number): ConversationEvent =>
      ({
        kind: 'message',
        message: {
          type: 'result',
          subtype: 'success',
          is_error: false,
          result: `answer ${n}`,
          num_turns: 1,
          session_id: 's1',
          uuid: `result-${n}`,
          total_cost_usd: 0,
          usage: { input_tokens: 1, output_tokens: 1 },
          duration_ms: 1,
        },
      }) as ConversationEvent;
    const parent = conversation([user(1), reply(1), result(1), user(2), reply(2), result(2)]);
    expect(parent.order[2]).toMatch(/^r/);
    const branches = [branch('s1', null, null), branch('s2', 's1', 'reply-1', 1)];
    expect([...partPoints(branches, 's1', parent).keys()]).toEqual(['u:user-2']);
  });

  it('shows a grandchild as its parent at the earlier fork point', () => {
    const grandchild = conversation([user(1), reply(1), user(3), reply(3), user(5), reply(5)]);
    const branches = [
      branch('s1', null, null),
      branch('s2', 's1', 'reply-1', 1),
      branch('s4', 's2', 'reply-3', 2),
    ];
    const points = partPoints(branches, 's4', grandchild);
    expect(points.get('u:user-3')).toEqual({ keys: ['s1', 's2'], at: 1, forkPointUuid: 'reply-1' });
    expect(points.get('u:user-5')).toEqual({ keys: ['s2', 's4'], at: 1, forkPointUuid: 'reply-3' });
  });

  it('finds the session that made the checkpoints of a message shared with the parent', () => {
    const child = conversation([user(1), reply(1), user(3, 's2'), reply(3, 's2')]);
    const branches = [branch('s1', null, null), branch('s2', 's1', 'reply-1', 1)];
    expect(checkpointOwner(branches, 's2', child, 'u:user-1')?.key).toBe('s1');
    expect(checkpointOwner(branches, 's2', child, 'u:user-3')?.key).toBe('s2');
  });
});
