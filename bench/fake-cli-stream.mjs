#!/usr/bin/env node
// A stand-in for the claude CLI for the UI benchmarks (bench/ui-streaming.ts, bench/ui-long-conversation.ts).
//
// It answers `initialize` (and any other control request) with success, and answers each user line with a
// scripted turn in the shapes the real CLI 2.1.332 writes (../shared/reference/cli-facts.md):
//
//   BENCH_UI_MODE=stream  system/init, system/status, stream_event message_start, content_block_start (text),
//                         then text_delta stream_events paced by a timer at BENCH_STREAM_RATE lines a second
//                         (default 2,000) for BENCH_STREAM_SECONDS (default 10), each delta a word or two;
//                         then the complete `assistant` line, content_block_stop, message_delta, message_stop
//                         and a `result`.
//   BENCH_UI_MODE=big     system/init, then Bash calls each answered with a ~40 KB tool result, until
//                         BENCH_BIG_BYTES (default 100 MB) of lines are written; then a reply and a `result`.
//   BENCH_UI_MODE=long    system/init, then BENCH_LONG_MESSAGES (default 10,000) `assistant` lines as fast
//                         as the pipe takes them, each its own message.id with markdown of 1–8 sentences
//                         (some with a code block or a list), then one `result`.
//   BENCH_UI_MODE=thinking  the first prompt is answered as in `long`; each prompt after it as in `stream`,
//                         but the deltas are thinking_delta lines, each followed by a system/thinking_tokens
//                         line as the CLI writes them, and a short text block (with the last word) follows.
//
// When a turn is written it writes BENCH_UI_STATS (if set): what it sent, for the benchmark to compare with
// what the page showed. Stdin EOF ends the process once the running turn is written. Plain Node, no deps.

import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { clearInterval, setInterval, setTimeout } from 'node:timers';

const mode = ['long', 'big', 'thinking'].includes(process.env.BENCH_UI_MODE)
  ? process.env.BENCH_UI_MODE
  : 'stream';
const statsPath = process.env.BENCH_UI_STATS || '';
const rate = Number(process.env.BENCH_STREAM_RATE) || 2000;
const seconds = Number(process.env.BENCH_STREAM_SECONDS) || 10;
const longMessages = Number(process.env.BENCH_LONG_MESSAGES) || 10_000;
const bigBytes = Number(process.env.BENCH_BIG_BYTES) || 100_000_000;
const TICK_MS = 5;
const MODEL = 'claude-bench-1';
/** The last word of every scripted reply, so the benchmark can see that the whole text arrived. */
export const END_MARKER = 'bench-final-word';

const sessionArg = process.argv.find((arg) => arg.startsWith('--session-id='));
const sessionId = sessionArg ? sessionArg.slice('--session-id='.length) : randomUUID();
const cwd = process.cwd();

// A hard stop, in case the host never closes stdin.
setTimeout(() => {
  process.stderr.write('fake-cli-stream: still running after 5 minutes; exiting\n');
  process.exit(0);
}, 300_000).unref();

let busy = false;
/** When the turn's user line arrived (ms since the epoch), for the benchmark's timeline. */
let userLineAt = 0;
let inputEnded = false;
let turns = 0;

function line(object) {
  return JSON.stringify(object) + '\n';
}

/** Writes, and waits for drain when the pipe is full. */
function write(text) {
  if (process.stdout.write(text)) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

function maybeExit() {
  if (inputEnded && !busy) process.exit(0);
}

// ------------------------------------------------------------------------------------------------
// Deterministic text

let seed = 0x2545f491;
function random() {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 0x100000000;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const WORDS = (
  'the renderer applies each batch of events once per frame so that a fast stream never floods ' +
  'react with commits; the list is virtualized and only rows on screen exist in the document while ' +
  'older messages wait in the store. parse decode dispatch reducer message part block delta session ' +
  'pipe buffer transcript handshake result assistant thinking subagent tool call output input'
).split(/\s+/);
const STYLED = [
  '`applyEvents`',
  '**frame**',
  '`MessageList`',
  '*batch*',
  '`useStore`',
  '[docs](https://example.com)',
];

function word() {
  return random() < 0.04 ? pick(STYLED) : pick(WORDS);
}

function sentence() {
  const count = 6 + Math.floor(random() * 14);
  const words = Array.from({ length: count }, word);
  const first = words[0] ?? 'the';
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ') + pick(['.', '.', '.', '!', '?', ':']).replace(':', '.');
}

const CODE_SAMPLES = [
  [
    '```ts',
    'export function flush(batches: Map<string, Event[]>): void {',
    '  for (const [id, events] of batches) {',
    '    store.apply(id, events);',
    '  }',
    '}',
    '```',
  ],
  ['```bash', 'npm run build && node out/main/web.js --port 0 .', '```'],
  ['```json', '{ "type": "assistant", "message": { "id": "msg_1", "content": [] } }', '```'],
  [
    '```ts',
    'const total = rows.reduce((sum, row) => sum + row.size, 0);',
    'if (total > limit) throw new Error(`too tall: ${total}`);',
    '```',
  ],
];

/** Markdown of 1–8 sentences; about one in six has a code block and one in six a list. */
function markdownMessage(index) {
  const sentences = 1 + Math.floor(random() * 8);
  const paragraphs = [];
  let current = [];
  for (let i = 0; i < sentences; i++) {
    current.push(sentence());
    if (current.length >= 3 || random() < 0.25) {
      paragraphs.push(current.join(' '));
      current = [];
    }
  }
  if (current.length > 0) paragraphs.push(current.join(' '));
  const extra = random();
  if (extra < 0.16) {
    paragraphs.splice(Math.min(1, paragraphs.length), 0, pick(CODE_SAMPLES).join('\n'));
  } else if (extra < 0.32) {
    const items = 2 + Math.floor(random() * 4);
    const list = Array.from(
      { length: items },
      (_, i) => `${random() < 0.5 ? '-' : `${i + 1}.`} ${sentence()}`,
    );
    paragraphs.splice(Math.min(1, paragraphs.length), 0, list.join('\n'));
  }
  paragraphs.push(`Message ${index + 1}.`);
  return paragraphs.join('\n\n');
}

// ------------------------------------------------------------------------------------------------
// Line shapes

const base = () => ({ session_id: sessionId, uuid: randomUUID() });
const usage = (output) => ({
  input_tokens: 12,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

function systemInit() {
  return {
    type: 'system',
    subtype: 'init',
    cwd,
    ...base(),
    tools: ['Bash', 'Read', 'Edit', 'Write'],
    mcp_servers: [],
    model: MODEL,
    permissionMode: 'bypassPermissions',
    slash_commands: [],
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: 'bench',
    output_style: 'default',
  };
}

function streamEvent(event, messageId) {
  return { type: 'stream_event', event, ...base(), parent_tool_use_id: null, api_message_id: messageId };
}

function assistant(messageId, text) {
  return {
    type: 'assistant',
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text }],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(Math.ceil(text.length / 4)),
    },
    parent_tool_use_id: null,
    ...base(),
    timestamp: new Date().toISOString(),
    request_id: `req_bench_${messageId}`,
  };
}

function result(text, started, turnsInResult) {
  return {
    duration_api_ms: Date.now() - started,
    stop_reason: 'end_turn',
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: text.slice(-2000),
    terminal_reason: 'completed',
    num_turns: turnsInResult,
    ...base(),
    total_cost_usd: 0,
    usage: usage(Math.ceil(text.length / 4)),
    duration_ms: Date.now() - started,
  };
}

function lifecycle(uuid, state) {
  return { type: 'command_lifecycle', command_uuid: uuid, state, ...base() };
}

// ------------------------------------------------------------------------------------------------
// Turns

function writeStats(stats) {
  if (!statsPath) return;
  writeFileSync(
    statsPath,
    JSON.stringify({ mode, pid: process.pid, userLineAt, doneAt: Date.now(), ...stats }),
  );
}

/** The CLI's running estimate of a thinking block's tokens, written after each thinking delta. */
function thinkingTokens(estimated, delta, promptUuid) {
  return {
    type: 'system',
    subtype: 'thinking_tokens',
    estimated_tokens: estimated,
    estimated_tokens_delta: delta,
    ...base(),
    user_message_uuid: promptUuid,
  };
}

/**
 * One streamed reply of `kind` 'text', or 'thinking': a thinking block streamed the same way, each delta
 * followed by a system/thinking_tokens line as the CLI writes them, then a short text block.
 */
async function streamTurn(promptUuid, kind) {
  const started = Date.now();
  const messageId = `msg_bench_stream_${++turns}`;
  const total = Math.round(rate * seconds);
  // The reply, as deltas of a word or two, with a paragraph break every 40–80 deltas.
  const deltas = [];
  let sinceBreak = 0;
  const breakEvery = () => 40 + Math.floor(random() * 40);
  let nextBreak = breakEvery();
  for (let i = 0; i < total; i++) {
    let text = i === total - 1 ? ` ${END_MARKER}.` : random() < 0.5 ? ` ${word()}` : ` ${word()} ${word()}`;
    if (i === 0) text = 'Here' + text;
    if (++sinceBreak >= nextBreak && i < total - 1) {
      text = `.\n\n${word().replace(/^./, (c) => c.toUpperCase())}${text}`;
      sinceBreak = 0;
      nextBreak = breakEvery();
    }
    deltas.push(text);
  }
  const fullText = deltas.join('');
  const streamed =
    kind === 'thinking'
      ? {
          block: { type: 'thinking', thinking: '', signature: '' },
          delta: (thinking) => ({ type: 'thinking_delta', thinking }),
        }
      : { block: { type: 'text', text: '' }, delta: (text) => ({ type: 'text_delta', text }) };

  await write(
    (promptUuid ? line(lifecycle(promptUuid, 'started')) : '') +
      line(systemInit()) +
      line({ type: 'system', subtype: 'status', status: 'requesting', ...base() }) +
      line({
        ...streamEvent(
          {
            type: 'message_start',
            message: {
              id: messageId,
              type: 'message',
              role: 'assistant',
              model: MODEL,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: usage(1),
            },
          },
          messageId,
        ),
        ttft_ms: 5,
      }) +
      line(streamEvent({ type: 'content_block_start', index: 0, content_block: streamed.block }, messageId)),
  );

  // Paced by the clock, not by the timer's punctuality: each tick writes whatever is due by now.
  const deltaStarted = performance.now();
  let sent = 0;
  let estimated = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - deltaStarted) * rate) / 1000));
      let chunk = '';
      for (; sent < due; sent++) {
        const text = deltas[sent];
        chunk += line(
          streamEvent({ type: 'content_block_delta', index: 0, delta: streamed.delta(text) }, messageId),
        );
        if (kind === 'thinking') {
          const tokens = Math.ceil(text.length / 4);
          estimated += tokens;
          chunk += line(thinkingTokens(estimated, tokens, promptUuid));
        }
      }
      if (chunk) process.stdout.write(chunk);
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, TICK_MS);
  });
  const deltaMs = performance.now() - deltaStarted;

  let blocks;
  let replyText = fullText;
  if (kind === 'thinking') {
    replyText = `Thought it through. ${END_MARKER}.`;
    const thought = assistant(messageId, '');
    thought.message.content = [{ type: 'thinking', thinking: fullText, signature: 'bench-signature' }];
    blocks =
      line(thought) +
      line(streamEvent({ type: 'content_block_stop', index: 0 }, messageId)) +
      line(
        streamEvent(
          { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
          messageId,
        ),
      ) +
      line(
        streamEvent(
          { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: replyText } },
          messageId,
        ),
      ) +
      line(assistant(messageId, replyText)) +
      line(streamEvent({ type: 'content_block_stop', index: 1 }, messageId));
  } else {
    blocks =
      line(assistant(messageId, fullText)) +
      line(streamEvent({ type: 'content_block_stop', index: 0 }, messageId));
  }
  await write(
    blocks +
      line(
        streamEvent(
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: Math.ceil(fullText.length / 4) },
          },
          messageId,
        ),
      ) +
      line(streamEvent({ type: 'message_stop' }, messageId)) +
      line(result(replyText, started, 1)) +
      (promptUuid ? line(lifecycle(promptUuid, 'completed')) : ''),
  );
  let offset = 0;
  const ends = deltas.map((text) => (offset += text.length));
  writeStats({ kind, deltas: total, deltaMs, text: fullText, ends, endMarker: END_MARKER });
}

/**
 * The long reply's lines, built once ahead of the prompt (at startup) so that the turn measures
 * how fast the app takes 10,000 messages, not how fast this script makes them up.
 */
let prepared = null;
function prepareLong() {
  if (prepared) return prepared;
  const runId = turns + 1;
  const lines = [];
  let last = '';
  for (let i = 0; i < longMessages; i++) {
    last = markdownMessage(i);
    if (i === longMessages - 1) last += ` ${END_MARKER}.`;
    lines.push(line(assistant(`msg_bench_long_${runId}_${i}`, last)));
  }
  // Chunks of about 256 KB, as a pipe would carry them.
  const chunks = [];
  let chunk = '';
  for (const text of lines) {
    chunk += text;
    if (chunk.length > 256 * 1024) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk) chunks.push(chunk);
  prepared = { chunks, last };
  return prepared;
}

async function longTurn(promptUuid) {
  const started = Date.now();
  const { chunks, last } = prepareLong();
  prepared = null;
  turns++;
  await write((promptUuid ? line(lifecycle(promptUuid, 'started')) : '') + line(systemInit()));
  const writeStarted = performance.now();
  let bytes = 0;
  for (const chunk of chunks) {
    bytes += chunk.length;
    await write(chunk);
  }
  const tail =
    line(result(last, started, longMessages)) + (promptUuid ? line(lifecycle(promptUuid, 'completed')) : '');
  bytes += tail.length;
  await write(tail);
  writeStats({
    messages: longMessages,
    bytes,
    writeMs: performance.now() - writeStarted,
    endMarker: END_MARKER,
  });
}

/**
 * A conversation of about BENCH_BIG_BYTES of lines: Bash calls, each answered with about 40 KB of output (as
 * a tool's output makes up most of a real long session), then a last reply and a result.
 */
async function bigTurn(promptUuid) {
  const started = Date.now();
  const runId = ++turns;
  await write((promptUuid ? line(lifecycle(promptUuid, 'started')) : '') + line(systemInit()));
  const output = Array.from({ length: 500 }, () => sentence())
    .join('\n')
    .slice(0, 40_000);
  let bytes = 0;
  let lines = 0;
  for (let call = 0; bytes < bigBytes; call++) {
    const id = `toolu_bench_${runId}_${call}`;
    const use = assistant(`msg_bench_big_${runId}_${call}`, '');
    use.message.content = [
      { type: 'tool_use', id, name: 'Bash', input: { command: `cat part-${call}.log` } },
    ];
    const answer = {
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: `${call}: ${output}` }],
      },
      parent_tool_use_id: null,
      ...base(),
      timestamp: new Date().toISOString(),
    };
    const text = line(use) + line(answer);
    bytes += text.length;
    lines += 2;
    await write(text);
  }
  const last = `That was all of it. ${END_MARKER}.`;
  const tail =
    line(assistant(`msg_bench_big_${runId}_end`, last)) +
    line(result(last, started, lines)) +
    (promptUuid ? line(lifecycle(promptUuid, 'completed')) : '');
  await write(tail);
  writeStats({ bytes: bytes + tail.length, lines: lines + 3, endMarker: END_MARKER });
}

async function runTurn(promptUuid) {
  busy = true;
  userLineAt = Date.now();
  try {
    if (promptUuid) await write(line(lifecycle(promptUuid, 'queued')));
    if (mode === 'long' || (mode === 'thinking' && turns === 0)) await longTurn(promptUuid);
    else if (mode === 'big') await bigTurn(promptUuid);
    else await streamTurn(promptUuid, mode === 'thinking' ? 'thinking' : 'text');
  } finally {
    busy = false;
    maybeExit();
  }
}

// ------------------------------------------------------------------------------------------------
// Stdin

// Before the first prompt can arrive (it delays the initialize answer instead, which is not measured).
if (mode === 'long' || mode === 'thinking') prepareLong();

let queue = Promise.resolve();
const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (text) => {
  if (text.trim() === '') return;
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    process.stderr.write(`fake-cli-stream: stdin line is not JSON: ${text.slice(0, 200)}\n`);
    process.exit(1);
  }
  if (message.type === 'control_request') {
    const subtype = message.request && message.request.subtype;
    const response =
      subtype === 'initialize'
        ? {
            commands: [],
            models: [{ value: 'default', displayName: 'Default', description: '' }],
            account: {},
            pid: process.pid,
            claude_code_version: 'bench',
          }
        : subtype === 'interrupt'
          ? { still_queued: [] }
          : {};
    process.stdout.write(
      line({
        type: 'control_response',
        response: { subtype: 'success', request_id: message.request_id, response },
      }),
    );
  } else if (message.type === 'user') {
    const uuid = typeof message.uuid === 'string' ? message.uuid : '';
    queue = queue.then(() => runTurn(uuid));
  }
});
input.on('close', () => {
  inputEnded = true;
  void queue.then(maybeExit);
});
process.stdout.on('error', () => process.exit(0));
