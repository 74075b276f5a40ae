// A scripted fake of the Anthropic Messages API for end-to-end tests that run
// the real `claude` CLI with ANTHROPIC_BASE_URL pointing here. See README.md.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export interface ScriptedError {
  status: number;
  type: string;
  message: string;
  /** Extra response headers, e.g. { 'x-should-retry': 'false' }. */
  headers?: Record<string, string>;
}

export interface ScriptedReply {
  blocks?: ScriptedBlock[];
  /** Default: 'tool_use' if any tool_use block, else 'end_turn'. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Pause between consecutive SSE deltas (default 0). */
  deltaDelayMs?: number;
  /** Characters of text/thinking per delta (default: one word, with its trailing whitespace, per delta). */
  chunkSize?: number;
  /** Answer with this HTTP error (Anthropic error JSON body) instead of a stream. */
  error?: ScriptedError;
  usage?: { input_tokens?: number; output_tokens?: number };
  /**
   * Hold the stream open after `after` deltas until the gate is released (or the client goes away), so a
   * test can act while a reply is certainly still streaming, however slow the machine.
   */
  hold?: { after: number; until: Gate };
}

/**
 * A signal a test gives the fake model: replies that hold on it wait until `release()`. Released once, it
 * stays open.
 */
export class Gate {
  private open = false;
  private readonly waiting = new Set<() => void>();

  get released(): boolean {
    return this.open;
  }

  release(): void {
    this.open = true;
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  /** Resolves on release, or early (without rejecting) when the signal aborts. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.open || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiting.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

export interface RecordedRequest {
  seq: number;
  method: string;
  /** Includes the query, e.g. /v1/messages?beta=true */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined (empty or malformed body). */
  body: unknown;
  /** body.stream === true */
  stream: boolean;
  model?: string;
  /** True if the client disconnected before the reply finished. */
  closedEarly: boolean;
  /** How many content_block_delta events were written before the reply ended or closed. */
  deltasSent: number;
  /** True once the reply has been fully written or the client has gone away. */
  finished: boolean;
}

export type Responder = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);

export interface FakeModelOptions {
  /** Reply for streaming /v1/messages requests when no rule matches and the queue is empty. */
  defaultReply?: Responder;
}

interface Rule {
  match: (req: RecordedRequest) => boolean;
  reply: Responder;
  remaining: number;
}

interface Waiter {
  match: (req: RecordedRequest) => boolean;
  resolve: (req: RecordedRequest) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

const DEFAULT_TEXT = 'OK.';
const DEFAULT_INPUT_TOKENS = 10;
// Long enough for a slow, busy machine: it catches a request that never comes, not a late one.
const DEFAULT_WAIT_MS = 60_000;

export class FakeModel {
  readonly url: string;
  readonly requests: RecordedRequest[] = [];
  /** Problems inside the fake itself (a rule or responder threw, ...). Tests may assert it stays empty. */
  readonly serverErrors: Error[] = [];

  private readonly server: Server;
  private readonly defaultReply: Responder | undefined;
  private readonly rules: Rule[] = [];
  private readonly queue: Responder[] = [];
  private waiters: Waiter[] = [];
  private readonly finishWaiters = new Map<RecordedRequest, Array<() => void>>();
  private readonly inFlight = new Set<AbortController>();
  private toolIdCounter = 0;
  private closed = false;
  private suggestion = '';

  private constructor(server: Server, url: string, options: FakeModelOptions) {
    this.server = server;
    this.url = url;
    this.defaultReply = options.defaultReply;
  }

  static async start(options: FakeModelOptions = {}): Promise<FakeModel> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const model = new FakeModel(server, `http://127.0.0.1:${address.port}`, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      model.handle(req, res).catch((err: unknown) => model.internalError(res, err));
    });
    return model;
  }

  /** Queue replies (FIFO) for streaming /v1/messages requests that no rule matched. */
  enqueue(...replies: Responder[]): void {
    this.queue.push(...replies);
  }

  /** Number of enqueued replies not used yet. */
  pending(): number {
    return this.queue.length;
  }

  /**
   * Add a rule. Rules are checked first, in the order they were added, for every
   * POST /v1/messages (streaming or not). `times` defaults to Infinity.
   */
  when(match: (req: RecordedRequest) => boolean, reply: Responder, options: { times?: number } = {}): void {
    this.rules.push({ match, reply, remaining: options.times ?? Infinity });
  }

  /**
   * What "the model" answers when the CLI asks it to guess the user's next prompt (after each turn but the
   * first, when the host turned prompt suggestions on). Those requests are answered here, never by a rule or
   * the queue, and are not among messageRequests(), so that a test's script is the turns it wrote. The
   * default, an empty answer, makes the CLI suggest nothing.
   */
  suggestNext(text: string): void {
    this.suggestion = text;
  }

  /** Streaming POST /v1/messages requests only, without the CLI's requests for a prompt suggestion. */
  messageRequests(): RecordedRequest[] {
    return this.requests.filter((req) => isStreamingMessageRequest(req) && !isSuggestionRequest(req));
  }

  /** Resolves with the first already-received or future request that matches (suggestion requests aside). */
  waitForRequest(
    match: (req: RecordedRequest) => boolean,
    timeoutMs: number = DEFAULT_WAIT_MS,
  ): Promise<RecordedRequest> {
    try {
      const found = this.requests.find((req) => !isSuggestionRequest(req) && match(req));
      if (found) return Promise.resolve(found);
    } catch (err) {
      return Promise.reject(toError(err));
    }
    if (this.closed) return Promise.reject(new Error('FakeModel.waitForRequest: server is closed'));
    return new Promise<RecordedRequest>((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(
            new Error(
              `FakeModel.waitForRequest: no matching request within ${timeoutMs} ms; ` +
                `received ${this.requests.length}: ${this.describeRequests()}`,
            ),
          );
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves when the reply to `req` has been fully written or the client went away. */
  waitForFinished(req: RecordedRequest, timeoutMs: number = DEFAULT_WAIT_MS): Promise<void> {
    if (req.finished) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`FakeModel.waitForFinished: request #${req.seq} still open after ${timeoutMs} ms`));
      }, timeoutMs);
      const list = this.finishWaiters.get(req) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.finishWaiters.set(req, list);
    });
  }

  /** Closes the server, cancels running streams and drops open sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ac of this.inFlight) ac.abort();
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('FakeModel.waitForRequest: server closed before a matching request arrived'));
    }
    this.waiters = [];
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await done;
  }

  // ---------------------------------------------------------------------------

  private describeRequests(): string {
    return (
      this.requests
        .map((r) => {
          const text = lastUserText(r);
          const snippet = text ? ` "${text.slice(0, 40)}"` : '';
          return `#${r.seq} ${r.method} ${r.path}${r.stream ? ' stream' : ''}${snippet}`;
        })
        .join('; ') || '(none)'
    );
  }

  private record(req: RecordedRequest): void {
    this.requests.push(req);
    // A suggestion request repeats the conversation so far: it would match what a test waits for.
    if (isSuggestionRequest(req)) return;
    for (const w of [...this.waiters]) {
      let hit: boolean;
      try {
        hit = w.match(req);
      } catch (err) {
        this.waiters = this.waiters.filter((x) => x !== w);
        clearTimeout(w.timer);
        w.reject(toError(err));
        continue;
      }
      if (hit) {
        this.waiters = this.waiters.filter((x) => x !== w);
        clearTimeout(w.timer);
        w.resolve(req);
      }
    }
  }

  private markFinished(req: RecordedRequest): void {
    if (req.finished) return;
    req.finished = true;
    const list = this.finishWaiters.get(req);
    this.finishWaiters.delete(req);
    for (const fn of list ?? []) fn();
  }

  private internalError(res: ServerResponse, err: unknown): void {
    const error = toError(err);
    this.serverErrors.push(error);
    try {
      if (!res.headersSent && !res.destroyed) {
        // 400, not 500: the CLI retries 5xx for a long time, which would hide the problem.
        sendJson(
          res,
          400,
          errorBody('invalid_request_error', `fake-model internal error: ${error.message}`),
          {},
        );
      } else if (!res.destroyed) {
        res.destroy();
      }
    } catch {
      // nothing more we can do
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('error', () => {
      // a write after the client went away; ignore
    });
    const raw = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const pathname = path.split('?')[0] ?? path;
    let body: unknown = undefined;
    let malformed = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw) as unknown;
      } catch {
        malformed = true;
      }
    }
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : undefined;
    const recorded: RecordedRequest = {
      seq: this.requests.length + 1,
      method,
      path,
      headers: { ...req.headers },
      body,
      stream: isRecord(body) && body.stream === true,
      ...(model !== undefined ? { model } : {}),
      closedEarly: false,
      deltasSent: 0,
      finished: false,
    };
    this.record(recorded);
    const requestId = `req_fake_${recorded.seq}`;
    try {
      if (malformed) {
        sendJson(res, 400, errorBody('invalid_request_error', 'fake-model: request body is not valid JSON'), {
          'request-id': requestId,
        });
        return;
      }
      if (method === 'POST' && pathname === '/v1/messages/count_tokens') {
        const tokens = Math.max(1, Math.ceil(raw.length / 4));
        sendJson(res, 200, { input_tokens: tokens }, { 'request-id': requestId });
        return;
      }
      if (method !== 'POST' || pathname !== '/v1/messages') {
        sendJson(res, 404, errorBody('not_found_error', `fake-model: no route for ${method} ${pathname}`), {
          'request-id': requestId,
        });
        return;
      }
      if (!isRecord(body)) {
        sendJson(res, 400, errorBody('invalid_request_error', 'fake-model: body must be a JSON object'), {
          'request-id': requestId,
        });
        return;
      }
      const reply = this.pickReply(recorded);
      if (reply?.error) {
        const { status, type, message, headers } = reply.error;
        sendJson(res, status, errorBody(type, message), { ...headers, 'request-id': requestId });
        return;
      }
      if (!recorded.stream) {
        sendJson(res, 200, this.buildMessage(recorded, reply), { 'request-id': requestId });
        return;
      }
      await this.stream(recorded, res, reply ?? {}, requestId);
    } finally {
      this.markFinished(recorded);
    }
  }

  /** Suggestion requests aside: rules first; for streaming requests then the queue, defaultReply, built-in default. */
  private pickReply(req: RecordedRequest): ScriptedReply | undefined {
    if (isSuggestionRequest(req)) return { blocks: [{ type: 'text', text: this.suggestion }] };
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue;
      if (!rule.match(req)) continue;
      rule.remaining -= 1;
      return resolveResponder(rule.reply, req);
    }
    if (!req.stream) return undefined;
    const queued = this.queue.shift();
    if (queued !== undefined) return resolveResponder(queued, req);
    if (this.defaultReply !== undefined) return resolveResponder(this.defaultReply, req);
    return { blocks: [{ type: 'text', text: DEFAULT_TEXT }] };
  }

  private toolId(block: { id?: string }): string {
    if (block.id !== undefined) return block.id;
    this.toolIdCounter += 1;
    return `toolu_fake_${this.toolIdCounter}_${Math.random().toString(36).slice(2, 10)}`;
  }

  /** Non-streaming answer: the "Hi" probe, or a rule's reply rendered as a whole message. */
  private buildMessage(req: RecordedRequest, reply: ScriptedReply | undefined): Record<string, unknown> {
    const blocks: ScriptedBlock[] = reply?.blocks ?? [{ type: 'text', text: 'Hi' }];
    const content = blocks.map((b): Record<string, unknown> => {
      switch (b.type) {
        case 'text':
          return { type: 'text', text: b.text };
        case 'thinking':
          return { type: 'thinking', thinking: b.thinking, signature: fakeSignature() };
        case 'tool_use':
          return { type: 'tool_use', id: this.toolId(b), name: b.name, input: b.input };
      }
    });
    return {
      id: `msg_fake_${req.seq}`,
      type: 'message',
      role: 'assistant',
      model: req.model ?? 'claude-fake',
      content,
      stop_reason: reply?.stopReason ?? defaultStopReason(blocks),
      stop_sequence: null,
      usage: {
        input_tokens: reply?.usage?.input_tokens ?? DEFAULT_INPUT_TOKENS,
        output_tokens: reply?.usage?.output_tokens ?? 1,
      },
    };
  }

  private async stream(
    req: RecordedRequest,
    res: ServerResponse,
    reply: ScriptedReply,
    requestId: string,
  ): Promise<void> {
    const ac = new AbortController();
    this.inFlight.add(ac);
    let ended = false;
    const onClose = (): void => {
      if (!ended) {
        req.closedEarly = true;
        ac.abort();
      }
    };
    res.on('close', onClose);
    try {
      if (res.destroyed || req.closedEarly) {
        req.closedEarly = true;
        return;
      }
      const blocks: ScriptedBlock[] = reply.blocks ?? [{ type: 'text', text: DEFAULT_TEXT }];
      const delay = Math.max(0, reply.deltaDelayMs ?? 0);
      const send = (event: string, data: Record<string, unknown>): boolean => {
        if (ac.signal.aborted || res.destroyed) return false;
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        return true;
      };
      let firstDelta = true;
      const sendDelta = async (index: number, delta: Record<string, unknown>): Promise<boolean> => {
        if (!firstDelta && delay > 0) await sleep(delay, ac.signal);
        firstDelta = false;
        if (reply.hold && req.deltasSent === reply.hold.after) await reply.hold.until.wait(ac.signal);
        if (!send('content_block_delta', { type: 'content_block_delta', index, delta })) return false;
        req.deltasSent += 1;
        return true;
      };

      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'request-id': requestId,
      });
      const model = req.model ?? 'claude-fake';
      send('message_start', {
        type: 'message_start',
        message: {
          id: `msg_fake_${req.seq}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: reply.usage?.input_tokens ?? DEFAULT_INPUT_TOKENS,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      });
      send('ping', { type: 'ping' });

      for (const [index, block] of blocks.entries()) {
        switch (block.type) {
          case 'text': {
            send('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: { type: 'text', text: '' },
            });
            for (const piece of splitText(block.text, reply.chunkSize)) {
              if (!(await sendDelta(index, { type: 'text_delta', text: piece }))) return;
            }
            break;
          }
          case 'thinking': {
            send('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: { type: 'thinking', thinking: '', signature: '' },
            });
            for (const piece of splitText(block.thinking, reply.chunkSize)) {
              if (!(await sendDelta(index, { type: 'thinking_delta', thinking: piece }))) return;
            }
            if (!(await sendDelta(index, { type: 'signature_delta', signature: fakeSignature() }))) return;
            break;
          }
          case 'tool_use': {
            send('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: this.toolId(block), name: block.name, input: {} },
            });
            for (const piece of splitJson(JSON.stringify(block.input))) {
              if (!(await sendDelta(index, { type: 'input_json_delta', partial_json: piece }))) return;
            }
            break;
          }
        }
        if (!send('content_block_stop', { type: 'content_block_stop', index })) return;
      }
      const outputTokens = reply.usage?.output_tokens ?? Math.max(1, req.deltasSent);
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reply.stopReason ?? defaultStopReason(blocks), stop_sequence: null },
        usage: { output_tokens: outputTokens },
      });
      if (!send('message_stop', { type: 'message_stop' })) return;
      ended = true;
      res.end();
    } finally {
      this.inFlight.delete(ac);
      if (!ended && !res.destroyed) {
        // aborted by close(): drop the connection instead of leaving it open
        req.closedEarly = true;
        res.destroy();
      }
    }
  }
}

// -----------------------------------------------------------------------------
// Helpers for tests and rules

/** Concatenated text blocks (or string content) of the last role:"user" message in body.messages. */
export function lastUserText(req: RecordedRequest): string {
  const content = lastUserContent(req);
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  }
  return text;
}

/** True for a request made by a subagent (its system prompt carries cc_is_subagent=true). */
export function isSubagentRequest(req: RecordedRequest): boolean {
  if (!isRecord(req.body) || req.body.system === undefined) return false;
  return (JSON.stringify(req.body.system) ?? '').includes('cc_is_subagent=true');
}

/** Base64 image blocks in the last user message. */
export function imageBlocks(req: RecordedRequest): Array<{ media_type: string; data: string }> {
  const content = lastUserContent(req);
  if (!Array.isArray(content)) return [];
  const out: Array<{ media_type: string; data: string }> = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== 'image' || !isRecord(block.source)) continue;
    const { type, media_type, data } = block.source;
    if (type === 'base64' && typeof media_type === 'string' && typeof data === 'string') {
      out.push({ media_type, data });
    }
  }
  return out;
}

/** tool_result blocks in the last user message (content flattened to text). */
export function toolResults(
  req: RecordedRequest,
): Array<{ tool_use_id: string; content: string; is_error: boolean }> {
  const content = lastUserContent(req);
  if (!Array.isArray(content)) return [];
  const out: Array<{ tool_use_id: string; content: string; is_error: boolean }> = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    let text = '';
    if (typeof block.content === 'string') text = block.content;
    else if (Array.isArray(block.content)) {
      for (const part of block.content) {
        if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') text += part.text;
      }
    }
    out.push({ tool_use_id: block.tool_use_id, content: text, is_error: block.is_error === true });
  }
  return out;
}

/** Names of the tools offered in the request (body.tools[].name). */
export function toolNames(req: RecordedRequest): string[] {
  if (!isRecord(req.body) || !Array.isArray(req.body.tools)) return [];
  const names: string[] = [];
  for (const tool of req.body.tools) {
    if (isRecord(tool) && typeof tool.name === 'string') names.push(tool.name);
  }
  return names;
}

/** The CLI asking the model for the user's likely next prompt (its "SUGGESTION MODE" request). */
export function isSuggestionRequest(req: RecordedRequest): boolean {
  return lastUserText(req).startsWith('[SUGGESTION MODE:');
}

/** POST /v1/messages (any query) with stream:true. */
export function isStreamingMessageRequest(req: RecordedRequest): boolean {
  return req.method === 'POST' && req.path.split('?')[0] === '/v1/messages' && req.stream;
}

// -----------------------------------------------------------------------------
// Internals

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function lastUserContent(req: RecordedRequest): unknown {
  if (!isRecord(req.body) || !Array.isArray(req.body.messages)) return undefined;
  const messages: unknown[] = req.body.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isRecord(message) && message.role === 'user') return message.content;
  }
  return undefined;
}

function resolveResponder(responder: Responder, req: RecordedRequest): ScriptedReply {
  return typeof responder === 'function' ? responder(req) : responder;
}

function defaultStopReason(blocks: ScriptedBlock[]): 'tool_use' | 'end_turn' {
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function errorBody(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string>,
): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // a client that goes away mid-upload: handle what arrived
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Resolves after ms, or early (without rejecting) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Split into deltas: chunkSize characters each, or one word (with trailing whitespace) each. */
function splitText(text: string, chunkSize: number | undefined): string[] {
  if (text.length === 0) return [];
  if (chunkSize !== undefined && chunkSize > 0) {
    const chars = Array.from(text);
    const pieces: string[] = [];
    for (let i = 0; i < chars.length; i += chunkSize) pieces.push(chars.slice(i, i + chunkSize).join(''));
    return pieces;
  }
  return text.match(/\s*\S+\s*/g) ?? [text];
}

/** Split a JSON string into up to three partial_json pieces. */
function splitJson(json: string): string[] {
  const chars = Array.from(json);
  if (chars.length < 6) return [json];
  const size = Math.ceil(chars.length / 3);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

function fakeSignature(): string {
  return Buffer.from(`fake-signature-${Math.random().toString(36).slice(2)}`).toString('base64');
}
