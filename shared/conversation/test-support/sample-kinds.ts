/**
 * A line of every kind the CLI writes on stdout, by kind as shared/protocol-kinds.md names it (`type`, or
 * `system/<subtype>`): recorded from the pinned CLI where it makes them (recorded-kinds.ts), built from the
 * Agent SDK's sdk.d.ts where it cannot. For the decoder's and the reducer's tests of every kind.
 */
import type { JsonObject } from '../../protocol';
import { recordedLines } from './recorded-kinds';

export const SAMPLE_SID = '9c3b1f0e-2a4d-4e6f-8b7a-1c2d3e4f5a6b';
let n = 0;
export const sampleBase = (): JsonObject => ({
  session_id: SAMPLE_SID,
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
});
export const sampleSystem = (subtype: string, fields: JsonObject): JsonObject => ({
  type: 'system',
  subtype,
  ...sampleBase(),
  ...fields,
});

export const sampleLines: Record<string, JsonObject> = {
  assistant: {
    type: 'assistant',
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-opus-5-5',
      content: [{ type: 'text', text: 'Hi.' }],
    },
    parent_tool_use_id: null,
    ...sampleBase(),
  },
  user: {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' }] },
    parent_tool_use_id: null,
    ...sampleBase(),
  },
  'user (replay)': recordedLines.compact_replay,
  result: {
    type: 'result',
    subtype: 'success',
    is_error: false,
    num_turns: 1,
    duration_ms: 10,
    total_cost_usd: 0,
    usage: {},
    ...sampleBase(),
  },
  stream_event: {
    type: 'stream_event',
    event: { type: 'message_start', message: { id: 'msg_1' } },
    parent_tool_use_id: null,
    ...sampleBase(),
  },
  tool_progress: {
    type: 'tool_progress',
    tool_use_id: 'toolu_1',
    tool_name: 'Bash',
    parent_tool_use_id: null,
    elapsed_time_seconds: 3,
    ...sampleBase(),
  },
  tool_use_summary: {
    type: 'tool_use_summary',
    summary: 'Read 3 files',
    preceding_tool_use_ids: ['toolu_1'],
    ...sampleBase(),
  },
  conversation_reset: recordedLines.conversation_reset,
  rate_limit_event: {
    type: 'rate_limit_event',
    rate_limit_info: {
      status: 'allowed_warning',
      rateLimitType: 'five_hour',
      utilization: 0.91,
      resetsAt: 1_900_000_000,
    },
    ...sampleBase(),
  },
  prompt_suggestion: { type: 'prompt_suggestion', suggestion: 'Run the tests', ...sampleBase() },
  auth_status: {
    type: 'auth_status',
    isAuthenticating: false,
    output: [],
    error: 'Not logged in',
    ...sampleBase(),
  },
  'system/init': {
    type: 'system',
    subtype: 'init',
    cwd: '/work',
    model: 'claude-opus-5-5',
    tools: ['Bash'],
    mcp_servers: [],
    permissionMode: 'default',
    claude_code_version: '2.1.332',
    ...sampleBase(),
  },
  'system/status': recordedLines.status_compacted,
  'system/compact_boundary': recordedLines.compact_boundary,
  'system/api_retry': sampleSystem('api_retry', {
    attempt: 1,
    max_retries: 10,
    retry_delay_ms: 500,
    error_status: 529,
    error: 'overloaded',
  }),
  'system/control_request_progress': sampleSystem('control_request_progress', {
    request_id: 'req_9',
    status: 'started',
  }),
  'system/model_refusal_fallback': sampleSystem('model_refusal_fallback', {
    trigger: 'refusal',
    direction: 'retry',
    scope: 'session',
    original_model: 'claude-opus-5-5',
    fallback_model: 'claude-sonnet-4-5',
    request_id: null,
    api_refusal_category: 'cyber',
    content: '',
  }),
  'system/model_refusal_no_fallback': sampleSystem('model_refusal_no_fallback', {
    original_model: 'claude-opus-5-5',
    request_id: null,
    content: 'Claude declined to answer this request.',
  }),
  'system/local_command_output': sampleSystem('local_command_output', {
    content: '## Voice\nVoice mode is off.',
  }),
  'system/hook_started': recordedLines.hook_started,
  'system/hook_progress': sampleSystem('hook_progress', {
    hook_id: 'h1',
    hook_name: 'PreToolUse:Bash',
    hook_event: 'PreToolUse',
    stdout: 'checking…\n',
    stderr: '',
    output: 'checking…\n',
  }),
  'system/hook_response': recordedLines.hook_response_pre_tool,
  'system/plugin_install': sampleSystem('plugin_install', {
    status: 'installed',
    name: 'claude-plugins-official',
  }),
  'system/task_notification': sampleSystem('task_notification', {
    task_id: 't1',
    status: 'completed',
    summary: 'Done',
  }),
  'system/task_started': sampleSystem('task_started', { task_id: 't1', description: 'Explore' }),
  'system/task_updated': sampleSystem('task_updated', { task_id: 't1', patch: { status: 'running' } }),
  'system/task_progress': sampleSystem('task_progress', { task_id: 't1', description: 'Reading' }),
  'system/background_tasks_changed': sampleSystem('background_tasks_changed', { tasks: [] }),
  'system/thinking_tokens': sampleSystem('thinking_tokens', { estimated_tokens: 120 }),
  'system/session_state_changed': sampleSystem('session_state_changed', { state: 'requires_action' }),
  'system/worker_shutting_down': sampleSystem('worker_shutting_down', { reason: 'host_exit' }),
  'system/commands_changed': sampleSystem('commands_changed', {
    commands: [{ name: 'review', description: 'Review' }],
  }),
  'system/notification': sampleSystem('notification', {
    key: 'k1',
    text: 'Update available',
    priority: 'low',
  }),
  'system/files_persisted': sampleSystem('files_persisted', {
    files: [{ filename: 'a.png', file_id: 'file_1' }],
    failed: [],
    processed_at: '2026-12-01T00:00:00Z',
  }),
  'system/memory_recall': sampleSystem('memory_recall', {
    mode: 'select',
    memories: [{ path: '/home/u/.claude/memory/tests.md', scope: 'personal' }],
  }),
  'system/elicitation_complete': sampleSystem('elicitation_complete', {
    mcp_server_name: 'docs',
    elicitation_id: 'e1',
  }),
  'system/permission_denied': sampleSystem('permission_denied', {
    tool_name: 'Bash',
    tool_use_id: 'toolu_1',
    tool_input: { command: 'rm -rf /' },
    decision_reason_type: 'rule',
    decision_reason: 'Bash(rm:*) in project settings',
    message: 'Permission to use Bash has been denied.',
  }),
  'system/mirror_error': sampleSystem('mirror_error', {
    error: 'timeout',
    key: { projectKey: 'p', sessionId: SAMPLE_SID },
  }),
  'system/informational': sampleSystem('informational', {
    content: 'Stop hook stopped the turn',
    level: 'warning',
  }),
  'system/session_writes_lost': sampleSystem('session_writes_lost', {
    error_code: 'ENOSPC',
    lost: ['transcript'],
  }),
  // Beyond SDKMessage: the control channel, the heartbeat, /goal, and the prompt queue.
  control_request: {
    type: 'control_request',
    request_id: 'r1',
    request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'ls' } },
  },
  control_response: { type: 'control_response', response: { subtype: 'success', request_id: 'r2' } },
  control_cancel_request: { type: 'control_cancel_request', request_id: 'r1' },
  keep_alive: { type: 'keep_alive' },
  active_goal: {
    type: 'active_goal',
    value: { condition: 'tests pass', iterations: 2, set_at: 1, tokens_at_start: 0 },
    ...sampleBase(),
  },
  command_lifecycle: { type: 'command_lifecycle', command_uuid: 'c1', state: 'started', ...sampleBase() },
};
