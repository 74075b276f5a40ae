import { randomUUID } from 'node:crypto';
import {
  hostControlResponses,
  type CliControlRequestBody,
  type ControlResponseBody,
  type HostControlRequest,
  type HostControlResponse,
  type HostControlSubtype,
  type JsonObject,
  type OutgoingLine,
} from '../../shared/protocol';
import { ControlRequestFailed, ControlRequestTimeout } from './errors';

/**
 * The control channel, both ways. Host requests are correlated by request_id, each with a timeout; when
 * the process exits every pending one fails at once. Requests from the CLI each run as their own tracked
 * task, which control_cancel_request aborts; a handler that throws answers an error and never kills the
 * reader.
 */

export type CliRequestHandler = (request: CliControlRequestBody, signal: AbortSignal) => Promise<JsonObject>;

interface Pending {
  subtype: string;
  resolve(response: JsonObject): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_CONTROL_TIMEOUT_MS = 60_000;

export class ControlChannel {
  private readonly pending = new Map<string, Pending>();
  private readonly running = new Map<string, AbortController>();
  private counter = 0;
  private failure: Error | undefined;

  constructor(
    private readonly send: (line: OutgoingLine) => Promise<void>,
    private readonly handleCliRequest: CliRequestHandler,
    private readonly defaultTimeoutMs = DEFAULT_CONTROL_TIMEOUT_MS,
  ) {}

  /** Sends a control request and resolves with the CLI's typed answer. */
  async request<S extends HostControlSubtype>(
    request: Extract<HostControlRequest, { subtype: S }>,
    timeoutMs = this.defaultTimeoutMs,
  ): Promise<HostControlResponse<S>> {
    const raw = await this.requestRaw(request, timeoutMs);
    const subtype: S = request.subtype;
    const parsed = hostControlResponses[subtype].safeParse(raw);
    if (!parsed.success) {
      throw new ControlRequestFailed(subtype, `The CLI's answer to ${subtype} was not understood.`);
    }
    return parsed.data as HostControlResponse<S>;
  }

  private requestRaw(request: HostControlRequest, timeoutMs: number): Promise<JsonObject> {
    if (this.failure) return Promise.reject(this.failure);
    const requestId = `req_${++this.counter}_${randomUUID().slice(0, 8)}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new ControlRequestTimeout(request.subtype, timeoutMs));
      }, timeoutMs);
      this.pending.set(requestId, { subtype: request.subtype, resolve, reject, timer });
      this.send({ type: 'control_request', request_id: requestId, request }).catch((error: unknown) => {
        this.settle(requestId, (entry) =>
          entry.reject(error instanceof Error ? error : new Error(String(error))),
        );
      });
    });
  }

  /** A control_response from the CLI. Returns false when it answers nothing we are waiting for. */
  handleResponse(response: ControlResponseBody): boolean {
    return this.settle(response.request_id, (entry) => {
      if (response.subtype === 'success') entry.resolve(response.response ?? {});
      else entry.reject(new ControlRequestFailed(entry.subtype, response.error, response.error_code));
    });
  }

  /** A control_request from the CLI: run its handler as a tracked task and answer. */
  handleRequest(requestId: string, request: CliControlRequestBody): void {
    const controller = new AbortController();
    this.running.set(requestId, controller);
    void this.answer(requestId, request, controller);
  }

  /** A control_request from the CLI that we cannot handle (unknown subtype): answer an error at once. */
  refuse(requestId: string, message: string): void {
    void this.respond({ subtype: 'error', request_id: requestId, error: message });
  }

  handleCancel(requestId: string): void {
    this.running.get(requestId)?.abort(new Error('cancelled by the CLI'));
    this.running.delete(requestId);
  }

  /** The process is gone: every pending request fails now instead of waiting out its timeout. */
  failAll(error: Error): void {
    this.failure = error;
    for (const id of [...this.pending.keys()]) this.settle(id, (entry) => entry.reject(error));
    for (const controller of this.running.values()) controller.abort(error);
    this.running.clear();
  }

  private async answer(
    requestId: string,
    request: CliControlRequestBody,
    controller: AbortController,
  ): Promise<void> {
    let body: ControlResponseBody;
    try {
      const response = await this.handleCliRequest(request, controller.signal);
      body = { subtype: 'success', request_id: requestId, response };
    } catch (error) {
      body = {
        subtype: 'error',
        request_id: requestId,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    // A cancelled request is abandoned by the CLI; answering it would be noise.
    if (controller.signal.aborted) return;
    this.running.delete(requestId);
    await this.respond(body);
  }

  private async respond(body: ControlResponseBody): Promise<void> {
    // If the CLI has gone away there is nobody to answer; exit handling reports that.
    await this.send({ type: 'control_response', response: body }).catch(() => undefined);
  }

  private settle(requestId: string, action: (entry: Pending) => void): boolean {
    const entry = this.pending.get(requestId);
    if (!entry) return false;
    this.pending.delete(requestId);
    clearTimeout(entry.timer);
    action(entry);
    return true;
  }
}
