import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { bridgeProof, newBridgeNonce, UNAUTHORIZED_CLOSE } from '../../shared/bridge-auth';
import type { IpcResult } from '../../shared/ipc';
import type { EventListener } from '../backend/backend';
import { Downloads } from './downloads';
import { appPageWith, contentTypeFor, resolveStaticPath } from './static-files';
import {
  isAllowedHost,
  isAllowedOrigin,
  MAX_REPLY_BYTES,
  splitRequestTarget,
  startWebBridge,
  tokensEqual,
  type WebBridge,
} from './web-bridge';

describe('tokensEqual', () => {
  it('accepts only the exact token', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual('abc', '')).toBe(false);
    expect(tokensEqual('abc', null)).toBe(false);
    expect(tokensEqual('abc', undefined)).toBe(false);
  });

  it('never matches when there is no expected token', () => {
    expect(tokensEqual('', '')).toBe(false);
  });
});

describe('isAllowedHost', () => {
  it('accepts this server by the address it printed, on its own port', () => {
    expect(isAllowedHost('127.0.0.1:4000', 4000)).toBe(true);
  });

  it('refuses localhost, which may resolve to ::1 where another program can hold the port', () => {
    expect(isAllowedHost('localhost:4000', 4000)).toBe(false);
    expect(isAllowedOrigin('http://localhost:4000', 4000)).toBe(false);
  });

  it('refuses other names, other ports and a missing header', () => {
    expect(isAllowedHost('evil.example:4000', 4000)).toBe(false);
    expect(isAllowedHost('127.0.0.1:4001', 4000)).toBe(false);
    expect(isAllowedHost('127.0.0.1', 4000)).toBe(false);
    expect(isAllowedHost('localhost.evil.example:4000', 4000)).toBe(false);
    expect(isAllowedHost(undefined, 4000)).toBe(false);
  });
});

describe('isAllowedOrigin', () => {
  it('accepts only http://127.0.0.1:<port>', () => {
    expect(isAllowedOrigin('http://127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('http://evil.example', 4000)).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:4000', 4000)).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:4001', 4000)).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:4000/', 4000)).toBe(false);
    expect(isAllowedOrigin('null', 4000)).toBe(false);
    expect(isAllowedOrigin(undefined, 4000)).toBe(false);
  });
});

describe('splitRequestTarget', () => {
  it('keeps the path exactly as sent', () => {
    expect(splitRequestTarget('/app/../../x?token=t')).toEqual({ path: '/app/../../x', query: 'token=t' });
    expect(splitRequestTarget('/app/')).toEqual({ path: '/app/', query: '' });
  });

  it('rejects targets that are not an origin-relative path', () => {
    expect(splitRequestTarget('http://evil.example/app/').path).toBeNull();
    expect(splitRequestTarget('*').path).toBeNull();
  });
});

describe('resolveStaticPath', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'byre-static-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('maps paths inside the folder, and the empty path to index.html', () => {
    expect(resolveStaticPath(root, '')).toBe(join(root, 'index.html'));
    expect(resolveStaticPath(root, 'assets/index-1.js')).toBe(join(root, 'assets/index-1.js'));
    expect(resolveStaticPath(root, 'a%20b.css')).toBe(join(root, 'a b.css'));
    expect(resolveStaticPath(root, '/etc/passwd')).toBe(join(root, 'etc/passwd'));
  });

  it('refuses anything that leaves the folder, encoded or not', () => {
    expect(resolveStaticPath(root, '../package.json')).toBeNull();
    expect(resolveStaticPath(root, '../../package.json')).toBeNull();
    expect(resolveStaticPath(root, '..%2f..%2fpackage.json')).toBeNull();
    expect(resolveStaticPath(root, '%2e%2e/package.json')).toBeNull();
    expect(resolveStaticPath(root, 'assets/../../x')).toBeNull();
    expect(resolveStaticPath(root, '..')).toBeNull();
  });

  it('refuses malformed encodings and NUL bytes', () => {
    expect(resolveStaticPath(root, '%E0%A4%A')).toBeNull();
    expect(resolveStaticPath(root, 'index.html%00.js')).toBeNull();
  });
});

describe('appPageWith', () => {
  const page = '<html lang="en"><body><div id="root"></div></body></html>';
  const row = {
    sessionId: 's1',
    title: 'Parser rewrite',
    cwd: '/work/app',
    gitBranch: null,
    lastActive: Date.now(),
    messageCount: 2,
    sizeBytes: 100,
    resumable: true,
    hasTranscript: true,
    branchCount: 1,
    familyKey: 's1',
    cost: { usd: null, estimated: false },
  };

  it('draws the first screen into Electron’s page, with the chosen theme', () => {
    const drawn = appPageWith(page, { rows: [row], theme: 'dark', now: Date.now() });
    expect(drawn).toContain('<html data-theme="dark" lang="en">');
    expect(drawn).toContain('<span class="library-row-title">Parser rewrite</span>');
  });

  it('serves the page as built when a kept row cannot be drawn: never no page at all', () => {
    // A time no date can hold (the schema takes any number): drawing its age throws.
    const damaged = { ...row, lastActive: 1e16 };
    expect(appPageWith(page, { rows: [damaged], theme: 'dark', now: Date.now() })).toBe(page);
    expect(appPageWith(page, null)).toBe(page);
  });
});

describe('contentTypeFor', () => {
  it('names the types the renderer build contains, and nothing is sniffed', () => {
    expect(contentTypeFor('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('/x/assets/a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('/x/assets/a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('/x/a.woff2')).toBe('font/woff2');
    expect(contentTypeFor('/x/a.unknown')).toBe('application/octet-stream');
  });
});

const IMAGE_HASH = 'a'.repeat(64);

/** A value nested `depth` levels deep, built without recursion (JSON.stringify cannot write it). */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}
const WAIT = { timeout: 30_000 };

describe('startWebBridge', () => {
  let root: string;
  let bridge: WebBridge;
  let emit: EventListener;
  let downloads: Downloads;
  const sockets: WebSocket[] = [];
  const backend = {
    invoke: async (channel: string, payload: unknown): Promise<IpcResult<unknown>> => {
      if (channel === 'echo') return { ok: true, value: payload };
      if (channel === 'deep') return { ok: true, value: nested(5000) };
      if (channel === 'huge') return { ok: true, value: 'x'.repeat(MAX_REPLY_BYTES + 1) };
      return { ok: false, error: { name: 'UnknownChannel', message: channel } };
    },
    on: (listener: EventListener) => {
      emit = listener;
      return () => undefined;
    },
    image: (hash: string) =>
      hash === IMAGE_HASH ? { mediaType: 'image/png' as const, bytes: Buffer.from('png bytes') } : undefined,
  };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'byre-bridge-'));
    const app = join(root, 'renderer');
    mkdirSync(app);
    writeFileSync(join(app, 'index.html'), '<!doctype html>');
    writeFileSync(join(root, 'secret.txt'), 'secret');
    symlinkSync(join(root, 'secret.txt'), join(app, 'link.txt'));
    downloads = new Downloads();
    bridge = await startWebBridge({ backend, rendererDir: app, token: 'the-token', downloads });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await bridge.close();
    rmSync(root, { recursive: true, force: true });
  });

  const origin = () => `http://127.0.0.1:${bridge.port}`;

  /** A socket opened the way the page opens it: a fresh nonce and the proof made from it. */
  async function proofQuery(token = 'the-token', nonce = newBridgeNonce()): Promise<string> {
    return `nonce=${nonce}&proof=${encodeURIComponent(await bridgeProof(token, 'client', nonce))}`;
  }

  async function connect(
    query?: string,
  ): Promise<{ socket: WebSocket; next: () => Promise<unknown>; closed: Promise<number> }> {
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}/bridge?${query ?? (await proofQuery())}`, {
      origin: origin(),
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    sockets.push(socket);
    const inbox: unknown[] = [];
    const waiters: ((frame: unknown) => void)[] = [];
    socket.on('message', (data) => {
      const frame: unknown = JSON.parse(String(data));
      const waiter = waiters.shift();
      if (waiter) waiter(frame);
      else inbox.push(frame);
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const next = () =>
      inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiters.push(resolve));
    return { socket, next, closed };
  }

  /** A proven socket, past the server's hello. */
  async function connectProven(): Promise<{ socket: WebSocket; next: () => Promise<unknown> }> {
    const opened = await connect();
    expect(await opened.next()).toHaveProperty('hello');
    return opened;
  }

  it('prints an address with the token in the fragment, on 127.0.0.1', () => {
    expect(bridge.url).toBe(`http://127.0.0.1:${bridge.port}/#token=the-token`);
  });

  it('opens with a hello that proves the server holds the token, and gives the images key', async () => {
    const nonce = newBridgeNonce();
    const { next } = await connect(await proofQuery('the-token', nonce));
    expect(await next()).toEqual({
      hello: {
        proof: await bridgeProof('the-token', 'server', nonce),
        imagesKey: await bridgeProof('the-token', 'images'),
      },
    });
  });

  it('closes a socket whose proof is wrong, or whose nonce was used before, with nothing sent', async () => {
    for (const query of [
      await proofQuery('wrong'),
      `nonce=${newBridgeNonce()}&proof=`,
      `nonce=${newBridgeNonce()}&proof=the-token`,
    ]) {
      const { next, closed } = await connect(query);
      const first = Promise.race([next(), closed.then(() => 'closed')]);
      expect(await closed, query).toBe(UNAUTHORIZED_CLOSE);
      expect(await first, query).toBe('closed');
    }
    const reused = await proofQuery();
    const once = await connect(reused);
    expect(await once.next()).toHaveProperty('hello');
    const twice = await connect(reused);
    expect(await twice.closed).toBe(UNAUTHORIZED_CLOSE);
  });

  it('sends events only to proven sockets', async () => {
    const proven = await connectProven();
    // A refused socket, held open from our side: whatever reaches it before it closes is recorded.
    const refused = await connect(await proofQuery('wrong'));
    const received: unknown[] = [];
    const record = () => refused.next().then((frame) => void received.push(frame));
    void record();
    emit('notification', { conversationId: 'c', title: 't', message: 'm' });
    expect(await proven.next()).toMatchObject({ event: 'notification' });
    expect(await refused.closed).toBe(UNAUTHORIZED_CLOSE);
    expect(received).toEqual([]);
  });

  it('answers each frame by id with the backend’s result', async () => {
    const { socket, next } = await connectProven();
    socket.send(JSON.stringify({ id: 7, channel: 'echo', payload: { a: 1 } }));
    expect(await next()).toEqual({ id: 7, result: { ok: true, value: { a: 1 } } });
  });

  it('answers a malformed frame that has an id with an error, drops the rest, and stays up', async () => {
    const { socket, next } = await connectProven();
    socket.send('not json');
    socket.send(JSON.stringify({ channel: 'echo' }));
    socket.send(JSON.stringify({ id: 1, channel: 42 }));
    expect(await next()).toMatchObject({ id: 1, result: { ok: false, error: { name: 'BadFrame' } } });
    socket.send(JSON.stringify({ id: 2, channel: 'echo', payload: 'still here' }));
    expect(await next()).toEqual({ id: 2, result: { ok: true, value: 'still here' } });
  });

  it('sends every backend event to every socket', async () => {
    const first = await connectProven();
    const second = await connectProven();
    emit('notification', { conversationId: 'c', title: 't', message: 'm' });
    const expected = { event: 'notification', payload: { conversationId: 'c', title: 't', message: 'm' } };
    expect(await first.next()).toEqual(expected);
    expect(await second.next()).toEqual(expected);
  });

  it('answers a reply it cannot write as JSON with an error, and goes on serving', async () => {
    const { socket, next } = await connectProven();
    socket.send(JSON.stringify({ id: 1, channel: 'deep', payload: {} }));
    expect(await next()).toEqual({
      id: 1,
      result: {
        ok: false,
        error: {
          name: 'UnsendableReply',
          message: expect.stringContaining('The deep reply could not be written'),
        },
      },
    });
    socket.send(JSON.stringify({ id: 2, channel: 'echo', payload: 'still here' }));
    expect(await next()).toEqual({ id: 2, result: { ok: true, value: 'still here' } });
  });

  it('answers a reply over the cap with an error naming the cap, and keeps the socket', async () => {
    const { socket, next } = await connectProven();
    socket.send(JSON.stringify({ id: 1, channel: 'huge', payload: {} }));
    expect(await next()).toEqual({
      id: 1,
      result: {
        ok: false,
        error: { name: 'ReplyTooLarge', message: expect.stringContaining('over the 8.0 MB a reply') },
      },
    });
    socket.send(JSON.stringify({ id: 2, channel: 'echo', payload: 'still here' }));
    expect(await next()).toEqual({ id: 2, result: { ok: true, value: 'still here' } });
  });

  it('sends a burst of events over the cap as smaller batches, in order, each numbered by its last', async () => {
    const { next } = await connectProven();
    const text = 'y'.repeat(3 * 1024 * 1024);
    const events = [1, 2, 3, 4].map((n) => ({ kind: 'notify' as const, message: `${n}${text}` }));
    emit('conversationEvents', { conversationId: 'c', events, seq: 13 });
    const batches: { payload: { events: { message: string }[]; seq: number } }[] = [];
    let received = 0;
    while (received < events.length) {
      const batch = (await next()) as (typeof batches)[number];
      batches.push(batch);
      received += batch.payload.events.length;
    }
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flatMap((batch) => batch.payload.events.map((event) => event.message[0]))).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
    // The burst's events are numbered 10 to 13.
    let last = 9;
    for (const batch of batches) {
      last += batch.payload.events.length;
      expect(batch.payload.seq).toBe(last);
      expect(JSON.stringify(batch).length).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    }
  });

  it('serves an image sent by reference only with the images key, never for the token itself', async () => {
    const key = encodeURIComponent(await bridgeProof('the-token', 'images'));
    const found = await fetch(`${origin()}/images/${IMAGE_HASH}?key=${key}`);
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toBe('image/png');
    // What a conversation showed is not left in the browser's cache.
    expect(found.headers.get('cache-control')).toBe('no-store');
    expect(await found.text()).toBe('png bytes');
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}?key=wrong`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}?key=the-token`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}?token=the-token`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${'0'.repeat(64)}?key=${key}`)).status).toBe(404);
  });

  it('serves an offered download once, as an attachment, and only with a proof of the token', async () => {
    const delivery = downloads.deliver([
      { name: 'Parser “bug”.md', mediaType: 'text/markdown', encoding: 'utf8', data: '# Parser bug\n' },
    ]);
    if (delivery.way !== 'download') throw new Error('expected a download');
    const id = delivery.files[0]!.id;
    expect(delivery.files[0]?.name).toBe('Parser “bug”.md');
    const address = `${origin()}/downloads/${id}`;
    // Refused without the proof, with a proof made from a wrong token, and with the token itself; none of
    // these uses the file up.
    expect((await fetch(address)).status).toBe(401);
    const wrong = encodeURIComponent(await bridgeProof('wrong', 'download', id));
    expect((await fetch(`${address}?proof=${wrong}`)).status).toBe(401);
    expect((await fetch(`${address}?proof=the-token`)).status).toBe(401);
    expect((await fetch(`${address}?token=the-token`)).status).toBe(401);
    const proof = encodeURIComponent(await bridgeProof('the-token', 'download', id));
    expect((await fetch(`${address}?proof=${proof}`, { method: 'HEAD' })).status).toBe(405);
    const found = await fetch(`${address}?proof=${proof}`);
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(found.headers.get('content-disposition')).toBe(
      `attachment; filename="Parser _bug_.md"; filename*=UTF-8''Parser%20%E2%80%9Cbug%E2%80%9D.md`,
    );
    expect(found.headers.get('cache-control')).toBe('no-store');
    expect(await found.text()).toBe('# Parser bug\n');
    expect((await fetch(`${address}?proof=${proof}`)).status, 'a second time').toBe(404);
  });

  it('does not follow a link out of the renderer folder', async () => {
    const response = await fetch(`${origin()}/app/link.txt`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('secret');
  });

  it('sets no cookie, and takes no request that changes state', async () => {
    const index = await fetch(`${origin()}/app/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('set-cookie')).toBeNull();
    const redirect = await fetch(`${origin()}/`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/app/');
    expect(redirect.headers.get('set-cookie')).toBeNull();
    for (const path of ['/', '/auth', '/app/', '/bridge']) {
      const posted = await fetch(`${origin()}${path}`, { method: 'POST', headers: { origin: origin() } });
      expect(posted.status, path).toBe(405);
    }
  });
});

// Waits for states, with room for a busy machine.
describe('a client that asks too much or stops reading', { timeout: 60_000 }, () => {
  let root: string;
  let bridge: WebBridge;
  let invoked = 0;
  let releases: (() => void)[] = [];
  const BIG = 'x'.repeat(1024 * 1024);
  const backend = {
    invoke: async (channel: string): Promise<IpcResult<unknown>> => {
      invoked += 1;
      if (channel === 'slow') await new Promise<void>((resolve) => releases.push(resolve));
      return { ok: true, value: channel === 'big' ? BIG : channel };
    },
    on: () => () => undefined,
    image: () => undefined,
  };

  beforeEach(async () => {
    invoked = 0;
    releases = [];
    root = mkdtempSync(join(tmpdir(), 'byre-bridge-'));
    mkdirSync(join(root, 'renderer'));
    bridge = await startWebBridge({
      backend,
      rendererDir: join(root, 'renderer'),
      token: 'the-token',
      limits: { maxInFlight: 4, maxBufferedBytes: 8 * 1024 * 1024 },
    });
  });
  afterEach(async () => {
    for (const release of releases) release();
    await bridge.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function proven(): Promise<{ socket: WebSocket; frames: unknown[]; closed: Promise<number> }> {
    const nonce = newBridgeNonce();
    const proof = encodeURIComponent(await bridgeProof('the-token', 'client', nonce));
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}/bridge?nonce=${nonce}&proof=${proof}`, {
      origin: `http://127.0.0.1:${bridge.port}`,
    });
    const frames: unknown[] = [];
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const hello = new Promise((resolve) => socket.once('message', resolve));
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await hello;
    frames.length = 0;
    return { socket, frames, closed };
  }

  it('takes only a few requests at a time from one socket; the rest wait, none is lost', async () => {
    const { socket, frames } = await proven();
    for (let id = 1; id <= 10; id++) socket.send(JSON.stringify({ id, channel: 'slow', payload: {} }));
    await vi.waitFor(() => expect(invoked).toBe(4), WAIT);
    // One ends: one more is taken.
    releases.shift()?.();
    await vi.waitFor(() => expect(invoked).toBe(5), WAIT);
    await vi.waitFor(() => expect(frames).toHaveLength(1), WAIT);
    while (invoked < 10 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await vi.waitFor(() => expect(frames).toHaveLength(10), WAIT);
    socket.close();
  });

  it('drops the requests still waiting when their socket closes, instead of running them', async () => {
    const { socket } = await proven();
    for (let id = 1; id <= 10; id++) socket.send(JSON.stringify({ id, channel: 'slow', payload: {} }));
    await vi.waitFor(() => expect(invoked).toBe(4), WAIT);
    // Gone at once (the host reads nothing more from a socket whose requests wait, so a closing handshake
    // would wait too).
    socket.terminate();
    await vi.waitFor(() => expect(bridge.connections()).toBe(0), WAIT);
    for (const release of releases.splice(0)) release();
    // A round trip on another socket: whatever the released requests would set going has happened by then.
    const other = await proven();
    other.socket.send(JSON.stringify({ id: 1, channel: 'fast', payload: {} }));
    await vi.waitFor(() => expect(other.frames).toHaveLength(1), WAIT);
    expect(invoked).toBe(5);
    other.socket.close();
  });

  it('drops a socket that stops reading while replies pile up, instead of holding them all', async () => {
    const { socket, frames, closed } = await proven();
    socket.pause();
    for (let id = 1; id <= 50; id++) socket.send(JSON.stringify({ id, channel: 'big', payload: {} }));
    expect(bridge.connections()).toBe(1);
    // The host lets go of it once the replies it holds pass its limit (not all 50 need be taken first).
    await vi.waitFor(() => expect(bridge.connections()).toBe(0), WAIT);
    socket.resume();
    expect(await closed).toBe(1006);
    // 50 MB of replies were asked for; the host kept at most its limit and what the kernel buffers hold.
    expect(frames.length).toBeLessThan(50);
  });
});
