import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { dirname, join } from 'node:path';
import { WebSocket, type ClientOptions } from 'ws';
import type { ByreApi, IpcResult } from '../shared/ipc';
import { lastUserText } from './fake-model/server';
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

function openSocket(url: string, options: ClientOptions = {}): Promise<SocketOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

function bridgeUrl(host: WebHost, query = `?token=${host.token}`): string {
  return `ws://127.0.0.1:${host.port}/bridge${query}`;
}

/** The first script the built index.html loads, as a path below /app/. */
async function firstAsset(host: WebHost): Promise<string> {
  const index = await rawRequest(host.port, `/app/?token=${host.token}`);
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
  const cookies = await page.context().cookies(webHost.origin);
  expect(cookies).toEqual([
    expect.objectContaining({
      name: `byre_token_${webHost.port}`,
      value: webHost.token,
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    }),
  ]);
});

test('the loader page refuses an address without the right token', async ({ webHost, browser }) => {
  for (const [address, message] of [
    [`${webHost.origin}/`, 'Open the address Byre printed in the terminal'],
    [`${webHost.origin}/#token=wrong`, 'This address is no longer valid'],
  ] as const) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(address);
    await expect(page.getByText(message)).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await context.cookies(webHost.origin)).toEqual([]);
    await context.close();
  }
});

test('the app’s files need the token, by cookie or query', async ({ webHost }) => {
  const { port, token } = webHost;
  const asset = await firstAsset(webHost);
  for (const path of ['/app/', `/app/${asset}`]) {
    expect((await rawRequest(port, path)).status, `${path} without a token`).toBe(401);
    expect((await rawRequest(port, `${path}?token=wrong`)).status, `${path}?token=wrong`).toBe(401);
    const wrongCookie = await rawRequest(port, path, { cookie: `byre_token_${port}=wrong` });
    expect(wrongCookie.status, `${path} with a wrong cookie`).toBe(401);
    const otherPortCookie = await rawRequest(port, path, { cookie: `byre_token_${port + 1}=${token}` });
    expect(otherPortCookie.status, `${path} with another port's cookie`).toBe(401);

    const byCookie = await rawRequest(port, path, { cookie: `byre_token_${port}=${token}` });
    expect(byCookie.status, `${path} with the cookie`).toBe(200);
    expect((await rawRequest(port, `${path}?token=${token}`)).status, `${path}?token=…`).toBe(200);
  }

  const script = await rawRequest(port, `/app/${asset}?token=${token}`);
  expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  const page = await rawRequest(port, `/app/?token=${token}`);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers).toMatchObject({
    'content-security-policy': expect.stringContaining("script-src 'self'"),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect((await rawRequest(port, `/app/assets/?token=${token}`)).status, 'no directory listing').toBe(404);
});

test('the bridge socket needs the token and this origin', async ({ webHost }) => {
  const origin = webHost.origin;
  expect(await openSocket(bridgeUrl(webHost, ''), { origin })).toEqual({ refused: 401 });
  expect(await openSocket(bridgeUrl(webHost, '?token=wrong'), { origin })).toEqual({ refused: 401 });
  expect(await openSocket(bridgeUrl(webHost), { origin: 'http://evil.example' })).toEqual({
    refused: 403,
  });
  expect(await openSocket(bridgeUrl(webHost))).toEqual({ refused: 403 });

  const opened = await openSocket(bridgeUrl(webHost), { origin });
  expect(opened).toHaveProperty('socket');
  const { socket } = opened as { socket: WebSocket };
  const reply = new Promise<unknown>((resolve) =>
    socket.once('message', (data) => resolve(JSON.parse(String(data)))),
  );
  socket.send(JSON.stringify({ id: 1, channel: 'appInfo', payload: {} }));
  expect(await reply).toMatchObject({ id: 1, result: { ok: true, value: { host: 'browser' } } });
  socket.close();
});

test('a request naming another host is refused (DNS rebinding)', async ({ webHost }) => {
  const { port, token } = webHost;
  const evil = { host: `evil.example:${port}` };
  expect((await rawRequest(port, '/', evil)).status).toBe(403);
  expect((await rawRequest(port, `/app/?token=${token}`, evil)).status).toBe(403);
  expect((await rawRequest(port, '/auth', { ...evil, 'x-byre-token': token }, 'POST')).status).toBe(403);
  expect(
    await openSocket(bridgeUrl(webHost), { origin: webHost.origin, headers: { host: evil.host } }),
  ).toEqual({ refused: 403 });
  expect((await rawRequest(port, '/')).status, 'the same request with the right host').toBe(200);
});

test('paths that climb out of the app are refused', async ({ webHost }) => {
  const { port, token } = webHost;
  for (const path of [
    '/app/../../package.json',
    '/app/..%2f..%2fpackage.json',
    '/app/%2e%2e/%2e%2e/package.json',
    '/app/assets/../../../package.json',
  ]) {
    const response = await rawRequest(port, `${path}?token=${token}`);
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
      message: 'Lost the connection to Byre. Reload the page once it is running again.',
    },
  });
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
