import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { WebSocket, WebSocketServer, type ClientOptions } from 'ws';
import { bridgeProof, newBridgeNonce, UNAUTHORIZED_CLOSE } from '../shared/bridge-auth';
import type { ByreApi, IpcResult } from '../shared/ipc';
import { Gate, lastUserText } from './fake-model/server';
import { processesWithHome, projectFolderName } from './fixtures/cli-env';
import { claude, send, words } from './fixtures/chat-page';
import { waitForAddress } from './fixtures/host-process';
import { expect, test, WEB_HOST_ENTRY, type WebHost } from './fixtures/web-host';

/** The browser host: the app through the printed address, and the locks on every door. */

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request sent exactly as written: the path is not normalized and the Host header is ours to set. */
function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

type SocketOutcome = { socket: WebSocket } | { refused: number };

/** What each socket received, and how it closed, from the moment it was made (a frame can come with 'open'). */
const inboxes = new WeakMap<WebSocket, { frames: unknown[]; closed: number | null; wake: () => void }>();

function openSocket(url: string, options: ClientOptions = {}): Promise<SocketOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    const inbox = { frames: [] as unknown[], closed: null as number | null, wake: () => undefined };
    inboxes.set(socket, inbox);
    socket.on('message', (data) => {
      inbox.frames.push(JSON.parse(String(data)));
      inbox.wake();
    });
    socket.on('close', (code) => {
      inbox.closed = code;
      inbox.wake();
    });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

/** A socket opened the way the page opens it: a fresh nonce and a proof made from `token`. */
async function bridgeUrl(host: WebHost, token = host.token, nonce = newBridgeNonce()): Promise<string> {
  const proof = encodeURIComponent(await bridgeProof(token, 'client', nonce));
  return `ws://127.0.0.1:${host.port}/bridge?nonce=${nonce}&proof=${proof}`;
}

/** The next frame a socket received, or how it closed if nothing more came. */
async function nextFrame(socket: WebSocket): Promise<unknown> {
  const inbox = inboxes.get(socket)!;
  while (inbox.frames.length === 0 && inbox.closed === null) {
    await new Promise<void>((resolve) => (inbox.wake = resolve));
  }
  return inbox.frames.length > 0 ? inbox.frames.shift() : { closed: inbox.closed };
}

/** The first script the built index.html loads, as a path below /app/. */
async function firstAsset(host: WebHost): Promise<string> {
  const index = await rawRequest(host.port, '/app/');
  const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(index.body)?.[1];
  expect(asset, 'the built index.html names its script').toBeTruthy();
  return asset!;
}

type Byre = { byre: ByreApi };

test('the printed address opens the app, and window.byre answers over the bridge', async ({
  page,
  webHost,
}) => {
  expect(new URL(page.url()).pathname).toBe('/app/');
  await expect(page.locator('#root > *').first()).toBeAttached();
  const info = await page.evaluate(() => (globalThis as unknown as Byre).byre.appInfo({}));
  expect(info).toMatchObject({
    ok: true,
    value: { host: 'browser', initialCwd: webHost.world.cwd, dataDir: webHost.dataDir },
  });
  // Nothing is kept in a cookie: every other server on 127.0.0.1 would be sent it.
  expect(await page.context().cookies()).toEqual([]);
});

test('the token leaves the address bar and the history once connected, and a reload still connects', async ({
  page,
  webHost,
}) => {
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => location.hash)).toBe('');
  expect(page.url()).not.toContain(webHost.token);
  await page.reload();
  expect(page.url()).not.toContain(webHost.token);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  const info = await page.evaluate(() => (globalThis as unknown as Byre).byre.appInfo({}));
  expect(info).toMatchObject({ ok: true, value: { host: 'browser' } });
  // A new tab was not given the token: it has to be opened from the printed address.
  const other = await page.context().newPage();
  await other.goto(page.url());
  await expect(other.getByRole('alert')).toContainText('Open the address Byre printed in the terminal');
});

test('an address without the right token opens nothing, and says why', async ({ webHost, browser }) => {
  for (const [address, message] of [
    [`${webHost.origin}/`, 'Open the address Byre printed in the terminal'],
    [`${webHost.origin}/#token=wrong`, 'This address is no longer valid'],
  ] as const) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(address);
    await expect(page.getByRole('alert')).toContainText(message);
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  }
});

test('the app’s files hold no secret: served without the token, with strict headers', async ({ webHost }) => {
  const { port } = webHost;
  const asset = await firstAsset(webHost);
  const script = await rawRequest(port, `/app/${asset}`);
  expect(script.status).toBe(200);
  expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(script.body).not.toContain(webHost.token);
  const page = await rawRequest(port, '/app/');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers).toMatchObject({
    'content-security-policy': expect.stringContaining("script-src 'self'"),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(page.headers['set-cookie']).toBeUndefined();
  expect((await rawRequest(port, '/app/assets/')).status, 'no directory listing').toBe(404);
});

test('the bridge socket needs a proof of the token, and this origin', async ({ webHost }) => {
  const origin = webHost.origin;
  const bare = `ws://127.0.0.1:${webHost.port}/bridge`;
  expect(await openSocket(bare, { origin })).toEqual({ refused: 400 });
  expect(await openSocket(`${bare}?token=${webHost.token}`, { origin })).toEqual({ refused: 400 });
  expect(await openSocket(await bridgeUrl(webHost), { origin: 'http://evil.example' })).toEqual({
    refused: 403,
  });
  expect(await openSocket(await bridgeUrl(webHost))).toEqual({ refused: 403 });

  // A wrong proof is let in only to be told why, and is sent nothing else.
  const wrong = await openSocket(await bridgeUrl(webHost, 'wrong'), { origin });
  expect(await nextFrame((wrong as { socket: WebSocket }).socket)).toEqual({ closed: UNAUTHORIZED_CLOSE });

  const nonce = newBridgeNonce();
  const opened = await openSocket(await bridgeUrl(webHost, webHost.token, nonce), { origin });
  expect(opened).toHaveProperty('socket');
  const { socket } = opened as { socket: WebSocket };
  expect(await nextFrame(socket)).toMatchObject({
    hello: { proof: await bridgeProof(webHost.token, 'server', nonce) },
  });
  socket.send(JSON.stringify({ id: 1, channel: 'appInfo', payload: {} }));
  // Events may come first (the library says what it found).
  let reply = await nextFrame(socket);
  while (typeof reply === 'object' && reply !== null && 'event' in reply) reply = await nextFrame(socket);
  expect(reply).toMatchObject({ id: 1, result: { ok: true, value: { host: 'browser' } } });
  socket.close();
});

test('a request naming another host is refused (DNS rebinding)', async ({ webHost }) => {
  const { port } = webHost;
  const evil = { host: `evil.example:${port}` };
  expect((await rawRequest(port, '/', evil)).status).toBe(403);
  expect((await rawRequest(port, '/app/', evil)).status).toBe(403);
  expect(
    await openSocket(await bridgeUrl(webHost), { origin: webHost.origin, headers: { host: evil.host } }),
  ).toEqual({ refused: 403 });
  expect((await rawRequest(port, '/app/')).status, 'the same request with the right host').toBe(200);
});

test('paths that climb out of the app are refused', async ({ webHost }) => {
  const { port } = webHost;
  for (const path of [
    '/app/../../package.json',
    '/app/..%2f..%2fpackage.json',
    '/app/%2e%2e/%2e%2e/package.json',
    '/app/assets/../../../package.json',
  ]) {
    const response = await rawRequest(port, path);
    expect(response.status, path).toBe(403);
    expect(response.body, path).not.toContain('"name": "byre"');
  }
});

test('conversation events reach the page over the bridge', async ({ page, webHost }) => {
  const outcome = await page.evaluate(async (cwd) => {
    const { byre } = globalThis as unknown as Byre;
    const finished = new Promise<string | undefined>((resolve) => {
      byre.on('conversationEvents', ({ events }) => {
        for (const event of events) {
          if (event.kind === 'message' && event.message.type === 'result') resolve(event.message.result);
        }
      });
    });
    const started = await byre.startConversation({ cwd });
    if (!started.ok) return { started };
    const { conversationId } = started.value;
    const sent = await byre.send({ conversationId, text: 'hello over the bridge' });
    const result = await finished;
    await byre.closeConversation({ conversationId });
    return { started, sent, result };
  }, webHost.world.cwd);
  expect(outcome).toMatchObject({ started: { ok: true }, sent: { ok: true }, result: 'OK.' });
  await webHost.world.fake.waitForRequest((r) => lastUserText(r).includes('hello over the bridge'));
});

test('calls resolve as Disconnected once the host has gone', async ({ page, webHost }) => {
  expect(await page.evaluate(() => (globalThis as unknown as Byre).byre.appInfo({}))).toMatchObject({
    ok: true,
  });
  const exited = new Promise((resolve) => webHost.process.once('exit', resolve));
  webHost.process.kill('SIGTERM');
  expect(await exited).toBe(0);
  const result: IpcResult<unknown> = await page.evaluate(() =>
    (globalThis as unknown as Byre).byre.appInfo({}),
  );
  expect(result).toEqual({
    ok: false,
    error: {
      name: 'Disconnected',
      message: 'Lost the connection to Byre. The page reconnects on its own while Byre is running.',
    },
  });
});

/**
 * An HTTP and WebSocket server on 127.0.0.1 that answers anything and writes down all it is sent. It knows
 * Byre's handshake, not the token: it answers a socket with a made-up proof, when `sayHello` is called.
 */
async function recorder(
  port = 0,
): Promise<{ server: Server; port: number; seen: string[]; sayHello(): void; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>another server</p>');
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, req) => {
    seen.push(`UPGRADE ${req.url} ${JSON.stringify(req.headers)}`);
    socket.on('message', (data) => seen.push(`FRAME ${String(data)}`));
  });
  const sayHello = () => {
    for (const socket of sockets.clients) {
      socket.send(JSON.stringify({ hello: { proof: 'made-up', imagesKey: 'made-up' } }));
    }
  };
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : 0,
    seen,
    sayHello,
    close: async () => {
      for (const socket of sockets.clients) socket.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('the token reaches no other server on 127.0.0.1 that the same browser visits', async ({
  page,
  webHost,
}) => {
  // The app is open and working.
  expect(await page.evaluate(() => (globalThis as unknown as Byre).byre.appInfo({}))).toMatchObject({
    ok: true,
  });
  const other = await recorder();
  try {
    await page.goto(`http://127.0.0.1:${other.port}/`);
    await expect(page.getByText('another server')).toBeVisible();
    expect(other.seen.length).toBeGreaterThan(0);
    for (const request of other.seen) {
      expect(request).not.toContain(webHost.token);
      expect(request.toLowerCase()).not.toContain('"cookie"');
    }
    expect(await page.context().cookies()).toEqual([]);
  } finally {
    await other.close();
  }
});

test('a tab left open after Byre exits sends nothing to what takes its port, and says so', async ({
  page,
  webHost,
}) => {
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Answered before the exit.' }] });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('before the exit');
  await box.press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Answered before the exit.');

  const exited = new Promise((resolve) => webHost.process.once('exit', resolve));
  webHost.process.kill('SIGTERM');
  await exited;
  await expect(page.getByRole('status').filter({ hasText: 'Lost the connection to Byre' })).toBeVisible();
  // Another program takes the port, and the tab connects to it.
  const impostor = await recorder(webHost.port);
  try {
    await expect
      .poll(() => impostor.seen.filter((request) => request.startsWith('UPGRADE')).length, {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    // The user types while the tab is connected to it, before it has said anything.
    await box.fill('typed into the stale tab');
    await box.press('Enter');
    impostor.sayHello();
    await expect(page.getByRole('alert')).toContainText('Byre is no longer at this address');
    expect(impostor.seen.some((request) => request.startsWith('UPGRADE'))).toBe(true);
    for (const request of impostor.seen) {
      expect(request).not.toContain(webHost.token);
      expect(request).not.toMatch(/^FRAME/);
    }
  } finally {
    await impostor.close();
  }
});

test('the host stops when the process that started it dies without a word', async ({ world }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'byre-orphan-'));
  // A parent that is killed outright (SIGKILL): no signal reaches the host.
  const parent = spawn(
    'sh',
    ['-c', `"${process.execPath}" "${WEB_HOST_ENTRY}" --port 0 "${world.cwd}" & wait`],
    {
      env: { ...world.env, BYRE_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  parent.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    await waitForAddress(parent, () => output, 60_000);
    const hosts = () => processesWithHome(world.home, 'web.js').filter((pid) => pid !== parent.pid);
    expect(hosts()).toHaveLength(1);
    parent.kill('SIGKILL');
    await expect.poll(hosts, { timeout: 30_000 }).toEqual([]);
  } finally {
    for (const pid of processesWithHome(world.home, 'web.js')) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a host killed mid-turn leaves no CLI behind once its turn ends, and the session can be resumed', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  const rest = new Gate();
  world.fake.enqueue({ blocks: [{ type: 'text', text: words(30) }], hold: { after: 2, until: rest } });
  await send(page, 'a turn the host will not see end');
  await expect(claude(page)).toContainText('word1');
  expect(processesWithHome(world.home, '--input-format')).toHaveLength(1);

  webHost.process.kill('SIGKILL');
  await expect(page.getByRole('status').filter({ hasText: 'Lost the connection to Byre' })).toBeVisible();
  // The CLI reads the end of its input: it finishes the turn it had (nothing of it is lost from its own
  // session file), then exits.
  rest.release();
  await expect.poll(() => processesWithHome(world.home, '--input-format'), { timeout: 60_000 }).toEqual([]);
  const folder = join(world.home, '.claude', 'projects', projectFolderName(world.cwd));
  const files = readdirSync(folder).filter((name) => name.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  const saved = readFileSync(join(folder, files[0]!), 'utf8');
  expect(saved).toContain('a turn the host will not see end');
  expect(saved).toContain('word29');
});

test('the browser host’s build never loads electron', () => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    expect(source, file).not.toMatch(/from\s*["']electron["']|require\(\s*["']electron["']\s*\)/);
    for (const [, relative] of source.matchAll(/from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      visit(join(dirname(file), relative!));
    }
  };
  visit(WEB_HOST_ENTRY);
  expect(seen.size).toBeGreaterThan(1);
});
