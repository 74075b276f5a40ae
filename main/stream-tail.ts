import type { AssistantMessage, CliMessage, StreamEventMessage } from '../shared/protocol';

/**
 * The part of each reply that is still streaming: what a window that opens meanwhile (a reload) needs to
 * show the reply so far, and what a reply cut off by the CLI's exit was when it stopped.
 *
 * Stream deltas are not kept in the event log (the complete lines follow), so without this a reload in
 * the middle of a reply would show nothing of it until its block ends. Per stream (the main thread, or a
 * subagent's), it holds the reply's `message_start` and the stream lines of the block not yet complete,
 * with consecutive deltas of a block merged into one: a few lines, however long the reply.
 */
export class StreamTail {
  /** Open streams, by parent tool use id ('' for the main thread), in the order they opened. */
  private readonly open = new Map<string, StreamEventMessage[]>();
  /** The uuid of each open reply's last complete line: the CLI saved it, so a rewind can name it. */
  private readonly savedUuid = new Map<string, string>();

  note(message: CliMessage): void {
    switch (message.type) {
      case 'stream_event':
        this.noteStream(message);
        return;
      case 'assistant': {
        // Its blocks are complete and in the log; the stream goes on from here (the next block, or stop).
        const lines = this.open.get(message.parent_tool_use_id ?? '');
        const start = lines?.[0];
        if (lines && start?.event.type === 'message_start' && start.event.message.id === message.message.id) {
          lines.length = 1;
          this.savedUuid.set(message.parent_tool_use_id ?? '', message.uuid);
        }
        return;
      }
      case 'result':
        this.clear();
        return;
      default:
        return;
    }
  }

  /** The CLI is gone: nothing streams on. */
  clear(): void {
    this.open.clear();
    this.savedUuid.clear();
  }

  /**
   * The stream lines that rebuild each open reply as it stands, for after what the log holds. A stream
   * whose blocks are all complete still gives its start, so that blocks that come later stream too.
   */
  lines(): StreamEventMessage[] {
    return [...this.open.values()].flat();
  }

  /** The lines of replies cut off in the middle of a block: the part of them the log does not hold. */
  cutLines(): StreamEventMessage[] {
    return [...this.open.values()].filter((lines) => lines.length > 1).flat();
  }

  /**
   * Each reply cut off in the middle of a block, as the assistant line it would have ended with: the
   * blocks it had streamed so far, text and thinking as far as they got and a tool call's input as far as
   * it could be read. Marked `aborted`, the CLI's own mark for a reply that did not finish.
   */
  cutReplies(): AssistantMessage[] {
    const replies: AssistantMessage[] = [];
    for (const [key, lines] of this.open) {
      const [start, ...rest] = lines;
      if (start?.event.type !== 'message_start' || rest.length === 0) continue;
      const blocks = new Map<number, AssistantMessage['message']['content'][number]>();
      for (const line of rest) {
        const event = line.event;
        if (event.type === 'content_block_start') blocks.set(event.index, { ...event.content_block });
        if (event.type !== 'content_block_delta') continue;
        const block = blocks.get(event.index);
        const delta = event.delta;
        if (block?.type === 'text' && delta.type === 'text_delta') block.text += delta.text;
        if (block?.type === 'thinking' && delta.type === 'thinking_delta') block.thinking += delta.thinking;
        if (block?.type === 'tool_use' && delta.type === 'input_json_delta') {
          block.input = partialInput(delta.partial_json);
        }
      }
      const content = [...blocks.values()].filter((block) => block.type !== 'text' || block.text.length > 0);
      if (content.length === 0) continue;
      const message = start.event.message as Record<string, unknown> & { id: string };
      replies.push({
        type: 'assistant',
        message: {
          id: message.id,
          type: 'message',
          role: 'assistant',
          model: typeof message.model === 'string' ? message.model : '',
          content,
          stop_reason: null,
        },
        parent_tool_use_id: start.parent_tool_use_id,
        session_id: start.session_id,
        // The stream line's own uuid is in no file; the reply's last complete line's is, if it had one.
        uuid: this.savedUuid.get(key) ?? start.uuid,
        aborted: true,
      } as AssistantMessage);
    }
    return replies;
  }

  private noteStream(line: StreamEventMessage): void {
    const key = line.parent_tool_use_id ?? '';
    const event = line.event;
    if (event.type === 'message_start') {
      this.open.delete(key);
      this.savedUuid.delete(key);
      this.open.set(key, [line]);
      return;
    }
    if (event.type === 'message_stop') {
      this.open.delete(key);
      this.savedUuid.delete(key);
      return;
    }
    const lines = this.open.get(key);
    if (!lines) return;
    if (event.type === 'content_block_start') {
      lines.push(line);
      return;
    }
    if (event.type !== 'content_block_delta') return;
    const last = lines.at(-1);
    const merged = last && mergedDelta(last, line);
    if (merged) lines[lines.length - 1] = merged;
    else lines.push(line);
  }
}

/** One delta line standing for two that extend the same block; undefined if they cannot be merged. */
function mergedDelta(a: StreamEventMessage, b: StreamEventMessage): StreamEventMessage | undefined {
  const x = a.event;
  const y = b.event;
  if (x.type !== 'content_block_delta' || y.type !== 'content_block_delta' || x.index !== y.index) return;
  const dx = x.delta;
  const dy = y.delta;
  if (dx.type === 'text_delta' && dy.type === 'text_delta') {
    return { ...a, event: { ...x, delta: { ...dx, text: dx.text + dy.text } } };
  }
  if (dx.type === 'thinking_delta' && dy.type === 'thinking_delta') {
    return { ...a, event: { ...x, delta: { ...dx, thinking: dx.thinking + dy.thinking } } };
  }
  if (dx.type === 'input_json_delta' && dy.type === 'input_json_delta') {
    return { ...a, event: { ...x, delta: { ...dx, partial_json: dx.partial_json + dy.partial_json } } };
  }
  return undefined;
}

/** A tool call's input as far as it had streamed: the object if it is whole, else what it was so far. */
function partialInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Cut off mid-way.
  }
  return { partial_input: json };
}
