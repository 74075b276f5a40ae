import { afterEach, describe, it, expect, vi } from 'vitest';
import type { CliControlRequestBody, JsonObject, OutgoingLine } from '../../shared/protocol';
import { ControlChannel, type CliRequestHandler } from './control';
import { ControlRequestFailed, ControlRequestTimeout } from './errors';

function channel(handler: CliRequestHandler = async () => ({}), timeoutMs = 60_000) {
  const sent: OutgoingLine[] = [];
  const send = vi.fn(async (line: OutgoingLine) => {
    sent.push(line);
  });
  return { control: new ControlChannel(send, handler, timeoutMs), sent, send };
}

function requestIdOf(line: OutgoingLine | undefined): string {
  if (line?.type !== 'control_request')
    throw new Error(`expected a control_request, got ${JSON.stringify(line)}`);
  return line.request_id;
}

function responsesIn(sent: OutgoingLine[]) {
  return sent.flatMap((line) => (line.type === 'control_response' ? [line.response] : []));
}

/** Lets the handler and answer promises run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

const hook: CliControlRequestBody = {
  subtype: 'hook_callback',
  callback_id: 'hook_0',
  input: { hook_event_name: 'Stop', stop_hook_active: false },
};

afterEach(() => {
  vi.useRealTimers();
});

describe('ControlChannel: host requests', () => {
  it('writes each request with a unique id and resolves each with its own answer', async () => {
    const { control, sent } = channel();
    const first = control.request({ subtype: 'set_model', model: 'claude-sonnet-4-5' });
    const second = control.request({ subtype: 'set_model', model: 'claude-opus-5-5' });
    const third = control.request({ subtype: 'interrupt' });
    expect(sent).toHaveLength(3);
    expect(sent[0]).toEqual({
      type: 'control_request',
      request_id: expect.any(String),
      request: { subtype: 'set_model', model: 'claude-sonnet-4-5' },
    });
    const ids = sent.map(requestIdOf);
    expect(new Set(ids).size).toBe(3);

    // Answered out of order.
    expect(
      control.handleResponse({ subtype: 'success', request_id: ids[1]!, response: { model: 'b' } }),
    ).toBe(true);
    expect(control.handleResponse({ subtype: 'success', request_id: ids[2]!, response: {} })).toBe(true);
    expect(
      control.handleResponse({ subtype: 'success', request_id: ids[0]!, response: { model: 'a' } }),
    ).toBe(true);
    await expect(first).resolves.toEqual({ model: 'a' });
    await expect(second).resolves.toEqual({ model: 'b' });
    await expect(third).resolves.toEqual({});
  });

  it('ids stay unique across channels', () => {
    const a = channel();
    const b = channel();
    a.control.request({ subtype: 'interrupt' }).catch(() => undefined);
    b.control.request({ subtype: 'interrupt' }).catch(() => undefined);
    expect(requestIdOf(a.sent[0])).not.toBe(requestIdOf(b.sent[0]));
    a.control.failAll(new Error('done'));
    b.control.failAll(new Error('done'));
  });

  it('resolves with the parsed, typed response and keeps unknown keys', async () => {
    const { control, sent } = channel();
    const pending = control.request({ subtype: 'initialize', hooks: {} });
    control.handleResponse({
      subtype: 'success',
      request_id: requestIdOf(sent[0]),
      response: {
        models: [{ value: 'default', displayName: 'Default', resolvedModel: 'claude-opus-5-5' }],
        pid: 4242,
        session_state: 'idle',
      },
    });
    const response = await pending;
    expect(response.models[0]!.displayName).toBe('Default');
    expect(response.pid).toBe(4242);
    expect(response.session_state).toBe('idle');
  });

  it('rejects when the response does not match the subtype schema', async () => {
    const { control, sent } = channel();
    const pending = control.request({ subtype: 'initialize', hooks: {} });
    control.handleResponse({ subtype: 'success', request_id: requestIdOf(sent[0]), response: { pid: 1 } });
    await expect(pending).rejects.toBeInstanceOf(ControlRequestFailed);
  });

  it('reads the three answers rewind_files gives: a dry run, a restore, and nothing to restore', async () => {
    const answers = [
      { canRewind: true, filesChanged: ['/w/notes.txt'], insertions: 1, deletions: 1 },
      { canRewind: true, skippedLinks: 0 },
      { canRewind: false, error: 'No file checkpoint found for this message.' },
    ];
    for (const answer of answers) {
      const { control, sent } = channel();
      const pending = control.request({ subtype: 'rewind_files', user_message_id: 'u1', dry_run: true });
      control.handleResponse({ subtype: 'success', request_id: requestIdOf(sent[0]), response: answer });
      await expect(pending).resolves.toEqual(answer);
    }
    const { control, sent } = channel();
    const pending = control.request({ subtype: 'rewind_files', user_message_id: 'u1' });
    control.handleResponse({
      subtype: 'success',
      request_id: requestIdOf(sent[0]),
      response: { filesChanged: ['/w/notes.txt'] },
    });
    await expect(pending).rejects.toBeInstanceOf(ControlRequestFailed);
  });

  it("rejects an error response with ControlRequestFailed carrying the CLI's message", async () => {
    const { control, sent } = channel();
    const pending = control.request({ subtype: 'stop_task', task_id: 'b3l46stq2' });
    control.handleResponse({
      subtype: 'error',
      request_id: requestIdOf(sent[0]),
      error: 'No task with id b3l46stq2',
      error_code: 'not_found',
    });
    const error: unknown = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ControlRequestFailed);
    expect(error).toMatchObject({
      message: 'No task with id b3l46stq2',
      subtype: 'stop_task',
      errorCode: 'not_found',
    });
  });

  it('returns false for a response nobody is waiting for', () => {
    const { control } = channel();
    expect(control.handleResponse({ subtype: 'success', request_id: 'req_unknown', response: {} })).toBe(
      false,
    );
  });

  it('times out with ControlRequestTimeout and ignores a late response', async () => {
    vi.useFakeTimers();
    const { control, sent } = channel(undefined, 1_000);
    let outcome: unknown;
    const pending = control.request({ subtype: 'interrupt' }).then(
      (value) => (outcome = value),
      (error: unknown) => (outcome = error),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(outcome).toBeInstanceOf(ControlRequestTimeout);
    expect(outcome).toMatchObject({ subtype: 'interrupt', timeoutMs: 1_000 });

    expect(
      control.handleResponse({ subtype: 'success', request_id: requestIdOf(sent[0]), response: {} }),
    ).toBe(false);
    expect(outcome).toBeInstanceOf(ControlRequestTimeout);
  });

  it('uses a per-request timeout over the default', async () => {
    vi.useFakeTimers();
    const { control } = channel(undefined, 60_000);
    const pending = control.request({ subtype: 'mcp_status' }, 50);
    const assertion = expect(pending).rejects.toBeInstanceOf(ControlRequestTimeout);
    await vi.advanceTimersByTimeAsync(50);
    await assertion;
  });

  it('failAll rejects every pending request at once, and later ones immediately', async () => {
    const { control, send } = channel();
    const a = control.request({ subtype: 'interrupt' });
    const b = control.request({ subtype: 'mcp_status' });
    const gone = new Error('The claude CLI exited with code 1.');
    control.failAll(gone);
    await expect(a).rejects.toBe(gone);
    await expect(b).rejects.toBe(gone);
    expect(send).toHaveBeenCalledTimes(2);
    await expect(control.request({ subtype: 'interrupt' })).rejects.toBe(gone);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('rejects a request whose line could not be written', async () => {
    const broken = new Error('stdin closed');
    const control = new ControlChannel(
      () => Promise.reject(broken),
      async () => ({}),
    );
    await expect(control.request({ subtype: 'interrupt' })).rejects.toBe(broken);
  });
});

describe('ControlChannel: requests from the CLI', () => {
  it("answers a handler's result as success with the same request_id", async () => {
    const handler = vi.fn<CliRequestHandler>(async () => ({ decision: 'block', reason: 'keep going' }));
    const { control, sent } = channel(handler);
    control.handleRequest('7c1e0f4a-cb', hook);
    await settle();
    expect(handler).toHaveBeenCalledWith(hook, expect.any(AbortSignal));
    expect(sent).toEqual([
      {
        type: 'control_response',
        response: {
          subtype: 'success',
          request_id: '7c1e0f4a-cb',
          response: { decision: 'block', reason: 'keep going' },
        },
      },
    ]);
  });

  it('answers a throwing handler with an error, and keeps answering later requests', async () => {
    let calls = 0;
    const { control, sent } = channel(async () => {
      calls += 1;
      if (calls === 1) throw new Error('hook exploded');
      return { ok: true };
    });
    control.handleRequest('r1', hook);
    await settle();
    control.handleRequest('r2', hook);
    await settle();
    expect(responsesIn(sent)).toEqual([
      { subtype: 'error', request_id: 'r1', error: 'hook exploded' },
      { subtype: 'success', request_id: 'r2', response: { ok: true } },
    ]);
  });

  it('runs requests concurrently: a slow handler does not hold up a fast one', async () => {
    let release: (value: JsonObject) => void = () => undefined;
    const { control, sent } = channel((request) =>
      request.subtype === 'hook_callback'
        ? new Promise<JsonObject>((resolve) => (release = resolve))
        : Promise.resolve({ mcp_response: { jsonrpc: '2.0', id: 1, result: {} } }),
    );
    control.handleRequest('slow', hook);
    control.handleRequest('fast', {
      subtype: 'mcp_message',
      server_name: 'byre',
      message: { method: 'ping' },
    });
    await settle();
    expect(responsesIn(sent).map((response) => response.request_id)).toEqual(['fast']);
    release({});
    await settle();
    expect(responsesIn(sent).map((response) => response.request_id)).toEqual(['fast', 'slow']);
  });

  it("control_cancel_request aborts the handler's signal and no response is written", async () => {
    let seen: AbortSignal | undefined;
    const { control, sent } = channel(
      (_request, signal) =>
        new Promise<JsonObject>((resolve) => {
          seen = signal;
          signal.addEventListener('abort', () => resolve({ answered: 'after cancel' }));
        }),
    );
    control.handleRequest('r-cancel', hook);
    expect(seen?.aborted).toBe(false);
    control.handleCancel('r-cancel');
    expect(seen?.aborted).toBe(true);
    await settle();
    expect(sent).toEqual([]);
  });

  it('writes nothing for a cancelled handler that rejects, and still answers others', async () => {
    const { control, sent } = channel(
      (request, signal) =>
        new Promise<JsonObject>((resolve, reject) => {
          if (request.subtype !== 'hook_callback') return resolve({ fine: true });
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    control.handleRequest('r-cancel', hook);
    control.handleCancel('r-cancel');
    control.handleRequest('r-next', { subtype: 'mcp_message', server_name: 'byre', message: {} });
    await settle();
    expect(responsesIn(sent)).toEqual([
      { subtype: 'success', request_id: 'r-next', response: { fine: true } },
    ]);
  });

  it('failAll aborts running handlers', () => {
    let seen: AbortSignal | undefined;
    const { control } = channel(
      (_request, signal) =>
        new Promise<JsonObject>(() => {
          seen = signal;
        }),
    );
    control.handleRequest('r1', hook);
    control.failAll(new Error('exited'));
    expect(seen?.aborted).toBe(true);
  });

  it('refuse() answers an error at once', async () => {
    const { control, sent } = channel();
    control.refuse('r-unknown', 'Byre cannot handle this control request: elicitation');
    await settle();
    expect(sent).toEqual([
      {
        type: 'control_response',
        response: {
          subtype: 'error',
          request_id: 'r-unknown',
          error: 'Byre cannot handle this control request: elicitation',
        },
      },
    ]);
  });

  it('does not throw when the answer cannot be written', async () => {
    const control = new ControlChannel(
      () => Promise.reject(new Error('EPIPE')),
      async () => ({}),
    );
    control.handleRequest('r1', hook);
    control.refuse('r2', 'no');
    await settle();
  });
});
