/**
 * What the views ask of a state: where a waiting permission card goes, and which tasks run in the
 * background.
 */
import { describe, it, expect } from 'vitest';
import type { ConversationEvent } from '../ipc';
import { backgroundTasks, permissionPlaces } from './selectors';
import { taskRunning, type ConversationState } from './state';
import {
  asks,
  assistantLine,
  type Block,
  P1,
  promptStarts,
  resultLine,
  run,
  streamedReply,
  system,
  taskStarted,
  toolOf,
  toolResult,
} from './test-support/lines';

describe('permission requests', () => {
  const bashCall: Block = {
    type: 'tool_use',
    id: 'toolu_B',
    name: 'Bash',
    input: { command: 'touch allowed.txt' },
  };

  it('places a request at its tool call, inside the subagent that made it, or at the end', () => {
    const agentCall: Block = {
      type: 'tool_use',
      id: 'toolu_A',
      name: 'Agent',
      input: { description: 'probe', prompt: 'Touch a file.', subagent_type: 'general-purpose' },
    };
    const inSubagent = { parent_tool_use_id: 'toolu_A', subagent_type: 'general-purpose' };
    const state = run([
      ...promptStarts(P1, 'Delegate'),
      ...streamedReply('msg_1', [{ type: 'text', text: 'Delegating.' }, agentCall, bashCall]),
      assistantLine(
        'msg_sub_1',
        { type: 'tool_use', id: 'toolu_S1', name: 'Bash', input: { command: 'touch sub.txt' } },
        inSubagent,
      ),
      asks('req_top', 'toolu_B'),
      asks('req_sub', 'toolu_S1'),
      asks('req_unknown', 'toolu_never_seen'),
      asks('req_none', null),
    ]);
    expect(toolOf(state, 'toolu_S1').messageId).toBe('a:msg_sub_1');
    const places = permissionPlaces(state);
    expect(places.get('req_top')).toEqual({ messageId: 'a:msg_1', row: 1, toolUseIds: ['toolu_B'] });
    expect(places.get('req_sub')).toEqual({
      messageId: 'a:msg_1',
      row: 1,
      toolUseIds: ['toolu_A', 'toolu_S1'],
    });
    expect(places.get('req_unknown')).toBeNull();
    expect(places.get('req_none')).toBeNull();
    expect(permissionPlaces(state)).toBe(places);
  });
});

describe('background tasks', () => {
  const bashCall: Block = {
    type: 'tool_use',
    id: 'toolu_BG',
    name: 'Bash',
    input: { command: 'sleep 120', description: 'wait a long time', run_in_background: true },
  };
  const launched = (): ConversationEvent[] => [
    ...promptStarts(P1, 'Wait in the background'),
    ...streamedReply('msg_1', [bashCall]),
    taskStarted('bg1', 'toolu_BG', {
      description: 'wait a long time',
      is_backgrounded: true,
      task_type: 'local_bash',
    }),
    toolResult('toolu_BG', 'Command running in background with ID: bg1'),
    ...streamedReply('msg_2', [{ type: 'text', text: 'It runs.' }]),
    resultLine(),
  ];
  const running = (state: ConversationState) => backgroundTasks(state).map((tool) => tool.task?.taskId);

  it('lists a task from its start until its notification', () => {
    let state = run(launched());
    expect(running(state)).toEqual(['bg1']);
    expect(backgroundTasks(state)).toBe(backgroundTasks(state));
    state = run(
      [system('task_notification', { task_id: 'bg1', tool_use_id: 'toolu_BG', status: 'stopped' })],
      state,
    );
    expect(running(state)).toEqual([]);
  });

  it('drops a task whose update says it ended, and adds a foreground one moved to the background', () => {
    let state = run([
      ...promptStarts(P1, 'Use a subagent'),
      ...streamedReply('msg_1', [
        { type: 'tool_use', id: 'toolu_A', name: 'Agent', input: { description: 'probe', prompt: 'Go.' } },
      ]),
      taskStarted('ag1', 'toolu_A', {
        description: 'probe',
        is_backgrounded: false,
        task_type: 'local_agent',
      }),
    ]);
    expect(running(state)).toEqual([]);
    expect(taskRunning(toolOf(state, 'toolu_A').task!)).toBe(true);
    state = run([system('task_updated', { task_id: 'ag1', patch: { is_backgrounded: true } })], state);
    expect(running(state)).toEqual(['ag1']);
    state = run([system('task_updated', { task_id: 'ag1', patch: { status: 'killed' } })], state);
    expect(running(state)).toEqual([]);
    expect(taskRunning(toolOf(state, 'toolu_A').task!)).toBe(false);
  });

  it('ends every task when the CLI exits', () => {
    const state = run([...launched(), { kind: 'exit' }]);
    expect(running(state)).toEqual([]);
    expect(toolOf(state, 'toolu_BG')).toMatchObject({ status: 'done', task: { status: 'stopped' } });
  });
});
