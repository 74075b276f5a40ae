import { describe, it, expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decodeCliMessage, lenientResult, OutgoingLine, type CliMessage, type JsonObject } from './protocol';

/** Lines as the real CLI 2.1.332 wrote them (shared/reference/cli-facts.md), trimmed. */
const SID = '5f0c2a9e-3b7d-4c1e-9a55-0d8e6f1b2c34';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function parseLine(text: string): JsonObject {
  return JSON.parse(text) as JsonObject;
}

function decodeOk(line: JsonObject): CliMessage {
  const decoded = decodeCliMessage(line);
  if (!decoded.ok) throw new Error(`expected the line to decode, got: ${decoded.problem}`);
  return decoded.message;
}

function decodeProblem(line: JsonObject): string {
  const decoded = decodeCliMessage(line);
  if (decoded.ok) throw new Error(`expected ${JSON.stringify(line)} to be rejected`);
  expect(decoded.line).toBe(line);
  return decoded.problem;
}

const assistantLine = (content: unknown[]): JsonObject => ({
  type: 'assistant',
  message: {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-5-5',
    content,
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: null },
  },
  parent_tool_use_id: null,
  session_id: SID,
  uuid: uuid(10),
  timestamp: '2026-11-30T10:00:00.000Z',
  request_id: 'req_011CV',
});

describe('decodeCliMessage: lines the CLI was seen to write', () => {
  it('decodes system/init and keeps the keys it does not check', () => {
    const line = parseLine(
      JSON.stringify({
        type: 'system',
        subtype: 'init',
        cwd: '/work/proj',
        session_id: SID,
        tools: ['Task', 'Bash', 'Edit', 'Read', 'mcp__byre__set_title'],
        mcp_servers: [{ name: 'byre', status: 'connected', source: 'sdk' }],
        model: 'claude-opus-5-5',
        permissionMode: 'bypassPermissions',
        slash_commands: ['compact', 'context'],
        terminal_slash_commands: [],
        apiKeySource: 'ANTHROPIC_API_KEY',
        claude_code_version: '2.1.332',
        output_style: 'default',
        agents: ['general-purpose'],
        uuid: uuid(1),
        fast_mode_state: 'off',
      }),
    );
    const message = decodeOk(line);
    expect(message).toMatchObject({
      type: 'system',
      subtype: 'init',
      session_id: SID,
      model: 'claude-opus-5-5',
      tools: ['Task', 'Bash', 'Edit', 'Read', 'mcp__byre__set_title'],
      mcp_servers: [{ name: 'byre', status: 'connected', source: 'sdk' }],
      apiKeySource: 'ANTHROPIC_API_KEY',
      fast_mode_state: 'off',
    });
  });

  it.each([
    [
      'status',
      `{"type":"system","subtype":"status","status":"requesting","session_id":"${SID}","uuid":"${uuid(2)}"}`,
    ],
    [
      'task_started',
      `{"type":"system","subtype":"task_started","task_id":"aac7f1","run_id":"run_1","tool_use_id":"toolu_A","description":"probe task","subagent_type":"general-purpose","is_backgrounded":false,"spawn_depth":1,"task_type":"local_agent","prompt":"Run sub echo","session_id":"${SID}","uuid":"${uuid(3)}"}`,
    ],
    [
      'task_progress',
      `{"type":"system","subtype":"task_progress","task_id":"aac7f1","tool_use_id":"toolu_A","description":"Running sub echo","usage":{"total_tokens":16,"tool_uses":1,"duration_ms":131},"last_tool_name":"Bash","session_id":"${SID}","uuid":"${uuid(4)}"}`,
    ],
    [
      'task_updated',
      `{"type":"system","subtype":"task_updated","task_id":"aac7f1","patch":{"status":"completed","end_time":1796032800000},"session_id":"${SID}","uuid":"${uuid(5)}"}`,
    ],
    [
      'task_notification',
      `{"type":"system","subtype":"task_notification","task_id":"b3l46stq2","tool_use_id":"toolu_B","status":"completed","output_file":"","summary":"probe command","session_id":"${SID}","uuid":"${uuid(6)}"}`,
    ],
    [
      'notification',
      `{"type":"system","subtype":"notification","key":"stop-hook-error","text":"stop hook problem · ctrl+o to see","priority":"immediate","session_id":"${SID}","uuid":"${uuid(7)}"}`,
    ],
    [
      'background_tasks_changed',
      `{"type":"system","subtype":"background_tasks_changed","tasks":[{"task_id":"aac7f1","run_id":"run_1","task_type":"local_agent","subagent_type":"general-purpose","description":"probe task"}],"session_id":"${SID}","uuid":"${uuid(8)}"}`,
    ],
  ])('decodes system/%s with every key kept', (subtype, text) => {
    const line = parseLine(text);
    const message = decodeOk(line);
    expect(message).toMatchObject({ type: 'system', subtype });
    expect(message).toEqual(line);
  });

  it('decodes an assistant line with text and tool_use blocks', () => {
    const line = assistantLine([
      { type: 'text', text: 'Running it.' },
      {
        type: 'tool_use',
        id: 'toolu_01',
        name: 'Bash',
        input: { command: 'echo hello', description: 'probe command' },
      },
    ]);
    const message = decodeOk(line);
    expect(message).toEqual(line);
    if (message.type !== 'assistant') throw new Error('expected assistant');
    expect(message.message.content.map((block) => block.type)).toEqual(['text', 'tool_use']);
    expect(message.request_id).toBe('req_011CV');
    expect(message.message.stop_sequence).toBeNull();
  });

  it('decodes a user tool_result line', () => {
    const line = parseLine(
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [{ tool_use_id: 'toolu_01', type: 'tool_result', content: 'hello', is_error: false }],
        },
        parent_tool_use_id: null,
        session_id: SID,
        uuid: uuid(11),
        timestamp: '2026-11-30T10:00:01.000Z',
        tool_use_result: { stdout: 'hello', stderr: '', interrupted: false, isImage: false },
        tool_result_meta: [{ id: 'toolu_01', permission_decision: { decision: 'accept' } }],
      }),
    );
    const message = decodeOk(line);
    expect(message).toEqual(line);
    expect(message).toMatchObject({
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'hello' }] },
    });
  });

  it('decodes a result line whose "type" key is not first', () => {
    const text = `{"duration_api_ms":1830,"stop_reason":"end_turn","type":"result","subtype":"success","is_error":false,"result":"Done.","terminal_reason":"completed","num_turns":2,"session_id":"${SID}","uuid":"${uuid(12)}","total_cost_usd":0.0123,"usage":{"input_tokens":120,"output_tokens":40},"modelUsage":{},"permission_denials":[],"duration_ms":2410}`;
    expect(text.startsWith('{"type"')).toBe(false);
    const message = decodeOk(parseLine(text));
    expect(message).toMatchObject({
      type: 'result',
      subtype: 'success',
      num_turns: 2,
      total_cost_usd: 0.0123,
      modelUsage: {},
    });
  });

  it('decodes an error result with its errors', () => {
    const message = decodeOk({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'aborted_tools',
      num_turns: 1,
      duration_ms: 900,
      total_cost_usd: 0,
      usage: {},
      errors: ['interrupted'],
      session_id: SID,
      uuid: uuid(13),
    });
    expect(message).toMatchObject({ subtype: 'error_during_execution', errors: ['interrupted'] });
  });

  it.each([
    ['message_start', { type: 'message_start', message: { id: 'msg_01', usage: {} }, ttft_ms: 312 }],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    ['text_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }],
    [
      'input_json_delta',
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"com' } },
    ],
    [
      'thinking_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 9 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])('decodes a stream_event carrying %s', (_name, event) => {
    const line = {
      type: 'stream_event',
      event,
      session_id: SID,
      parent_tool_use_id: null,
      uuid: uuid(20),
      api_message_id: 'msg_01',
    };
    expect(decodeOk(line)).toEqual(line);
  });

  it('rejects a text_delta without its text', () => {
    const problem = decodeProblem({
      type: 'stream_event',
      event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } },
      session_id: SID,
      parent_tool_use_id: null,
      uuid: uuid(21),
    });
    expect(problem).toContain('stream_event');
  });

  it('decodes a tool_progress heartbeat', () => {
    const message = decodeOk(
      parseLine(
        `{"type":"tool_progress","tool_use_id":"toolu_01-heartbeat-0","tool_name":"Bash","parent_tool_use_id":"toolu_01","elapsed_time_seconds":30,"heartbeat":true,"session_id":"${SID}","uuid":"${uuid(22)}"}`,
      ),
    );
    expect(message).toMatchObject({
      type: 'tool_progress',
      parent_tool_use_id: 'toolu_01',
      elapsed_time_seconds: 30,
      heartbeat: true,
    });
  });

  it('decodes command_lifecycle and rejects an unknown state', () => {
    const line = {
      type: 'command_lifecycle',
      command_uuid: uuid(30),
      state: 'queued',
      uuid: uuid(31),
      session_id: SID,
    };
    expect(decodeOk(line)).toEqual(line);
    expect(decodeProblem({ ...line, state: 'exploded' })).toContain('command_lifecycle');
  });

  it('decodes a hook_callback control request', () => {
    const line = parseLine(
      JSON.stringify({
        type: 'control_request',
        request_id: '6b1d0c1e-6e2f-4a57-9a3c-0f1e2d3c4b5a',
        request: {
          subtype: 'hook_callback',
          callback_id: 'hook_0',
          input: {
            session_id: SID,
            hook_event_name: 'Stop',
            stop_hook_active: false,
            last_assistant_message: 'First stop attempt.',
          },
          tool_use_id: '4f3e2d1c-0b9a-4876-a543-210fedcba987',
        },
      }),
    );
    expect(decodeOk(line)).toEqual(line);
  });

  it('decodes an mcp_message control request', () => {
    const line = parseLine(
      `{"type":"control_request","request_id":"r-mcp","request":{"subtype":"mcp_message","server_name":"byre","message":{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}},"jsonrpc":"2.0","id":0}}}`,
    );
    const message = decodeOk(line);
    expect(message).toMatchObject({
      type: 'control_request',
      request: { subtype: 'mcp_message', server_name: 'byre', message: { method: 'initialize', id: 0 } },
    });
  });

  it('decodes a can_use_tool control request', () => {
    const line = parseLine(
      JSON.stringify({
        type: 'control_request',
        request_id: 'r-perm',
        request: {
          subtype: 'can_use_tool',
          tool_name: 'Bash',
          display_name: 'Bash',
          input: { command: 'touch allowed.txt', description: 'make file' },
          description: 'make file',
          permission_suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
          blocked_path: '/work/proj/allowed.txt',
          tool_use_id: 'toolu_02',
        },
      }),
    );
    expect(decodeOk(line)).toEqual(line);
  });

  it('rejects a control request of a subtype the host does not handle', () => {
    const problem = decodeProblem({
      type: 'control_request',
      request_id: 'r-x',
      request: { subtype: 'elicitation' },
    });
    expect(problem).toContain('control_request');
  });

  it('decodes control responses, success and error', () => {
    const success = parseLine(
      `{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"models":[],"pid":4242,"claude_code_version":"2.1.332","session_state":"idle"}}}`,
    );
    expect(decodeOk(success)).toEqual(success);
    const error = parseLine(
      `{"type":"control_response","response":{"subtype":"error","request_id":"bad_1","error":"Unsupported control request subtype: no_such_subtype","error_code":"unsupported_request"}}`,
    );
    expect(decodeOk(error)).toMatchObject({
      response: { subtype: 'error', error_code: 'unsupported_request' },
    });
    expect(
      decodeProblem({ type: 'control_response', response: { subtype: 'error', request_id: 'bad_2' } }),
    ).toContain('control_response');
  });

  it('decodes control_cancel_request', () => {
    const line = { type: 'control_cancel_request', request_id: 'r-mcp' };
    expect(decodeOk(line)).toEqual(line);
  });
});

describe('decodeCliMessage: lines it does not accept', () => {
  it('reports an unknown type by name', () => {
    const problem = decodeProblem({ type: 'bogus_type', session_id: SID });
    expect(problem).toContain('bogus_type');
  });

  it('reports a line with no string type', () => {
    expect(decodeProblem({ subtype: 'init' })).toContain('unknown line type');
    expect(decodeProblem({ type: 42 })).toContain('42');
  });

  // Bug: lineSchemas is a plain object, so a type naming an Object.prototype member finds no schema
  // but a function/object, and decodeCliMessage throws "schema.safeParse is not a function".
  it('reports (not throws on) a type that names an Object.prototype member', () => {
    for (const type of ['constructor', 'toString', '__proto__']) {
      expect(decodeProblem({ type })).toContain(type);
    }
  });

  it('rejects a known type that fails its schema, naming the kind', () => {
    expect(decodeProblem({ type: 'result', subtype: 'success', session_id: SID, uuid: uuid(40) })).toMatch(
      /^result line does not match its schema/,
    );
    expect(decodeProblem({ type: 'system', subtype: 'api_retry', session_id: SID, uuid: uuid(41) })).toMatch(
      /^system\/api_retry line does not match its schema/,
    );
    expect(decodeProblem({ type: 'assistant', message: 'hi', session_id: SID, uuid: uuid(42) })).toMatch(
      /^assistant line/,
    );
  });
});

describe('system subtypes', () => {
  it('reads every subtype the CLI was seen to send, retries included', () => {
    const retry = {
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 556,
      error_status: 529,
      error: 'overloaded',
      session_id: SID,
      uuid: uuid(43),
    };
    expect(decodeCliMessage(retry)).toEqual({ ok: true, message: retry });
    for (const subtype of ['compact_boundary', 'hook_started', 'hook_response']) {
      expect(decodeCliMessage({ type: 'system', subtype, session_id: SID, uuid: uuid(44) }).ok).toBe(true);
    }
  });

  it('tells a subtype it does not know (news, kept quietly) from a known one that is damaged', () => {
    const news = decodeCliMessage({ type: 'system', subtype: 'bogus', session_id: SID, uuid: uuid(45) });
    expect(news).toMatchObject({ ok: false, unknownKind: true });
    const damaged = decodeCliMessage({ type: 'system', subtype: 'init', session_id: SID, uuid: uuid(46) });
    expect(damaged).toMatchObject({ ok: false });
    expect(damaged.ok === false && damaged.unknownKind).toBeFalsy();
  });
});

describe('content blocks', () => {
  it('keeps a block of an unknown type as unknown_block with its original type', () => {
    const serverTool = {
      type: 'server_tool_use',
      id: 'srvtoolu_1',
      name: 'web_search',
      input: { query: 'x' },
    };
    const message = decodeOk(assistantLine([serverTool, { type: 'text', text: 'after' }]));
    if (message.type !== 'assistant') throw new Error('expected assistant');
    expect(message.message.content).toEqual([
      { type: 'unknown_block', original_type: 'server_tool_use', block: serverTool },
      { type: 'text', text: 'after' },
    ]);
  });

  it('keeps an unknown block inside a user message', () => {
    const message = decodeOk({
      type: 'user',
      message: { role: 'user', content: [{ type: 'mystery_block', payload: 1 }] },
      session_id: SID,
    });
    expect(message).toMatchObject({
      message: { content: [{ type: 'unknown_block', original_type: 'mystery_block' }] },
    });
  });

  it.each([
    ['text without text', { type: 'text' }],
    ['tool_use without name', { type: 'tool_use', id: 'toolu_1', input: {} }],
    ['tool_use with non-object input', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: 'ls' }],
    ['tool_result without tool_use_id', { type: 'tool_result', content: 'x' }],
    ['image without source', { type: 'image' }],
    ['thinking with numeric thinking', { type: 'thinking', thinking: 3 }],
  ])('rejects a malformed known block: %s', (_name, block) => {
    expect(decodeProblem(assistantLine([block]))).toMatch(/^assistant line/);
  });

  it('preserves extra keys on blocks', () => {
    const block = { type: 'text', text: 'cited', citations: [{ type: 'char_location', cited_text: 'x' }] };
    const message = decodeOk(assistantLine([block]));
    expect(message).toMatchObject({ message: { content: [block] } });
  });
});

describe('OutgoingLine', () => {
  const png = Buffer.from('\x89PNG\r\n\x1a\n fake image bytes', 'latin1').toString('base64');
  const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: null,
    session_id: SID,
    uuid: randomUUID(),
    ...extra,
  });
  const image = (source: Record<string, unknown>) => ({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: png, ...source },
  });

  it('accepts a text prompt', () => {
    const line = user('turn one');
    expect(OutgoingLine.parse(line)).toEqual(line);
  });

  it('accepts images followed by text', () => {
    const line = user([
      image({}),
      image({ media_type: 'image/jpeg' }),
      { type: 'text', text: 'What is in this image?' },
    ]);
    expect(OutgoingLine.parse(line)).toEqual(line);
  });

  it.each([
    ['a missing uuid', { ...user('hi'), uuid: undefined }],
    ['a uuid that is not one', user('hi', { uuid: 'not-a-uuid' })],
    ['non-base64 image data', user([image({ data: 'not base64!!' }), { type: 'text', text: 'x' }])],
    ['empty image data', user([image({ data: '' })])],
    ['an unsupported media type', user([image({ media_type: 'image/bmp' })])],
    ['a url image source', user([{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }])],
    ['an empty content array', user([])],
    ['an unknown block in content', user([{ type: 'mystery_block' }])],
    ['a missing session_id', { ...user('hi'), session_id: undefined }],
    ['a parent_tool_use_id', user('hi', { parent_tool_use_id: 'toolu_1' })],
  ])('rejects a user message with %s', (_name, line) => {
    expect(OutgoingLine.safeParse(line).success).toBe(false);
  });

  it('accepts host control requests and rejects unknown subtypes', () => {
    const initialize = {
      type: 'control_request',
      request_id: 'req_1',
      request: { subtype: 'initialize', hooks: { Stop: [{ matcher: null, hookCallbackIds: ['hook_0'] }] } },
    };
    expect(OutgoingLine.parse(initialize)).toEqual(initialize);
    expect(
      OutgoingLine.safeParse({ type: 'control_request', request_id: 'req_2', request: { subtype: 'nope' } })
        .success,
    ).toBe(false);
  });
});

describe('lenientResult', () => {
  const line = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'Done.',
    num_turns: 1,
    duration_ms: 120,
    usage: { input_tokens: 3, output_tokens: 4 },
    session_id: 's-1',
    uuid: 'u-1',
  };

  it('reads a result that lacks a field a newer CLI dropped, keeping what it has', () => {
    expect(decodeCliMessage(line).ok).toBe(false);
    expect(lenientResult(line, 's-1', 'fallback')).toMatchObject({
      type: 'result',
      subtype: 'success',
      result: 'Done.',
      total_cost_usd: 0,
      duration_ms: 120,
      uuid: 'u-1',
    });
  });

  it('fills a field of the wrong kind too, and gives up on a line that is not a result at all', () => {
    expect(lenientResult({ ...line, num_turns: 'one' }, 's-1', 'x')?.num_turns).toBe(0);
    expect(lenientResult({ type: 'assistant' }, 's-1', 'x')).toBeNull();
  });
});
