import { z } from 'zod';
import {
  invokeChannelNames,
  IpcError,
  type ByreApi,
  type EventChannel,
  type IpcResult,
} from '../../shared/ipc';

/**
 * `window.byre` for a plain browser: the same contract as the Electron preload, carried over the browser
 * host's WebSocket (`main/web-bridge.ts`). Calls made before the socket opens wait for it; when it closes,
 * every call still waiting resolves as Disconnected and the client keeps trying to reconnect.
 */

const DISCONNECTED: IpcResult<never> = {
  ok: false,
  error: {
    name: 'Disconnected',
    message: 'Lost the connection to Byre. Reload the page once it is running again.',
  },
};

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 8_000;

const ServerFrame = z.union([
  z.object({
    id: z.number(),
    result: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), value: z.unknown() }),
      z.object({ ok: z.literal(false), error: IpcError }),
    ]),
  }),
  z.object({ event: z.string(), payload: z.unknown() }),
]);

type Listener = (payload: unknown) => void;

class BridgeConnection {
  private socket: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (result: IpcResult<unknown>) => void>();
  /** Frames written while the socket was not yet open. */
  private queued: string[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  private retries = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly url: string) {
    this.connect();
  }

  invoke(channel: string, payload: unknown): Promise<IpcResult<unknown>> {
    const id = this.nextId++;
    let frame: string;
    try {
      frame = JSON.stringify({ id, channel, payload });
    } catch (error) {
      return Promise.resolve({
        ok: false,
        error: { name: 'InvalidRequest', message: error instanceof Error ? error.message : String(error) },
      });
    }
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (this.socket?.readyState === WebSocket.OPEN) {
        this.socket.send(frame);
        return;
      }
      this.queued.push(frame);
      // A call during the backoff pause tries at once rather than waiting out the timer.
      if (!this.socket) this.connect();
    });
  }

  subscribe(channel: EventChannel, listener: Listener): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  private connect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.retries = 0;
      const frames = this.queued;
      this.queued = [];
      for (const frame of frames) socket.send(frame);
    };
    socket.onmessage = (message: MessageEvent<unknown>) => this.receive(message.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.failWaiting();
      const delay = Math.min(RETRY_FIRST_MS * 2 ** this.retries, RETRY_MAX_MS);
      this.retries++;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return;
    }
    const parsed = ServerFrame.safeParse(json);
    if (!parsed.success) return;
    const frame = parsed.data;
    if ('id' in frame) {
      const resolve = this.pending.get(frame.id);
      this.pending.delete(frame.id);
      resolve?.(frame.result);
      return;
    }
    for (const listener of this.listeners.get(frame.event) ?? []) {
      // One failing listener must not keep the event from the others.
      try {
        listener(frame.payload);
      } catch (error) {
        reportError(error);
      }
    }
  }

  private failWaiting(): void {
    this.queued = [];
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const resolve of waiting) resolve(DISCONNECTED);
  }
}

/** The socket address: this page's host, with the token from the address's fragment when it has one. */
export function bridgeUrl(location: Pick<Location, 'protocol' | 'host' | 'hash'>): string {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  // Without a token in the address the socket still carries the HttpOnly cookie the loader page set.
  return `${scheme}://${location.host}/bridge${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

export function createBridgeApi(url: string): ByreApi {
  const connection = new BridgeConnection(url);
  const api: Record<string, unknown> = { host: 'browser' };
  for (const name of invokeChannelNames) {
    api[name] = (request: unknown) => connection.invoke(name, request);
  }
  api.on = (channel: EventChannel, listener: Listener) => connection.subscribe(channel, listener);
  return Object.freeze(api) as ByreApi;
}

/** In a plain browser there is no preload: this gives the page its window.byre over the bridge. */
export function installBridgeClient(): void {
  if (window.byre !== undefined) return;
  Object.defineProperty(window, 'byre', {
    value: createBridgeApi(bridgeUrl(window.location)),
    enumerable: true,
  });
}
