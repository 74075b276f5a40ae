import { z } from 'zod';
// Not the contract's index: a window's first code must not wait for every channel's schemas to be built.
import { invokeChannelNames } from '../../../shared/ipc/channel-names';
import { IpcError, type IpcResult } from '../../../shared/ipc/errors';
import type { ByreApi, EventChannel } from '../../../shared/ipc';
import { bridgeProof, HelloFrame, newBridgeNonce, UNAUTHORIZED_CLOSE } from '../../../shared/bridge-auth';

/**
 * `window.byre` for a plain browser: the same contract as the Electron preload, carried over the browser
 * host's WebSocket (`main/web-bridge.ts`). Each socket starts with the handshake of shared/bridge-auth.ts:
 * nothing is sent until the server has proved it is the launch that printed this page's address. Calls
 * made before that wait for it; when the socket closes, every call still waiting resolves as Disconnected
 * and the client tries again, unless the address turned out to be stale or the port taken by something
 * else: then it stops for good, and says so (`bridgeStatus`).
 */

/**
 * Where the page stands with its host:
 * - `connecting`: the first socket is being opened;
 * - `open`: the host proved itself, calls go through;
 * - `lost`: the host went away; the client tries again;
 * - `no-token`: the address has no token (it was typed or copied without the part after #);
 * - `stale`: the host at this address does not know the token: Byre has started again since;
 * - `foreign`: what answers at this address did not prove it holds the token. Nothing is sent to it;
 * - `unsupported`: the browser cannot make the proof (no Web Crypto).
 */
export type BridgeStatus = 'connecting' | 'open' | 'lost' | FinalStatus;
/** The statuses after which the client never tries again. */
export type FinalStatus = 'no-token' | 'stale' | 'foreign' | 'unsupported';

const FINAL: ReadonlySet<BridgeStatus> = new Set<FinalStatus>([
  'no-token',
  'stale',
  'foreign',
  'unsupported',
]);

export function isFinal(status: BridgeStatus): status is FinalStatus {
  return FINAL.has(status);
}

const DISCONNECTED: IpcResult<never> = {
  ok: false,
  error: {
    name: 'Disconnected',
    message: 'Lost the connection to Byre. The page reconnects on its own while Byre is running.',
  },
};

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 8_000;
/** Byre says hello as soon as a socket opens; what stays silent this long is not Byre. */
const HELLO_TIMEOUT_MS = 15_000;

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

export interface BridgeAddress {
  /** `ws://host` or `wss://host`: the page's own server. */
  socketBase: string;
  /** The token from the page's address fragment, or null if it has none. */
  token: string | null;
  /** For tests: whether anything answers HTTP there (by default, a HEAD request for the app). */
  probe?: () => Promise<boolean>;
}

export class BridgeConnection {
  private socket: WebSocket | null = null;
  /** True once the open socket's server proved it holds the token. */
  private proven = false;
  private nextId = 1;
  private readonly pending = new Map<number, (result: IpcResult<unknown>) => void>();
  /** Frames written while no proven socket was open. */
  private queued: string[] = [];
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly statusListeners = new Set<() => void>();
  private retries = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private currentStatus: BridgeStatus = 'connecting';
  /** What image addresses carry, from the server's hello. */
  imagesKey: string | null = null;

  constructor(private readonly address: BridgeAddress) {
    if (address.token === null) this.setStatus('no-token');
    else this.connect();
  }

  get status(): BridgeStatus {
    return this.currentStatus;
  }

  onStatus(listener: () => void): () => void {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  }

  private setStatus(status: BridgeStatus): void {
    if (this.currentStatus === status || isFinal(this.currentStatus)) return;
    this.currentStatus = status;
    if (isFinal(status)) {
      clearTimeout(this.retryTimer);
      this.failWaiting();
    }
    for (const listener of this.statusListeners) listener();
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
    if (isFinal(this.currentStatus)) return Promise.resolve(this.refusal());
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (this.proven && this.socket?.readyState === WebSocket.OPEN) {
        this.socket.send(frame);
        return;
      }
      this.queued.push(frame);
      // A call during the backoff pause tries at once rather than waiting out the timer.
      if (!this.socket && this.retryTimer !== undefined) this.connect();
    });
  }

  /** Where the page fetches a file the host offered it (shared/bridge-auth.ts, step 4). */
  async downloadAddress(id: string): Promise<string> {
    const token = this.address.token;
    if (token === null) throw new Error(STATUS_MESSAGES['no-token']);
    return `/downloads/${id}?proof=${encodeURIComponent(await bridgeProof(token, 'download', id))}`;
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
    const token = this.address.token;
    if (token === null || isFinal(this.currentStatus)) return;
    const nonce = newBridgeNonce();
    // No socket while the proofs are made (WebCrypto is asynchronous): calls meanwhile only queue.
    this.socket = null;
    this.proven = false;
    void Promise.all([bridgeProof(token, 'client', nonce), bridgeProof(token, 'server', nonce)])
      .then(([proof, expected]) => {
        if (isFinal(this.currentStatus)) return;
        const socket = new WebSocket(
          `${this.address.socketBase}/bridge?nonce=${nonce}&proof=${encodeURIComponent(proof)}`,
        );
        this.socket = socket;
        let opened = false;
        // Byre says hello the moment a socket opens. A socket that opened and stays silent is not Byre; one
        // that never opened is given up (and the port probed, below).
        const silent = setTimeout(() => {
          if (this.socket !== socket || this.proven) return;
          if (opened) this.hello(socket, undefined, expected);
          else socket.close();
        }, HELLO_TIMEOUT_MS);
        socket.onopen = () => {
          opened = true;
        };
        socket.onmessage = (message: MessageEvent<unknown>) => {
          if (this.socket !== socket) return;
          if (this.proven) {
            this.receive(message.data);
            return;
          }
          clearTimeout(silent);
          this.hello(socket, message.data, expected);
        };
        socket.onclose = (event: CloseEvent) => {
          clearTimeout(silent);
          if (this.socket !== socket) return;
          const wasProven = this.proven;
          this.socket = null;
          this.proven = false;
          if (event.code === UNAUTHORIZED_CLOSE) {
            this.setStatus('stale');
            return;
          }
          // Byre never closes a socket it opened before saying hello: what did is something else.
          if (opened && !wasProven) {
            this.setStatus('foreign');
            return;
          }
          this.failWaiting();
          this.setStatus('lost');
          if (wasProven) {
            this.retryLater();
            return;
          }
          void this.probe().then((listening) => {
            // Something answers HTTP at this address yet refused the socket Byre would have taken.
            if (listening) this.setStatus('foreign');
            else this.retryLater();
          });
        };
      })
      .catch(() => {
        // No WebCrypto: the page cannot make its proof (a page on http://127.0.0.1 always can).
        this.setStatus('unsupported');
      });
  }

  /** Whether anything answers HTTP at the page's address (after a socket there failed to open). */
  private probe(): Promise<boolean> {
    if (this.address.probe) return this.address.probe();
    const base = this.address.socketBase.replace(/^ws/, 'http');
    return fetch(`${base}/app/`, { method: 'HEAD', cache: 'no-store' }).then(
      () => true,
      () => false,
    );
  }

  private retryLater(): void {
    const delay = Math.min(RETRY_FIRST_MS * 2 ** this.retries, RETRY_MAX_MS);
    this.retries++;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** The first frame of a socket: the server's proof. Anything else is not this launch talking. */
  private hello(socket: WebSocket, data: unknown, expected: string): void {
    const hello = typeof data === 'string' ? HelloFrame.safeParse(parseJson(data)) : null;
    if (!hello?.success || hello.data.hello.proof !== expected) {
      this.setStatus('foreign');
      this.socket = null;
      socket.close();
      return;
    }
    this.proven = true;
    this.imagesKey = hello.data.hello.imagesKey;
    this.retries = 0;
    this.setStatus('open');
    const frames = this.queued;
    this.queued = [];
    for (const frame of frames) socket.send(frame);
  }

  private refusal(): IpcResult<never> {
    const status = this.currentStatus;
    if (isFinal(status))
      return { ok: false, error: { name: 'Disconnected', message: STATUS_MESSAGES[status] } };
    return DISCONNECTED;
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    const json = parseJson(data);
    if (json === undefined) return;
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
    const result = this.refusal();
    for (const resolve of waiting) resolve(result);
  }
}

/** What the page says for a status that stops it (and why a call failed then). */
export const STATUS_MESSAGES = {
  'no-token': 'Open the address Byre printed in the terminal, including the part after #.',
  stale: 'This address is no longer valid: Byre prints a new one each time it starts.',
  foreign:
    'Something other than the Byre that opened this page answers at this address, so nothing was sent to ' +
    'it. Open the address Byre printed when it last started.',
  unsupported:
    'This browser cannot make the proof Byre asks for (Web Crypto). Open the address in a current browser.',
} as const satisfies Record<FinalStatus, string>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Where the socket is: this page's own server, with the token from the address's fragment. */
export function bridgeAddress(location: Pick<Location, 'protocol' | 'host' | 'hash'>): BridgeAddress {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return { socketBase: `${scheme}://${location.host}`, token: token || null };
}

/** The page's connection, in a plain browser (null under Electron, which has no bridge). */
let installed: BridgeConnection | null = null;

export function bridgeConnection(): BridgeConnection | null {
  return installed;
}

export function createBridgeApi(connection: BridgeConnection): ByreApi {
  const api: Record<string, unknown> = { host: 'browser' };
  for (const name of invokeChannelNames) {
    api[name] = (request: unknown) => connection.invoke(name, request);
  }
  api.on = (channel: EventChannel, listener: Listener) => connection.subscribe(channel, listener);
  return Object.freeze(api) as ByreApi;
}

/**
 * Where the tab keeps the token once it is out of the address. sessionStorage belongs to this tab alone: it
 * survives a reload, but not a new tab, a closed tab or a closed browser, so the token lives no longer than
 * the page it was given to, and is never in the history, a bookmark or a synced tab (localStorage would keep
 * it on disk across restarts, for every tab). A script of this origin can read it, as it could the fragment;
 * only Byre's own files are served here, and once Byre exits the token opens nothing.
 */
const TOKEN_KEY = 'byre-token';

/** In a plain browser there is no preload: this gives the page its window.byre over the bridge. */
export function installBridgeClient(): void {
  if (window.byre !== undefined) return;
  const address = bridgeAddress(window.location);
  // A token in the address is the newest (Byre printed it); without one, this tab's from before a reload.
  const token = address.token ?? sessionStorage.getItem(TOKEN_KEY);
  const connection = new BridgeConnection({ ...address, token });
  connection.onStatus(() => {
    if (connection.status === 'stale') sessionStorage.removeItem(TOKEN_KEY);
    // Only once the host proved itself: an address that turns out stale stays as it was, to be read.
    if (connection.status !== 'open' || token === null) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    if (window.location.hash !== '') {
      history.replaceState(history.state, '', window.location.pathname + window.location.search);
    }
  });
  installed = connection;
  Object.defineProperty(window, 'byre', {
    value: createBridgeApi(connection),
    enumerable: true,
  });
}
