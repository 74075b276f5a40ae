import type { ConversationEvent } from '../../shared/ipc';

/**
 * Coalesces a conversation's events so the renderer gets at most one batch per animation frame, however
 * fast the CLI streams. Consecutive text or thinking deltas of the same block are merged into one.
 *
 * A system/thinking_tokens line comes with every thinking delta. Each carries a running estimate, so only
 * the latest of a run is kept, and one between two deltas of a block does not keep them apart: the merged
 * delta goes before it.
 */
export class EventBatcher {
  private readonly pending = new Map<string, ConversationEvent[]>();
  /** The number of the last event pushed, per conversation. */
  private readonly lastSeq = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deliver: (conversationId: string, events: ConversationEvent[], seq: number) => void,
    private readonly intervalMs = 16,
  ) {}

  /** `seq`: the event's number in its conversation (see the conversationEvents contract). */
  push(conversationId: string, event: ConversationEvent, seq = 0): void {
    let list = this.pending.get(conversationId);
    if (!list) {
      list = [];
      this.pending.set(conversationId, list);
    }
    this.lastSeq.set(conversationId, seq);
    const last = list.length - 1;
    const tokensLast = isThinkingTokens(list[last]);
    if (tokensLast && isThinkingTokens(event)) {
      list[last] = event;
    } else {
      const before = tokensLast ? last - 1 : last;
      const previous = list[before];
      const merged = previous ? mergeDeltas(previous, event) : undefined;
      if (merged) list[before] = merged;
      else list.push(event);
    }
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.pending];
    this.pending.clear();
    for (const [conversationId, events] of batches) {
      this.deliver(conversationId, events, this.lastSeq.get(conversationId) ?? 0);
    }
  }
}

/** One delta standing for two, when both extend the same text or thinking block. */
function mergeDeltas(a: ConversationEvent, b: ConversationEvent): ConversationEvent | undefined {
  if (a.kind !== 'message' || b.kind !== 'message') return undefined;
  const x = a.message;
  const y = b.message;
  if (x.type !== 'stream_event' || y.type !== 'stream_event') return undefined;
  if (x.parent_tool_use_id !== y.parent_tool_use_id) return undefined;
  const ex = x.event;
  const ey = y.event;
  if (ex.type !== 'content_block_delta' || ey.type !== 'content_block_delta' || ex.index !== ey.index)
    return undefined;
  if (ex.delta.type === 'text_delta' && ey.delta.type === 'text_delta') {
    return {
      kind: 'message',
      message: { ...x, event: { ...ex, delta: { ...ex.delta, text: ex.delta.text + ey.delta.text } } },
    };
  }
  if (ex.delta.type === 'thinking_delta' && ey.delta.type === 'thinking_delta') {
    return {
      kind: 'message',
      message: {
        ...x,
        event: { ...ex, delta: { ...ex.delta, thinking: ex.delta.thinking + ey.delta.thinking } },
      },
    };
  }
  return undefined;
}

function isThinkingTokens(event: ConversationEvent | undefined): boolean {
  return (
    event?.kind === 'message' &&
    event.message.type === 'system' &&
    event.message.subtype === 'thinking_tokens'
  );
}
