import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol';
import { recordedLines } from './test-support/recorded-kinds';
import { sampleLines, sampleSystem } from './test-support/sample-kinds';
import {
  assistantLine,
  cli,
  P1,
  P2,
  promptStarts,
  run,
  toolOf,
  transcript,
  turn,
} from './test-support/lines';

/**
 * One line of every kind through the decoder and the reducer: what the chat shows of it (protocol-kinds.md
 * says why). Then the kinds that become items of their own, line by line as the pinned CLI sent them.
 */

/** What each kind adds to a conversation whose user just sent "/voice"; [] for a kind that shows nothing. */
const SHOWN: Record<string, string[]> = {
  assistant: ['Claude: Hi.'],
  user: [],
  'user (replay)': ['[info] Compacted'],
  result: ['result success'],
  stream_event: ['Claude: '],
  tool_progress: [],
  tool_use_summary: [],
  conversation_reset: [
    '[info] Conversation cleared: Claude starts again from here, without what came before.',
  ],
  'system/init': [],
  'system/status': [],
  'system/compact_boundary': ['[cli] Conversation compacted (manual · 11 → 2.6k tokens)'],
  'system/api_retry': [],
  'system/control_request_progress': [],
  'system/model_refusal_fallback': [
    '[info] claude-opus-5-5 declined to answer (cyber); claude-sonnet-4-5 answered instead.',
  ],
  'system/model_refusal_no_fallback': ['[error] Claude declined to answer this request.'],
  'system/local_command_output': ['[cli] ## Voice\nVoice mode is off.'],
  'system/hook_started': ['[cli] UserPromptSubmit hook: running\n'],
  'system/hook_progress': ['[cli] PreToolUse:Bash hook: running\nchecking…\n'],
  'system/hook_response': ['[cli] PreToolUse:Bash hook: success\npre-tool-hook\noops\n'],
  'system/plugin_install': ['[info] Plugin claude-plugins-official installed.'],
  'system/task_notification': [],
  'system/task_started': [],
  'system/task_updated': [],
  'system/task_progress': [],
  'system/background_tasks_changed': [],
  'system/thinking_tokens': [],
  'system/session_state_changed': [],
  'system/worker_shutting_down': ['[info] Claude Code is shutting down (host exit).'],
  'system/notification': ['[info] Update available'],
  'system/files_persisted': [],
  'system/memory_recall': ['[info] Recalled from memory: /home/u/.claude/memory/tests.md'],
  'system/elicitation_complete': [],
  // Its tool call is not in this conversation: said as a notice.
  'system/permission_denied': [
    '[info] Bash was denied by a permission rule: Permission to use Bash has been denied.',
  ],
  'system/mirror_error': [
    '[error] Claude Code could not copy part of this conversation to its store: timeout',
  ],
  'system/informational': ['[error] Stop hook stopped the turn'],
  control_request: [],
  control_response: [],
  control_cancel_request: [],
  keep_alive: [],
  active_goal: ['[info] Goal not met yet (round 2): tests pass'],
  command_lifecycle: [],
  // The limits, the login and the next prompt are shown outside the chat (status-lines.test.ts).
  rate_limit_event: [],
  prompt_suggestion: [],
  auth_status: [],
  'system/commands_changed': [],
  'system/session_writes_lost': [
    '[error] Claude Code could not save this conversation to its session file (the disk is full): the library and Resume may miss part of it. Byre’s own record of it, shown here, is complete.',
  ],
};

const start = () => promptStarts(P1, '/voice');
const shownAfter = (...lines: JsonObject[]) =>
  transcript(run([...start(), ...lines.map(cli)])).slice(transcript(run(start())).length);

describe('every kind, through the decoder and the reducer', () => {
  it.each(Object.entries(sampleLines))('%s', (kind, line) => {
    expect(SHOWN, kind).toHaveProperty([kind]);
    expect(shownAfter(line)).toEqual(SHOWN[kind]);
  });
});

describe('hooks', () => {
  it('shows one line per hook run, from its start to its outcome, with its output', () => {
    const state = run([
      ...start(),
      cli(recordedLines.hook_started),
      cli(recordedLines.hook_response),
      cli(recordedLines.hook_started_pre_tool),
      cli(recordedLines.hook_response_pre_tool),
    ]);
    const items = state.order.map((id) => state.messages[id]).filter((message) => message?.role === 'cli');
    expect(items.map((message) => message.item)).toEqual([
      {
        kind: 'hook',
        hookId: recordedLines.hook_started.hook_id,
        name: 'UserPromptSubmit',
        event: 'UserPromptSubmit',
        outcome: 'success',
        exitCode: 0,
        output: 'prompt-hook-says-hi\n',
      },
      {
        kind: 'hook',
        hookId: recordedLines.hook_started_pre_tool.hook_id,
        name: 'PreToolUse:Bash',
        event: 'PreToolUse',
        outcome: 'success',
        exitCode: 0,
        output: 'pre-tool-hook\noops\n',
      },
    ]);
  });

  it('keeps the output a hook wrote while it ran when its response carries none', () => {
    const progress = sampleSystem('hook_progress', {
      hook_id: 'h9',
      hook_name: 'Stop',
      hook_event: 'Stop',
      output: 'half done\n',
    });
    const response = sampleSystem('hook_response', {
      hook_id: 'h9',
      hook_name: 'Stop',
      hook_event: 'Stop',
      output: '',
      stdout: '',
      stderr: '',
      exit_code: 2,
      outcome: 'error',
    });
    expect(shownAfter(progress, response)).toEqual(['[cli] Stop hook: error\nhalf done\n']);
  });
});

describe('compaction', () => {
  it('marks where /compact compacted, with the summary folded in and no "Compacted" notice of its own', () => {
    const state = run([
      ...turn(P1, 'hello', [assistantLine('msg_1', { type: 'text', text: 'Hi.' })]),
      ...promptStarts(P2, '/compact'),
      cli(recordedLines.status_compacting),
      cli(recordedLines.status_compacted),
      cli(recordedLines.compact_boundary),
      cli(recordedLines.compact_summary),
      cli(recordedLines.compact_replay),
    ]);
    const last = state.messages[state.order[state.order.length - 1] ?? ''];
    expect(transcript(state).slice(-2)).toEqual([
      'You: /compact (sent)',
      '[cli] Conversation compacted (manual · 11 → 2.6k tokens)',
    ]);
    expect(last?.role === 'cli' && last.item.kind === 'compact' && last.item.summary).toMatch(
      /^This session is being continued from a previous conversation/,
    );
  });

  it('says so when compacting failed', () => {
    const failed = sampleSystem('status', {
      status: null,
      compact_result: 'failed',
      compact_error: 'Not enough messages',
    });
    expect(shownAfter(failed)).toEqual(['[error] Compacting failed: Not enough messages']);
  });

  it('labels an automatic compaction with both counts', () => {
    const auto = sampleSystem('compact_boundary', {
      compact_metadata: { trigger: 'auto', pre_tokens: 162_000, post_tokens: 9_000 },
    });
    expect(shownAfter(auto)).toEqual(['[cli] Conversation compacted (auto · 162k → 9k tokens)']);
  });
});

describe('local command output', () => {
  it('is shown as the output of the slash command the user sent just before', () => {
    const state = run([...start(), cli(sampleLines['system/local_command_output']!)]);
    const last = state.messages[state.order[state.order.length - 1] ?? ''];
    expect(last).toMatchObject({ role: 'cli', item: { kind: 'command_output', command: '/voice' } });
  });
});

describe('permission_denied', () => {
  it('says a deny rule denied the Bash call the pinned CLI stopped', () => {
    const denied = recordedLines.permission_denied;
    const call = {
      type: 'tool_use',
      id: denied.tool_use_id,
      name: 'Bash',
      input: { command: 'rm -rf build' },
    } as const;
    const state = run([...start(), assistantLine('msg_1', call), cli(denied)]);
    expect(toolOf(state, denied.tool_use_id).denied).toEqual({
      by: 'a permission rule',
      reason: null,
      message: 'Permission to use Bash with command rm -rf build has been denied.',
    });
  });

  it('is shown at its tool call: which rule or mode denied it, and what Claude was told', () => {
    const call = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'rm -rf /' } } as const;
    const state = run([
      ...start(),
      assistantLine('msg_1', call),
      cli(sampleLines['system/permission_denied']!),
      // The same call's block again (a stream that ends after the denial) keeps it.
      assistantLine('msg_1', call),
    ]);
    expect(toolOf(state, 'toolu_1').denied).toEqual({
      by: 'a permission rule',
      reason: 'Bash(rm:*) in project settings',
      message: 'Permission to use Bash has been denied.',
    });
    const byMode = sampleSystem('permission_denied', {
      tool_name: 'Write',
      tool_use_id: 'toolu_2',
      decision_reason_type: 'mode',
      message: 'Denied in dontAsk mode.',
    });
    expect(shownAfter(byMode)).toEqual([
      '[info] Write was denied by the permission mode: Denied in dontAsk mode.',
    ]);
  });
});

describe('the CLI’s notices', () => {
  it('takes the fallback model as the conversation’s after a session-wide refusal fallback, not after a local one', () => {
    const fallback = sampleLines['system/model_refusal_fallback']!;
    expect(run([...start(), cli(fallback)]).model).toBe('claude-sonnet-4-5');
    expect(run([...start(), cli({ ...fallback, scope: 'local' })]).model).not.toBe('claude-sonnet-4-5');
  });

  it('cuts the terminal’s key hint off a notification, and folds the blocked-stop one the check card shows', () => {
    const hinted = sampleSystem('notification', {
      key: 'x',
      text: 'Background task finished · ctrl+o to see',
    });
    const stop = sampleSystem('notification', {
      key: 'stop-hook-error',
      text: 'stop hook problem · ctrl+o to see',
    });
    expect(shownAfter(hinted, stop)).toEqual(['[info] Background task finished']);
  });

  it('leaves out informational lines of level info (transcript view only) and shows the others by level', () => {
    const line = (level: string) => sampleSystem('informational', { content: `a ${level} line`, level });
    expect(shownAfter(line('info'), line('notice'), line('suggestion'), line('warning'))).toEqual([
      '[info] a notice line',
      '[info] a suggestion line',
      '[error] a warning line',
    ]);
  });

  it('says which uploads failed', () => {
    const persisted = sampleSystem('files_persisted', {
      files: [],
      failed: [{ filename: 'big.pdf', error: 'too large' }],
      processed_at: '2026-12-01T00:00:00Z',
    });
    expect(shownAfter(persisted)).toEqual(['[error] Claude Code could not upload big.pdf: too large']);
  });
});
