import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { Launch, PipeCommand } from '../claude';
import { acceptHostKeys, hostKeyFingerprints } from './host-keys';
import type { Machine } from '../machines/machine';
import { hostMachine } from '../machines/host-machine';
import { checkSsh, findRemoteCli, RemoteProblem, runMarked, runOnHost, runOnHostRaw } from './run';
import {
  HOOKS_THERE,
  hostsFromConfig,
  inHostHome,
  remoteTerminalLine,
  sshForwardArgs,
  sshTerminalArgs,
  parseSshTarget,
  portableSh,
  sshCheck,
  sshProgram,
  sshTransport,
  type SshSetup,
  type SshTarget,
} from './ssh';

/** How many folders the folder field offers at once. */
const FOLDERS_LISTED = 50;

/** A host a conversation runs on: its name as the user gave it, and the transport that reaches it. */
export interface RemoteHost {
  name: string;
  transport: (launch: Launch) => PipeCommand;
  /** The command that runs a "Done when" check there, in a folder there. */
  check: (folder: string, command: string) => PipeCommand;
  /** Its git and files, for the Changes panel's snapshots there. */
  machine: Machine;
  /** The home folder there (where Byre keeps its snapshots' private files there); null if it has none. */
  home: string | null;
  /** How a Terminal conversation runs there: the interactive CLI over ssh in a terminal, and its hooks. */
  terminal: HostTerminal;
}

/** A forward of a socket on the host (`there`) to one here. */
export interface SocketForward {
  there: string;
  here: string;
}

export interface HostTerminal {
  /** The ssh to run in a PTY: the CLI there in `folder` with `env` and `args`. */
  command(
    folder: string,
    cli: { args: readonly string[]; env: Readonly<Record<string, string>> },
  ): { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv };
  /**
   * A private folder there with the hook script and its secret, the node that runs it, and a socket there
   * (`hooks.sock`) the master connection forwards to `here`; null when the host has no node (the
   * conversation then goes without hooks, and says so). A RemoteProblem when the host cannot be reached.
   */
  prepareHooks(
    secret: string,
    script: string,
    here: string,
  ): Promise<{ node: string; folder: string; forward: SocketForward } | null>;
  /** Writes `bytes` as `name` in that private folder, readable by this user only; rejects if it cannot. */
  putFile(folder: string, name: string, bytes: Buffer): Promise<void>;
  /** Stops the forward and removes the folder there; never rejects (a host gone keeps nothing of Byre's). */
  releaseHooks(folder: string, forward: SocketForward): Promise<void>;
}

/**
 * The hosts Byre can run on, and their connections: the one config file (`~/.ssh/config` of os.homedir(),
 * or the file given), a private folder for the multiplexed connections' sockets made once per run, and the
 * hosts used, whose master connections are closed when Byre quits.
 */
export class RemoteHosts {
  private controlDir: string | null = null;
  /** Each host's machine, kept: it remembers what git's config names there (host-machine.ts). */
  private readonly machines = new Map<string, Machine>();

  constructor(
    /** The config file, and whether the user chose it (Settings) rather than the home folder's. */
    private readonly configFile: () => { file: string; chosen: boolean } = () => ({
      file: join(homedir(), '.ssh', 'config'),
      chosen: false,
    }),
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The config file, when it is there; null without one. A file the user chose that is gone is a
   * RemoteProblem: without it a host alias would go wherever the name alone leads.
   */
  config(): string | null {
    const { file, chosen } = this.configFile();
    if (existsSync(file)) return file;
    if (chosen) {
      throw new RemoteProblem(
        'no-config',
        `The ssh config file set in Settings, ${file}, is not there: Byre reaches no host without it. Set it again in Settings, or empty the field for ~/.ssh/config.`,
      );
    }
    return null;
  }

  list(): { configFile: string | null; hosts: string[] } {
    let configFile: string | null;
    try {
      configFile = this.config();
    } catch {
      // Listed as none; starting a conversation on a host says why.
      return { configFile: null, hosts: [] };
    }
    if (!configFile) return { configFile: null, hosts: [] };
    try {
      return { configFile, hosts: hostsFromConfig(readFileSync(configFile, 'utf8')) };
    } catch {
      // Unreadable: no hosts to list; "Other…" still works, and ssh says what is wrong with the file.
      return { configFile, hosts: [] };
    }
  }

  private setup(): SshSetup {
    if (!this.controlDir) {
      // Short, as a socket's path must be (104 bytes at most on macOS, whose temp folder alone is some 50),
      // and private to this user: mkdtemp makes it at once, 0700, under a name nobody can guess.
      const base = process.platform === 'win32' ? tmpdir() : '/tmp';
      const dir = mkdtempSync(join(base, 'byre-'));
      chmodSync(dir, 0o700);
      // A master's socket is 40 characters (controlPath); a new master binds a name some 17 longer first.
      if (dir.length + 1 + 40 + 17 >= 104) {
        rmSync(dir, { recursive: true, force: true });
        throw new RemoteProblem(
          'other',
          `Byre cannot keep its ssh connections in ${base}: the path is too long for a socket.`,
        );
      }
      this.controlDir = dir;
    }
    return { configFile: this.config(), controlDir: this.controlDir };
  }

  /** A host named as the user picked it: a listed alias as it is, anything else as user@host[:port]. */
  private target(name: string): SshTarget {
    if (this.list().hosts.includes(name)) return { destination: name };
    try {
      return parseSshTarget(name);
    } catch (error) {
      throw new RemoteProblem('bad-host', error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Gets a host ready for a conversation in `folder`: its CLI found, the folder there. The host, with the
   * transport a Session runs on; a RemoteProblem that says what is wrong otherwise.
   */
  async prepare(name: string, folder: string): Promise<RemoteHost & { folder: string }> {
    const target = this.target(name);
    const setup = this.setup();
    const cli = await findRemoteCli(setup, target, this.env).catch(async (error: unknown) => {
      if (!(error instanceof RemoteProblem) || error.kind !== 'unknown-host-key') throw error;
      // Shown to be checked, and accepted only as shown (acceptHostKey).
      const fingerprints = await hostKeyFingerprints(setup, target, this.env).catch(() => []);
      if (fingerprints.length === 0) throw error;
      throw new RemoteProblem(
        error.kind,
        `The host key of ${name} is not known, and Byre never accepts one unseen. Check that its fingerprint is the one the host's owner gives (\`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub\` on the host): ${fingerprints.join(', ')}.`,
        { host: name, fingerprints },
      );
    });
    // The folder's real path, then the home folder (its own line, whatever the folder's path holds).
    const check = `dir=$1; ${inHostHome('dir')}; cd -- "$dir" && pwd -P && printf "%s\\n" "$HOME"`;
    const line = portableSh(check, [folder]);
    const there = await runOnHost(setup, target, line, this.env);
    checkSsh(there, name);
    const [real, home] = there.stdout.replace(/\n$/, '').split('\n').slice(-2);
    if (there.code !== 0 || !real) {
      throw new RemoteProblem('no-folder', `There is no folder ${folder} on ${name}.`);
    }
    return {
      name,
      folder: real,
      home: home?.startsWith('/') ? home : null,
      transport: sshTransport(setup, target, cli.path, { cwd: homedir(), env: this.env }),
      check: sshCheck(setup, target, { cwd: homedir(), env: this.env }),
      machine: this.machine(name),
      terminal: this.hostTerminal(name, target, cli.path),
    };
  }

  private hostTerminal(name: string, target: SshTarget, cli: string): HostTerminal {
    return {
      command: (folder, run) => ({
        file: sshProgram(this.env),
        args: [...sshTerminalArgs(this.setup(), target), remoteTerminalLine(folder, run.env, cli, run.args)],
        cwd: homedir(),
        env: this.env,
      }),
      prepareHooks: async (secret, script, here) => {
        const result = await runMarked(
          this.setup(),
          target,
          portableSh(HOOKS_THERE, []),
          { timeoutMs: 30_000, maxBuffer: 64 * 1024, input: `${secret}\n${script}` },
          this.env,
        );
        checkSsh({ ...result, stdout: '' }, name);
        if (result.code !== 0) return null;
        const [node, folder] = result.stdout.toString('utf8').trim().split('\n').slice(-2);
        if (!node?.startsWith('/') || !folder?.startsWith('/')) return null;
        // The master the command above left running forwards the socket: an ssh in the terminal cannot ask
        // for it itself, as ClearAllForwardings, which keeps the config's forwards off, drops a -R too.
        const forward = { there: posix.join(folder, 'hooks.sock'), here };
        const added = await sshControl(sshForwardArgs(this.setup(), target, forward, 'forward'), this.env);
        if (!added.ok) {
          await runOnHost(this.setup(), target, portableSh('rm -rf -- "$1"', [folder]), this.env).catch(
            () => undefined,
          );
          throw new Error(`The hooks' socket could not be forwarded from ${name}: ${added.said}`);
        }
        return { node, folder, forward };
      },
      putFile: async (folder, file, bytes) => {
        const result = await runMarked(
          this.setup(),
          target,
          portableSh('umask 077 && cat > "$1/$2"', [folder, file]),
          // A minute, and a second more for each 128 kB (1 Mbit/s): a large image on a slow link.
          {
            timeoutMs: 60_000 + Math.ceil(bytes.length / 131_072) * 1_000,
            maxBuffer: 64 * 1024,
            input: bytes,
          },
          this.env,
        );
        checkSsh({ ...result, stdout: '' }, name);
        if (result.code !== 0) {
          const why = result.stderr.trim().split('\n').at(-1) ?? '';
          throw new Error(`The image could not be written on ${name}${why ? `: ${why}` : '.'}`);
        }
      },
      releaseHooks: async (folder, forward) => {
        let setup: SshSetup;
        try {
          setup = this.setup();
        } catch {
          return;
        }
        await sshControl(sshForwardArgs(setup, target, forward, 'cancel'), this.env);
        await runOnHost(setup, target, portableSh('rm -rf -- "$1"', [folder]), this.env).catch(
          () => undefined,
        );
      },
    };
  }

  /**
   * The folders on a host whose paths start with `prefix` (a folder's own when it ends in /, the home
   * folder's when it is empty), at most FOLDERS_LISTED; none when the host cannot be asked.
   */
  async folders(name: string, prefix: string): Promise<string[]> {
    const target = this.target(name);
    const list = [
      'prefix=$1',
      '[ -n "$prefix" ] || prefix="$HOME/"',
      inHostHome('prefix'),
      'n=0',
      'for d in "$prefix"*/; do',
      '  [ -d "$d" ] || continue',
      '  printf "%s\\n" "${d%/}"',
      '  n=$((n + 1))',
      `  [ "$n" -ge ${FOLDERS_LISTED} ] && break`,
      'done',
      'exit 0',
    ].join('\n');
    const result = await runOnHost(this.setup(), target, portableSh(list, [prefix]), this.env);
    if (result.code !== 0) return [];
    return result.stdout.split('\n').filter((line) => line.length > 0);
  }

  /**
   * The files at `paths` on a host (absolute paths there), each as its text (up to `maxBytes`), absent, or
   * unreadable with why, in one ssh. An answer that does not read as expected makes every file unreadable:
   * never taken as absent. A RemoteProblem when the host cannot be reached.
   */
  async readFiles(
    name: string,
    paths: readonly string[],
    maxBytes: number,
    /**
     * The most all of them may hold together (`left`); files past it are unreadable, saying that what the
     * folder carries is over `total` bytes.
     */
    budget: { left: number; total: number } = {
      left: paths.length * maxBytes,
      total: paths.length * maxBytes,
    },
  ): Promise<Map<string, HostFile>> {
    const result = await this.runRaw(
      name,
      portableSh(READ_FILES, [String(maxBytes), String(budget.left), String(budget.total), ...paths]),
      Math.min(budget.left, paths.length * maxBytes) + paths.length * 64 + 4096,
    );
    return parseReadFiles(result.code === 0 ? result.stdout : null, paths);
  }

  /**
   * The `.md` files under folders on a host, `depth` deep, by folder (what a folder carries, for trust); each
   * unreadable when the host's answer could not be read (more than 4 MB of names among them).
   */
  async listFiles(
    name: string,
    dirs: readonly { dir: string; depth: number }[],
  ): Promise<Map<string, { files: string[] } | { unreadable: string }>> {
    const line = portableSh(
      LIST_MD_FILES,
      dirs.map(({ dir, depth }) => `${depth}:${dir}`),
    );
    const result = await this.runRaw(name, line, 4 * 1024 * 1024).catch((error: unknown) => {
      if (error instanceof RemoteProblem) throw error;
      return { code: null, stdout: null };
    });
    return parseMdListing(
      result.code === 0 ? result.stdout : null,
      dirs.map(({ dir }) => dir),
    );
  }

  /** Runs a line on a host for its bytes (library-pull.ts); a RemoteProblem when the host cannot be reached. */
  async runRaw(
    name: string,
    line: string,
    maxBuffer: number,
  ): Promise<{ code: number | null; stdout: Buffer }> {
    return runOnHostRaw(this.setup(), this.target(name), line, maxBuffer, this.env);
  }

  /** A host's git and files, each use one ssh run over its connection (host-machine.ts). */
  machine(name: string): Machine {
    let machine = this.machines.get(name);
    if (!machine) {
      machine = hostMachine(name, (line, limits) =>
        runMarked(this.setup(), this.target(name), line, limits, this.env),
      );
      this.machines.set(name, machine);
    }
    return machine;
  }

  /** Keeps the host keys the user accepted, as shown, in the known_hosts file ssh reads for the host. */
  async acceptHostKey(name: string, fingerprints: readonly string[]): Promise<void> {
    await acceptHostKeys(this.setup(), this.target(name), fingerprints, this.env);
  }

  /**
   * Closes every master connection in the sockets' folder (`ssh -S <socket> -O exit`), whichever host, and
   * however the config names it now, then the folder.
   */
  async closeAll(): Promise<void> {
    const dir = this.controlDir;
    if (!dir) return;
    let sockets: string[] = [];
    try {
      sockets = readdirSync(dir).filter((name) => /^[0-9a-f]{40}$/.test(name));
    } catch {
      // Gone already.
    }
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            execFile(
              sshProgram(this.env),
              ['-F', '/dev/null', '-S', join(dir, socket), '-O', 'exit', 'byre-master'],
              { env: this.env, timeout: 5_000 },
              () => resolve(),
            );
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
    this.controlDir = null;
  }
}

/** A file on a host as read: its text, not there, or why it could not be read. */
export type HostFile =
  { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'unreadable'; reason: string };

/** sh that prints, for each path after the size limit, the limit of them all and the total to name, a line that says what it is, and a file's bytes after it. */
export const READ_FILES = [
  'max=$1',
  'left=$2',
  'total=$3',
  'shift 3',
  'for f do',
  '  if [ ! -e "$f" ]; then printf "A\\n"',
  // Only a regular file is read: a link to /dev/zero or a FIFO in a cloned repository would never end.
  '  elif [ ! -f "$f" ]; then printf "U it is not a file\\n"',
  '  elif [ ! -r "$f" ]; then printf "U it cannot be read\\n"',
  '  else',
  '    s=$(head -c "$((max + 1))" -- "$f" 2>/dev/null | wc -c | tr -d " ")',
  '    case $s in',
  '      ""|*[!0-9]*) printf "U it cannot be read\\n" ;;',
  '      *) if [ "$s" -gt "$max" ]; then printf "U it is over %s bytes\\n" "$max"',
  '         elif [ "$s" -gt "$left" ]; then printf "U Byre reads no more of the folder: what it carries is over %s bytes\\n" "$total"',
  '         else left=$((left - s)); printf "T %s\\n" "$s"; head -c "$s" -- "$f"; printf "\\n"; fi ;;',
  '    esac',
  '  fi',
  'done',
].join('\n');

/**
 * sh that lists the `.md` files under folders (its arguments: `depth:folder`, each), links followed, as
 * `<index> <path>` ended by NUL: a name can hold a newline. A folder that is not there lists nothing.
 */
export const LIST_MD_FILES = [
  'i=0',
  'for spec do',
  '  d=${spec#*:}',
  '  if [ -d "$d" ]; then find -L "$d" -maxdepth "${spec%%:*}" -type f -name "*.md" -exec printf "$i %s\\0" {} + 2>/dev/null; fi',
  '  i=$((i + 1))',
  'done',
  'printf "E"',
].join('\n');

/** LIST_MD_FILES' answer, folder by folder, each in name order; unreadable when it did not end as expected. */
export function parseMdListing(
  output: Buffer | null,
  dirs: readonly string[],
): Map<string, { files: string[] } | { unreadable: string }> {
  const listings = new Map<string, { files: string[] } | { unreadable: string }>();
  if (!output || output.at(-1) !== 0x45) {
    for (const dir of dirs) listings.set(dir, { unreadable: 'the host’s answer could not be read' });
    return listings;
  }
  const files: string[][] = dirs.map(() => []);
  for (const record of output.subarray(0, -1).toString('utf8').split('\0')) {
    const space = record.indexOf(' ');
    const index = Number(record.slice(0, space));
    if (space > 0 && Number.isInteger(index)) files[index]?.push(record.slice(space + 1));
  }
  dirs.forEach((dir, index) => listings.set(dir, { files: (files[index] ?? []).sort() }));
  return listings;
}

/** READ_FILES' answer, file by file; every file unreadable when it does not read as expected. */
export function parseReadFiles(output: Buffer | null, paths: readonly string[]): Map<string, HostFile> {
  const unreadable = () =>
    new Map<string, HostFile>(
      paths.map((path) => [path, { kind: 'unreadable', reason: 'the host’s answer could not be read' }]),
    );
  if (!output) return unreadable();
  const files = new Map<string, HostFile>();
  let at = 0;
  for (const path of paths) {
    const end = output.indexOf(0x0a, at);
    if (end < 0) return unreadable();
    const head = output.subarray(at, end).toString('utf8');
    at = end + 1;
    if (head === 'A') {
      files.set(path, { kind: 'absent' });
    } else if (head.startsWith('U ')) {
      files.set(path, { kind: 'unreadable', reason: head.slice(2) });
    } else {
      const size = /^T (\d+)$/.exec(head)?.[1];
      if (size === undefined) return unreadable();
      const bytes = Number(size);
      // The bytes, then the newline after them: a file that shrank while it was read does not end there (one
      // that grew is read as far as its size said).
      if (output[at + bytes] !== 0x0a) return unreadable();
      files.set(path, { kind: 'text', text: output.subarray(at, at + bytes).toString('utf8') });
      at += bytes + 1;
    }
  }
  return at === output.length ? files : unreadable();
}

/** An ssh that asks a master connection to do something (-O), within ten seconds; never rejects. */
function sshControl(args: string[], env: NodeJS.ProcessEnv): Promise<{ ok: boolean; said: string }> {
  return new Promise((resolve) => {
    execFile(sshProgram(env), args, { env, timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve({ ok: !error, said: String(stderr).trim().split('\n').at(-1) || (error?.message ?? '') }),
    );
  });
}
