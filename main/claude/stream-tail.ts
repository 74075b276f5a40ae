import type { AssistantMessage, CliMessage, StreamEventMessage } from '../../shared/protocol';

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
  private readonly open = new Map<string, OpenStream>();

  note(message: CliMessage): void {
    switch (message.type) {
      case 'stream_event':
        this.noteStream(message);
        return;
      case 'assistant': {
        // Its blocks are complete and in the log; the stream goes on from here (the next block, or stop).
        const stream = this.open.get(message.parent_tool_use_id ?? '');
        if (stream && stream.id === message.message.id) {
          stream.blocks.clear();
          stream.savedUuid = message.uuid;
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
  }

  /**
   * The stream lines that rebuild each open reply as it stands, for after what the log holds. A stream
   * whose blocks are all complete still gives its start, so that blocks that come later stream too.
   */
  lines(): StreamEventMessage[] {
    return [...this.open.values()].flatMap((stream) => streamLines(stream));
  }

  /** The lines of replies cut off in the middle of a block: the part of them the log does not hold. */
  cutLines(): StreamEventMessage[] {
    return [...this.open.values()].filter((stream) => stream.blocks.size > 0).flatMap(streamLines);
  }

  /**
   * Each reply cut off in the middle of a block, as the assistant line it would have ended with: the
   * blocks it had streamed so far, text and thinking as far as they got and a tool call's input as far as
   * it could be read. Marked `aborted`, the CLI's own mark for a reply that did not finish.
   */
  cutReplies(): AssistantMessage[] {
    const replies: AssistantMessage[] = [];
    for (const stream of this.open.values()) {
      const content: AssistantMessage['message']['content'] = [];
      for (const block of stream.blocks.values()) {
        const started =
          block.start.event.type === 'content_block_start' ? block.start.event.content_block : null;
        if (!started) continue;
        const streamed = block.chunks.join('');
        if (started.type === 'text') {
          if (started.text + streamed) content.push({ ...started, text: started.text + streamed });
        } else if (started.type === 'thinking') {
          content.push({ ...started, thinking: started.thinking + streamed });
        } else if (started.type === 'tool_use') {
          content.push({ ...started, input: streamed ? partialInput(streamed) : started.input });
        } else {
          content.push({ ...started });
        }
      }
      if (content.length === 0) continue;
      const message =
        stream.start.event.type === 'message_start' ? stream.start.event.message : { id: stream.id };
      replies.push({
        type: 'assistant',
        message: {
          id: stream.id,
          type: 'message',
          role: 'assistant',
          model: typeof message.model === 'string' ? message.model : '',
          content,
          stop_reason: null,
        },
        parent_tool_use_id: stream.start.parent_tool_use_id,
        session_id: stream.start.session_id,
        // The stream line's own uuid is in no file; the reply's last complete line's is, if it had one.
        uuid: stream.savedUuid ?? stream.start.uuid,
        aborted: true,
      } as AssistantMessage);
    }
    return replies;
  }

  /** Called for every delta of a reply: it only appends, and lines are built when asked for. */
  private noteStream(line: StreamEventMessage): void {
    const key = line.parent_tool_use_id ?? '';
    const event = line.event;
    switch (event.type) {
      case 'message_start':
        this.open.delete(key);
        this.open.set(key, { start: line, id: event.message.id, blocks: new Map(), savedUuid: null });
        return;
      case 'message_stop':
        this.open.delete(key);
        return;
      case 'content_block_start':
        this.open.get(key)?.blocks.set(event.index, { start: line, delta: null, chunks: [] });
        return;
      case 'content_block_delta': {
        // A delta of a block whose start was not seen is dropped, as the reducer drops it.
        const block = this.open.get(key)?.blocks.get(event.index);
        const delta = event.delta;
        const chunk =
          delta.type === 'text_delta'
            ? delta.text
            : delta.type === 'thinking_delta'
              ? delta.thinking
              : delta.type === 'input_json_delta'
                ? delta.partial_json
                : undefined;
        if (!block || chunk === undefined) return;
        block.delta ??= line;
        block.chunks.push(chunk);
        return;
      }
      default:
        return;
    }
  }
}

interface OpenStream {
  /** Its message_start line. */
  start: StreamEventMessage;
  /** The reply's message id. */
  id: string;
  /** Blocks not yet complete, by index: their start line, the first delta line, and every chunk so far. */
  blocks: Map<number, { start: StreamEventMessage; delta: StreamEventMessage | null; chunks: string[] }>;
  /** The uuid of the reply's last complete line: the CLI saved it, so a rewind can name it. */
  savedUuid: string | null;
}

/** A stream's lines: its start, and each open block's start and one delta holding all its chunks. */
function streamLines(stream: OpenStream): StreamEventMessage[] {
  const lines = [stream.start];
  for (const block of stream.blocks.values()) {
    lines.push(block.start);
    const first = block.delta;
    if (first?.event.type !== 'content_block_delta') continue;
    const text = block.chunks.join('');
    const delta = first.event.delta;
    const merged =
      delta.type === 'text_delta'
        ? { ...delta, text }
        : delta.type === 'thinking_delta'
          ? { ...delta, thinking: text }
          : { ...delta, partial_json: text };
    lines.push({ ...first, event: { ...first.event, delta: merged } });
  }
  return lines;
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
