import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import { toolDetail, toolEventsOf, TurnActivity } from './turn-activity';

const prompt: ConversationEvent = { kind: 'prompt', uuid: 'u1', text: 'go', images: [], at: 0 };
const result = { kind: 'message', message: { type: 'result' } } as unknown as ConversationEvent;
function request(requestId: string, extra: Record<string, unknown> = {}): ConversationEvent {
  return {
    kind: 'permission_request',
    requestId,
    toolName: 'Bash',
    displayName: 'Bash',
    input: { command: 'rm -rf build' },
    toolUseId: null,
    description: null,
    blockedPath: null,
    remember: null,
    ...extra,
  } as ConversationEvent;
}
const resolved = (requestId: string): ConversationEvent => ({
  kind: 'permission_resolved',
  requestId,
  outcome: 'allowed',
  reason: null,
});

describe('a Stream turn told in the lane-neutral words (TurnActivity)', () => {
  it('says working, then needs you with what is asked, then working again, then done', () => {
    const activity = new TurnActivity();
    expect(activity.after(prompt, true)).toEqual({ kind: 'activity', state: 'working', what: null });
    expect(activity.after(request('r1'), true)).toEqual({
      kind: 'activity',
      state: 'needs_you',
      what: 'Claude asks to use Bash: rm -rf build',
    });
    expect(activity.after(resolved('r1'), true)).toEqual({ kind: 'activity', state: 'working', what: null });
    expect(activity.after(result, false)).toEqual({ kind: 'activity', state: 'done', what: null });
  });

  it('waits on the next request while one is left, and names questions and plans', () => {
    const activity = new TurnActivity();
    activity.after(prompt, true);
    const question = request('q', {
      interaction: { kind: 'questions', questions: [{ question: 'Which colour?' }, { question: 'Size?' }] },
    });
    expect(activity.after(question, true)?.what).toBe('Claude asks you: Which colour? (and 1 more)');
    // A second request while the first waits changes nothing the tab shows.
    expect(
      activity.after(request('p', { interaction: { kind: 'plan', approveMode: 'default' } }), true),
    ).toBeNull();
    expect(activity.after(resolved('q'), true)?.what).toBe('Claude has a plan for you to approve');
    // A prompt typed meanwhile does not hide that Claude waits.
    expect(activity.after(prompt, true)).toBeNull();
  });

  it('is not done while a prompt sent during the turn still runs, and says nothing twice', () => {
    const activity = new TurnActivity();
    activity.after(prompt, true);
    expect(activity.after(prompt, true)).toBeNull();
    expect(activity.after(result, true)).toBeNull();
    expect(activity.after(result, false)?.state).toBe('done');
    expect(activity.after(result, false)).toBeNull();
  });

  it('forgets what waited when the process ends, and a resolution it never saw changes nothing', () => {
    const activity = new TurnActivity();
    activity.after(prompt, true);
    activity.after(request('r1'), true);
    // Denied as the process ends: no "done" before the exit says how it ended.
    expect(activity.after(resolved('r1'), false)).toBeNull();
    expect(activity.after({ kind: 'exit' }, false)).toBeNull();
    expect(activity.after(resolved('r1'), false)).toBeNull();
    expect(activity.after(prompt, true)?.state).toBe('working');
  });
});

describe('the tools a turn uses, told in the lane-neutral words', () => {
  it('names each tool of an assistant line with what it works on, in one line', () => {
    const line = {
      kind: 'message',
      message: {
        type: 'assistant',
        message: {
          content: [
            { type: 'text', text: 'Let me look.' },
            {
              type: 'tool_use',
              id: 't1',
              name: 'Bash',
              input: { command: 'npm test\nnpm run lint', description: 'test' },
            },
            { type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/w/a.ts', old_string: 'a' } },
            { type: 'tool_use', id: 't3', name: 'TodoWrite', input: { todos: [] } },
          ],
        },
      },
    } as unknown as ConversationEvent;
    expect(toolEventsOf(line)).toEqual([
      { kind: 'tool', name: 'Bash', detail: 'npm test' },
      { kind: 'tool', name: 'Edit', detail: '/w/a.ts' },
      { kind: 'tool', name: 'TodoWrite', detail: null },
    ]);
    expect(toolEventsOf(prompt)).toEqual([]);
    expect(toolEventsOf(result)).toEqual([]);
  });

  it('cuts a long detail to fit, and says nothing for an input with no telling field', () => {
    expect(toolDetail({ pattern: `${'x'.repeat(600)}` })).toHaveLength(500);
    expect(toolDetail({ pattern: '   ' })).toBeNull();
    expect(toolDetail(null)).toBeNull();
    expect(toolDetail(['command'])).toBeNull();
    expect(toolDetail({ url: 'https://example.com/a' })).toBe('https://example.com/a');
  });
});
