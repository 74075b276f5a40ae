import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RemoteProblem } from './run';
import { sshProgram, type SshSetup, type SshTarget } from './ssh';

/**
 * A host whose key ssh does not know: its keys' fingerprints, for the user to check, and, once the user has
 * accepted them, the keys written to the known_hosts file ssh reads for that host. Byre never accepts a key
 * unseen, and never one that is not the key shown.
 */

const TIMEOUT_MS = 15_000;

export interface HostKey {
  /** `SHA256:…`, as ssh and ssh-keygen -l print it. */
  fingerprint: string;
  type: string;
  /** The known_hosts line for it. */
  line: string;
}

/** The SHA256 fingerprint of a key's base64 blob, as OpenSSH prints it. */
export function fingerprintOf(base64Key: string): string {
  const digest = createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}

function run(
  command: 'ssh' | 'ssh-keyscan' | 'ssh-keygen',
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      sshProgram(env, command),
      args,
      { env, timeout: TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
    );
  });
}

interface Resolved {
  hostname: string;
  port: number;
  /** The file an accepted key is written to: the first of the user's. */
  knownHostsFile: string | null;
  /** Every file ssh checks the host's key against, the system's too. */
  knownHostsFiles: string[];
  /** HostKeyAlias: the name its key is kept under instead. */
  alias?: string;
  /** HashKnownHosts: names are written hashed. */
  hashed: boolean;
  /** It is reached through a ProxyJump or ProxyCommand. */
  proxied: boolean;
}

/** Where ssh would connect for a target, and the known_hosts file it would write to (`ssh -G`). */
async function resolveTarget(setup: SshSetup, target: SshTarget, env: NodeJS.ProcessEnv): Promise<Resolved> {
  const args = ['-F', setup.configFile ?? '/dev/null', '-G'];
  if (target.port !== undefined) args.push('-p', String(target.port));
  const { code, stdout } = await run('ssh', [...args, '--', target.destination], env);
  if (code !== 0)
    throw new RemoteProblem('other', `ssh could not read its config for ${target.destination}.`);
  const value = (key: string) =>
    stdout
      .split('\n')
      .find((line) => line.startsWith(`${key} `))
      ?.slice(key.length + 1)
      .trim();
  const files = (key: string) =>
    value(key)
      ?.split(/\s+/)
      .filter((file) => file && file !== 'none') ?? [];
  const hostname = value('hostname') ?? target.destination.replace(/^.*@/, '');
  // A name that could be a pattern in known_hosts (`*`, `,`, `!`) never becomes a line of it.
  if (!/^[A-Za-z0-9._:-]+$/.test(hostname)) {
    throw new RemoteProblem(
      'other',
      `ssh connects ${target.destination} to “${hostname}”, which is not a host name.`,
    );
  }
  const user = files('userknownhostsfile');
  const alias = value('hostkeyalias');
  return {
    hostname,
    port: Number(value('port') ?? 22),
    knownHostsFile: user[0] ?? null,
    knownHostsFiles: [...user, ...files('globalknownhostsfile')],
    ...(alias && alias !== 'none' ? { alias } : {}),
    hashed: value('hashknownhosts') === 'yes',
    // ssh-keyscan goes straight to the host: through a jump host or a proxy it would scan another machine.
    proxied: [value('proxyjump'), value('proxycommand')].some((hop) => hop !== undefined && hop !== 'none'),
  };
}

/** How known_hosts names a host: its HostKeyAlias, else `host`, or `[host]:port` off port 22. */
function knownHostsName({ hostname, port, alias }: Resolved): string {
  if (alias) return alias;
  return port === 22 ? hostname : `[${hostname}]:${port}`;
}

/** A known_hosts name as HashKnownHosts writes it: `|1|salt|HMAC-SHA1(salt, name)`. */
export function hashedHostName(name: string, salt: Buffer = randomBytes(20)): string {
  const hash = createHmac('sha1', salt).update(name).digest('base64');
  return `|1|${salt.toString('base64')}|${hash}`;
}

/** The keys the host offers now (ssh-keyscan), each with its fingerprint. */
async function scan(resolved: Resolved, env: NodeJS.ProcessEnv): Promise<HostKey[]> {
  const { stdout } = await run(
    'ssh-keyscan',
    ['-T', '10', '-p', String(resolved.port), '--', resolved.hostname],
    env,
  );
  const name = knownHostsName(resolved);
  return stdout.split('\n').flatMap((line) => {
    const [, type, key] = line.trim().split(/\s+/);
    if (!type || !key || line.startsWith('#')) return [];
    const written = resolved.hashed ? hashedHostName(name) : name;
    return [{ fingerprint: fingerprintOf(key), type, line: `${written} ${type} ${key}` }];
  });
}

/** The fingerprints of the keys a host offers, to show beside "the host key is not known". */
export async function hostKeyFingerprints(
  setup: SshSetup,
  target: SshTarget,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const resolved = await resolveTarget(setup, target, env);
  // Not scanned around the proxy: the user checks it from a terminal, as ssh asks there.
  if (resolved.proxied) return [];
  const keys = await scan(resolved, env);
  return keys.map((key) => `${key.fingerprint} (${key.type})`);
}

/**
 * Writes the keys the user accepted to the known_hosts file ssh reads for the host: only those whose
 * fingerprints were shown, scanned again now, so that a key swapped in meanwhile is refused.
 */
export async function acceptHostKeys(
  setup: SshSetup,
  target: SshTarget,
  accepted: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const resolved = await resolveTarget(setup, target, env);
  if (resolved.proxied) {
    throw new RemoteProblem(
      'unknown-host-key',
      `${target.destination} is reached through a jump host or a proxy, where Byre cannot check its key: connect once from a terminal (\`ssh ${target.destination}\`) and check it there.`,
    );
  }
  if (!resolved.knownHostsFile) {
    throw new RemoteProblem(
      'other',
      `The ssh config gives ${target.destination} no known_hosts file to keep its key in.`,
    );
  }
  // A host ssh already has a key for, whatever it is, is not "unknown": a changed key is refused, never added
  // beside the old one (which ssh would then take as well).
  const name = knownHostsName(resolved);
  for (const file of resolved.knownHostsFiles) {
    if (!existsSync(file)) continue;
    const known = await run('ssh-keygen', ['-F', name, '-f', file], env);
    if (known.code === 0 && known.stdout.trim()) {
      throw new RemoteProblem(
        'changed-host-key',
        `${file} already has a key for ${target.destination}, and it is not the one the host offers: Byre does not add another. If you know why the key changed, remove the old one with \`ssh-keygen -R ${name}\`.`,
      );
    }
  }
  const offered = await scan(resolved, env);
  if (offered.length === 0) {
    throw new RemoteProblem(
      'unreachable',
      `${target.destination} offered no host key to check: is it reachable?`,
    );
  }
  const keys = offered.filter((key) => accepted.includes(`${key.fingerprint} (${key.type})`));
  if (keys.length === 0) {
    throw new RemoteProblem(
      'changed-host-key',
      `The host key of ${target.destination} is not the one shown, so Byre did not accept it. Check the host, then try again.`,
    );
  }
  const file = resolved.knownHostsFile;
  if (!existsSync(dirname(file))) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    writeFileSync(file, '', { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  // A file that ends mid-line gets its line ended first.
  const before = readFileSync(file, 'utf8');
  const lead = before.length > 0 && !before.endsWith('\n') ? '\n' : '';
  appendFileSync(file, `${lead}${keys.map((key) => key.line).join('\n')}\n`);
}
