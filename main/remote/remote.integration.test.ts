import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createCliWorld,
  commandLinesWithHome,
  processesWithHome,
  REPO_ROOT,
  type CliWorld,
} from '../../e2e/fixtures/cli-env';
import { CliExited, Session } from '../claude';
import { createRemoteWorld, REMOTE_ALIAS, type RemoteWorld, type TestSshd } from '../test-support/sshd';
import { findRemoteCli, RemoteProblem, runOnHost } from './run';
import { controlPath, sshForwardArgs, sshTransport, type SshSetup } from './ssh';

/**
 * A conversation on another host over real OpenSSH: the test's own sshd on 127.0.0.1, and the "remote" is
 * this machine under another HOME, where the real CLI runs against the fake model. Only the model is fake.
 */

let world: CliWorld;
let remote: RemoteWorld;
let sshd: TestSshd;
let setup: SshSetup;
const target = { destination: REMOTE_ALIAS };

beforeAll(async () => {
  world = await createCliWorld();
  remote = await createRemoteWorld(world.fake.url);
  sshd = remote.sshd;
  setup = { configFile: sshd.configFile, controlDir: sshd.controlDir, persistSeconds: 5 };
});

afterAll(async () => {
  await remote?.dispose();
  await world?.dispose();
});

function installRemoteCli(): void {
  if (!existsSync(remote.cli)) {
    symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules', '.bin', 'claude')), remote.cli);
  }
}

async function openRemote(): Promise<Session> {
  const cli = await findRemoteCli(setup, target);
  return Session.start({
    cwd: remote.cwd,
    transport: sshTransport(setup, target, cli.path, { cwd: tmpdir(), env: process.env }),
  });
}

describe('a host over ssh', () => {
  it('says how to install Claude Code on a host without it', async () => {
    if (existsSync(remote.cli)) unlinkSync(remote.cli);
    const refused = await findRemoteCli(setup, target).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RemoteProblem);
    expect((refused as RemoteProblem).kind).toBe('no-cli');
    expect((refused as Error).message).toMatch(
      /not installed on byre-remote.*npm install -g @anthropic-ai\/claude-code/,
    );
  });

  it('finds the CLI where an installer puts it, with its version', async () => {
    installRemoteCli();
    const found = await findRemoteCli(setup, target);
    expect(found.path).toBe(remote.cli);
    expect(found.version).toMatch(/^2\.\d+\.\d+$/);
  });

  it('refuses a host whose key is not known, saying so', async () => {
    installRemoteCli();
    const unknown = {
      ...setup,
      configFile: sshd.unknownKeyConfigFile,
      controlDir: mkdtempSync(join(tmpdir(), 'bs-')),
    };
    const refused = await findRemoteCli(unknown, target).catch((error: unknown) => error);
    rmSync(unknown.controlDir, { recursive: true, force: true });
    expect(refused).toBeInstanceOf(RemoteProblem);
    expect((refused as RemoteProblem).kind).toBe('unknown-host-key');
    expect((refused as Error).message).toMatch(/host key of byre-remote is not known/);
  });

  it('streams a conversation there, and a Write lands in the host’s folder, not this one’s', async () => {
    installRemoteCli();
    const file = join(remote.cwd, 'written-there.txt');
    world.fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: file, content: 'from afar\n' } }] },
      { blocks: [{ type: 'text', text: 'Written on the host.' }] },
    );
    const session = await openRemote();
    try {
      const texts: string[] = [];
      session.on((event) => {
        if (event.kind !== 'message' || event.message.type !== 'assistant') return;
        for (const block of event.message.message.content) if (block.type === 'text') texts.push(block.text);
      });
      const result = await session.send('write a file').result;
      expect(result.subtype).toBe('success');
      expect(texts).toContain('Written on the host.');
      expect(readFileSync(file, 'utf8')).toBe('from afar\n');
      expect(existsSync(join(world.cwd, 'written-there.txt'))).toBe(false);
      // The host keeps the session file, under its own HOME.
      const projects = join(remote.home, '.claude', 'projects', remote.cwd.replace(/[^a-zA-Z0-9]/g, '-'));
      await vi.waitFor(() => expect(existsSync(join(projects, `${session.id}.jsonl`))).toBe(true), {
        timeout: 20_000,
        interval: 100,
      });
    } finally {
      await session.close({ graceMs: 1_000, termMs: 1_000 });
    }
  });

  it('carries none of the user config’s agent forwarding or port forwards on its long-lived connection, and still forwards the hooks’ socket', async () => {
    // What a user's ~/.ssh/config may well say for every host: their agent, and a port forward.
    const root = mkdtempSync(join(tmpdir(), 'byre-forward-'));
    const agentSocket = join(root, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', agentSocket], { stdio: 'ignore' });
    const forwardPort = await freePort();
    const controlDir = mkdtempSync(join(tmpdir(), 'bf-'));
    const configFile = join(root, 'ssh_config');
    writeFileSync(
      configFile,
      `${readFileSync(sshd.configFile, 'utf8')}\nHost *\n  ForwardAgent yes\n  LocalForward 127.0.0.1:${forwardPort} 127.0.0.1:${sshd.port}\n`,
    );
    try {
      await vi.waitFor(() => expect(existsSync(agentSocket)).toBe(true), { timeout: 10_000, interval: 50 });
      const forwarding = { configFile, controlDir, persistSeconds: 5 };
      const env = { ...process.env, SSH_AUTH_SOCK: agentSocket };
      const seen = await runOnHost(forwarding, target, 'printf "[%s]" "$SSH_AUTH_SOCK"', env);
      expect(seen.code).toBe(0);
      // The host has no way to the user's agent through Byre's connection...
      expect(seen.stdout).toContain('[]');
      // ...and the master Byre started while it runs listens on no port of this computer's.
      expect(await listens(forwardPort)).toBe(false);

      // A Terminal conversation's hooks reach Byre through a socket that master forwards: asked for
      // without the config, it is forwarded, and the config's port forward still is not.
      const here = join(root, 'here.sock');
      const received = new Promise<string>((resolve) => {
        const server = createServer((socket) => {
          socket.on('data', (data) => {
            resolve(String(data));
            server.close();
            socket.destroy();
          });
        }).listen(here);
      });
      const forward = { there: join(root, 'there.sock'), here };
      const asked = spawnSync('ssh', sshForwardArgs(forwarding, target, forward, 'forward'), { env });
      expect(String(asked.stderr)).toBe('');
      expect(asked.status).toBe(0);
      const reached = await runOnHost(
        forwarding,
        target,
        `node -e 'require("net").connect(process.argv[1], function () { this.end("hook") })' ${forward.there}`,
        env,
      );
      expect(reached.code).toBe(0);
      expect(await received).toBe('hook');
      expect(await listens(forwardPort)).toBe(false);
    } finally {
      spawnSync('ssh', [
        '-F',
        '/dev/null',
        '-o',
        `ControlPath=${controlPath({ configFile, controlDir }, target)}`,
        '-O',
        'exit',
        REMOTE_ALIAS,
      ]);
      agent.kill();
      rmSync(root, { recursive: true, force: true });
      rmSync(controlDir, { recursive: true, force: true });
    }
  });

  // Last: it stops the server.
  it('when the connection drops mid-turn, the turn ends with the exit and nothing is left running on the host', async () => {
    installRemoteCli();
    // Mid-turn: a command of Claude's runs on the host when the connection goes.
    world.fake.enqueue({
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'tail -f /dev/null', description: 'wait' } },
      ],
    });
    const session = await openRemote();
    const turn = session.send('run a long command');
    await vi.waitFor(
      () => expect(commandLinesWithHome(remote.home).some((line) => line === 'tail -f /dev/null')).toBe(true),
      {
        timeout: 30_000,
        interval: 100,
      },
    );
    sshd.dropConnections();
    await expect(turn.result).rejects.toBeInstanceOf(CliExited);
    // The wrapper on the host notices its sshd is gone and ends the CLI and its group, the command too.
    await vi.waitFor(() => expect(processesWithHome(remote.home)).toEqual([]), {
      timeout: 20_000,
      interval: 200,
    });
  });
});

/** A port of 127.0.0.1 no one listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Whether something accepts a connection on 127.0.0.1:port. */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
