/**
 * The reducer, line by line: what the chat shows as the CLI's lines, Byre's own events and the user's
 * answers come in, and that a batch changes only what it must.
 */
import { describe, it, expect } from 'vitest';
import { checkRun } from '../__fixtures__/check-run';
import type { CheckRun, ConversationEvent } from '../ipc';
import { nodesNotShared } from '../persistent-record';
import type { JsonObject } from '../protocol';
import { applyEvents, joinCosts } from './reduce';
import { initialConversation, type ConversationState } from './state';
import {
  asks,
  assistantLine,
  assistantOf,
  type Block,
  blockStart,
  blockStop,
  deepFreeze,
  heartbeat,
  interruptedResult,
  lastResult,
  lifecycle,
  messageDelta,
  messageOf,
  messageStart,
  messageStop,
  MODEL,
  P1,
  P2,
  P3,
  plainCopy,
  prompt,
  promptStarts,
  requesting,
  resultLine,
  run,
  SID,
  SNAPSHOT,
  started,
  streamedBlock,
  streamedReply,
  system,
  systemInit,
  taskStarted,
  textDelta,
  toolOf,
  toolResult,
  transcript,
  turn,
  userLine,
} from './test-support/lines';

describe('thinking', () => {
  it("says how long the model thought: from the line before to the thinking block's own", () => {
    const state = run([
      prompt(P1, 'Think first'),
      userLine('Think first', { uuid: P1, isReplay: true, timestamp: '2026-11-30T10:00:01.000Z' }),
      assistantLine(
        'msg_t',
        { type: 'thinking', thinking: 'Hmm.', signature: 's' },
        { timestamp: '2026-11-30T10:00:13.400Z' },
      ),
      assistantLine('msg_t', { type: 'text', text: 'Answer.' }, { timestamp: '2026-11-30T10:00:14.000Z' }),
    ]);
    expect(assistantOf(state, 'msg_t').parts[0]).toEqual({ kind: 'thinking', text: 'Hmm.', seconds: 12.4 });
  });

  it('has no duration where a line has no time to go by', () => {
    const state = run([assistantLine('msg_u', { type: 'thinking', thinking: 'Hmm.', signature: 's' })]);
    expect(assistantOf(state, 'msg_u').parts[0]).toEqual({ kind: 'thinking', text: 'Hmm.' });
  });
});

describe('slash commands', () => {
  it('keeps those the CLI reported at start, and adds a name a later init lists, once', () => {
    const start = initialConversation({
      ...SNAPSHOT,
      commands: [{ name: 'compact', description: 'Clear the history but keep a summary', argumentHint: '' }],
    });
    const state = applyEvents(start, [systemInit(), systemInit()]);
    expect(state.commands).toEqual([
      { name: 'compact', description: 'Clear the history but keep a summary', argumentHint: '' },
      { name: 'context', description: '', argumentHint: '' },
    ]);
    // Nothing new: the same list, not a copy (the composer does not render again for it).
    expect(applyEvents(state, [systemInit()]).commands).toBe(state.commands);
  });
});

describe('a streamed reply', () => {
  it('shows the text growing delta by delta before the assistant line arrives', () => {
    let state = run([...promptStarts(P1, 'Say hello'), requesting(), messageStart('msg_1')]);
    expect(assistantOf(state, 'msg_1').parts).toEqual([]);

    state = run([blockStart('msg_1', 0, { type: 'text', text: '' })], state);
    const shown: string[] = [];
    for (const piece of ['Hel', 'lo, ', 'wor', 'ld!']) {
      state = run([textDelta('msg_1', 0, piece)], state);
      expect(assistantOf(state, 'msg_1').streaming).toBe(true);
      shown.push(transcript(state)[1]!);
    }
    expect(shown).toEqual(['Claude: Hel', 'Claude: Hello, ', 'Claude: Hello, wor', 'Claude: Hello, world!']);

    state = run(
      [assistantLine('msg_1', { type: 'text', text: 'Hello, world!' }), blockStop('msg_1', 0)],
      state,
    );
    expect(assistantOf(state, 'msg_1')).toMatchObject({
      parts: [{ kind: 'text', text: 'Hello, world!' }],
      streaming: true,
    });

    state = run([messageDelta('msg_1', 'end_turn')], state);
    expect(assistantOf(state, 'msg_1').streaming).toBe(true);
    state = run([messageStop('msg_1')], state);
    expect(assistantOf(state, 'msg_1').streaming).toBe(false);

    state = run([resultLine(), lifecycle(P1, 'completed')], state);
    expect(transcript(state)).toEqual(['You: Say hello (sent)', 'Claude: Hello, world!', 'result success']);
    expect(state.status).toBe('idle');
  });

  it('puts thinking, text and a tool call of one API message into one message, in order', () => {
    const thinking: Block = {
      type: 'thinking',
      thinking: 'The user wants the tests run; npm test is the way.',
      signature: 'sig_abc',
    };
    const text: Block = { type: 'text', text: 'I will run the test suite.' };
    const toolUse: Block = {
      type: 'tool_use',
      id: 'toolu_01',
      name: 'Bash',
      input: { command: 'npm test', description: 'Run the tests' },
    };
    const head = [...promptStarts(P1, 'Run the tests'), requesting(), messageStart('msg_1')];
    const thinkingBlock = streamedBlock('msg_1', 0, thinking);
    const textBlock = streamedBlock('msg_1', 1, text);
    const toolBlock = streamedBlock('msg_1', 2, toolUse);

    // Mid-thinking: the first delta is already on screen.
    let state = run([...head, ...thinkingBlock.slice(0, 2)]);
    expect(assistantOf(state, 'msg_1')).toMatchObject({
      parts: [{ kind: 'thinking', text: 'The u' }],
      streaming: true,
    });

    state = run([...thinkingBlock.slice(2), ...textBlock], state);
    expect(assistantOf(state, 'msg_1')).toMatchObject({
      parts: [
        { kind: 'thinking', text: thinking.thinking },
        { kind: 'text', text: text.text },
      ],
      streaming: true,
    });

    // The tool shows as soon as its block starts, its input streaming as JSON text.
    const beforeToolLine = toolBlock.findIndex(
      (event) => event.kind === 'message' && event.message.type === 'assistant',
    );
    state = run(toolBlock.slice(0, beforeToolLine), state);
    expect(toolOf(state, 'toolu_01')).toMatchObject({
      name: 'Bash',
      status: 'running',
      input: {},
      partialInput: JSON.stringify(toolUse.input),
    });

    state = run([...toolBlock.slice(beforeToolLine), messageDelta('msg_1', 'tool_use')], state);
    const lastLine = toolBlock[beforeToolLine];
    expect(assistantOf(state, 'msg_1')).toMatchObject({
      streaming: true,
      uuid: lastLine?.kind === 'message' ? lastLine.message.uuid : 'no line',
      model: MODEL,
      aborted: false,
    });
    expect(toolOf(state, 'toolu_01').input).toEqual(toolUse.input);

    state = run([messageStop('msg_1')], state);
    expect(assistantOf(state, 'msg_1').streaming).toBe(false);
    expect(assistantOf(state, 'msg_1').parts).toEqual([
      { kind: 'thinking', text: thinking.thinking },
      { kind: 'text', text: text.text },
      { kind: 'tool', toolUseId: 'toolu_01' },
    ]);
    expect(state.order).toEqual([`u:${P1}`, 'a:msg_1']);
    expect(toolOf(state, 'toolu_01').startedAt).toBe(Date.parse('2026-11-30T10:00:00.000Z'));
  });

  it('builds the same message from assistant lines alone, without stream events', () => {
    const blocks: Block[] = [
      { type: 'thinking', thinking: 'Short plan.', signature: 'sig' },
      { type: 'text', text: 'Reading the file.' },
      { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/work/proj/a.ts' } },
    ];
    const streamed = run([...promptStarts(P1, 'Read a.ts'), ...streamedReply('msg_1', blocks)]);
    const plain = run([
      ...promptStarts(P1, 'Read a.ts'),
      ...blocks.map((block) => assistantLine('msg_1', block)),
    ]);
    expect(assistantOf(plain, 'msg_1').parts).toEqual(assistantOf(streamed, 'msg_1').parts);
    expect(transcript(plain)).toEqual(transcript(streamed));
    expect(toolOf(plain, 'toolu_01').input).toEqual({ file_path: '/work/proj/a.ts' });
  });

  it('ends a stream at the result even when message_stop never came', () => {
    const state = run([
      ...promptStarts(P1, 'Hi'),
      requesting(),
      messageStart('msg_1'),
      ...streamedBlock('msg_1', 0, { type: 'text', text: 'Hi there.' }),
      resultLine(),
    ]);
    expect(assistantOf(state, 'msg_1').streaming).toBe(false);
    expect(state.streams).toEqual({});
    expect(state.status).toBe('idle');
  });
});

describe('tool calls', () => {
  it('attaches a Bash result to its call, and the follow-up reply is its own message', () => {
    const state = run(
      turn(
        P1,
        'Echo hello',
        streamedReply('msg_1', [
          { type: 'text', text: 'Running it.' },
          {
            type: 'tool_use',
            id: 'toolu_01',
            name: 'Bash',
            input: { command: 'echo hello', description: 'probe command' },
          },
        ]),
        [
          toolResult('toolu_01', 'hello', false, {
            tool_use_result: { stdout: 'hello', stderr: '', interrupted: false, isImage: false },
          }),
        ],
        streamedReply('msg_2', [{ type: 'text', text: 'It printed hello.' }]),
      ),
    );
    expect(toolOf(state, 'toolu_01')).toMatchObject({
      status: 'done',
      result: { text: 'hello', isError: false, images: 0 },
    });
    expect(transcript(state)).toEqual([
      'You: Echo hello (sent)',
      'Claude: Running it. | [Bash done]',
      'Claude: It printed hello.',
      'result success',
    ]);
  });

  it('shows a tool result with is_error as an error', () => {
    const blocked =
      '<tool_use_error>Blocked: sleep 35 followed by: echo done. To wait for a condition, use Monitor …</tool_use_error>';
    const state = run([
      ...promptStarts(P1, 'Wait, then echo'),
      ...streamedReply('msg_1', [
        { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'sleep 35; echo done' } },
      ]),
      toolResult('toolu_01', blocked, true),
    ]);
    expect(toolOf(state, 'toolu_01')).toMatchObject({
      status: 'error',
      result: { text: blocked, isError: true, images: 0 },
    });
  });

  it('joins a result made of text blocks and counts its images', () => {
    const state = run([
      ...promptStarts(P1, 'Echo ping'),
      ...streamedReply('msg_1', [
        { type: 'tool_use', id: 'toolu_01', name: 'mcp__byre__echo', input: { text: 'ping' } },
      ]),
      toolResult('toolu_01', [
        { type: 'text', text: 'echo: ping' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'text', text: 'second line' },
      ]),
    ]);
    expect(toolOf(state, 'toolu_01')).toMatchObject({
      status: 'done',
      result: { text: 'echo: ping\nsecond line', isError: false, images: 1 },
    });
  });

  it('shows a slow command’s elapsed seconds from heartbeats, under its real id', () => {
    let state = run([
      ...promptStarts(P1, 'Run the slow one'),
      ...streamedReply('msg_1', [
        { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'node slow.js' } },
      ]),
      taskStarted('b3l46stq2', 'toolu_01', {
        description: 'probe command',
        is_backgrounded: false,
        task_type: 'local_bash',
      }),
    ]);
    expect(toolOf(state, 'toolu_01')).toMatchObject({ status: 'running', elapsedSeconds: null });
    expect(toolOf(state, 'toolu_01').task).toMatchObject({ status: 'running', taskType: 'local_bash' });

    state = run([heartbeat('toolu_01', 0, 30)], state);
    expect(toolOf(state, 'toolu_01').elapsedSeconds).toBe(30);
    state = run([heartbeat('toolu_01', 1, 60)], state);
    expect(toolOf(state, 'toolu_01')).toMatchObject({ status: 'running', elapsedSeconds: 60 });
    expect(Object.keys(state.tools)).toEqual(['toolu_01']);

    state = run(
      [
        system('task_notification', {
          task_id: 'b3l46stq2',
          tool_use_id: 'toolu_01',
          status: 'completed',
          output_file: '',
          summary: 'probe command',
        }),
        toolResult('toolu_01', 'finished'),
      ],
      state,
    );
    expect(toolOf(state, 'toolu_01')).toMatchObject({ status: 'done', result: { text: 'finished' } });
    expect(toolOf(state, 'toolu_01').task?.status).toBe('completed');
  });
});

describe('subagents', () => {
  const agentCall: Block = {
    type: 'tool_use',
    id: 'toolu_A',
    name: 'Agent',
    input: {
      description: 'probe task',
      prompt: 'Run `echo sub` and report.',
      subagent_type: 'general-purpose',
      run_in_background: false,
    },
  };
  const subagent = { agent_id: 'aac7f1', subagent_type: 'general-purpose', task_description: 'probe task' };
  const inSubagent = { parent_tool_use_id: 'toolu_A', ...subagent };
  const subPromptUuid = 'aaaaaaaa-0000-4000-8000-000000000001';

  const subagentRun = (): ConversationEvent[] => [
    userLine('Run `echo sub` and report.', { ...inSubagent, uuid: subPromptUuid }),
    system('task_progress', {
      task_id: 'aac7',
      tool_use_id: 'toolu_A',
      description: 'Running sub echo',
      usage: { total_tokens: 16, tool_uses: 1, duration_ms: 131 },
      last_tool_name: 'Bash',
    }),
    assistantLine(
      'msg_sub_1',
      { type: 'tool_use', id: 'toolu_S1', name: 'Bash', input: { command: 'echo sub' } },
      inSubagent,
    ),
    toolResult('toolu_S1', 'sub', false, inSubagent),
  ];

  it('nests a foreground subagent’s messages under its Agent call', () => {
    let state = run([
      ...promptStarts(P1, 'Use a subagent'),
      ...streamedReply('msg_1', [{ type: 'text', text: 'Delegating.' }, agentCall]),
      taskStarted('aac7', 'toolu_A', {
        description: 'probe task',
        subagent_type: 'general-purpose',
        is_backgrounded: false,
        spawn_depth: 1,
        task_type: 'local_agent',
        prompt: 'Run `echo sub` and report.',
      }),
      ...subagentRun(),
    ]);
    const agent = toolOf(state, 'toolu_A');
    expect(agent.status).toBe('running');
    expect(agent.task).toMatchObject({
      taskId: 'aac7',
      status: 'running',
      subagentType: 'general-purpose',
      description: 'probe task',
      progress: 'Running sub echo',
      lastToolName: 'Bash',
      backgrounded: false,
    });
    expect(agent.children).toEqual([`u:${subPromptUuid}`, 'a:msg_sub_1']);
    expect(transcript(state, agent.children)).toEqual([
      'Claude: Run `echo sub` and report. (sent)',
      'general-purpose: [Bash done]',
    ]);
    expect(assistantOf(state, 'msg_sub_1').parentToolUseId).toBe('toolu_A');
    expect(state.order).toEqual([`u:${P1}`, 'a:msg_1']);

    state = run(
      [
        system('task_updated', { task_id: 'aac7', patch: { status: 'completed', end_time: 1764496800000 } }),
        system('task_notification', {
          task_id: 'aac7',
          tool_use_id: 'toolu_A',
          status: 'completed',
          output_file: '/tmp/claude-0/proj/tasks/aac7.output',
          summary: 'echo printed "sub".',
        }),
        toolResult('toolu_A', [{ type: 'text', text: '[Subagent hand-back] echo printed "sub".' }], false, {
          tool_use_result: { status: 'completed' },
        }),
        ...streamedReply('msg_2', [{ type: 'text', text: 'The subagent says: sub.' }]),
        resultLine({ num_turns: 2, subagent_stats: { spawned: 1 } }),
      ],
      state,
    );
    expect(toolOf(state, 'toolu_A')).toMatchObject({
      status: 'done',
      result: { text: '[Subagent hand-back] echo printed "sub".', isError: false },
      task: { status: 'completed', summary: 'echo printed "sub".' },
    });
    expect(transcript(state)).toEqual([
      'You: Use a subagent (sent)',
      'Claude: Delegating. | [Agent done]',
      'Claude: The subagent says: sub.',
      'result success',
    ]);
    expect(state.status).toBe('idle');
  });

  it('names a subagent by its task when its lines do not say', () => {
    const { subagent_type: _type, ...withoutType } = inSubagent;
    const state = run([
      ...promptStarts(P1, 'Use a subagent'),
      ...streamedReply('msg_1', [agentCall]),
      taskStarted('aac7', 'toolu_A', { description: 'probe task', subagent_type: 'Explore' }),
      assistantLine('msg_sub_1', { type: 'text', text: 'Looking.' }, withoutType),
    ]);
    expect(assistantOf(state, 'msg_sub_1').author).toBe('Explore');
  });
});

describe('results nobody asked for', () => {
  const backgroundCall: Block = {
    type: 'tool_use',
    id: 'toolu_A',
    name: 'Agent',
    input: { description: 'background probe', prompt: 'Count the files.', subagent_type: 'general-purpose' },
  };
  const inSubagent = { parent_tool_use_id: 'toolu_A', agent_id: 'abf2', subagent_type: 'general-purpose' };
  const taskNotification = system('task_notification', {
    task_id: 'abf2',
    tool_use_id: 'toolu_A',
    status: 'completed',
    output_file: '/tmp/claude-0/proj/tasks/abf2.output',
    summary: 'There are 12 files.',
    summary_is_report: true,
  });

  /** The user's turn that launches a background agent, up to the first result. */
  const launchTurn = (): ConversationEvent[] => [
    ...promptStarts(P1, 'Count files in the background'),
    ...streamedReply('msg_1', [backgroundCall]),
    system('background_tasks_changed', {
      tasks: [{ task_id: 'abf2', run_id: 'r', task_type: 'local_agent', subagent_type: 'general-purpose' }],
    }),
    taskStarted('abf2', 'toolu_A', {
      description: 'background probe',
      subagent_type: 'general-purpose',
      is_backgrounded: true,
      task_type: 'local_agent',
    }),
    toolResult('toolu_A', 'Async agent launched successfully. agentId: abf2', false, {
      tool_use_result: { isAsync: true, status: 'async_launched' },
    }),
    ...streamedReply('msg_2', [{ type: 'text', text: 'It is running in the background.' }]),
    resultLine({ num_turns: 2 }),
    lifecycle(P1, 'completed'),
  ];

  const subagentLines = (): ConversationEvent[] => [
    userLine('Count the files.', inSubagent),
    assistantLine('msg_sub_1', { type: 'text', text: 'Counting now.' }, inSubagent),
    assistantLine(
      'msg_sub_2',
      { type: 'tool_use', id: 'toolu_S1', name: 'Bash', input: { command: 'ls | wc -l' } },
      inSubagent,
    ),
    toolResult('toolu_S1', '12', false, inSubagent),
    system('task_updated', { task_id: 'abf2', patch: { status: 'completed' } }),
    taskNotification,
    system('background_tasks_changed', { tasks: [] }),
  ];

  /** The turn the CLI starts by itself once the agent is done. */
  const selfStartedTurn = (): ConversationEvent[] => [
    systemInit(),
    ...streamedReply('msg_3', [{ type: 'text', text: 'The background agent found 12 files.' }]),
    resultLine({ origin: { kind: 'task-notification' }, result: 'The background agent found 12 files.' }),
  ];

  it('settles the prompt at the first result, then shows the agent’s own turn as unsolicited', () => {
    let state = run(launchTurn());
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
    expect(lastResult(state).unsolicited).toBe(false);
    expect(toolOf(state, 'toolu_A').task).toMatchObject({ backgrounded: true, status: 'running' });

    state = run(subagentLines(), state);
    expect(transcript(state, toolOf(state, 'toolu_A').children)).toEqual([
      'Claude: Count the files. (sent)',
      'general-purpose: Counting now.',
      'general-purpose: [Bash done]',
    ]);
    expect(toolOf(state, 'toolu_A').task).toMatchObject({
      status: 'completed',
      summary: 'There are 12 files.',
    });

    state = run(selfStartedTurn().slice(0, 3), state);
    expect(state.status).toBe('running');

    const pendingBefore = state.pending;
    state = run(selfStartedTurn().slice(3), state);
    expect(lastResult(state)).toMatchObject({ ok: true, unsolicited: true });
    expect(state.status).toBe('idle');
    expect(state.pending).toBe(pendingBefore);
    expect(transcript(state)).toEqual([
      'You: Count files in the background (sent)',
      'Claude: [Agent done]',
      'Claude: It is running in the background.',
      'result success',
      'Claude: The background agent found 12 files.',
      'result success (unsolicited)',
    ]);
  });

  it('leaves a prompt typed during the agent’s own turn pending until its own result', () => {
    let state = run([...launchTurn(), ...subagentLines(), ...selfStartedTurn().slice(0, 3)]);
    state = run([prompt(P2, 'And the folders?'), lifecycle(P2, 'queued')], state);
    state = run(selfStartedTurn().slice(3), state);
    expect(lastResult(state).unsolicited).toBe(true);
    expect(state.pending).toEqual([P2]);
    expect(state.status).toBe('running');
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('queued');

    state = run(
      [
        lifecycle(P2, 'started'),
        systemInit(),
        ...streamedReply('msg_4', [{ type: 'text', text: 'Three folders.' }]),
        resultLine(),
      ],
      state,
    );
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('sent');
  });
});

describe('interrupts', () => {
  it('keeps the partial reply and marks the turn as stopped, once', () => {
    let state = run([
      ...promptStarts(P1, 'Count slowly'),
      requesting(),
      messageStart('msg_1'),
      blockStart('msg_1', 0, { type: 'text', text: '' }),
      ...['word0 ', 'word1 ', 'word2 ', 'wor'].map((text) => textDelta('msg_1', 0, text)),
    ]);
    expect(assistantOf(state, 'msg_1').streaming).toBe(true);

    state = run(
      [
        assistantLine('msg_1', { type: 'text', text: 'word0 word1 word2 wor' }, { aborted: true }),
        userLine([{ type: 'text', text: '[Request interrupted by user]' }]),
        interruptedResult('aborted_streaming'),
      ],
      state,
    );
    expect(assistantOf(state, 'msg_1')).toMatchObject({ aborted: true, streaming: false });
    expect(lastResult(state)).toMatchObject({
      ok: false,
      subtype: 'error_during_execution',
      errorText: 'Stopped.',
    });
    expect(transcript(state)).toEqual([
      'You: Count slowly (sent)',
      'Claude: word0 word1 word2 wor',
      'result error_during_execution failed: Stopped.',
    ]);
    expect(state.status).toBe('idle');
    expect(state.pending).toEqual([]);
    expect(state.streams).toEqual({});

    state = run(
      turn(P2, 'are you still there?', streamedReply('msg_2', [{ type: 'text', text: 'Yes.' }])),
      state,
    );
    expect(transcript(state).slice(3)).toEqual([
      'You: are you still there? (sent)',
      'Claude: Yes.',
      'result success',
    ]);
  });

  it('marks a tool still running at the interrupt as interrupted, but not a background task', () => {
    const state = run([
      ...promptStarts(P1, 'Run two things'),
      ...streamedReply('msg_1', [
        {
          type: 'tool_use',
          id: 'toolu_BG',
          name: 'Bash',
          input: { command: 'npm run watch', run_in_background: true },
        },
        { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'node slow.js' } },
      ]),
      taskStarted('bg1', 'toolu_BG', {
        description: 'watch',
        is_backgrounded: true,
        task_type: 'local_bash',
      }),
      heartbeat('toolu_01', 0, 30),
      interruptedResult('aborted_tools'),
    ]);
    expect(toolOf(state, 'toolu_01').status).toBe('interrupted');
    expect(toolOf(state, 'toolu_BG').status).toBe('running');
    expect(lastResult(state).errorText).toBe('Stopped.');
  });

  /** What the CLI sends when a running Bash command is interrupted (cli-facts §3, exp3c). */
  const bashInterrupt = (): ConversationEvent[] => [
    ...promptStarts(P1, 'Run the slow one'),
    ...streamedReply('msg_1', [
      { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'node slow.js' } },
    ]),
    taskStarted('b1', 'toolu_01', { description: 'slow', is_backgrounded: false, task_type: 'local_bash' }),
    system('task_notification', {
      task_id: 'b1',
      tool_use_id: 'toolu_01',
      status: 'stopped',
      output_file: '',
    }),
    toolResult(
      'toolu_01',
      "The user doesn't want to proceed with this tool use. The tool use was rejected … this call was stopped while running …",
      true,
    ),
    userLine([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
    interruptedResult('aborted_tools'),
  ];

  it('reports an interrupted Bash command as stopped', () => {
    const state = run(bashInterrupt());
    expect(toolOf(state, 'toolu_01').task?.status).toBe('stopped');
    // The turn's result is the one marker of the stop.
    expect(transcript(state).slice(2)).toEqual(['result error_during_execution failed: Stopped.']);
  });

  it('keeps the CLI\'s "interrupted" note where no result marks the stop (a session file)', () => {
    const state = run(bashInterrupt().slice(0, -1));
    expect(transcript(state).slice(2)).toEqual(['[info] Interrupted.']);
  });

  it('shows the interrupted Bash command as interrupted, not failed', () => {
    const state = run(bashInterrupt());
    expect(toolOf(state, 'toolu_01').status).toBe('interrupted');
  });
});

describe('prompts', () => {
  it('shows a prompt at once as sending, then follows the CLI’s queue', () => {
    let state = run([prompt(P1, 'Hello')]);
    expect(messageOf(state, `u:${P1}`, 'user')).toMatchObject({
      author: 'You',
      text: 'Hello',
      status: 'sending',
      uuid: P1,
      parentToolUseId: null,
    });
    expect(state.pending).toEqual([P1]);
    expect(state.status).toBe('running');

    state = run([lifecycle(P1, 'queued')], state);
    expect(messageOf(state, `u:${P1}`, 'user').status).toBe('queued');
    state = run([lifecycle(P1, 'started')], state);
    expect(messageOf(state, `u:${P1}`, 'user').status).toBe('sent');

    // The CLI's echo of our own prompt adds nothing.
    state = run([userLine('Hello', { uuid: P1, isReplay: true })], state);
    expect(transcript(state)).toEqual(['You: Hello (sent)']);
  });

  it('keeps a second prompt queued while the first runs, then runs it', () => {
    let state = run([
      ...promptStarts(P1, 'First'),
      requesting(),
      messageStart('msg_1'),
      blockStart('msg_1', 0, { type: 'text', text: '' }),
      textDelta('msg_1', 0, 'Working'),
      prompt(P2, 'Second'),
      lifecycle(P2, 'queued'),
      textDelta('msg_1', 0, ' on it.'),
    ]);
    expect(messageOf(state, `u:${P1}`, 'user').status).toBe('sent');
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('queued');
    expect(state.pending).toEqual([P1, P2]);

    state = run(
      [
        assistantLine('msg_1', { type: 'text', text: 'Working on it.' }),
        blockStop('msg_1', 0),
        messageDelta('msg_1', 'end_turn'),
        messageStop('msg_1'),
        lifecycle(P1, 'completed'),
        resultLine(),
      ],
      state,
    );
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('queued');
    expect(state.pending).toEqual([P2]);
    expect(state.status).toBe('running');

    state = run(
      [
        lifecycle(P2, 'started'),
        systemInit(),
        ...streamedReply('msg_2', [{ type: 'text', text: 'Second done.' }]),
        resultLine(),
        lifecycle(P2, 'completed'),
      ],
      state,
    );
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
    expect(transcript(state)).toEqual([
      'You: First (sent)',
      'Claude: Working on it.',
      'You: Second (sent)',
      'result success',
      'Claude: Second done.',
      'result success',
    ]);
  });

  it('shows a cancelled queued prompt as cancelled and stops waiting for it', () => {
    let state = run([
      ...promptStarts(P1, 'First'),
      prompt(P2, 'Second'),
      lifecycle(P2, 'queued'),
      lifecycle(P2, 'cancelled'),
      { kind: 'prompt_cancelled', uuid: P2 },
    ]);
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('cancelled');
    expect(state.pending).toEqual([P1]);
    expect(state.status).toBe('running');

    state = run([...streamedReply('msg_1', [{ type: 'text', text: 'Done.' }]), resultLine()], state);
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('cancelled');
  });

  it('goes idle when the only pending prompt is cancelled', () => {
    const state = run([prompt(P1, 'Never mind'), { kind: 'prompt_cancelled', uuid: P1 }]);
    expect(messageOf(state, `u:${P1}`, 'user').status).toBe('cancelled');
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
  });
});

describe('errors and notices', () => {
  it('shows an API error result with the CLI’s message', () => {
    const message =
      'API Error: 403 {"type":"error","error":{"type":"permission_error","message":"Request not allowed"}}';
    const state = run([
      ...promptStarts(P1, 'Hello'),
      requesting(),
      resultLine({ is_error: true, api_error_status: 403, result: message, stop_reason: 'stop_sequence' }),
    ]);
    expect(lastResult(state)).toMatchObject({ ok: false, errorText: message, apiErrorStatus: 403 });
    expect(state.pending).toEqual([]);
    expect(state.status).toBe('idle');
  });

  it('explains a failed turn without a message from its errors, without the diagnostics', () => {
    const state = run([
      ...promptStarts(P1, 'Keep going'),
      resultLine({
        subtype: 'error_max_turns',
        is_error: true,
        result: undefined,
        errors: ['[ede_diagnostic] result_type=assistant', 'Reached maximum number of turns (3)'],
      }),
      ...promptStarts(P2, 'Again'),
      resultLine({ subtype: 'error_max_turns', is_error: true, result: undefined }),
    ]);
    expect(transcript(state).filter((row) => row.startsWith('result'))).toEqual([
      'result error_max_turns failed: Reached maximum number of turns (3)',
      'result error_max_turns failed: The turn ended with error max turns.',
    ]);
  });

  it('shows the set-model replay as a notice, not as something the user said', () => {
    let state = run([{ kind: 'model', model: 'claude-sonnet-4-5' }]);
    state = run(
      [
        userLine('<local-command-stdout>Set model to claude-sonnet-4-5</local-command-stdout>', {
          isReplay: true,
        }),
      ],
      state,
    );
    expect(state.model).toBe('claude-sonnet-4-5');
    expect(transcript(state)).toEqual(['[info] Set model to claude-sonnet-4-5']);
    expect(Object.values(state.messages).filter((message) => message.role === 'user')).toEqual([]);
  });

  it('shows the title, notifications, and unreadable lines (a few, then only a count)', () => {
    const bad = { kind: 'bad_line', problem: 'unknown line type "bogus"' } as const;
    const state = run([
      { kind: 'title', title: 'Fix the tests' },
      { kind: 'notify', message: 'Turn finished', title: 'Claude' },
      { kind: 'notify', message: 'Plain note' },
      bad,
      bad,
      bad,
      bad,
      bad,
    ]);
    expect(state.title).toBe('Fix the tests');
    const skipped =
      '[error] Byre skipped a line from Claude Code that it could not read: unknown line type "bogus"';
    expect(transcript(state)).toEqual([
      '[info] Claude: Turn finished',
      '[info] Plain note',
      skipped,
      skipped,
      skipped,
    ]);
    expect(state.badLines).toBe(5);
  });

  it('shows a warning that does not stop the conversation', () => {
    const state = run([{ kind: 'warning', message: 'Byre stopped writing the transcript: disk full' }]);
    expect(transcript(state)).toEqual(['[error] Byre stopped writing the transcript: disk full']);
  });

  it('shows an unexpected exit, cancels what was waiting but not what was being answered, and comes back on resume', () => {
    const error = { name: 'CliExited', message: 'The claude CLI exited with code 1.' };
    let state = run([
      ...promptStarts(P1, 'First'),
      requesting(),
      messageStart('msg_1'),
      blockStart('msg_1', 0, { type: 'text', text: '' }),
      textDelta('msg_1', 0, 'Half a'),
      prompt(P2, 'Second'),
      lifecycle(P2, 'queued'),
      { kind: 'exit', error },
    ]);
    expect(state.status).toBe('exited');
    expect(state.exitError).toEqual(error);
    expect(state.pending).toEqual([]);
    expect(assistantOf(state, 'msg_1').streaming).toBe(false);
    // First was being answered when the CLI went: its answer is cut, it was not cancelled. Second never ran.
    expect(transcript(state)).toEqual(['You: First (sent)', 'Claude: Half a', 'You: Second (cancelled)']);

    state = run([{ kind: 'resumed', snapshot: { ...SNAPSHOT, model: null } }], state);
    expect(state).toMatchObject({ status: 'idle', exitError: null, sessionId: SID, model: MODEL });

    state = run(turn(P3, 'Still there?', streamedReply('msg_2', [{ type: 'text', text: 'Yes.' }])), state);
    expect(state.status).toBe('idle');
    expect(transcript(state).slice(-2)).toEqual(['Claude: Yes.', 'result success']);
  });

  it('takes the worktree a resumed process runs in from its snapshot', () => {
    const worktree = { repository: '/repo', name: 'notes', branch: 'notes', base: 'main' };
    const saved = run([{ kind: 'exit' }]);
    expect(saved.worktree).toBeNull();
    const resumed = run([{ kind: 'resumed', snapshot: { ...SNAPSHOT, worktree } }], saved);
    expect(resumed.worktree).toEqual(worktree);
  });

  it('on a crash, keeps the answered prompt and cancels one queued before its reply began', () => {
    const state = run([
      prompt(P1, 'First'),
      prompt(P2, 'Second'),
      lifecycle(P2, 'queued'),
      requesting(),
      messageStart('msg_1'),
      blockStart('msg_1', 0, { type: 'text', text: '' }),
      textDelta('msg_1', 0, 'Begun'),
      { kind: 'exit', error: { name: 'CliExited', message: 'gone' } },
    ]);
    expect(messageOf(state, `u:${P1}`, 'user').status).not.toBe('cancelled');
    expect(messageOf(state, `u:${P2}`, 'user').status).toBe('cancelled');
  });

  it('stops showing a tool as running once the CLI has exited', () => {
    const state = run([
      ...promptStarts(P1, 'Run the slow one'),
      ...streamedReply('msg_1', [
        { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'node slow.js' } },
      ]),
      heartbeat('toolu_01', 0, 30),
      { kind: 'exit', error: { name: 'CliExited', message: 'The claude CLI exited with code 1.' } },
    ]);
    expect(toolOf(state, 'toolu_01').status).toBe('interrupted');
  });

  it('shows stop-hook feedback the CLI wrote in the user’s place as a notice', () => {
    const state = run([
      ...promptStarts(P1, 'Finish up'),
      ...streamedReply('msg_1', [{ type: 'text', text: 'First stop attempt.' }]),
      userLine([{ type: 'text', text: 'Stop hook feedback:\nkeep going' }], { isSynthetic: true }),
      system('notification', {
        key: 'stop-hook-error',
        text: 'stop hook problem · ctrl+o to see',
        priority: 'immediate',
      }),
    ]);
    expect(transcript(state).slice(1)).toEqual([
      'Claude: First stop attempt.',
      '[info] Stop hook feedback:\nkeep going',
    ]);
  });

  it('shows a "Done when" check as one card that updates in place, and its feedback only there', () => {
    const running = checkRun({ status: 'running', summary: 'running', durationMs: null });
    const failed: CheckRun = {
      ...running,
      status: 'failed',
      summary: 'exit 1',
      durationMs: 900,
      output: '1 failing\n',
    };
    let state = run([
      { kind: 'done_when', command: 'npm test' },
      ...promptStarts(P1, 'Finish up'),
      ...streamedReply('msg_1', [{ type: 'text', text: 'First stop attempt.' }]),
      { kind: 'check', check: running },
    ]);
    expect(state.doneWhen).toBe('npm test');
    expect(state.lastCheck?.status).toBe('running');
    state = run(
      [
        { kind: 'check', check: failed },
        userLine([{ type: 'text', text: 'Stop hook feedback:\nThe check failed' }], { isSynthetic: true }),
      ],
      state,
    );
    expect(transcript(state).slice(1)).toEqual([
      'Claude: First stop attempt.',
      'check npm test: failed (round 1)',
    ]);
    expect(state.lastCheck).toEqual(failed);

    // A second run, cut short by the CLI's exit, ends as stopped.
    state = run(
      [
        { kind: 'check', check: { ...running, id: 'check-2', round: 2, stopHookActive: true } },
        { kind: 'exit' },
      ],
      state,
    );
    expect(transcript(state).slice(-1)).toEqual(['check npm test: stopped (round 2)']);
    expect(state.lastCheck).toMatchObject({ id: 'check-2', status: 'stopped' });

    // The header's status alone (a window opening later) adds no card.
    const later = run([{ kind: 'check_status', check: failed }]);
    expect(later.lastCheck).toEqual(failed);
    expect(later.order).toEqual([]);
  });

  it('exits quietly when asked to', () => {
    const state = run([
      ...turn(P1, 'Hi', streamedReply('msg_1', [{ type: 'text', text: 'Hi.' }])),
      { kind: 'exit' },
    ]);
    expect(state).toMatchObject({ status: 'exited', exitError: null, pending: [] });
    expect(messageOf(state, `u:${P1}`, 'user').status).toBe('sent');
  });
});

describe('permission requests', () => {
  const bashCall: Block = {
    type: 'tool_use',
    id: 'toolu_B',
    name: 'Bash',
    input: { command: 'touch allowed.txt' },
  };

  const resolved = (
    requestId: string,
    outcome: 'allowed' | 'denied' | 'cancelled',
    reason: string | null = null,
  ): ConversationEvent => ({ kind: 'permission_resolved', requestId, outcome, reason });

  const waitingFor = (state: ConversationState) =>
    state.permissionRequests.map((request) => request.requestId);

  it('keeps every waiting request, in order and whole, until it is answered', () => {
    let state = run([
      ...promptStarts(P1, 'Make two files'),
      ...streamedReply('msg_1', [bashCall]),
      asks('req_1', 'toolu_B'),
      asks('req_2', null, 'Write'),
    ]);
    expect(state.permissionRequests).toEqual([
      {
        requestId: 'req_1',
        toolName: 'Bash',
        displayName: 'Bash',
        input: { command: 'touch allowed.txt' },
        toolUseId: 'toolu_B',
        description: null,
        blockedPath: null,
        remember: 'Bash(touch allowed.txt) in this project',
      },
      {
        requestId: 'req_2',
        toolName: 'Write',
        displayName: 'Write',
        input: { file_path: '/work/proj/a.ts' },
        toolUseId: null,
        description: null,
        blockedPath: null,
        remember: null,
      },
    ]);

    const before = transcript(state);
    state = run([resolved('req_2', 'denied'), resolved('req_1', 'allowed')], state);
    expect(waitingFor(state)).toEqual([]);
    // An answered request shows in its tool call; it adds nothing to the conversation.
    expect(transcript(state)).toEqual(before);
  });

  it('says why a request stopped waiting when Claude withdrew it', () => {
    const state = run([
      ...promptStarts(P1, 'Make a file'),
      ...streamedReply('msg_1', [bashCall]),
      asks('req_1', 'toolu_B'),
      asks('req_2', null, 'Write'),
      resolved('req_1', 'cancelled', 'Claude stopped waiting for an answer.'),
      resolved('req_2', 'cancelled'),
    ]);
    expect(waitingFor(state)).toEqual([]);
    expect(transcript(state).slice(-2)).toEqual([
      '[info] Permission request for Bash withdrawn: Claude stopped waiting for an answer.',
      '[info] Permission request for Write withdrawn: Claude stopped waiting for an answer.',
    ]);
  });

  it('shows a request sent again once, and ignores the end of one it never saw', () => {
    let state = run([asks('req_1', null), asks('req_2', null), asks('req_1', null)]);
    expect(waitingFor(state)).toEqual(['req_1', 'req_2']);
    state = run([resolved('req_1', 'allowed')], state);
    expect(applyEvents(state, [resolved('req_1', 'cancelled', 'late')])).toBe(state);
    expect(waitingFor(state)).toEqual(['req_2']);
  });

  it('drops waiting requests when the CLI exits: nobody is left to answer', () => {
    const state = run([asks('req_1', null), { kind: 'exit' }]);
    expect(state.permissionRequests).toEqual([]);
    expect(state.order).toEqual([]);
  });

  it('follows the permission mode from the snapshot, mode events and a resume', () => {
    expect(initialConversation().permissionMode).toBe('default');
    let state = initialConversation({ ...SNAPSHOT, permissionMode: 'plan' });
    expect(state.permissionMode).toBe('plan');
    state = run([{ kind: 'permission_mode', mode: 'acceptEdits' }], state);
    expect(state.permissionMode).toBe('acceptEdits');
    state = run(
      [
        { kind: 'exit', error: { name: 'CliExited', message: 'gone' } },
        { kind: 'resumed', snapshot: { ...SNAPSHOT, permissionMode: 'bypassPermissions' } },
      ],
      state,
    );
    expect(state.permissionMode).toBe('bypassPermissions');
  });
});

describe('what each turn cost', () => {
  /** A whole turn whose result carries the CLI process's running total and the turn's usage. */
  const costedTurn = (uuid: string, apiMessageId: string, totalCostUsd: number, usage: JsonObject = {}) => [
    ...promptStarts(uuid, 'Hi'),
    ...streamedReply(apiMessageId, [{ type: 'text', text: 'Hello.' }]),
    resultLine({
      total_cost_usd: totalCostUsd,
      duration_ms: 800,
      usage: { input_tokens: 1200, output_tokens: 30, ...usage },
    }),
    lifecycle(uuid, 'completed'),
  ];
  const resumed: ConversationEvent = { kind: 'resumed', snapshot: SNAPSHOT };
  const costs = (state: ConversationState) =>
    state.order.flatMap((id) => {
      const message = state.messages[id];
      return message?.role === 'result' ? [message.costUsd] : [];
    });

  it('takes each turn’s cost from the running totals, starting again from 0 after a resume', () => {
    let state = run([...costedTurn(P1, 'msg_1', 0.0054), ...costedTurn(P2, 'msg_2', 0.0131)]);
    expect(costs(state)).toEqual([0.0054, expect.closeTo(0.0077, 10)]);
    expect(state.costUsd).toBeCloseTo(0.0131, 10);

    // The new process's total starts from 0: its first turn costs its whole total, though it is larger
    // than nothing and smaller than the old process's total alike.
    state = run([{ kind: 'exit' }, resumed, ...costedTurn(P3, 'msg_3', 0.009)], state);
    expect(costs(state).at(-1)).toBeCloseTo(0.009, 10);
    expect(state.costUsd).toBeCloseTo(0.0221, 10);
  });

  it('counts from 0 after a resume even when the new total is above the old one', () => {
    const state = run([...costedTurn(P1, 'msg_1', 0.01), resumed, ...costedTurn(P2, 'msg_2', 0.015)]);
    expect(costs(state)).toEqual([0.01, 0.015]);
    expect(state.costUsd).toBeCloseTo(0.025, 10);
  });

  it('never shows a negative cost: a total that went down belongs to a new process', () => {
    const state = run([...costedTurn(P1, 'msg_1', 0.04), ...costedTurn(P2, 'msg_2', 0.003)]);
    expect(costs(state)).toEqual([0.04, 0.003]);
    expect(state.costUsd).toBeCloseTo(0.043, 10);
  });

  it('keeps the turn’s duration and its tokens, cache reads and writes apart', () => {
    const state = run(
      costedTurn(P1, 'msg_1', 0.0054, { cache_read_input_tokens: 5000, cache_creation_input_tokens: 700 }),
    );
    expect(lastResult(state)).toMatchObject({
      durationMs: 800,
      inputTokens: 1200,
      outputTokens: 30,
      cacheReadTokens: 5000,
      cacheWriteTokens: 700,
    });
    expect(state.lastResultId).toBe(lastResult(state).id);
  });

  it('leaves the first turn of a page read on its own unknown, until the page before it is joined on', () => {
    const earlier = run(costedTurn(P1, 'msg_1', 0.02));
    const later = run(costedTurn(P2, 'msg_2', 0.05), { ...started(), processCostUsd: null });
    expect(costs(later)).toEqual([null]);
    expect(later.costUsd).toBe(0);

    const joined = joinCosts(earlier, later);
    expect(joined.messages[lastResult(later).id]).toMatchObject({ costUsd: expect.closeTo(0.03, 10) });
    expect(joined.costUsd).toBeCloseTo(0.05, 10);
    expect(joined.processCostUsd).toBe(0.05);
  });
});

describe('the todo list', () => {
  it("follows the main thread's latest TodoWrite call", () => {
    const list = { todos: [{ content: 'A', status: 'pending', activeForm: 'Doing A' }] };
    const state = run([
      ...promptStarts(P1, 'Plan'),
      assistantLine('msg_1', { type: 'tool_use', id: 'toolu_T1', name: 'TodoWrite', input: list }),
      assistantLine('msg_2', { type: 'tool_use', id: 'toolu_T2', name: 'TodoWrite', input: list }),
    ]);
    expect(state.todoToolId).toBe('toolu_T2');
  });
});

describe('a failed turn', () => {
  it('says the API error once: the reply that only carries it gives way to the failure', () => {
    const text = 'Failed to authenticate. API Error: 403 Invalid authentication credentials';
    const state = run([
      ...promptStarts(P1, 'Hi'),
      assistantLine('msg_e', { type: 'text', text }, { error: 'authentication_failed' }),
      resultLine({ is_error: true, result: text, api_error_status: 403 }),
    ]);
    expect(transcript(state)).toEqual(['You: Hi (sent)', `result success failed: ${text}`]);
    // Another reply before a failure stays.
    const kept = run([
      ...promptStarts(P1, 'Hi'),
      assistantLine('msg_k', { type: 'text', text: 'Working on it.' }),
      resultLine({ is_error: true, result: text, api_error_status: 403 }),
    ]);
    expect(transcript(kept)).toContain('Claude: Working on it.');
  });
});

describe('API retries', () => {
  const retry = (attempt: number) =>
    system('api_retry', {
      attempt,
      max_retries: 10,
      retry_delay_ms: 556,
      error_status: 529,
      error: 'overloaded',
    });

  it('shows the retry while the CLI waits, until the reply streams', () => {
    let state = run([...promptStarts(P1, 'Hi'), requesting(), retry(1)]);
    expect(state.retry).toMatchObject({
      attempt: 1,
      maxRetries: 10,
      delayMs: 556,
      error: 'overloaded',
      httpStatus: 529,
    });
    state = run([retry(2)], state);
    expect(state.retry?.attempt).toBe(2);

    state = run([requesting(), messageStart('msg_1')], state);
    expect(state.retry).toBeNull();
  });

  it('forgets the retry when the turn ends without a reply, or the CLI exits', () => {
    const failed = run([
      ...promptStarts(P1, 'Hi'),
      retry(1),
      resultLine({ is_error: true, result: 'API Error: 529 Overloaded', api_error_status: 529 }),
    ]);
    expect(failed.retry).toBeNull();
    expect(run([...promptStarts(P1, 'Hi'), retry(1), { kind: 'exit' }]).retry).toBeNull();
  });
});

describe('state between batches', () => {
  const firstTurn = (): ConversationEvent[] =>
    turn(P1, 'Hi', streamedReply('msg_1', [{ type: 'text', text: 'Hello.' }]));

  it('never mutates a state it was given', () => {
    const before = run(firstTurn());
    const copy = plainCopy(before);
    deepFreeze(before);
    const after = run(
      [
        ...promptStarts(P2, 'Run it'),
        ...streamedReply('msg_2', [
          { type: 'thinking', thinking: 'ok', signature: 's' },
          { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'ls' } },
        ]),
        heartbeat('toolu_01', 0, 30),
        toolResult('toolu_01', 'a.ts'),
        userLine([{ type: 'text', text: '[Request interrupted by user]' }]),
        interruptedResult('aborted_streaming'),
        {
          kind: 'permission_request',
          requestId: 'req_1',
          toolName: 'Bash',
          displayName: 'Bash',
          input: { command: 'ls' },
          toolUseId: 'toolu_01',
          description: null,
          blockedPath: null,
          remember: null,
        },
        { kind: 'permission_mode', mode: 'plan' },
        { kind: 'permission_resolved', requestId: 'req_1', outcome: 'cancelled', reason: null },
        { kind: 'exit', error: { name: 'CliExited', message: 'gone' } },
        { kind: 'resumed', snapshot: SNAPSHOT },
      ],
      before,
    );
    expect(before).toStrictEqual(copy);
    expect(after.order.length).toBeGreaterThan(before.order.length);
  });

  it('keeps every other message object while one message streams', () => {
    let state = run([
      ...firstTurn(),
      ...promptStarts(P2, 'More'),
      requesting(),
      messageStart('msg_2'),
      blockStart('msg_2', 0, { type: 'text', text: '' }),
    ]);
    const earlier = state.messages['a:msg_1'];
    const yourPrompt = state.messages[`u:${P1}`];
    const order = state.order;
    const tools = state.tools;
    for (const piece of ['One ', 'two ', 'three']) {
      const streaming = state.messages['a:msg_2'];
      state = run([textDelta('msg_2', 0, piece)], state);
      expect(state.messages['a:msg_1']).toBe(earlier);
      expect(state.messages[`u:${P1}`]).toBe(yourPrompt);
      expect(state.messages['a:msg_2']).not.toBe(streaming);
      expect(state.order).toBe(order);
      expect(state.tools).toBe(tools);
    }
  });

  it('costs a delta batch the same in a conversation of 10,000 messages as in one of 10', () => {
    const streamingAfter = (count: number) => {
      const earlier = Array.from({ length: count }, (_, i) =>
        assistantLine(`msg_old_${i}`, { type: 'text', text: `Reply ${i}.` }),
      );
      // Applied at once: how batches are cut is checked elsewhere, and one event at a time would be slow here.
      const before = applyEvents(started(), [
        ...earlier,
        messageStart('msg_new'),
        blockStart('msg_new', 0, { type: 'text', text: '' }),
      ]);
      const after = applyEvents(before, [textDelta('msg_new', 0, 'More '), textDelta('msg_new', 0, 'text.')]);
      expect(after.messages['a:msg_new']).toMatchObject({ parts: [{ text: 'More text.' }] });
      // Nothing but the streaming message changed: every other container is the one it was.
      expect(after.order).toBe(before.order);
      expect(after.tools).toBe(before.tools);
      expect(after.blocksSeen).toBe(before.blocksSeen);
      expect(after.messages[`a:msg_old_${count - 1}`]).toBe(before.messages[`a:msg_old_${count - 1}`]);
      return nodesNotShared(before.messages, after.messages) ?? NaN;
    };
    const small = streamingAfter(10);
    expect(small).toBeLessThanOrEqual(4);
    // One more level of the trie for each 32 times as many messages, at most.
    expect(streamingAfter(10_000)).toBeLessThanOrEqual(small + 2);
  });

  it('returns the same state when nothing changed', () => {
    const state = run(firstTurn());
    expect(applyEvents(state, [])).toBe(state);
    expect(applyEvents(state, [requesting()])).toBe(state);
  });

  it('starts out waiting for the CLI, with nothing shown', () => {
    const state = initialConversation();
    expect(state).toMatchObject({ status: 'starting', order: [], pending: [], sessionId: null });
    expect(run([systemInit()], state)).toMatchObject({ status: 'running', sessionId: SID, model: MODEL });
  });
});

describe('where a Terminal conversation’s turn stands (activity, from its hooks)', () => {
  it('is busy while Claude works or waits on the person, idle once done, and says what it waits for', () => {
    const start = initialConversation({ sessionId: 's', cwd: '/w', lane: 'terminal' });
    expect(start.lane).toBe('terminal');
    const working = applyEvents(start, [{ kind: 'activity', state: 'working', what: null }]);
    expect(working.status).toBe('running');
    const waiting = applyEvents(working, [
      { kind: 'activity', state: 'needs_you', what: 'Claude asks to use Bash: npm test' },
    ]);
    expect(waiting).toMatchObject({
      status: 'running',
      activity: { state: 'needs_you', what: 'Claude asks to use Bash: npm test' },
    });
    const done = applyEvents(waiting, [{ kind: 'activity', state: 'done', what: null }]);
    expect(done).toMatchObject({ status: 'idle', activity: { state: 'done' } });
    // A CLI that exited stays exited, whatever a late hook says.
    const exited = applyEvents(done, [{ kind: 'exit' }, { kind: 'activity', state: 'working', what: null }]);
    expect(exited.status).toBe('exited');
  });

  it('knows the tool a running turn uses now, until the turn ends or the CLI exits', () => {
    const start = initialConversation({ sessionId: 's', cwd: '/w', lane: 'terminal' });
    const using = applyEvents(start, [
      { kind: 'activity', state: 'working', what: null },
      { kind: 'tool', name: 'Read', detail: '/w/a.ts' },
      { kind: 'tool', name: 'Bash', detail: 'npm test' },
    ]);
    expect(using.currentTool).toEqual({ name: 'Bash', detail: 'npm test' });
    // Waiting on the person to allow it, the turn still uses it.
    const waiting = applyEvents(using, [{ kind: 'activity', state: 'needs_you', what: 'Bash: npm test' }]);
    expect(waiting.currentTool).toEqual({ name: 'Bash', detail: 'npm test' });
    expect(applyEvents(waiting, [{ kind: 'activity', state: 'done', what: null }]).currentTool).toBeNull();
    const exited = applyEvents(using, [{ kind: 'exit' }, { kind: 'tool', name: 'Edit', detail: null }]);
    expect(exited.currentTool).toBeNull();
  });
});
