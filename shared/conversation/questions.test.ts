import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../ipc';
import { readSavedLine } from '../saved-session';
import { applyEvents } from './reduce';
import { initialConversation, type ConversationState } from './state';

/**
 * What a question's or a plan's tool call keeps once answered, live and in a saved conversation: the lines
 * below are the real CLI's (2.1.x against the fake model), from its session file, trimmed.
 */

const SESSION = 'ad4effca-6476-4cc5-9280-1384590a69a6';
const PLAN_FILE = '/tmp/home/.claude/plans/plan-it-swirling-trinket.md';
const QUESTIONS = [
  {
    question: 'Which database should we use?',
    header: 'Database',
    options: [
      { label: 'SQLite', description: 'One file, no server' },
      { label: 'Postgres', description: 'A server' },
    ],
    multiSelect: false,
  },
];

const entries = [
  {
    type: 'assistant',
    uuid: 'a1',
    sessionId: SESSION,
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'tool_use', id: 'toolu_ask', name: 'AskUserQuestion', input: { questions: QUESTIONS } },
        { type: 'tool_use', id: 'toolu_plan', name: 'ExitPlanMode', input: { plan: '1. Do A\n2. Do B' } },
        {
          type: 'tool_use',
          id: 'toolu_write',
          name: 'Write',
          input: { file_path: '/w/a.txt', content: 'A' },
        },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    },
  },
  {
    type: 'user',
    uuid: 'u1',
    sessionId: SESSION,
    message: {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          content:
            'User has answered your questions: "Which database should we use?"="SQLite". You can now continue with the user\'s answers in mind.',
          tool_use_id: 'toolu_ask',
        },
      ],
    },
    toolUseResult: { questions: QUESTIONS, answers: { 'Which database should we use?': 'SQLite' } },
  },
  {
    type: 'user',
    uuid: 'u2',
    sessionId: SESSION,
    message: {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          content: 'User has approved exiting plan mode. You can now proceed.',
          tool_use_id: 'toolu_plan',
        },
      ],
    },
    toolUseResult: { plan: null, isAgent: false, filePath: PLAN_FILE },
  },
  {
    type: 'user',
    uuid: 'u3',
    sessionId: SESSION,
    message: {
      role: 'user',
      content: [{ type: 'tool_result', content: 'File created', tool_use_id: 'toolu_write' }],
    },
    toolUseResult: {
      type: 'create',
      filePath: '/w/a.txt',
      content: 'A',
      structuredPatch: [],
      originalFile: null,
    },
  },
];

function reduced(events: ConversationEvent[]): ConversationState {
  return applyEvents(initialConversation({ sessionId: SESSION, cwd: '/w' }), events);
}

describe('question and plan calls, answered', () => {
  it('keep the answers and the plan file from a saved session file, and nothing of other tools', () => {
    const events = entries.flatMap((entry) => readSavedLine('cli', JSON.stringify(entry)).events);
    const state = reduced(events);
    expect(state.tools.toolu_ask?.result?.outcome).toEqual({
      answers: { 'Which database should we use?': 'SQLite' },
    });
    expect(state.tools.toolu_plan?.result?.outcome).toEqual({ planFile: PLAN_FILE });
    expect(state.tools.toolu_plan?.input).toEqual({ plan: '1. Do A\n2. Do B' });
    // A write's result is the file again: a saved conversation does not carry it.
    expect(state.tools.toolu_write?.result).toEqual({ text: 'File created', isError: false, images: 0 });
    const user = events.find(
      (event) => event.kind === 'message' && event.message.type === 'user' && event.message.uuid === 'u3',
    );
    expect(user?.kind === 'message' && user.message.type === 'user' && user.message.tool_use_result).toBe(
      undefined,
    );
  });

  it('keep them from the live stream-json line', () => {
    const [assistant, answered] = entries;
    const state = reduced([
      ...readSavedLine('cli', JSON.stringify(assistant)).events,
      {
        kind: 'message',
        message: {
          type: 'user',
          message: answered!.message,
          uuid: 'u1',
          session_id: SESSION,
          parent_tool_use_id: null,
          tool_use_result: answered!.toolUseResult,
        },
      } as ConversationEvent,
    ]);
    expect(state.tools.toolu_ask?.result?.outcome?.answers).toEqual({
      'Which database should we use?': 'SQLite',
    });
  });

  it('a withdrawn question or plan is not called a permission request', () => {
    const ask = (requestId: string, toolName: string, interaction?: unknown): ConversationEvent =>
      ({
        kind: 'permission_request',
        requestId,
        toolName,
        displayName: toolName,
        input: {},
        toolUseId: null,
        description: null,
        blockedPath: null,
        remember: null,
        ...(interaction ? { interaction } : {}),
      }) as ConversationEvent;
    const withdrawn = (requestId: string): ConversationEvent => ({
      kind: 'permission_resolved',
      requestId,
      outcome: 'cancelled',
      reason: 'Claude stopped waiting for an answer.',
    });
    const state = reduced([
      ask('r1', 'AskUserQuestion', { kind: 'questions', questions: QUESTIONS }),
      ask('r2', 'ExitPlanMode', { kind: 'plan', approveMode: 'default' }),
      ask('r3', 'Bash'),
      withdrawn('r1'),
      withdrawn('r2'),
      withdrawn('r3'),
    ]);
    const notices = state.order.flatMap((id) => {
      const message = state.messages[id];
      return message?.role === 'notice' ? [message.text] : [];
    });
    expect(notices).toEqual([
      'Question from Claude withdrawn: Claude stopped waiting for an answer.',
      'Plan from Claude withdrawn: Claude stopped waiting for an answer.',
      'Permission request for Bash withdrawn: Claude stopped waiting for an answer.',
    ]);
    expect(state.permissionRequests).toEqual([]);
  });
});
