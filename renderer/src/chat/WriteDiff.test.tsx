import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { applyEvents, initialConversation } from '../../../shared/conversation';
import type { ConversationEvent } from '../../../shared/ipc';
import { ToolCard } from './ToolCard';

/**
 * A Write card's diff, from the lines the real CLI sends (recorded by write-diff.integration.test.ts): over
 * an existing file it shows what changed; a new file is all added.
 */

const PATH = '/tmp/work/notes.txt';

function writeCall(id: string, content: string): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'assistant',
      message: {
        id: `msg-${id}`,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'tool_use', id, name: 'Write', input: { file_path: PATH, content } }],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      uuid: `uuid-${id}`,
      session_id: 's1',
      parent_tool_use_id: null,
    },
  } as ConversationEvent;
}

/** The `user` line answering a Write, as the CLI sends it. */
function writeResult(id: string, toolUseResult: Record<string, unknown>): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: `The file ${PATH} has been updated successfully.`,
          },
        ],
      },
      parent_tool_use_id: null,
      session_id: 's1',
      uuid: `result-${id}`,
      tool_use_result: toolUseResult,
      timestamp: '2026-12-01T23:57:44.547Z',
    },
  } as ConversationEvent;
}

/** The diff's rows as sign and text, e.g. "-two". */
function diffRows(events: ConversationEvent[], id: string): string[] {
  const tool = applyEvents(initialConversation(), events).tools[id];
  if (!tool) throw new Error('no tool call');
  const html = renderToStaticMarkup(<ToolCard tool={tool} />);
  return [...html.matchAll(/<div class="diff-(add|del|same)">.*?<\/span>(.*?)<\/div>/g)].map(
    (match) => `${match[1] === 'add' ? '+' : match[1] === 'del' ? '-' : ' '}${match[2]}`,
  );
}

describe('the Write card', () => {
  it('shows the change a write over an existing file made', () => {
    const rows = diffRows(
      [
        writeCall('w1', 'one\n2\nthree\n'),
        writeResult('w1', {
          type: 'update',
          filePath: PATH,
          content: 'one\n2\nthree\n',
          structuredPatch: [
            { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' one', '-two', '+2', ' three'] },
          ],
          originalFile: 'one\ntwo\nthree\n',
          userModified: false,
        }),
      ],
      'w1',
    );
    expect(rows).toEqual([' one', '-two', '+2', ' three']);
  });

  it('shows every line of a new file as added', () => {
    const rows = diffRows(
      [
        writeCall('w2', 'fresh\nfile\n'),
        writeResult('w2', {
          type: 'create',
          filePath: PATH,
          content: 'fresh\nfile\n',
          structuredPatch: [],
          originalFile: null,
          userModified: false,
        }),
      ],
      'w2',
    );
    expect(rows).toEqual(['+fresh', '+file']);
  });

  it('shows the change a waiting Write would make, from the file as it is while it asks', () => {
    const waiting: ConversationEvent = {
      kind: 'permission_request',
      requestId: 'req-w3',
      toolName: 'Write',
      displayName: 'Write',
      input: { file_path: PATH, content: 'one\n2\nthree\n' },
      toolUseId: 'w3',
      description: null,
      blockedPath: null,
      remember: null,
      fileBefore: 'one\ntwo\nthree\n',
    };
    expect(diffRows([writeCall('w3', 'one\n2\nthree\n'), waiting], 'w3')).toEqual([
      ' one',
      '-two',
      '+2',
      ' three',
    ]);
  });
});
