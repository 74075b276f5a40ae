import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { z } from 'zod';
import type { EventChannel, EventPayload, IpcResult } from '../../shared/ipc';
import type { Backend } from '../backend/backend';
import type { Downloads } from './downloads';
import { DownloadId } from '../../shared/library';
import { BridgeNonce, bridgeProof, type HelloFrame, UNAUTHORIZED_CLOSE } from '../../shared/bridge-auth';
import { eventFrame } from '../conversation/event-json';
import { contentTypeFor, readStaticFile, resolveStaticPath } from './static-files';

/**
 * The browser host: the backend served to a plain browser on loopback, over HTTP (the built renderer) and
 * one WebSocket (the IPC contract). Anything else on the machine can reach a loopback port, so every
 * request must name this server in its Host header (DNS rebinding), and the socket must come from this
 * server's own origin and prove it holds the per-launch token. Only 127.0.0.1 is served: `localhost` may
 * resolve to ::1, where another program could listen on the same port.
 *
 * The printed address carries the token in its fragment, which browsers never send, and the token never
 * travels afterwards (shared/bridge-auth.ts): the app's files are not secret and are served to anyone on
 * this server's names; the socket is opened with a proof made from the token, and the server proves itself
 * in return before the page sends anything. Nothing is kept in a cookie, which every other server on
 * 127.0.0.1 would be sent (cookies ignore ports). Images are fetched with a key derived from the token, and
 * an export as a download, once, with a proof of the token made for it: a reply is never larger than
 * MAX_REPLY_BYTES. Nothing is cached (no-store), images included.
 */

export interface WebBridgeOptions {
  backend: Pick<Backend, 'invoke' | 'on' | 'image'>;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 (the default) picks any free port. */
  port?: number;
  token?: string;
  /** Limits on one socket (tests make them small). */
  limits?: Partial<SocketLimits>;
  /** The files offered to pages for download (exports), served once each under /downloads/. */
  downloads?: Pick<Downloads, 'take'>;
}

export interface SocketLimits {
  /** Requests a socket may have waiting for the backend; past this its frames are not read until one ends. */
  maxInFlight: number;
  /** What may wait to be sent to a socket that is not reading it; past this the socket is dropped. */
  maxBufferedBytes: number;
}

/**
 * A page makes a few requests at once; a client that sends thousands only waits, its later frames left
 * unread (TCP pushes back on it). Replies and events to a page that stopped reading would otherwise pile
 * up in the host without end: a page that is this far behind is dropped, and reconnects to a fresh start.
 */
export const DEFAULT_SOCKET_LIMITS: SocketLimits = { maxInFlight: 32, maxBufferedBytes: 64 * 1024 * 1024 };

export interface WebBridge {
  url: string;
  port: number;
  token: string;
  /** How many pages are connected (sockets that proved the token and are still open). */
  connections(): number;
  close(): Promise<void>;
}

/** Images travel inside frames, so a frame may be large; past this the socket is closed (1009). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
/**
 * The largest reply sent to a page, and the size past which a burst of events is split. A page of a
 * conversation is at most a few MB (main/library/read-session.ts); what can be larger (an export) goes as a
 * download. A frame this size drains in well under a second, so events that arrive meanwhile wait far
 * below maxBufferedBytes instead of getting the socket dropped.
 */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** For what is not a page: redirects, refusals, images. */
const PLAIN_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export async function startWebBridge(options: WebBridgeOptions): Promise<WebBridge> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (token.length === 0) throw new Error('The bridge token must not be empty.');
  const rendererDir = realpathSync(options.rendererDir);
  const imagesKey = await bridgeProof(token, 'images');
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.limits };
  const usedNonces = new Set<string>();
  let port = 0;

  const server = createServer((req, res) => {
    const context = {
      port,
      rendererDir,
      token,
      imagesKey,
      backend: options.backend,
      downloads: options.downloads,
    };
    handleRequest(req, res, context).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'Internal error.');
      else res.destroy();
    });
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  /** The sockets that proved they hold the token: the only ones events go to and requests come from. */
  const proven = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    void checkUpgrade(req, token, port, usedNonces)
      .then(async (check) => {
        if ('refused' in check) {
          refuseUpgrade(socket, check.refused.status, check.refused.reason);
          return;
        }
        const hello = check.proven
          ? JSON.stringify({
              hello: { proof: await bridgeProof(token, 'server', check.nonce), imagesKey },
            } satisfies HelloFrame)
          : null;
        if (socket.destroyed) return;
        sockets.handleUpgrade(req, socket, head, (ws) => {
          // A broken or oversized frame ends that socket only; without a listener it would end the process.
          ws.on('error', () => undefined);
          if (hello === null) {
            // Accepted only to say why, which a refused upgrade cannot tell a page: its address is stale.
            ws.close(UNAUTHORIZED_CLOSE, 'This address is no longer valid.');
            return;
          }
          proven.add(ws);
          // Frames past the limit wait here, and the socket stops reading until they are taken: what waits is
          // at most what was read before it stopped. A closed socket's are dropped: nobody is there to answer.
          let inFlight = 0;
          const waiting: [RawData, boolean][] = [];
          ws.on('close', () => {
            proven.delete(ws);
            waiting.length = 0;
          });
          const take = (data: RawData, isBinary: boolean) => {
            inFlight += 1;
            void answerFrame(options.backend, ws, data, isBinary, limits).finally(() => {
              inFlight -= 1;
              const next = waiting.shift();
              if (next) take(...next);
              else if (ws.isPaused) ws.resume();
            });
          };
          ws.on('message', (data, isBinary) => {
            if (inFlight < limits.maxInFlight) {
              take(data, isBinary);
              return;
            }
            waiting.push([data, isBinary]);
            ws.pause();
          });
          ws.send(hello);
        });
      })
      .catch(() => socket.destroy());
  });

  const unsubscribe = options.backend.on((channel, payload) => {
    const frames = eventFrames(channel, payload);
    for (const socket of proven) for (const frame of frames) sendOrDrop(socket, frame, limits);
  });

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The bridge is not listening on a port.');
  port = address.port;

  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    token,
    connections: () => proven.size,
    async close() {
      unsubscribe();
      // The port first: a page whose socket is closed tries again at once, and an address still answering
      // HTTP while it refuses sockets would be taken for another program's (the page would stop trying).
      const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      server.closeAllConnections();
      for (const socket of sockets.clients) socket.terminate();
      await new Promise<void>((resolveClose) => sockets.close(() => resolveClose()));
      await closed;
    },
  };
}

interface RequestContext {
  port: number;
  rendererDir: string;
  token: string;
  /** What image addresses carry: derived from the token, so the token itself never travels. */
  imagesKey: string;
  backend: Pick<Backend, 'image'>;
  downloads: Pick<Downloads, 'take'> | undefined;
}

async function handleRequest(req: IncomingMessage, res: ServerResponse, context: RequestContext) {
  const { port, rendererDir, token, imagesKey, backend, downloads } = context;
  const method = req.method ?? 'GET';
  if (!isAllowedHost(req.headers.host, port)) return refuse(res, 403, 'Forbidden: unexpected Host header.');
  const origin = req.headers.origin;
  if (origin !== undefined && !isAllowedOrigin(origin, port)) {
    return refuse(res, 403, 'Forbidden: unexpected Origin.');
  }
  // Everything here is read-only: what changes state goes over the socket.
  if (method !== 'GET' && method !== 'HEAD') return refuse(res, 405, 'Method not allowed.');

  const { path, query } = splitRequestTarget(req.url ?? '');
  if (path === null) return refuse(res, 400, 'Bad request target.');

  // The printed address: the browser keeps its fragment (the token) across the redirect.
  if (path === '/' || path === '/app') {
    res.setHeader('Location', '/app/');
    return respond(res, method, 308, '', 'text/plain; charset=utf-8', PLAIN_CSP);
  }
  const image = /^\/images\/([0-9a-f]{64})$/.exec(path);
  if (image) {
    // An image a page was sent by reference (main/conversation/image-refs.ts): named by its hash, so it never changes.
    if (!tokensEqual(imagesKey, new URLSearchParams(query).get('key'))) {
      return refuse(res, 401, 'Unauthorized: missing or wrong key.');
    }
    const stored = backend.image(image[1] ?? '');
    if (!stored) return refuse(res, 404, 'Not found.');
    // no-store, as everything here: what a conversation showed stays out of the browser's disk cache.
    return respond(res, method, 200, stored.bytes, stored.mediaType, PLAIN_CSP);
  }
  const download = /^\/downloads\/([^/]*)$/.exec(path);
  if (download) {
    const id = DownloadId.safeParse(download[1]);
    if (!id.success) return refuse(res, 404, 'Not found.');
    // A HEAD would use up a file that is served once.
    if (method !== 'GET') return refuse(res, 405, 'Method not allowed.');
    // Checked before the file is taken: a request without the proof cannot use up the page's download.
    const proof = new URLSearchParams(query).get('proof');
    if (!tokensEqual(await bridgeProof(token, 'download', id.data), proof)) {
      return refuse(res, 401, 'Unauthorized: missing or wrong proof.');
    }
    const file = downloads?.take(id.data);
    if (!file) return refuse(res, 404, 'Not found: a download is served once, for a few minutes.');
    const type = file.encoding === 'utf8' ? `${file.mediaType}; charset=utf-8` : file.mediaType;
    return respond(res, method, 200, Buffer.from(file.data, file.encoding), type, PLAIN_CSP, {
      'Content-Disposition': attachment(file.name),
    });
  }
  if (!path.startsWith('/app/')) return refuse(res, 404, 'Not found.');

  // The app's own files hold no secret (the page is served as built, with no first screen of the library in
  // it, unlike Electron's): the socket is what needs the token.
  const file = resolveStaticPath(rendererDir, path.slice('/app/'.length));
  if (file === null) return refuse(res, 403, 'Forbidden: path outside the app.');
  const body = await readStaticFile(rendererDir, file);
  if (body === null) return refuse(res, 404, 'Not found.');
  return respond(res, method, 200, body, contentTypeFor(file), APP_CSP);
}

/** What an upgrade to the socket is: refused outright, or accepted with its proof right or wrong. */
type UpgradeCheck = { refused: { status: number; reason: string } } | { nonce: string; proven: boolean };

async function checkUpgrade(
  req: IncomingMessage,
  token: string,
  port: number,
  usedNonces: Set<string>,
): Promise<UpgradeCheck> {
  if (!isAllowedHost(req.headers.host, port)) {
    return { refused: { status: 403, reason: 'Forbidden: unexpected Host.' } };
  }
  if (!isAllowedOrigin(req.headers.origin, port)) {
    return { refused: { status: 403, reason: 'Forbidden: unexpected Origin.' } };
  }
  const { path, query } = splitRequestTarget(req.url ?? '');
  if (path !== '/bridge') return { refused: { status: 404, reason: 'Not found.' } };
  const params = new URLSearchParams(query);
  const nonce = BridgeNonce.safeParse(params.get('nonce'));
  if (!nonce.success) return { refused: { status: 400, reason: 'Bad request: the socket needs a nonce.' } };
  const expected = await bridgeProof(token, 'client', nonce.data);
  // A nonce is good for one socket: a proof seen once cannot open another.
  const proven = tokensEqual(expected, params.get('proof')) && !usedNonces.has(nonce.data);
  if (proven) {
    // The oldest is forgotten first (a Set keeps insertion order).
    if (usedNonces.size >= MAX_USED_NONCES) usedNonces.delete(usedNonces.values().next().value as string);
    usedNonces.add(nonce.data);
  }
  return { nonce: nonce.data, proven };
}

/** Nonces remembered, one per socket opened: a page opens a few in a launch, this many would take weeks. */
const MAX_USED_NONCES = 10_000;

const ClientFrame = z.object({
  id: z.number(),
  channel: z.string().max(200),
  payload: z.unknown(),
});

/** One client frame in, one reply out; a frame without an id has nowhere to be answered and is dropped. */
async function answerFrame(
  backend: WebBridgeOptions['backend'],
  socket: WebSocket,
  data: RawData,
  isBinary: boolean,
  limits: SocketLimits,
): Promise<void> {
  if (isBinary) return;
  let frame: unknown;
  try {
    frame = JSON.parse(rawDataToString(data));
  } catch {
    return;
  }
  const parsed = ClientFrame.safeParse(frame);
  if (parsed.success) {
    const { id, channel, payload } = parsed.data;
    const result = await backend.invoke(channel, payload).catch((): IpcResult<unknown> => ({
      ok: false,
      error: { name: 'Error', message: `The ${channel} request failed.` },
    }));
    sendOrDrop(socket, replyFrame(id, channel, result), limits);
    return;
  }
  const id = typeof frame === 'object' && frame !== null ? (frame as { id?: unknown }).id : undefined;
  if (typeof id !== 'number') return;
  const error = { name: 'BadFrame', message: 'A bridge frame needs a numeric id, a channel and a payload.' };
  sendOrDrop(socket, JSON.stringify({ id, result: { ok: false, error } }), limits);
}

/**
 * The frame that answers a request: its result, or an error that says why the result cannot be sent. A
 * value JSON cannot write (nested too deep for the stack, say) or one over MAX_REPLY_BYTES fails that one
 * call; the socket, and every other call on it, goes on.
 */
function replyFrame(id: number, channel: string, result: IpcResult<unknown>): string {
  let frame: string;
  try {
    frame = JSON.stringify({ id, result });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return errorFrame(
      id,
      'UnsendableReply',
      `The ${channel} reply could not be written as JSON (${reason}).`,
    );
  }
  const bytes = Buffer.byteLength(frame);
  if (bytes <= MAX_REPLY_BYTES) return frame;
  return errorFrame(
    id,
    'ReplyTooLarge',
    `The ${channel} reply is ${megabytes(bytes)} MB, over the ${megabytes(MAX_REPLY_BYTES)} MB a reply to the page may be.`,
  );
}

function errorFrame(id: number, name: string, message: string): string {
  return JSON.stringify({ id, result: { ok: false, error: { name, message } } satisfies IpcResult<never> });
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/**
 * An event's frames. A burst of a conversation's events over MAX_REPLY_BYTES goes as smaller batches, in
 * order, each numbered by its own last event as a batch is; only one event that large goes in a frame of
 * its own size.
 */
function eventFrames<C extends EventChannel>(channel: C, payload: EventPayload<C>): string[] {
  const frame = eventFrame(channel, payload);
  if (channel !== 'conversationEvents' || Buffer.byteLength(frame) <= MAX_REPLY_BYTES) return [frame];
  const batch = payload as EventPayload<'conversationEvents'>;
  if (batch.events.length < 2) return [frame];
  const half = Math.ceil(batch.events.length / 2);
  const first = {
    ...batch,
    events: batch.events.slice(0, half),
    seq: batch.seq - (batch.events.length - half),
  };
  const second = { ...batch, events: batch.events.slice(half) };
  return [...eventFrames('conversationEvents', first), ...eventFrames('conversationEvents', second)];
}

/** Sends `frame`, or drops a socket that has left too much unread (see SocketLimits). */
function sendOrDrop(socket: WebSocket, frame: string | Buffer, limits: SocketLimits): void {
  if (socket.readyState !== WebSocket.OPEN) return;
  if (socket.bufferedAmount > limits.maxBufferedBytes) {
    socket.terminate();
    return;
  }
  try {
    socket.send(frame);
  } catch {
    socket.terminate();
  }
}

function rawDataToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** Compares in constant time; hashing first makes the lengths equal, so length leaks nothing either. */
export function tokensEqual(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || expected.length === 0) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** Only this server's own names: a page on another name that resolves here (DNS rebinding) is refused. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const normalized = host.toLowerCase();
  return normalized === `127.0.0.1:${port}`;
}

export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  return origin === `http://127.0.0.1:${port}`;
}

/**
 * The raw path and query of a request target. The path is kept as sent (no dot-segment normalizing), so
 * `/app/../x` reaches the static resolver and is refused there rather than quietly rewritten.
 */
export function splitRequestTarget(target: string): { path: string | null; query: string } {
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = queryStart === -1 ? '' : target.slice(queryStart + 1);
  return { path: path.startsWith('/') ? path : null, query };
}

/** Saved as a file under its own name, never shown: ASCII for old parsers, the exact name in RFC 5987 form. */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16)}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** What every response carries; exported for the bench's floor, a page served as the app's is. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function respond(
  res: ServerResponse,
  method: string,
  status: number,
  body: string | Buffer,
  contentType: string,
  csp: string,
  extra: Record<string, string> = {},
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, {
    ...securityHeaders(csp),
    ...extra,
    'Content-Type': contentType,
    'Content-Length': String(bytes.length),
  });
  res.end(method === 'HEAD' ? undefined : bytes);
}

function refuse(res: ServerResponse, status: number, reason: string): void {
  respond(res, 'GET', status, `${reason}\n`, 'text/plain; charset=utf-8', PLAIN_CSP);
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  const headers = {
    ...securityHeaders(PLAIN_CSP),
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${body}`);
}
