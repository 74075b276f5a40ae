import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeModel,
  Gate,
  imageBlocks,
  isSubagentRequest,
  lastUserText,
  toolResults,
  type RecordedRequest,
} from './server';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

let open: FakeModel[] = [];

async function startModel(options?: Parameters<typeof FakeModel.start>[0]): Promise<FakeModel> {
  const model = await FakeModel.start(options);
  open.push(model);
  return model;
}

afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parse a complete SSE body strictly: every event is exactly `event: x\ndata: {json}\n\n`. */
function parseSse(text: string): SseEvent[] {
  expect(text.endsWith('\n\n')).toBe(true);
  const events: SseEvent[] = [];
  for (const chunk of text.slice(0, -2).split('\n\n')) {
    const match = /^event: ([a-z_]+)\ndata: (.*)$/s.exec(chunk);
    if (!match) throw new Error(`bad SSE chunk: ${JSON.stringify(chunk)}`);
    const data: unknown = JSON.parse(match[2] ?? '');
    if (!isRecord(data)) throw new Error('SSE data is not an object');
    expect(data.type).toBe(match[1]);
    events.push({ event: match[1] ?? '', data });
  }
  return events;
}

function field(value: unknown, ...keys: Array<string | number>): unknown {
  let current: unknown = value;
  for (const key of keys) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined;
    else current = isRecord(current) ? current[key] : undefined;
  }
  return current;
}

function post(
  model: FakeModel,
  body: unknown,
  init: { path?: string; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${model.url}${init.path ?? '/v1/messages?beta=true'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

function streamBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-test-1',
    max_tokens: 1000,
    stream: true,
    messages: [{ role: 'user', content: text }],
    ...extra,
  };
}

async function streamText(model: FakeModel, text: string): Promise<string> {
  const res = await post(model, streamBody(text));
  const events = parseSse(await res.text());
  return events
    .filter((e) => e.event === 'content_block_delta')
    .map((e) => field(e.data, 'delta', 'text'))
    .join('');
}

describe('FakeModel SSE stream', () => {
  it('streams a text + tool_use reply with the exact event order and headers', async () => {
    const model = await startModel();
    model.enqueue({
      blocks: [
        { type: 'text', text: 'Running it now.' },
        { type: 'tool_use', name: 'Bash', input: { command: 'echo hi', description: 'say hi' } },
      ],
      usage: { input_tokens: 42, output_tokens: 7 },
    });
    const res = await post(model, streamBody('run echo'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('request-id')).toBe('req_fake_1');

    const events = parseSse(await res.text());
    const jsonDeltaCount = events.filter((e) => field(e.data, 'delta', 'type') === 'input_json_delta').length;
    expect(jsonDeltaCount).toBeGreaterThan(1);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      ...Array.from({ length: jsonDeltaCount }, () => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);

    const start = events[0]?.data;
    expect(field(start, 'message')).toEqual({
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test-1',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 42,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });

    // text block: one word (with trailing space) per delta
    expect(events[2]?.data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    const textDeltas = events.filter(
      (e) => e.event === 'content_block_delta' && field(e.data, 'index') === 0,
    );
    expect(textDeltas.map((e) => field(e.data, 'delta'))).toEqual([
      { type: 'text_delta', text: 'Running ' },
      { type: 'text_delta', text: 'it ' },
      { type: 'text_delta', text: 'now.' },
    ]);

    // tool_use block: input JSON split into several partial_json pieces
    const toolStart = events[7]?.data;
    expect(field(toolStart, 'index')).toBe(1);
    const block = field(toolStart, 'content_block');
    expect(field(block, 'type')).toBe('tool_use');
    expect(field(block, 'name')).toBe('Bash');
    expect(field(block, 'input')).toEqual({});
    expect(String(field(block, 'id'))).toMatch(/^toolu_fake_/);
    const jsonDeltas = events.filter(
      (e) => e.event === 'content_block_delta' && field(e.data, 'index') === 1,
    );
    expect(jsonDeltas.length).toBeGreaterThan(1);
    for (const d of jsonDeltas) expect(field(d.data, 'delta', 'type')).toBe('input_json_delta');
    const json = jsonDeltas.map((d) => field(d.data, 'delta', 'partial_json')).join('');
    expect(JSON.parse(json)).toEqual({ command: 'echo hi', description: 'say hi' });
    expect(events.at(-3)?.data).toEqual({ type: 'content_block_stop', index: 1 });

    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 7 },
    });
    expect(events.at(-1)?.data).toEqual({ type: 'message_stop' });

    const recorded = model.messageRequests()[0];
    expect(recorded?.deltasSent).toBe(textDeltas.length + jsonDeltas.length);
    expect(recorded?.closedEarly).toBe(false);
    expect(recorded?.finished).toBe(true);
  });

  it('streams a thinking block followed by exactly one signature_delta, and honours chunkSize', async () => {
    const model = await startModel();
    model.enqueue({
      blocks: [
        { type: 'thinking', thinking: 'abcdefg' },
        { type: 'text', text: 'done' },
      ],
      chunkSize: 3,
      stopReason: 'max_tokens',
    });
    const events = parseSse(await (await post(model, streamBody('think'))).text());
    expect(events[2]?.data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    const deltas = events
      .filter((e) => e.event === 'content_block_delta' && field(e.data, 'index') === 0)
      .map((e) => field(e.data, 'delta'));
    expect(deltas.slice(0, 3)).toEqual([
      { type: 'thinking_delta', thinking: 'abc' },
      { type: 'thinking_delta', thinking: 'def' },
      { type: 'thinking_delta', thinking: 'g' },
    ]);
    expect(deltas).toHaveLength(4);
    expect(field(deltas[3], 'type')).toBe('signature_delta');
    expect(String(field(deltas[3], 'signature')).length).toBeGreaterThan(0);
    expect(events[7]?.data).toEqual({ type: 'content_block_stop', index: 0 });
    expect(field(events.at(-2)?.data, 'delta', 'stop_reason')).toBe('max_tokens');
  });

  it('uses the built-in "OK." reply, then defaultReply when given', async () => {
    const plain = await startModel();
    expect(await streamText(plain, 'x')).toBe('OK.');
    const withDefault = await startModel({
      defaultReply: (req) => ({ blocks: [{ type: 'text', text: `echo:${lastUserText(req)}` }] }),
    });
    expect(await streamText(withDefault, 'ping')).toBe('echo:ping');
  });
});

describe('FakeModel non-streaming requests', () => {
  it('answers the set_model "Hi" probe with a plain JSON message', async () => {
    const model = await startModel();
    model.enqueue({ blocks: [{ type: 'text', text: 'queued, not for the probe' }] });
    const res = await post(model, {
      model: 'claude-sonnet-4-5',
      max_tokens: 1,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      system: "You are Claude Code, Anthropic's official CLI for Claude.",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body: unknown = await res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_/) as unknown,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Hi' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: expect.any(Number) as unknown, output_tokens: expect.any(Number) as unknown },
    });
    // the queue is for streaming requests only
    expect(model.pending()).toBe(1);
    expect(model.messageRequests()).toHaveLength(0);
    expect(model.requests[0]?.stream).toBe(false);
  });

  it('applies matching rules to non-streaming requests too', async () => {
    const model = await startModel();
    model.when((r) => !r.stream, { error: { status: 403, type: 'permission_error', message: 'no probe' } });
    const res = await post(model, { model: 'm', max_tokens: 1, messages: [] });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: 'no probe' },
    });
  });

  it('answers count_tokens, 404s unknown paths and 400s malformed JSON, recording all', async () => {
    const model = await startModel();
    const count = await post(model, streamBody('x'), { path: '/v1/messages/count_tokens?beta=true' });
    expect(count.status).toBe(200);
    const countBody: unknown = await count.json();
    expect(Number(field(countBody, 'input_tokens'))).toBeGreaterThan(0);

    const missing = await fetch(`${model.url}/v1/other`);
    expect(missing.status).toBe(404);
    expect(field(await missing.json(), 'error', 'type')).toBe('not_found_error');

    const bad = await post(model, '{"model": nope');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('request-id')).toBe('req_fake_3');
    expect(await bad.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.any(String) as unknown },
    });

    expect(model.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/messages/count_tokens?beta=true',
      'GET /v1/other',
      'POST /v1/messages?beta=true',
    ]);
    expect(model.requests[2]?.body).toBeUndefined();
    // the server is still healthy
    expect(await streamText(model, 'still there?')).toBe('OK.');
    expect(model.serverErrors).toEqual([]);
  });
});

describe('FakeModel routing', () => {
  it('serves enqueued replies in FIFO order', async () => {
    const model = await startModel();
    model.enqueue(
      { blocks: [{ type: 'text', text: 'first' }] },
      { blocks: [{ type: 'text', text: 'second' }] },
    );
    model.enqueue(() => ({ blocks: [{ type: 'text', text: 'third' }] }));
    expect(await streamText(model, 'a')).toBe('first');
    expect(await streamText(model, 'b')).toBe('second');
    expect(await streamText(model, 'c')).toBe('third');
    expect(await streamText(model, 'd')).toBe('OK.');
  });

  it("answers the CLI's prompt-suggestion requests itself, apart from the rules, the queue and messageRequests", async () => {
    const model = await startModel();
    model.when(() => true, { blocks: [{ type: 'text', text: 'from a rule' }] }, { times: 1 });
    model.enqueue({ blocks: [{ type: 'text', text: 'queued' }] });
    const suggestion = '[SUGGESTION MODE: Suggest what the user might naturally type next into Claude Code.]';
    expect(await streamText(model, suggestion)).toBe('');
    model.suggestNext('run the tests');
    const waited = model.waitForRequest(
      (req) => lastUserText(req).includes('SUGGESTION') || lastUserText(req) === 'a',
    );
    expect(await streamText(model, suggestion)).toBe('run the tests');
    expect(await streamText(model, 'a')).toBe('from a rule');
    expect(await streamText(model, 'b')).toBe('queued');
    expect(lastUserText(await waited)).toBe('a');
    expect(model.messageRequests().map(lastUserText)).toEqual(['a', 'b']);
    expect(model.requests).toHaveLength(4);
  });

  it('checks rules before the queue, in order, and honours times', async () => {
    const model = await startModel();
    model.enqueue({ blocks: [{ type: 'text', text: 'queued' }] });
    model.when(
      (r) => lastUserText(r).includes('special'),
      { blocks: [{ type: 'text', text: 'rule-once' }] },
      { times: 1 },
    );
    model.when(
      (r) => lastUserText(r).includes('special'),
      (r) => ({
        blocks: [{ type: 'text', text: `rule-always #${r.seq}` }],
      }),
    );
    expect(await streamText(model, 'a special one')).toBe('rule-once');
    expect(await streamText(model, 'special again')).toBe('rule-always #2');
    expect(await streamText(model, 'special thrice')).toBe('rule-always #3');
    expect(model.pending()).toBe(1);
    expect(await streamText(model, 'ordinary')).toBe('queued');
  });

  it('answers with a scripted HTTP error', async () => {
    const model = await startModel();
    model.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const res = await post(model, streamBody('x'));
    expect(res.status).toBe(401);
    expect(res.headers.get('request-id')).toBe('req_fake_1');
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });

    model.enqueue({
      error: {
        status: 529,
        type: 'overloaded_error',
        message: 'busy',
        headers: { 'x-should-retry': 'false' },
      },
    });
    const overloaded = await post(model, streamBody('y'));
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers.get('x-should-retry')).toBe('false');
    expect(overloaded.headers.get('request-id')).toBe('req_fake_2');
    expect(field(await overloaded.json(), 'error', 'type')).toBe('overloaded_error');
  });

  it('reports a throwing responder as a 400 and keeps serving', async () => {
    const model = await startModel();
    model.enqueue(() => {
      throw new Error('boom');
    });
    const res = await post(model, streamBody('x'));
    expect(res.status).toBe(400);
    expect(String(field(await res.json(), 'error', 'message'))).toContain('boom');
    expect(model.serverErrors.map((e) => e.message)).toEqual(['boom']);
    expect(await streamText(model, 'y')).toBe('OK.');
  });
});

/** Reads a streaming response until it has seen `count` deltas; returns what it read. */
async function readDeltas(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  count: number,
  decoder = new TextDecoder(),
): Promise<string> {
  let seen = '';
  while ((seen.match(/event: content_block_delta/g) ?? []).length < count) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended too soon');
    seen += decoder.decode(value, { stream: true });
  }
  return seen;
}

describe('FakeModel holds a reply on a gate', () => {
  it('sends the deltas before the hold, nothing more until released, then the rest', async () => {
    const model = await startModel();
    const gate = new Gate();
    model.enqueue({ blocks: [{ type: 'text', text: 'a b c d e f' }], hold: { after: 2, until: gate } });
    const res = await post(model, streamBody('held'));
    const reader = res.body!.getReader();
    await readDeltas(reader, 2);
    const req = await model.waitForRequest((r) => r.stream);
    // Held: a request to the same server is answered meanwhile, and the held one has not moved on.
    expect(await streamText(model, 'meanwhile')).toBe('OK.');
    expect(req.deltasSent).toBe(2);
    expect(req.finished).toBe(false);

    gate.release();
    await model.waitForFinished(req);
    expect(req.deltasSent).toBe(6);
    expect(req.closedEarly).toBe(false);
    expect(gate.released).toBe(true);
  });
});

describe('FakeModel client disconnect', () => {
  it('marks closedEarly and counts deltasSent when the client aborts mid-stream', async () => {
    const model = await startModel();
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    model.enqueue({ blocks: [{ type: 'text', text: words }], hold: { after: 3, until: new Gate() } });
    const ac = new AbortController();
    const res = await post(model, streamBody('long'), { signal: ac.signal });
    const reader = res.body?.getReader();
    if (!reader) throw new Error('no body');
    await readDeltas(reader, 3);
    ac.abort();
    await reader.read().catch(() => undefined);

    const req = await model.waitForRequest((r) => r.stream);
    await model.waitForFinished(req);
    expect(req.closedEarly).toBe(true);
    expect(req.deltasSent).toBe(3);
    // a later request still works
    expect(await streamText(model, 'after')).toBe('OK.');
    expect(model.serverErrors).toEqual([]);
  });

  it('close() ends a stream held on a gate that is never released, and a long delayed one', async () => {
    const model = await startModel();
    model.enqueue(
      { blocks: [{ type: 'text', text: 'a b c d e f' }], hold: { after: 1, until: new Gate() } },
      { blocks: [{ type: 'text', text: 'a b c d e f' }], deltaDelayMs: 600_000 },
    );
    const readers = await Promise.all(
      ['held', 'slow'].map(async (text) => {
        const reader = (await post(model, streamBody(text))).body!.getReader();
        await readDeltas(reader, 1);
        return reader;
      }),
    );
    // A hang here is caught by the test's timeout; the streams are cut rather than finished.
    await model.close();
    expect(model.requests.map((r) => r.closedEarly)).toEqual([true, true]);
    for (const reader of readers) await expect(reader.read()).rejects.toThrow();
  });
});

describe('FakeModel.waitForRequest', () => {
  it('resolves with a request received earlier', async () => {
    const model = await startModel();
    await streamText(model, 'earlier');
    const req = await model.waitForRequest((r) => lastUserText(r) === 'earlier', 100);
    expect(req.seq).toBe(1);
  });

  it('resolves with a future request', async () => {
    const model = await startModel();
    const waiting = model.waitForRequest((r) => lastUserText(r) === 'later', 5000);
    await streamText(model, 'not yet');
    await streamText(model, 'later');
    expect((await waiting).seq).toBe(2);
  });

  it('rejects with a descriptive error after the timeout', async () => {
    const model = await startModel();
    await streamText(model, 'something else');
    const started = Date.now();
    await expect(model.waitForRequest((r) => lastUserText(r) === 'never', 150)).rejects.toThrow(
      /no matching request within 150 ms; received 1: #1 POST \/v1\/messages\?beta=true stream "something else"/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('FakeModel request log', () => {
  it('records method, path, headers, parsed body, stream flag and model', async () => {
    const model = await startModel();
    await (
      await post(model, streamBody('hello', { system: [{ type: 'text', text: 'sys' }] }), {
        headers: { 'x-app': 'cli', 'anthropic-version': '2023-06-01' },
      })
    ).text();
    const req = model.requests[0];
    expect(req).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/messages?beta=true',
      stream: true,
      model: 'claude-test-1',
      closedEarly: false,
    });
    expect(req?.headers['x-app']).toBe('cli');
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
    expect(req?.body).toEqual(streamBody('hello', { system: [{ type: 'text', text: 'sys' }] }));
    expect(model.messageRequests()).toEqual([req]);
  });
});

describe('helpers', () => {
  function fakeReq(body: unknown): RecordedRequest {
    return {
      seq: 1,
      method: 'POST',
      path: '/v1/messages',
      headers: {},
      body,
      stream: true,
      closedEarly: false,
      deltasSent: 0,
      finished: true,
    };
  }

  it('lastUserText reads the last user message (string or text blocks), skipping system/assistant', () => {
    expect(
      lastUserText(
        fakeReq({
          messages: [
            { role: 'user', content: 'old' },
            { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
            {
              role: 'user',
              content: [
                { type: 'text', text: '[Request interrupted by user]\n' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
                { type: 'text', text: 'are you there?' },
              ],
            },
            { role: 'system', content: [{ type: 'text', text: '# Environment' }] },
          ],
        }),
      ),
    ).toBe('[Request interrupted by user]\nare you there?');
    expect(lastUserText(fakeReq({ messages: [{ role: 'user', content: 'plain' }] }))).toBe('plain');
    expect(lastUserText(fakeReq(undefined))).toBe('');
    expect(lastUserText(fakeReq({ messages: 'nope' }))).toBe('');
  });

  it('imageBlocks returns base64 images of the last user message only', () => {
    const req = fakeReq({
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'OLD' } }],
        },
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } },
            { type: 'text', text: 'What is in this image?' },
          ],
        },
      ],
    });
    expect(imageBlocks(req)).toEqual([{ media_type: 'image/png', data: 'iVBOR' }]);
    expect(imageBlocks(fakeReq({ messages: [{ role: 'user', content: 'x' }] }))).toEqual([]);
  });

  it('isSubagentRequest looks for cc_is_subagent=true in the system prompt', () => {
    const billing = (sub: boolean): string =>
      `x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=sdk-cli;${sub ? ' cc_is_subagent=true;' : ''}`;
    expect(
      isSubagentRequest(
        fakeReq({
          system: [
            { type: 'text', text: billing(true) },
            { type: 'text', text: 'You are an agent' },
          ],
        }),
      ),
    ).toBe(true);
    expect(isSubagentRequest(fakeReq({ system: [{ type: 'text', text: billing(false) }] }))).toBe(false);
    expect(isSubagentRequest(fakeReq({ system: 'cc_is_subagent=false' }))).toBe(false);
    expect(isSubagentRequest(fakeReq({ messages: [{ role: 'user', content: 'cc_is_subagent=true' }] }))).toBe(
      false,
    );
    expect(isSubagentRequest(fakeReq(undefined))).toBe(false);
  });

  it('toolResults flattens tool_result blocks of the last user message', () => {
    const req = fakeReq({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello', is_error: false },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [{ type: 'text', text: 'echo: ping' }],
              is_error: true,
            },
          ],
        },
      ],
    });
    expect(toolResults(req)).toEqual([
      { tool_use_id: 'toolu_1', content: 'hello', is_error: false },
      { tool_use_id: 'toolu_2', content: 'echo: ping', is_error: true },
    ]);
  });
});
