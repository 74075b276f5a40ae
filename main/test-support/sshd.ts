import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { cliEnvironment, processesWithHome, REPO_ROOT } from '../../e2e/fixtures/cli-env';

/**
 * A real OpenSSH server for a test: Debian's sshd, run as a process of the test's own on 127.0.0.1 on a free
 * port, with a private sshd_config, a host key and an authorized key generated into a temp folder. The
 * machine's own ssh configuration is never read or touched. The "remote" is this machine under another HOME
 * (and whatever else `remoteEnv` sets, by sshd's SetEnv), so its paths differ from the local ones.
 */

export const SSHD = '/usr/sbin/sshd';
/** The Host alias the client config names the server by. */
export const REMOTE_ALIAS = 'byre-remote';

export interface TestSshd {
  port: number;
  /** A client config with one Host, REMOTE_ALIAS: the port, the key and a known_hosts that has the host's key. */
  configFile: string;
  /** The same without the host's key in its known_hosts: an unknown host. */
  unknownKeyConfigFile: string;
  /** That config's known_hosts file, empty at first. */
  unknownKnownHostsFile: string;
  /** The host key's SHA256 fingerprint, as ssh-keygen -l prints it. */
  fingerprint: string;
  /** A short private folder for ControlPath sockets. */
  controlDir: string;
  /** Kills the server and every connection it serves: what a host that went away looks like. */
  dropConnections(): void;
  /** Starts the server again after dropConnections, on the same port with the same keys: the host is back. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Starts sshd on a config: the server once it listens, or null and what it said. */
async function serve(config: string): Promise<{ server: ChildProcess | null; output: string }> {
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const { stderr } = child;
  let output = '';
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 20_000);
    stderr.setEncoding('utf8').on('data', (chunk: string) => {
      // What it says of each connection is kept short: only its start matters.
      if (output.length < 64 * 1024) output += chunk;
      if (/Server listening on/.test(output)) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (ready) return { server: child, output };
  child.kill('SIGKILL');
  return { server: null, output };
}

/** The pids of `root`'s descendants (Linux /proc). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

export async function startSshd(remoteEnv: Record<string, string>): Promise<TestSshd> {
  if (!existsSync(SSHD)) {
    throw new Error(
      `The remote-host tests need OpenSSH's server at ${SSHD}: apt-get install openssh-server (.ci/run does).`,
    );
  }
  const root = mkdtempSync(join(tmpdir(), 'byre-sshd-'));
  chmodSync(root, 0o700);
  const hostKey = join(root, 'host_key');
  const userKey = join(root, 'user_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  writeFileSync(join(root, 'authorized_keys'), readFileSync(`${userKey}.pub`));
  const fingerprint =
    execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`], {
      encoding: 'utf8',
    }).split(' ')[1] ?? '';
  // sshd's privilege separation needs it; it is the package's own folder, empty.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const controlDir = mkdtempSync(join(tmpdir(), 'bs-'));
  chmodSync(controlDir, 0o700);

  const setEnv = Object.entries(remoteEnv)
    .map(([name, value]) => `"${name}=${value}"`)
    .join(' ');
  let port = 0;
  let server: ChildProcess | undefined;
  let output = '';
  const config = join(root, 'sshd_config');
  for (let attempt = 0; attempt < 5 && !server; attempt++) {
    port = await freePort();
    writeFileSync(
      config,
      [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${join(root, 'authorized_keys')}`,
        `PidFile ${join(root, 'sshd.pid')}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        // The tests run as root on CI: a key is enough, as for anyone.
        'PermitRootLogin prohibit-password',
        // The temp folder's modes are the test's, not a home's.
        'StrictModes no',
        'UsePAM no',
        'PrintMotd no',
        `SetEnv ${setEnv}`,
        // INFO says when it listens.
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    const started = await serve(config);
    output = started.output;
    // Another process may have taken the port meanwhile: another one, then.
    server = started.server ?? undefined;
  }
  if (!server) throw new Error(`sshd did not start: ${output}`);
  const knownHosts = join(root, 'known_hosts');
  writeFileSync(
    knownHosts,
    `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`,
  );
  writeFileSync(join(root, 'known_hosts_empty'), '');
  const clientConfig = (known: string) =>
    [
      `Host ${REMOTE_ALIAS}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${userInfo().username}`,
      `  IdentityFile ${userKey}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${known}`,
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n');
  const configFile = join(root, 'ssh_config');
  writeFileSync(configFile, clientConfig(knownHosts));
  const unknownKeyConfigFile = join(root, 'ssh_config_unknown');
  writeFileSync(unknownKeyConfigFile, clientConfig(join(root, 'known_hosts_empty')));

  let running = server;
  const dropConnections = () => {
    if (running.pid === undefined) return;
    for (const pid of [...descendants(running.pid).filter(isSshd), running.pid]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  };
  return {
    port,
    configFile,
    unknownKeyConfigFile,
    unknownKnownHostsFile: join(root, 'known_hosts_empty'),
    fingerprint,
    controlDir,
    dropConnections,
    async restart() {
      const again = await serve(config);
      if (!again.server) throw new Error(`sshd did not start again: ${again.output}`);
      running = again.server;
    },
    async stop() {
      dropConnections();
      if (running.exitCode === null && running.signalCode === null) {
        await new Promise((resolve) => running.once('exit', resolve));
      }
      rmSync(root, { recursive: true, force: true });
      rmSync(controlDir, { recursive: true, force: true });
    },
  };
}

function isSshd(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sshd';
  } catch {
    return false;
  }
}

/**
 * A "remote" for a test: a HOME and a working folder of its own, the real CLI where an installer puts it
 * (`~/.local/bin/claude`, not on the PATH), onboarding done, and a test sshd whose sessions get that HOME and
 * the fake model's address.
 */
export interface RemoteWorld {
  sshd: TestSshd;
  home: string;
  cwd: string;
  /** Where the CLI is installed on the remote (a link to the project's pinned CLI). */
  cli: string;
  dispose(): Promise<void>;
}

export async function createRemoteWorld(fakeModelUrl: string): Promise<RemoteWorld> {
  const root = mkdtempSync(join(tmpdir(), 'byre-remote-'));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  const cli = join(home, '.local', 'bin', 'claude');
  mkdirSync(dirname(cli), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules', '.bin', 'claude')), cli);
  // The remote's PATH has no claude of the project's: it is found where an installer puts it.
  const env = cliEnvironment(home, fakeModelUrl, { PATH: '/usr/local/bin:/usr/bin:/bin' });
  const sshd = await startSshd(
    Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    ),
  );
  return {
    sshd,
    home,
    cwd,
    cli,
    async dispose() {
      await sshd.stop();
      for (const pid of processesWithHome(home)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
