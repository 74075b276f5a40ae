import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bridgeProof, UNAUTHORIZED_CLOSE } from '../../../shared/bridge-auth';
import { BridgeConnection, STATUS_MESSAGES } from './bridge-client';

/** A WebSocket the test plays the server of: it sees what the page sends and says what the server does. */
class FakeSocket {
  static readonly OPEN = 1;
  static opened: FakeSocket[] = [];
  readyState = 0;
  readonly sent: string[] = [];
  onmessage: ((message: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send(frame: string) {
    if (this.readyState !== FakeSocket.OPEN) throw new Error('sent on a socket that is not open');
    this.sent.push(frame);
  }
  close() {
    this.readyState = 3;
  }
  onopen: (() => void) | null = null;
  /** The server accepts the socket. */
  accept() {
    if (this.readyState === FakeSocket.OPEN) return;
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  /** The server accepts the socket and sends `frame`. */
  serverSays(frame: unknown) {
    this.accept();
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  serverCloses(code: number) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  get nonce(): string {
    return new URL(this.url).searchParams.get('nonce') ?? '';
  }
}

/** The socket the client opens next (its proofs are made asynchronously first). */
async function nextSocket(count: number): Promise<FakeSocket> {
  await vi.waitFor(() => expect(FakeSocket.opened.length).toBeGreaterThanOrEqual(count), { timeout: 20_000 });
  return FakeSocket.opened[count - 1]!;
}

const TOKEN = 'launch-token';
/** Nothing listens at the address unless a test says so. */
let listening = false;
const address = { socketBase: 'ws://127.0.0.1:4000', token: TOKEN, probe: async () => listening };

beforeEach(() => {
  FakeSocket.opened = [];
  listening = false;
  (globalThis as { WebSocket?: unknown }).WebSocket = FakeSocket;
});
afterEach(() => {
  delete (globalThis as { WebSocket?: unknown }).WebSocket;
  vi.useRealTimers();
});

describe('the bridge client’s handshake', () => {
  it('proves the token without sending it, and sends nothing until the server proves it too', async () => {
    const connection = new BridgeConnection(address);
    const call = connection.invoke('appInfo', {});
    const socket = await nextSocket(1);
    expect(socket.url).not.toContain(TOKEN);
    const url = new URL(socket.url);
    expect(url.pathname).toBe('/bridge');
    expect(url.searchParams.get('proof')).toBe(await bridgeProof(TOKEN, 'client', socket.nonce));
    expect(connection.status).toBe('connecting');

    socket.serverSays({
      hello: { proof: await bridgeProof(TOKEN, 'server', socket.nonce), imagesKey: 'the-images-key' },
    });
    expect(connection.status).toBe('open');
    expect(connection.imagesKey).toBe('the-images-key');
    // The call made before the hello goes out now.
    expect(socket.sent.map((frame) => JSON.parse(frame) as unknown)).toEqual([
      { id: 1, channel: 'appInfo', payload: {} },
    ]);
    socket.serverSays({ id: 1, result: { ok: true, value: 'answered' } });
    expect(await call).toEqual({ ok: true, value: 'answered' });
  });

  it('stops for good, having sent nothing, when what answers cannot prove it holds the token', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = new BridgeConnection(address);
    const call = connection.invoke('send', { conversationId: 'c', text: 'my secret plans' });
    const socket = await nextSocket(1);
    // Something else took the port: it accepts any socket and says hello with a made-up proof.
    socket.serverSays({ hello: { proof: 'made-up', imagesKey: 'k' } });
    expect(connection.status).toBe('foreign');
    expect(socket.sent).toEqual([]);
    expect(await call).toEqual({
      ok: false,
      error: { name: 'Disconnected', message: STATUS_MESSAGES.foreign },
    });
    // Later calls fail at once, and no socket is opened again.
    expect(await connection.invoke('appInfo', {})).toMatchObject({ ok: false });
    // No retry is waiting to happen.
    expect(vi.getTimerCount()).toBe(0);
    expect(FakeSocket.opened).toHaveLength(1);
  });

  it('says the address is stale when the server refuses its proof, and stops', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = new BridgeConnection(address);
    const socket = await nextSocket(1);
    socket.serverCloses(UNAUTHORIZED_CLOSE);
    expect(connection.status).toBe('stale');
    expect(await connection.invoke('appInfo', {})).toEqual({
      ok: false,
      error: { name: 'Disconnected', message: STATUS_MESSAGES.stale },
    });
    // No retry is waiting to happen.
    expect(vi.getTimerCount()).toBe(0);
    expect(FakeSocket.opened).toHaveLength(1);
  });

  it('tries again with a fresh nonce when the connection is lost', async () => {
    const connection = new BridgeConnection(address);
    const first = await nextSocket(1);
    first.serverSays({ hello: { proof: await bridgeProof(TOKEN, 'server', first.nonce), imagesKey: 'k' } });
    const call = connection.invoke('appInfo', {});
    first.serverCloses(1006);
    expect(connection.status).toBe('lost');
    expect(await call).toMatchObject({ ok: false, error: { name: 'Disconnected' } });
    const second = await nextSocket(2);
    expect(second.nonce).not.toBe(first.nonce);
    second.serverSays({ hello: { proof: await bridgeProof(TOKEN, 'server', second.nonce), imagesKey: 'k' } });
    expect(connection.status).toBe('open');
  });

  it('opens no socket for an address without a token', async () => {
    const connection = new BridgeConnection({ ...address, token: null });
    expect(connection.status).toBe('no-token');
    expect(await connection.invoke('appInfo', {})).toEqual({
      ok: false,
      error: { name: 'Disconnected', message: STATUS_MESSAGES['no-token'] },
    });
    expect(FakeSocket.opened).toEqual([]);
  });
});

describe('a server that never says hello', () => {
  it('is not Byre: after a while the client stops, having sent nothing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = new BridgeConnection(address);
    const call = connection.invoke('send', { conversationId: 'c', text: 'typed meanwhile' });
    const socket = await nextSocket(1);
    socket.accept();
    vi.advanceTimersByTime(14_000);
    expect(connection.status).toBe('connecting');
    vi.advanceTimersByTime(2_000);
    expect(connection.status).toBe('foreign');
    expect(socket.sent).toEqual([]);
    expect(await call).toMatchObject({ ok: false });
  });
});

describe('what else may answer at the address', () => {
  const helloFor = async (socket: FakeSocket) => ({
    hello: { proof: await bridgeProof(TOKEN, 'server', socket.nonce), imagesKey: 'k' },
  });

  it('a server whose first frame is not a hello is not Byre', async () => {
    const connection = new BridgeConnection(address);
    const call = connection.invoke('appInfo', {});
    const socket = await nextSocket(1);
    socket.serverSays({ id: 1, result: { ok: true, value: 'I am Byre, honest' } });
    expect(connection.status).toBe('foreign');
    expect(await call).toMatchObject({ ok: false });
    expect(socket.sent).toEqual([]);
  });

  it('a server that takes the socket and closes it without a hello is not Byre', async () => {
    const connection = new BridgeConnection(address);
    const socket = await nextSocket(1);
    socket.accept();
    socket.serverCloses(1000);
    expect(connection.status).toBe('foreign');
  });

  it('a server that answers HTTP but refuses the socket is not Byre; a free port is only lost', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = new BridgeConnection(address);
    const first = await nextSocket(1);
    // Nothing listens (Byre restarting, say): the client waits and tries again.
    first.serverCloses(1006);
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1));
    expect(connection.status).toBe('lost');
    vi.advanceTimersByTime(250);
    const second = await nextSocket(2);
    // Something now answers HTTP there, but refuses the socket.
    listening = true;
    second.serverCloses(1006);
    await vi.waitFor(() => expect(connection.status).toBe('foreign'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds calls made while the connection is lost until the server proves itself again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = new BridgeConnection(address);
    const first = await nextSocket(1);
    first.serverSays(await helloFor(first));
    first.serverCloses(1006);
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1));
    // A call during the pause tries at once, once, rather than waiting out the timer.
    const call = connection.invoke('appInfo', {});
    const second = await nextSocket(2);
    expect(FakeSocket.opened).toHaveLength(2);
    second.accept();
    expect(second.sent).toEqual([]);
    second.serverSays(await helloFor(second));
    expect(second.sent.map((frame) => JSON.parse(frame) as unknown)).toEqual([
      { id: 1, channel: 'appInfo', payload: {} },
    ]);
    second.serverSays({ id: 1, result: { ok: true, value: 'back' } });
    expect(await call).toEqual({ ok: true, value: 'back' });
  });
});
