import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyEvents,
  initialConversation,
  type AssistantChatMessage,
  type ChatMessage,
  type ConversationState,
  type UserChatMessage,
} from './conversation';
import { checkRun } from './__fixtures__/check-run';
import type { JsonObject } from './protocol';
import { TOO_DEEP } from './json-line';
import { convertSavedSession, readSavedLine, type SavedFormat } from './saved-session';

/*
 * The fixtures were recorded from the real CLI (2.1.332) against the fake model, in one session: a set_title
 * call, a turn with thinking, text and a Bash call, then an image turn. cli-session.jsonl is the CLI's own
 * file of it and transcript.jsonl Byre's; cli-compact.jsonl is a session compacted with /compact. Entries
 * and lines over a few kilobytes that the conversation does not show were dropped to keep them small.
 */
const fixture = (name: string): string =>
  readFileSync(join(import.meta.dirname, '__fixtures__', name), 'utf8');

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';

function reduce(format: SavedFormat, files: string[]): { state: ConversationState; skipped: number } {
  const { events, skipped } = convertSavedSession(format, files);
  return { state: applyEvents(initialConversation(), events), skipped };
}

const shown = (state: ConversationState): ChatMessage[] =>
  state.order.map((id) => state.messages[id]!).filter((message) => message.role !== 'result');

/** Each message as a person reads it: who, and what. */
function transcriptOf(state: ConversationState): string[] {
  return shown(state).map((message) => {
    switch (message.role) {
      case 'user':
        return `${message.author}: ${message.text}${message.images.length ? ` [${message.images.length} image]` : ''}`;
      case 'assistant':
        return `${message.author}: ${message.parts
          .map((part) =>
            part.kind === 'tool'
              ? `[${state.tools[part.toolUseId]?.name}]`
              : part.kind === 'text'
                ? part.text
                : '',
          )
          .filter(Boolean)
          .join(' ')}`;
      case 'notice':
        return `(${message.text})`;
      default:
        return message.role;
    }
  });
}

function expectSettled(state: ConversationState): void {
  expect(state.status).not.toBe('running');
  expect(state.pending).toEqual([]);
  for (const message of Object.values(state.messages)) {
    if (message.role === 'user') expect(message.status).not.toBe('sending');
    if (message.role === 'assistant') expect(message.streaming).toBe(false);
  }
}

const RECORDED = [
  'You: run echo please',
  'Claude: [mcp__byre__set_title]',
  'Claude: Running it. [Bash]',
  'Claude: It printed **hello**.',
  'You: What is in this image? [1 image]',
  'Claude: A tiny image.',
];

describe('the CLI’s own session file', () => {
  it('reduces to the conversation as it was shown: prompts, replies, a Bash card with its output, an image', () => {
    const { state, skipped } = reduce('cli', [fixture('cli-session.jsonl')]);
    expect(skipped).toBe(0);
    expect(transcriptOf(state)).toEqual(RECORDED);
    const bash = Object.values(state.tools).find((tool) => tool.name === 'Bash')!;
    expect(bash).toMatchObject({
      status: 'done',
      input: { command: 'echo hello-from-bash' },
      result: { text: 'hello-from-bash', isError: false },
    });
    const imagePrompt = shown(state)[4] as UserChatMessage;
    expect(imagePrompt.images).toEqual([{ mediaType: 'image/png', data: PNG }]);
    const thinking = (shown(state)[2] as AssistantChatMessage).parts[0];
    // How long it thought, from the prompt's line to the thinking block's.
    expect(thinking).toEqual({ kind: 'thinking', text: 'I should run echo.', seconds: 0.078 });
    expectSettled(state);
  });

  it('keeps the uuids the CLI stored, so a saved conversation can be rewound', () => {
    const { state } = reduce('cli', [fixture('cli-session.jsonl')]);
    const first = shown(state)[0] as UserChatMessage;
    expect(first.uuid).toBe('39e6b15a-febb-466b-a2ee-5a5c561fdde7');
    expect(first.status).toBe('sent');
    expect((shown(state)[3] as AssistantChatMessage).uuid).toBe('9bfc3ff9-bdd2-4008-bc67-1b0078e86c58');
  });

  it('shows a compaction as its marker, with the summary folded into it, and the slash command as typed', () => {
    const { state, skipped } = reduce('cli', [fixture('cli-compact.jsonl')]);
    expect(skipped).toBe(0);
    const lines = transcriptOf(state);
    expect(lines[0]).toBe('You: first question');
    expect(lines[1]).toBe('Claude: First answer.');
    expect(lines[2]).toBe('cli');
    expect(lines.slice(3)).toEqual([
      'You: /compact',
      '(Compacted)',
      'You: after compact',
      'Claude: After compaction.',
    ]);
    const marker = shown(state)[2];
    expect(marker?.role === 'cli' && marker.item).toMatchObject({
      kind: 'compact',
      trigger: 'manual',
      preTokens: 12,
      postTokens: 2550,
      summary: expect.stringMatching(/^This session is being continued/),
    });
    // Only behind the marker's disclosure: no message of its own shows the summary.
    const others = shown(state).filter((message) => message !== marker);
    expect(JSON.stringify(others)).not.toContain('This session is being continued');
    expectSettled(state);
  });

  const entry = (fields: JsonObject): string =>
    JSON.stringify({ sessionId: 's1', isSidechain: false, timestamp: '2026-11-30T10:00:00.000Z', ...fields });
  const user = (uuid: string, content: unknown, fields: JsonObject = {}): string =>
    entry({ type: 'user', uuid, message: { role: 'user', content }, ...fields });
  const assistant = (uuid: string, id: string, content: unknown[], fields: JsonObject = {}): string =>
    entry({
      type: 'assistant',
      uuid,
      message: { id, role: 'assistant', model: 'claude-opus-5-5', content },
      ...fields,
    });

  it('leaves out subagent turns, meta entries and the entry kinds that are not messages', () => {
    const file = [
      JSON.stringify({ type: 'summary', summary: 'Old summary', leafUuid: 'x' }),
      JSON.stringify({ type: 'custom-title', customTitle: 'Mine', sessionId: 's1' }),
      user('u1', 'hello'),
      user('m1', 'Caveat: reminder', { isMeta: true }),
      assistant('s1', 'msg_side', [{ type: 'text', text: 'sidechain talk' }], { isSidechain: true }),
      assistant('a1', 'msg_1', [{ type: 'text', text: 'hi there' }]),
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'a1', snapshot: {} }),
      JSON.stringify({ type: 'system', subtype: 'turn_duration', durationMs: 3 }),
    ].join('\n');
    const { state, skipped } = reduce('cli', [file]);
    expect(skipped).toBe(0);
    expect(transcriptOf(state)).toEqual(['You: hello', 'Claude: hi there']);
    expect(state.title).toBeNull();
  });

  it('turns an interruption into a notice and ends settled even when the last prompt had no answer', () => {
    const file = [
      user('u1', 'do it'),
      assistant('a1', 'msg_1', [{ type: 'text', text: 'Starting' }]),
      user('i1', [{ type: 'text', text: '[Request interrupted by user]' }]),
      user('u2', 'never answered'),
    ].join('\n');
    const { state } = reduce('cli', [file]);
    expect(transcriptOf(state)).toEqual([
      'You: do it',
      'Claude: Starting',
      '(Interrupted.)',
      'You: never answered',
    ]);
    expectSettled(state);
  });

  it('marks only prompts the user typed as turn starts', () => {
    const turnStart = (line: string): boolean => readSavedLine('cli', line).turnStart;
    expect(turnStart(user('u1', 'a prompt'))).toBe(true);
    expect(turnStart(user('u2', [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }]))).toBe(false);
    expect(
      turnStart(user('u3', [{ type: 'text', text: '[Request interrupted by user for tool use]' }])),
    ).toBe(false);
    expect(turnStart(user('u4', '<local-command-stdout>Set model</local-command-stdout>'))).toBe(false);
    expect(turnStart(assistant('a1', 'msg_1', [{ type: 'text', text: 'hi' }]))).toBe(false);
  });

  it('counts lines it cannot read, skips them, and tolerates a last line cut off mid-write', () => {
    const file = [
      'not json at all',
      user('u1', 'hello'),
      '[1, 2, 3]',
      // An assistant entry without the fields a message must have.
      entry({ type: 'assistant', uuid: 'a0', message: { role: 'assistant', content: 'no id, no model' } }),
      assistant('a1', 'msg_1', [{ type: 'text', text: 'hi there' }]),
      '{"type":"user","uuid":"u2","message":{"role":"us',
    ].join('\n');
    const { state, skipped } = reduce('cli', [file]);
    expect(skipped).toBe(3);
    expect(transcriptOf(state)).toEqual(['You: hello', 'Claude: hi there']);
  });

  it('shows a tool input nested 5,000 levels deep, cut to a placeholder the page can show', () => {
    const call = assistant('a1', 'msg_1', [
      { type: 'tool_use', id: 't1', name: 'Deep', input: { a: 'HOLE' } },
    ]);
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const file = [
      user('u1', 'go deep'),
      call.replace('"HOLE"', deep),
      assistant('a2', 'msg_2', [{ type: 'text', text: 'done' }]),
    ].join('\n');
    const { state, skipped } = reduce('cli', [file]);
    expect(skipped).toBe(0);
    expect(transcriptOf(state)).toEqual(['You: go deep', 'Claude: [Deep]', 'Claude: done']);
    // What a window is sent is plain JSON again, with the placeholder where the nesting went on.
    const shownInput = JSON.stringify(state.tools.t1?.input);
    expect(shownInput).toContain(JSON.stringify(TOO_DEEP));
    expect(shownInput.length).toBeLessThan(1000);
  });
});

describe('Byre’s transcripts', () => {
  const lines = fixture('transcript.jsonl').trimEnd().split('\n');
  const kindOf = (line: string): string => {
    const { dir, msg } = JSON.parse(line) as { dir: string; msg: { type: string } };
    return `${dir} ${msg.type}`;
  };
  const firstResult = lines.findIndex((line) => kindOf(line) === 'recv result');
  const secondPrompt = lines.findIndex((line, index) => index > firstResult && kindOf(line) === 'send user');

  it('reduce to the same conversation, with the title set_title gave and every turn settled', () => {
    const { state, skipped } = reduce('transcript', [fixture('transcript.jsonl')]);
    expect(skipped).toBe(0);
    expect(state.title).toBe('Echo and image');
    expect(transcriptOf(state)).toEqual(RECORDED);
    expect(Object.values(state.tools).find((tool) => tool.name === 'Bash')).toMatchObject({
      status: 'done',
      result: { text: 'hello-from-bash' },
    });
    const imagePrompt = shown(state)[4] as UserChatMessage;
    expect(imagePrompt).toMatchObject({
      text: 'What is in this image?',
      images: [{ mediaType: 'image/png', data: PNG }],
      status: 'sent',
    });
    expect(state.order.filter((id) => state.messages[id]!.role === 'result')).toHaveLength(2);
    expect(state.status).toBe('idle');
    expectSettled(state);
  });

  it('turns a send line into the prompt event the live chat had', () => {
    const events = convertSavedSession('transcript', [fixture('transcript.jsonl')]).events;
    expect(events.find((event) => event.kind === 'prompt')).toEqual({
      kind: 'prompt',
      uuid: '39e6b15a-febb-466b-a2ee-5a5c561fdde7',
      text: 'run echo please',
      images: [],
    });
    // Control lines are not messages.
    const types = events.flatMap((event) => (event.kind === 'message' ? [event.message.type] : []));
    expect(types).not.toContain('control_request');
    expect(types).not.toContain('control_response');
  });

  it('ends with an exit when the CLI died in the middle of a turn, so nothing spins', () => {
    const crashed = lines.slice(0, firstResult).join('\n') + '\n';
    const { events } = convertSavedSession('transcript', [crashed]);
    expect(events[events.length - 1]).toEqual({ kind: 'exit' });
    const { state } = reduce('transcript', [crashed]);
    expect(state.status).toBe('exited');
    expectSettled(state);
    expect(Object.values(state.tools).every((tool) => tool.status !== 'running')).toBe(true);
  });

  it('shows a reply the CLI cut off as far as it had streamed, marked as stopped', () => {
    const cut = {
      dir: 'byre',
      msg: {
        type: 'assistant',
        message: {
          id: 'msg_cut',
          role: 'assistant',
          model: 'm',
          content: [{ type: 'text', text: 'Half a rep' }],
        },
        parent_tool_use_id: null,
        session_id: 's',
        uuid: '6f1c1d52-54c4-4b8e-9a53-1c0b8a3f0d11',
        aborted: true,
      },
    };
    const crashed = [...lines.slice(0, secondPrompt + 1), JSON.stringify(cut)].join('\n') + '\n';
    const { state, skipped } = reduce('transcript', [crashed]);
    expect(skipped).toBe(0);
    expect(transcriptOf(state).at(-1)).toBe('Claude: Half a rep');
    expect(shown(state).at(-1)).toMatchObject({ role: 'assistant', aborted: true, streaming: false });
    expect(state.status).toBe('exited');
  });

  it('shows the runs of a "Done when" check that Byre kept in the transcript', () => {
    const check = checkRun({ status: 'failed', summary: 'exit 1', output: '1 failing\n' });
    const kept = JSON.stringify({ dir: 'byre', msg: { type: 'byre_check', check } });
    const broken = JSON.stringify({ dir: 'byre', msg: { type: 'byre_check', check: { id: 'k2' } } });
    const text = [...lines.slice(0, secondPrompt), kept, broken].join('\n') + '\n';
    const { state, skipped } = reduce('transcript', [text]);
    expect(skipped).toBe(1);
    expect(shown(state).find((message) => message.role === 'check')).toMatchObject({ check });
    expect(state.lastCheck).toEqual(check);
  });

  it("shows how a new worktree's setup command ended, as Byre kept it in the transcript", () => {
    const run = {
      id: 'setup-1',
      command: 'npm ci',
      startedAt: 1,
      status: 'failed' as const,
      summary: 'exit 1',
      durationMs: 40,
      output: 'npm ERR!\n',
      outputTruncated: false,
    };
    const failed = JSON.stringify({ dir: 'byre', msg: { type: 'byre_setup', run } });
    const skipped = JSON.stringify({
      dir: 'byre',
      msg: { type: 'byre_setup', run: { ...run, status: 'skipped' } },
    });
    const text = [failed, skipped, ...lines.slice(0, secondPrompt)].join('\n') + '\n';
    const { state } = reduce('transcript', [text]);
    expect(shown(state).filter((message) => message.role === 'setup')).toMatchObject([
      { setup: { ...run, status: 'skipped' } },
    ]);
  });

  it('reads the transcripts of a resumed session in order, as one', () => {
    // The first process was killed before its result; a second one took the next turn.
    const first = lines.slice(0, firstResult).join('\n') + '\n';
    const second = [lines[0]!, ...lines.slice(secondPrompt)].join('\n') + '\n';
    const { events } = convertSavedSession('transcript', [first, second]);
    expect(events.filter((event) => event.kind === 'exit')).toHaveLength(1);
    const { state } = reduce('transcript', [first, second]);
    expect(transcriptOf(state)).toEqual([
      'You: run echo please',
      'Claude: [mcp__byre__set_title]',
      'Claude: Running it. [Bash]',
      'Claude: It printed **hello**.',
      'You: What is in this image? [1 image]',
      'Claude: A tiny image.',
    ]);
    expect(state.status).toBe('idle');
    expect(state.title).toBe('Echo and image');
  });

  it('treats a second initialize in one file as a new process', () => {
    const oneFile = [...lines.slice(0, firstResult), lines[0]!, ...lines.slice(secondPrompt)].join('\n');
    const { events } = convertSavedSession('transcript', [oneFile]);
    const exit = events.findIndex((event) => event.kind === 'exit');
    const secondPromptEvent = events.findIndex((event, index) => event.kind === 'prompt' && index > 0);
    expect(exit).toBeGreaterThan(-1);
    expect(exit).toBeLessThan(secondPromptEvent);
  });

  it('skips and counts lines it cannot read; lines of kinds it does not show are not damage', () => {
    const sid = 'f5a6371a-aab5-41bb-8e3a-9f1b80662688';
    const file = [
      ...lines,
      'garbage',
      JSON.stringify({ dir: 'sideways', msg: {} }),
      JSON.stringify({ dir: 'recv', msg: { type: 'unparsed_line', text: 'not json' } }),
      JSON.stringify({ dir: 'recv', msg: { type: 'assistant', message: { content: 'broken' } } }),
      JSON.stringify({ dir: 'recv', msg: { type: 'rate_limit_event', session_id: sid } }),
      JSON.stringify({ dir: 'recv', msg: { type: 'keep_alive' } }),
      JSON.stringify({
        dir: 'recv',
        msg: { type: 'system', subtype: 'some_future_notice', session_id: sid, uuid: 'x' },
      }),
      '{"dir":"recv","msg":{"type":"assis',
    ].join('\n');
    const { state, skipped } = reduce('transcript', [file]);
    expect(skipped).toBe(4);
    expect(transcriptOf(state)).toEqual(RECORDED);
    expect(state.status).toBe('idle');
  });

  it('still ends a turn on a result line from a newer CLI that fails its schema', () => {
    const sid = 'f5a6371a-aab5-41bb-8e3a-9f1b80662688';
    const prompt = {
      dir: 'send',
      msg: {
        type: 'user',
        message: { role: 'user', content: 'hi' },
        parent_tool_use_id: null,
        session_id: sid,
        uuid: '11111111-1111-4111-8111-111111111111',
      },
    };
    const result = {
      dir: 'recv',
      msg: { type: 'result', subtype: 'success', is_error: false, session_id: sid },
    };
    const { state, skipped } = reduce('transcript', [
      [prompt, result].map((line) => JSON.stringify(line)).join('\n'),
    ]);
    expect(skipped).toBe(0);
    expect(state.status).toBe('idle');
    expectSettled(state);
  });
});
