/**
 * For the conversation's tests: CLI lines to feed the reducer, and ways to read what it made of them.
 */
import { expect } from 'vitest';
import type { ConversationEvent, ConversationSnapshot } from '../../ipc';
import { decodeCliMessage, type JsonObject } from '../../protocol';
import { applyEvents } from '../reduce';
import { cliItemText } from '../cli-items';
import {
  initialConversation,
  type ChatMessage,
  type ConversationState,
  type Part,
  type ToolCall,
} from '../state';

/*
 * Lines are written the way the real CLI 2.1.332 wrote them (shared/reference/cli-facts.md) and decoded
 * with the app's own schemas, so the reducer sees exactly what it sees in the app.
 */

export const SID = '5f0c2a9e-3b7d-4c1e-9a55-0d8e6f1b2c34';
export const MODEL = 'claude-opus-5-5';
export const P1 = '11111111-1111-4111-8111-111111111111';
export const P2 = '22222222-2222-4222-8222-222222222222';
export const P3 = '33333333-3333-4333-8333-333333333333';

let lineCount = 0;
const lineUuid = (): string => `00000000-0000-4000-8000-${String(++lineCount).padStart(12, '0')}`;

export const SNAPSHOT: ConversationSnapshot = {
  conversationId: 'c1',
  sessionId: SID,
  cwd: '/work/proj',
  model: MODEL,
  models: [{ value: 'default', displayName: 'Default' }],
  claudeCodeVersion: '2.1.332',
  permissionMode: 'default',
};

/** A conversation whose CLI has answered initialize: idle, nothing shown yet. */
export const started = (): ConversationState => initialConversation(SNAPSHOT);

export function cli(line: JsonObject): ConversationEvent {
  const decoded = decodeCliMessage(line);
  if (!decoded.ok) throw new Error(`test line does not decode: ${decoded.problem}`);
  return { kind: 'message', message: decoded.message };
}

// ---------------------------------------------------------------------------------------------------
// Lines

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: JsonObject };

export const prompt = (uuid: string, text: string): ConversationEvent => ({ kind: 'prompt', uuid, text });

export const lifecycle = (commandUuid: string, state: 'queued' | 'started' | 'completed' | 'cancelled') =>
  cli({ type: 'command_lifecycle', command_uuid: commandUuid, state, uuid: lineUuid(), session_id: SID });

export const systemInit = () =>
  cli({
    type: 'system',
    subtype: 'init',
    cwd: '/work/proj',
    session_id: SID,
    tools: ['Task', 'Bash', 'Edit', 'Read'],
    mcp_servers: [],
    model: MODEL,
    permissionMode: 'bypassPermissions',
    slash_commands: ['compact', 'context'],
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: '2.1.332',
    output_style: 'default',
    uuid: lineUuid(),
  });

export const requesting = () =>
  cli({ type: 'system', subtype: 'status', status: 'requesting', session_id: SID, uuid: lineUuid() });

function streamEvent(apiMessageId: string, event: JsonObject): ConversationEvent {
  return cli({
    type: 'stream_event',
    event,
    session_id: SID,
    parent_tool_use_id: null,
    uuid: lineUuid(),
    api_message_id: apiMessageId,
  });
}

export const messageStart = (apiMessageId: string) =>
  streamEvent(apiMessageId, {
    type: 'message_start',
    message: {
      id: apiMessageId,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 120, output_tokens: 1 },
    },
  });

export const blockStart = (apiMessageId: string, index: number, block: Block) =>
  streamEvent(apiMessageId, { type: 'content_block_start', index, content_block: emptied(block) });

export const textDelta = (apiMessageId: string, index: number, text: string) =>
  streamEvent(apiMessageId, { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

export const blockStop = (apiMessageId: string, index: number) =>
  streamEvent(apiMessageId, { type: 'content_block_stop', index });

export const messageDelta = (apiMessageId: string, stopReason: string) =>
  streamEvent(apiMessageId, {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 42 },
  });

export const messageStop = (apiMessageId: string) => streamEvent(apiMessageId, { type: 'message_stop' });

/** One `assistant` line: the CLI sends one per content block, with `stop_reason` always null. */
export function assistantLine(apiMessageId: string, block: Block, extra: JsonObject = {}): ConversationEvent {
  return cli({
    type: 'assistant',
    message: {
      id: apiMessageId,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 30 },
    },
    parent_tool_use_id: null,
    session_id: SID,
    uuid: lineUuid(),
    timestamp: '2026-11-30T10:00:00.000Z',
    request_id: 'req_011CV',
    ...extra,
  });
}

/** What content_block_start carries: the block with nothing in it yet. */
function emptied(block: Block): Block {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { ...block, input: {} };
  }
}

const pieces = (text: string): string[] => text.match(/[\s\S]{1,5}/g) ?? [];

function deltas(apiMessageId: string, index: number, block: Block): ConversationEvent[] {
  const delta = (d: JsonObject) =>
    streamEvent(apiMessageId, { type: 'content_block_delta', index, delta: d });
  switch (block.type) {
    case 'text':
      return pieces(block.text).map((text) => delta({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...pieces(block.thinking).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
      ];
    case 'tool_use':
      return pieces(JSON.stringify(block.input)).map((json) =>
        delta({ type: 'input_json_delta', partial_json: json }),
      );
  }
}

/** One block as streamed: start, deltas, the complete `assistant` line, and only then content_block_stop. */
export const streamedBlock = (apiMessageId: string, index: number, block: Block): ConversationEvent[] => [
  blockStart(apiMessageId, index, block),
  ...deltas(apiMessageId, index, block),
  assistantLine(apiMessageId, block),
  blockStop(apiMessageId, index),
];

/** One API message, streamed block by block. */
export function streamedReply(apiMessageId: string, blocks: Block[]): ConversationEvent[] {
  const last = blocks[blocks.length - 1];
  return [
    requesting(),
    messageStart(apiMessageId),
    ...blocks.flatMap((block, index) => streamedBlock(apiMessageId, index, block)),
    messageDelta(apiMessageId, last?.type === 'tool_use' ? 'tool_use' : 'end_turn'),
    messageStop(apiMessageId),
  ];
}

export function userLine(content: string | JsonObject[], extra: JsonObject = {}): ConversationEvent {
  return cli({
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: null,
    session_id: SID,
    uuid: lineUuid(),
    timestamp: '2026-11-30T10:00:01.000Z',
    ...extra,
  });
}

export const toolResult = (
  toolUseId: string,
  content: string | JsonObject[],
  isError = false,
  extra: JsonObject = {},
): ConversationEvent =>
  userLine([{ tool_use_id: toolUseId, type: 'tool_result', content, is_error: isError }], extra);

/** The `result` line; the CLI does not put `type` first. */
export function resultLine(extra: JsonObject = {}): ConversationEvent {
  return cli({
    duration_api_ms: 900,
    stop_reason: 'end_turn',
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'Done.',
    terminal_reason: 'completed',
    num_turns: 1,
    session_id: SID,
    uuid: lineUuid(),
    total_cost_usd: 0.0123,
    usage: { input_tokens: 120, output_tokens: 45 },
    permission_denials: [],
    api_error_status: null,
    duration_ms: 1500,
    ...extra,
  });
}

export const interruptedResult = (terminalReason: 'aborted_streaming' | 'aborted_tools') =>
  resultLine({
    subtype: 'error_during_execution',
    is_error: true,
    result: undefined,
    stop_reason: null,
    terminal_reason: terminalReason,
    errors: ['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'],
  });

export const system = (subtype: string, fields: JsonObject) =>
  cli({ type: 'system', subtype, session_id: SID, uuid: lineUuid(), ...fields });

export const taskStarted = (taskId: string, toolUseId: string, fields: JsonObject) =>
  system('task_started', { task_id: taskId, run_id: `run_${taskId}`, tool_use_id: toolUseId, ...fields });

export const heartbeat = (toolUseId: string, n: number, elapsed: number) =>
  cli({
    type: 'tool_progress',
    tool_use_id: `${toolUseId}-heartbeat-${n}`,
    tool_name: 'Bash',
    parent_tool_use_id: toolUseId,
    elapsed_time_seconds: elapsed,
    heartbeat: true,
    session_id: SID,
    uuid: lineUuid(),
  });

/** A prompt the user sent, as far as the CLI's first streamed line. */
export const promptStarts = (uuid: string, text: string): ConversationEvent[] => [
  prompt(uuid, text),
  lifecycle(uuid, 'queued'),
  lifecycle(uuid, 'started'),
  systemInit(),
];

/** A whole turn: prompt, streamed replies, result. */
export const turn = (uuid: string, text: string, ...middle: ConversationEvent[][]): ConversationEvent[] => [
  ...promptStarts(uuid, text),
  ...middle.flat(),
  resultLine(),
  lifecycle(uuid, 'completed'),
];

// ---------------------------------------------------------------------------------------------------
// Running events and reading what the chat shows

/**
 * Applies events at once, one per call, and in batches of three, and checks that all three agree: how
 * main happens to batch lines must never change what the user sees.
 */
export function run(events: ConversationEvent[], from: ConversationState = started()): ConversationState {
  const together = applyEvents(from, events);
  const oneByOne = events.reduce((state, event) => applyEvents(state, [event]), from);
  let inThrees = from;
  for (let at = 0; at < events.length; at += 3) inThrees = applyEvents(inThrees, events.slice(at, at + 3));
  expect(oneByOne).toStrictEqual(together);
  expect(inThrees).toStrictEqual(together);
  return together;
}

export function messageOf<R extends ChatMessage['role']>(
  state: ConversationState,
  id: string,
  role: R,
): Extract<ChatMessage, { role: R }> {
  const message = state.messages[id];
  expect(message?.role, `message ${id}`).toBe(role);
  return message as Extract<ChatMessage, { role: R }>;
}

export const assistantOf = (state: ConversationState, apiMessageId: string) =>
  messageOf(state, `a:${apiMessageId}`, 'assistant');

export function toolOf(state: ConversationState, id: string): ToolCall {
  const tool = state.tools[id];
  expect(tool, `tool ${id}`).toBeDefined();
  if (!tool) throw new Error(`no tool ${id}`);
  return tool;
}

function describePart(state: ConversationState, part: Part): string {
  switch (part.kind) {
    case 'text':
      return part.text;
    case 'thinking':
      return `(thinking) ${part.text}`;
    case 'tool': {
      const tool = state.tools[part.toolUseId];
      return `[${tool?.name ?? '?'} ${tool?.status ?? 'missing'}]`;
    }
    case 'other':
      return `<${part.label}>`;
  }
}

/** The rows a user sees, one string each: top-level by default, or a subagent's. */
export function transcript(state: ConversationState, ids: readonly string[] = state.order): string[] {
  return ids.map((id) => {
    const message = state.messages[id];
    switch (message?.role) {
      case 'user':
        return `${message.author}: ${message.text} (${message.status})`;
      case 'assistant':
        return `${message.author}: ${message.parts.map((part) => describePart(state, part)).join(' | ')}`;
      case 'result':
        return message.ok
          ? `result ${message.subtype}${message.unsolicited ? ' (unsolicited)' : ''}`
          : `result ${message.subtype} failed: ${message.errorText}`;
      case 'notice':
        return `[${message.tone}] ${message.text}`;
      case 'check':
        return `check ${message.check.command}: ${message.check.status} (round ${message.check.round})`;
      case 'setup':
        return `setup ${message.setup.command}: ${message.setup.status}`;
      case 'cli':
        return `[cli] ${cliItemText(message.item)}`;
      case undefined:
        return `missing ${id}`;
    }
  });
}

export function lastResult(state: ConversationState) {
  const id = state.order.findLast((candidate) => state.messages[candidate]?.role === 'result');
  return messageOf(state, id ?? 'no result', 'result');
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    try {
      Object.freeze(value);
    } catch {
      // A record by id cannot be frozen, nor written to: its values can.
    }
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A deep copy made of plain objects and arrays (structuredClone refuses the records by id). */
export function plainCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(plainCopy) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, plainCopy(child)])) as T;
}

/** Claude asks to use a tool (`can_use_tool`), at the call `toolUseId` (null: at none). */
export const asks = (requestId: string, toolUseId: string | null, toolName = 'Bash'): ConversationEvent => ({
  kind: 'permission_request',
  requestId,
  toolName,
  displayName: toolName,
  input: toolName === 'Bash' ? { command: 'touch allowed.txt' } : { file_path: '/work/proj/a.ts' },
  toolUseId,
  description: null,
  blockedPath: null,
  remember: toolName === 'Bash' ? 'Bash(touch allowed.txt) in this project' : null,
});
