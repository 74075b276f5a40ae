import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { findProgram, isExecutableFile } from '../../disk/programs';
import { z } from 'zod';
import { HookOutput } from '../../../shared/protocol';
import { PRIVATE_FILE_MODE } from '../../disk/private-files';

/**
 * How the hooks of a Terminal conversation's CLI reach Byre. The interactive CLI has no control channel, so
 * Byre passes hooks with `--settings` whose command is a small script: it reads the hook's input (JSON on
 * stdin), hands it to Byre over a Unix socket, and prints Byre's answer as the hook's output (a Stop hook's
 * `{"decision":"block"}` keeps Claude going, as "Done when" needs).
 *
 * Private to this user and this launch: the socket, the script and the secret are in a folder only this user
 * can enter (mkdtemp makes it 0700), and every call must carry the secret, which is read from a 0600 file
 * there (never an argument, which `ps` shows to everyone, nor the environment, which every tool Claude runs
 * would inherit). Nothing listens on a port. The folder goes when the channel closes.
 */

/** The hook events a Terminal conversation listens to (cli-facts 19). */
export const TERMINAL_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PermissionRequest',
  'Notification',
  'Stop',
] as const;
export type TerminalHookEvent = (typeof TERMINAL_HOOK_EVENTS)[number];

/** One hook call as the script sends it. */
const HookCall = z.object({
  secret: z.string().max(200),
  key: z.string().min(1).max(200),
  event: z.enum(TERMINAL_HOOK_EVENTS),
  payload: z.record(z.string(), z.unknown()),
});

export type HookHandler = (
  event: TerminalHookEvent,
  payload: Record<string, unknown>,
  /** Aborts when the CLI stops waiting for the hook (its timeout, the person pressed Escape, it exited). */
  signal: AbortSignal,
) => Promise<HookOutput> | HookOutput;

/** The most a hook's input may be: PostToolUse carries the tool's whole response. */
const MAX_CALL_BYTES = 32 * 1024 * 1024;

/**
 * The hook script, run by node (or Electron as node). It never fails the CLI's turn: when Byre cannot be
 * reached (it quit), the hook says nothing and exits 0, so the terminal goes on as a plain `claude` would.
 */
export const HOOK_SCRIPT = `'use strict';
const net = require('net');
const fs = require('fs');
const path = require('path');
const dir = __dirname;
const [key, event] = process.argv.slice(2);
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  let secret;
  let payload;
  try {
    secret = fs.readFileSync(path.join(dir, 'secret'), 'utf8');
    payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    process.exit(0);
  }
  const reply = [];
  const socket = net.connect(path.join(dir, 'hooks.sock'));
  socket.on('connect', () => socket.end(JSON.stringify({ secret, key, event, payload }) + '\\n'));
  socket.on('data', (chunk) => reply.push(chunk));
  socket.on('error', () => process.exit(0));
  socket.on('close', () => {
    const text = Buffer.concat(reply).toString('utf8').trim();
    if (text && text !== '{}') process.stdout.write(text);
    process.exit(0);
  });
});
`;

export class HookChannel {
  private readonly handlers = new Map<string, HookHandler>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    /** The private folder: the socket, the script, the secret. */
    readonly folder: string,
    private readonly secret: Buffer,
    private readonly server: Server,
    /** The program that runs the script, with what it needs in front (Electron runs as node). */
    private readonly node: HookRunner,
  ) {}

  /** Opens the channel: its folder, script, secret and socket. */
  static async open(node: HookRunner, parent: string = tmpdir()): Promise<HookChannel> {
    // Short: a Unix socket's path has about 100 bytes at most.
    const folder = mkdtempSync(join(parent, 'byre-h-'));
    const secret = randomBytes(32);
    writeFileSync(join(folder, 'secret'), secret.toString('hex'), { mode: PRIVATE_FILE_MODE });
    writeFileSync(join(folder, 'hook.cjs'), HOOK_SCRIPT, { mode: PRIVATE_FILE_MODE });
    // Half-open: the script ends its side once it has sent the call, and waits for the answer.
    const server = createServer({ allowHalfOpen: true });
    const channel = new HookChannel(folder, Buffer.from(secret.toString('hex')), server, node);
    server.on('connection', (socket) => channel.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(join(folder, 'hooks.sock'), () => {
        server.off('error', reject);
        resolve();
      });
    });
    return channel;
  }

  /** The socket the script calls (a host's hooks reach it through a forward of ssh's). */
  get socketPath(): string {
    return join(this.folder, 'hooks.sock');
  }

  /** The secret every call carries, for a host's copy of the script (written there 0600, as here). */
  get secretText(): string {
    return this.secret.toString('utf8');
  }

  /** Hooks named `key` go to `handler` until the returned function is called. */
  register(key: string, handler: HookHandler): () => void {
    this.handlers.set(key, handler);
    return () => {
      if (this.handlers.get(key) === handler) this.handlers.delete(key);
    };
  }

  /**
   * The `hooks` of the `--settings` that make a CLI report to `key`. `timeouts` gives an event more time than
   * the CLI's default (a Stop hook that runs the "Done when" check).
   */
  hooksFor(
    key: string,
    timeouts: Partial<Record<TerminalHookEvent, number>> = {},
    /** On another host: the node there and the folder there that holds the script (its socket forwarded here). */
    there?: { node: string; folder: string },
  ): Record<string, unknown> {
    const hooks: Record<string, unknown> = {};
    const runner = there ? { path: there.node, env: {} } : this.node;
    const script = there ? posix.join(there.folder, 'hook.cjs') : join(this.folder, 'hook.cjs');
    for (const event of TERMINAL_HOOK_EVENTS) {
      const command = [
        ...Object.entries(runner.env).map(([name, value]) => `${name}=${shellQuote(value)}`),
        shellQuote(runner.path),
        shellQuote(script),
        shellQuote(key),
        event,
        // Its folder gone (Byre quit before the CLI did): the hook says nothing, and the CLI goes on.
        '2>/dev/null || true',
      ].join(' ');
      const timeout = timeouts[event];
      const hook = { type: 'command', command, ...(timeout ? { timeout } : {}) };
      const tool = event === 'PreToolUse' || event === 'PostToolUse' || event === 'PermissionRequest';
      hooks[event] = [tool ? { matcher: '*', hooks: [hook] } : { hooks: [hook] }];
    }
    return hooks;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    const controller = new AbortController();
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CALL_BYTES) socket.destroy();
      else chunks.push(chunk);
    });
    socket.on('end', () => {
      void this.answer(Buffer.concat(chunks), controller.signal).then((output) => {
        answered = true;
        if (!socket.destroyed) socket.end(JSON.stringify(output));
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (!answered) controller.abort();
    });
  }

  private async answer(bytes: Buffer, signal: AbortSignal): Promise<HookOutput> {
    let call: z.infer<typeof HookCall>;
    try {
      call = HookCall.parse(JSON.parse(bytes.toString('utf8')));
    } catch {
      return {};
    }
    const given = Buffer.from(call.secret);
    if (given.length !== this.secret.length || !timingSafeEqual(given, this.secret)) return {};
    const handler = this.handlers.get(call.key);
    if (!handler) return {};
    try {
      return HookOutput.parse(await handler(call.event, call.payload, signal));
    } catch (error) {
      console.error(`Byre: a Terminal conversation's ${call.event} hook failed:`, error);
      return {};
    }
  }

  /** Stops listening and removes the folder; a hook that runs later finds nothing and says nothing. */
  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    this.handlers.clear();
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** The program that runs the hook script, with what it needs in its environment. */
export interface HookRunner {
  path: string;
  env: Record<string, string>;
}

/**
 * What runs the hook script. Under Node (the browser host), Node itself. Under Electron, a `node` on the PATH
 * the CLI gets: a packaged Byre has its runAsNode fuse off (electron-builder.yml), so its own binary run with
 * the script would start Byre again, not run it. Unpackaged (`npm start`), Electron as node will do. Null:
 * nothing here can run it, and a Terminal conversation then goes without its hooks (and says so).
 */
export function hookRunner(
  env: NodeJS.ProcessEnv,
  runtime: { execPath: string; electron: boolean; packaged: boolean; platform: NodeJS.Platform } = {
    execPath: process.execPath,
    electron: Boolean(process.versions.electron),
    packaged: Boolean(process.versions.electron) && !process.defaultApp,
    platform: process.platform,
  },
  isProgram: (path: string) => boolean = isExecutableFile,
): HookRunner | null {
  if (!runtime.electron) return { path: runtime.execPath, env: {} };
  // Only a full folder of the PATH: never one relative to wherever the hook happens to run.
  const node = findProgram(
    runtime.platform === 'win32' ? 'node.exe' : 'node',
    env,
    runtime.platform,
    isProgram,
  );
  if (node) return { path: node, env: {} };
  return runtime.packaged ? null : { path: runtime.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** A word for sh, as it is. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
