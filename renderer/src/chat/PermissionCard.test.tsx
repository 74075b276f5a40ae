import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  applyEvents,
  initialConversation,
  type ConversationState,
  type PermissionRequest,
} from '../../../shared/conversation';
import type { ConversationEvent } from '../../../shared/ipc';
import { PermissionCards, requestsAtEnd, requestsHeldBy } from './PermissionCard';
import { ToolCard } from './ToolCard';

/** Permission cards as they render: where they sit, what they show, and which answers they offer. */

function toolCalls(
  apiMessageId: string,
  calls: { id: string; name: string; input: Record<string, unknown> }[],
  parent: string | null = null,
): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'assistant',
      message: {
        id: apiMessageId,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: calls.map((call) => ({ type: 'tool_use', ...call })),
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      uuid: `uuid-${apiMessageId}`,
      session_id: 's1',
      parent_tool_use_id: parent,
    },
  } as ConversationEvent;
}

function asks(
  requestId: string,
  toolName: string,
  input: Record<string, unknown>,
  toolUseId: string | null,
  extra: { remember?: string | null; description?: string | null; blockedPath?: string | null } = {},
): ConversationEvent {
  return {
    kind: 'permission_request',
    requestId,
    toolName,
    displayName: toolName,
    input,
    toolUseId,
    description: extra.description ?? null,
    blockedPath: extra.blockedPath ?? null,
    remember: extra.remember ?? null,
  };
}

function conversationOf(events: ConversationEvent[]): ConversationState {
  return applyEvents(initialConversation({ sessionId: 's1', cwd: '/work' }), events);
}

/** The cards of `requests` as they render (server-rendered: the store is read as it starts, with no tabs). */
const render = (requests: PermissionRequest[]) =>
  renderToStaticMarkup(<PermissionCards tabId="c1" requests={requests} />);

/** The markup of each permission card in `html`, in order. */
function cards(html: string): string[] {
  return html.split('role="group" aria-label="Permission request"').slice(1);
}

const ids = (requests: PermissionRequest[]) => requests.map((request) => request.requestId);

describe('permission cards', () => {
  it('sit in their tool call’s card, or a subagent’s, or at the end', () => {
    const conversation = conversationOf([
      toolCalls('msg_1', [
        { id: 'toolu_B', name: 'Bash', input: { command: 'touch allowed.txt' } },
        { id: 'toolu_A', name: 'Agent', input: { description: 'one' } },
        { id: 'toolu_C', name: 'Agent', input: { description: 'two' } },
      ]),
      toolCalls('msg_s1', [{ id: 'toolu_S1', name: 'Read', input: { file_path: '/etc/hosts' } }], 'toolu_A'),
      toolCalls('msg_s2', [{ id: 'toolu_S2', name: 'Read', input: { file_path: '/etc/passwd' } }], 'toolu_C'),
      asks('req_1', 'Bash', { command: 'touch allowed.txt' }, 'toolu_B'),
      asks('req_2', 'Read', { file_path: '/etc/hosts' }, 'toolu_S1'),
      asks('req_3', 'Read', { file_path: '/etc/passwd' }, 'toolu_S2'),
      asks('req_4', 'Write', { file_path: '/work/b.ts', content: 'x' }, 'toolu_unknown'),
      asks('req_5', 'Write', { file_path: '/work/c.ts', content: 'y' }, null),
    ]);
    expect(ids(requestsHeldBy(conversation, 'toolu_B'))).toEqual(['req_1']);
    expect(ids(requestsHeldBy(conversation, 'toolu_A'))).toEqual(['req_2']);
    expect(ids(requestsHeldBy(conversation, 'toolu_S1'))).toEqual(['req_2']);
    expect(ids(requestsHeldBy(conversation, 'toolu_C'))).toEqual(['req_3']);
    expect(ids(requestsAtEnd(conversation, true))).toEqual(['req_4', 'req_5']);
    // Comparing branches shows no tool cards: every request goes at the end.
    expect(ids(requestsAtEnd(conversation, false))).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5']);
    expect(requestsAtEnd(conversationOf([]), true)).toEqual([]);
  });

  it('takes the place of what the call will do in its tool card, which says it is waiting', () => {
    const conversation = conversationOf([
      toolCalls('msg_1', [{ id: 'toolu_B', name: 'Bash', input: { command: 'touch allowed.txt' } }]),
      asks('req_1', 'Bash', { command: 'touch allowed.txt' }, 'toolu_B', {
        remember: 'Bash(touch allowed.txt) in this project',
        description: 'Create the file',
      }),
    ]);
    const tool = conversation.tools.toolu_B!;
    const html = renderToStaticMarkup(
      <ToolCard
        tool={tool}
        permission={<PermissionCards tabId="c1" requests={conversation.permissionRequests} />}
      />,
    );
    const [card, ...others] = cards(html);
    expect(others).toEqual([]);
    expect(html.indexOf('aria-label="Bash tool call"')).toBeLessThan(html.indexOf('Permission request'));
    expect(html).toContain('waiting for permission');
    // The command shows once: in the card, not again in the tool's body.
    expect(html.split('$ touch allowed.txt')).toHaveLength(2);
    expect(card).toContain('Claude wants to use <strong>Bash</strong>');
    expect(card).toContain('Create the file');
    expect(card).toMatch(/>Allow<\/button>.*>Always allow<\/button>.*>Deny<\/button>/s);
    expect(card).toContain('Always allow: Bash(touch allowed.txt) in this project');
    expect(card).toContain('Reason for Claude (optional)</label>');
  });

  it('shows a folded subagent’s waiting requests under its header', () => {
    const conversation = conversationOf([
      toolCalls('msg_1', [{ id: 'toolu_G', name: 'Glob', input: { pattern: '**/*.ts' } }]),
      asks('req_1', 'Glob', { pattern: '**/*.ts', path: '/work' }, null),
    ]);
    // Glob's card starts folded.
    const html = renderToStaticMarkup(
      <ToolCard
        tool={conversation.tools.toolu_G!}
        heldInside={<PermissionCards tabId="c1" requests={conversation.permissionRequests} />}
      />,
    );
    expect(html).toContain('aria-expanded="false"');
    expect(cards(html)).toHaveLength(1);
    expect(html).toContain('**/*.ts in /work');
  });

  it('shows what each tool will do: a diff, a path, a URL, or the input', () => {
    const conversation = conversationOf([
      asks('req_1', 'Edit', { file_path: '/work/a.ts', old_string: 'one\n', new_string: 'two\n' }, null),
      asks('req_2', 'Write', { file_path: '/work/b.ts', content: 'new line\n' }, null),
      asks(
        'req_3',
        'MultiEdit',
        {
          file_path: '/work/c.ts',
          edits: [
            { old_string: 'a', new_string: 'b' },
            { old_string: 'c', new_string: 'd' },
          ],
        },
        null,
      ),
      asks('req_4', 'Read', { file_path: '/etc/hosts' }, null, { blockedPath: '/etc/hosts' }),
      asks('req_5', 'WebFetch', { url: 'https://example.com/', prompt: 'Read it' }, null),
      asks('req_6', 'WebSearch', { query: 'zod enums' }, null),
      asks('req_7', 'mcp__db__query', { sql: 'select 1' }, null),
    ]);
    const found = cards(render(conversation.permissionRequests));
    expect(found).toHaveLength(7);
    expect(found[0]).toContain('/work/a.ts');
    expect(found[0]).toMatch(/class="diff-del">.*one<\/div><div class="diff-add">.*two<\/div>/);
    expect(found[1]).toMatch(/class="diff-add">.*new line<\/div>/);
    expect(found[1]).not.toContain('diff-del');
    expect(found[2]?.split('aria-label="Diff"')).toHaveLength(3);
    expect(found[3]).toContain('Outside the folders Claude may use: <code>/etc/hosts</code>');
    // Nothing to remember: no "Always allow".
    expect(found[3]).not.toContain('Always allow');
    expect(found[4]).toContain('https://example.com/');
    expect(found[5]).toContain('zod enums');
    expect(found[6]).toContain('&quot;sql&quot;: &quot;select 1&quot;');
  });
});
