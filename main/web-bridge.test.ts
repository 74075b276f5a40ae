import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { IpcResult } from '../shared/ipc';
import type { EventListener } from './backend';
import {
  contentTypeFor,
  isAllowedHost,
  isAllowedOrigin,
  resolveStaticPath,
  splitRequestTarget,
  startWebBridge,
  tokenFromRequest,
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
  it('accepts this server by IP or by localhost, on its own port', () => {
    expect(isAllowedHost('127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedHost('localhost:4000', 4000)).toBe(true);
    expect(isAllowedHost('LOCALHOST:4000', 4000)).toBe(true);
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
  it('accepts only http://127.0.0.1:<port> and http://localhost:<port>', () => {
    expect(isAllowedOrigin('http://127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('http://localhost:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('http://evil.example', 4000)).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:4000', 4000)).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:4001', 4000)).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:4000/', 4000)).toBe(false);
    expect(isAllowedOrigin('null', 4000)).toBe(false);
    expect(isAllowedOrigin(undefined, 4000)).toBe(false);
  });
});

describe('tokenFromRequest', () => {
  it('reads the query parameter first, then this port’s cookie', () => {
    expect(tokenFromRequest(undefined, 'token=q', 4000)).toBe('q');
    expect(tokenFromRequest('byre_token_4000=c', 'token=q', 4000)).toBe('q');
    expect(tokenFromRequest('a=1; byre_token_4000=c; b=2', '', 4000)).toBe('c');
  });

  it('ignores another port’s cookie', () => {
    expect(tokenFromRequest('byre_token_4001=c', '', 4000)).toBeNull();
    expect(tokenFromRequest(undefined, '', 4000)).toBeNull();
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

describe('startWebBridge', () => {
  let root: string;
  let bridge: WebBridge;
  let emit: EventListener;
  const sockets: WebSocket[] = [];
  const backend = {
    invoke: async (channel: string, payload: unknown): Promise<IpcResult<unknown>> =>
      channel === 'echo'
        ? { ok: true, value: payload }
        : { ok: false, error: { name: 'UnknownChannel', message: channel } },
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
    bridge = await startWebBridge({ backend, rendererDir: app, token: 'the-token' });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await bridge.close();
    rmSync(root, { recursive: true, force: true });
  });

  const origin = () => `http://127.0.0.1:${bridge.port}`;

  async function connect(): Promise<{ socket: WebSocket; next: () => Promise<unknown> }> {
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}/bridge?token=the-token`, {
      origin: origin(),
    });
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
    return { socket, next };
  }

  it('prints an address with the token in the fragment, on 127.0.0.1', () => {
    expect(bridge.url).toBe(`http://127.0.0.1:${bridge.port}/#token=the-token`);
  });

  it('answers each frame by id with the backend’s result', async () => {
    const { socket, next } = await connect();
    socket.send(JSON.stringify({ id: 7, channel: 'echo', payload: { a: 1 } }));
    expect(await next()).toEqual({ id: 7, result: { ok: true, value: { a: 1 } } });
  });

  it('answers a malformed frame that has an id with an error, drops the rest, and stays up', async () => {
    const { socket, next } = await connect();
    socket.send('not json');
    socket.send(JSON.stringify({ channel: 'echo' }));
    socket.send(JSON.stringify({ id: 1, channel: 42 }));
    expect(await next()).toMatchObject({ id: 1, result: { ok: false, error: { name: 'BadFrame' } } });
    socket.send(JSON.stringify({ id: 2, channel: 'echo', payload: 'still here' }));
    expect(await next()).toEqual({ id: 2, result: { ok: true, value: 'still here' } });
  });

  it('sends every backend event to every socket', async () => {
    const first = await connect();
    const second = await connect();
    emit('notification', { conversationId: 'c', title: 't', message: 'm' });
    const expected = { event: 'notification', payload: { conversationId: 'c', title: 't', message: 'm' } };
    expect(await first.next()).toEqual(expected);
    expect(await second.next()).toEqual(expected);
  });

  it('serves an image sent by reference only with the token', async () => {
    const found = await fetch(`${origin()}/images/${IMAGE_HASH}?token=the-token`);
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toBe('image/png');
    // Named by its hash, it never changes: the browser keeps it.
    expect(found.headers.get('cache-control')).toContain('immutable');
    expect(await found.text()).toBe('png bytes');
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${IMAGE_HASH}?token=wrong`)).status).toBe(401);
    expect((await fetch(`${origin()}/images/${'0'.repeat(64)}?token=the-token`)).status).toBe(404);
  });

  it('does not follow a link out of the renderer folder', async () => {
    const response = await fetch(`${origin()}/app/link.txt?token=the-token`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('secret');
  });

  it('sets the cookie only for the right token from this origin', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${origin()}/auth`, { method: 'POST', headers: { origin: origin(), ...headers } });
    expect((await post({ 'x-byre-token': 'wrong' })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    const refusedOrigin = await fetch(`${origin()}/auth`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'x-byre-token': 'the-token' },
    });
    expect(refusedOrigin.status).toBe(403);
    const ok = await post({ 'x-byre-token': 'the-token' });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('set-cookie')).toBe(
      `byre_token_${bridge.port}=the-token; HttpOnly; SameSite=Strict; Path=/`,
    );
  });
});
