/**
 * The lines about limits, login, the session file, the command list and the task tools, one of each kind
 * through the decoder and the reducer. rate_limit_event, auth_status and session_writes_lost cannot be made
 * here (an API key, a disk with room), so those are built from sdk.d.ts; prompt_suggestion and the task
 * tools' lines are as the pinned CLI sent them to the fake model.
 */
import { describe, expect, it } from 'vitest';
import { decodeCliMessage } from '../protocol';
import { assistantLine, cli, messageOf, prompt, run, SID, started, toolResult } from './test-support/lines';

const uuid = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';

describe('lines about the account and the session', () => {
  it('keeps the latest rate limit with every field it carries', () => {
    const info = {
      status: 'allowed_warning',
      resetsAt: 1_764_597_600,
      rateLimitType: 'five_hour',
      utilization: 0.91,
      overageStatus: 'rejected',
      overageDisabledReason: 'out_of_credits',
      isUsingOverage: false,
      surpassedThreshold: 0.9,
    };
    const line = { type: 'rate_limit_event', rate_limit_info: info, uuid, session_id: SID };
    expect(decodeCliMessage(line).ok).toBe(true);
    const state = run([cli(line)]);
    expect(state.rateLimit).toEqual(info);
    expect(state.order).toEqual([]);
    const later = run(
      [cli({ ...line, rate_limit_info: { status: 'rejected', rateLimitType: 'seven_day' } })],
      state,
    );
    expect(later.rateLimit).toEqual({ status: 'rejected', rateLimitType: 'seven_day' });
  });

  it('keeps the suggested next prompt until the next turn starts', () => {
    const line = { type: 'prompt_suggestion', suggestion: 'run the tests', uuid, session_id: SID };
    const state = run([cli(line)]);
    expect(state.promptSuggestion).toBe('run the tests');
    expect(
      run([prompt('11111111-1111-4111-8111-111111111111', 'something else')], state).promptSuggestion,
    ).toBeNull();
  });

  it('keeps how logging in goes', () => {
    const line = {
      type: 'auth_status',
      isAuthenticating: false,
      output: ['Opening the browser to log in…'],
      error: 'OAuth token has expired',
      uuid,
      session_id: SID,
    };
    const state = run([cli(line)]);
    expect(state.authStatus).toEqual({
      isAuthenticating: false,
      output: ['Opening the browser to log in…'],
      error: 'OAuth token has expired',
    });
  });

  it('warns that the CLI lost session writes, and that Byre’s own record has them', () => {
    const line = {
      type: 'system',
      subtype: 'session_writes_lost',
      error_code: 'ENOSPC',
      lost: ['transcript'],
      transcript_session_ids: [SID],
      uuid,
      session_id: SID,
    };
    const state = run([cli(line)]);
    const notice = messageOf(state, state.order[0]!, 'notice');
    expect(notice.tone).toBe('error');
    expect(notice.text).toContain('could not save this conversation');
    expect(notice.text).toContain('the disk is full');
    expect(notice.text).toContain('Byre’s own record of it');
  });

  it('replaces the / menu with the commands the CLI lists now', () => {
    const line = {
      type: 'system',
      subtype: 'commands_changed',
      commands: [
        { name: 'review', description: 'Review a pull request', argumentHint: '<pr>' },
        {
          name: '/deploy-skill',
          description: 'A skill found in a subfolder',
          argumentHint: '',
          builtin: false,
        },
      ],
      uuid,
      session_id: SID,
    };
    const before = started();
    expect(before.commands.some((command) => command.name === 'deploy-skill')).toBe(false);
    const state = run([cli(line)], before);
    expect(state.commands).toEqual([
      { name: 'review', description: 'Review a pull request', argumentHint: '<pr>' },
      { name: 'deploy-skill', description: 'A skill found in a subfolder', argumentHint: '' },
    ]);
  });
});

describe('the task tools’ list', () => {
  // As claude 2.1.332 sent them (CLAUDE_CODE_ENABLE_TODO_TOOLS=1, fake model).
  const create = (id: string, subject: string) =>
    assistantLine(`msg_${id}`, {
      type: 'tool_use',
      id,
      name: 'TaskCreate',
      input: { subject, description: 'Parse it', activeForm: `${subject}ing` },
    });
  const created = (toolUseId: string, taskId: string, subject: string) =>
    toolResult(toolUseId, `Task #${taskId} created successfully: ${subject}`, false, {
      tool_use_result: { task: { id: taskId, subject, description: 'Parse it' } },
    });
  const update = (id: string, input: Record<string, unknown>) =>
    assistantLine(`msg_${id}`, { type: 'tool_use', id, name: 'TaskUpdate', input });
  const updated = (toolUseId: string, taskId: string) =>
    toolResult(toolUseId, `Updated task #${taskId} status`, false, {
      tool_use_result: { success: true, taskId, updatedFields: ['status'] },
    });

  it('is built from TaskCreate results, which carry the ids, and TaskUpdate calls', () => {
    const state = run([
      create('toolu_1', 'Write parser'),
      created('toolu_1', '1', 'Write parser'),
      create('toolu_2', 'Test parser'),
      created('toolu_2', '2', 'Test parser'),
      update('toolu_3', { taskId: '1', status: 'in_progress' }),
      updated('toolu_3', '1'),
      update('toolu_4', { taskId: '2', status: 'deleted' }),
      updated('toolu_4', '2'),
    ]);
    expect(state.taskList).toEqual([
      {
        id: '1',
        subject: 'Write parser',
        description: 'Parse it',
        status: 'in_progress',
        activeForm: 'Write parsering',
      },
    ]);
  });

  it('changes nothing for an update that failed', () => {
    const state = run([
      create('toolu_1', 'Write parser'),
      created('toolu_1', '1', 'Write parser'),
      update('toolu_2', { taskId: '1', status: 'completed' }),
      toolResult('toolu_2', 'Task not found', false, {
        tool_use_result: { success: false, taskId: '1', updatedFields: [], error: 'Task not found' },
      }),
    ]);
    expect(state.taskList.map((task) => task.status)).toEqual(['pending']);
  });

  it('takes a TaskList result as the CLI’s word on the list', () => {
    const state = run([
      create('toolu_1', 'Write parser'),
      created('toolu_1', '1', 'Write parser'),
      assistantLine('msg_l', { type: 'tool_use', id: 'toolu_l', name: 'TaskList', input: {} }),
      toolResult('toolu_l', '#1 [completed] Write parser\n#3 [pending] Ship it', false, {
        tool_use_result: {
          tasks: [
            { id: '1', subject: 'Write parser', status: 'completed', blockedBy: [] },
            { id: '3', subject: 'Ship it', status: 'pending', blockedBy: [] },
          ],
        },
      }),
    ]);
    expect(state.taskList.map((task) => [task.id, task.status])).toEqual([
      ['1', 'completed'],
      ['3', 'pending'],
    ]);
  });
});
