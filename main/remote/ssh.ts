import { createHash } from 'node:crypto';
import type { Launch, PipeCommand } from '../claude';
import { findProgram } from '../disk/programs';

/**
 * Running the CLI on another machine over OpenSSH (DESIGN.md, "Remote hosts"): the arguments of every `ssh`
 * Byre runs, the line the remote shell runs, and what ssh's failures mean. Pure: nothing here runs a process.
 */

/** A host to run on: a `Host` alias of the config file, or `user@host` with a port. */
export interface SshTarget {
  destination: string;
  port?: number;
}

export interface SshSetup {
  /**
   * The one config file: the hosts Byre lists come from it, and every ssh is given it (-F), so that the
   * hosts listed and the hosts ssh knows are the same. Null when there is none: ssh then reads no config.
   */
  configFile: string | null;
  /** A private folder (0700) for the multiplexed connections' sockets; short, as a socket path must be. */
  controlDir: string;
  /** How long a master connection outlives its last use, in seconds. */
  persistSeconds?: number;
}

/** After this long without an answer from the host a connection counts as lost (3 probes 10 s apart). */
const ALIVE_INTERVAL_S = 10;
const ALIVE_COUNT = 3;
const CONNECT_TIMEOUT_S = 15;
const DEFAULT_PERSIST_S = 120;

/**
 * What the "Other…" field takes: `host`, `user@host` or `user@host:port`. Throws with the reason for
 * anything else; never a destination ssh could read as an option.
 */
export function parseSshTarget(text: string): SshTarget {
  const trimmed = text.trim();
  // Letters, digits and the few marks names have: nothing a shell (a ProxyCommand's %h, say) or ssh's own
  // patterns (`*`, `,`) could read as more than a name. An IPv6 address goes in brackets.
  const match =
    /^(?:([A-Za-z0-9_][A-Za-z0-9._+-]*)@)?(?:([A-Za-z0-9][A-Za-z0-9.-]*)|\[([0-9A-Fa-f:.]+)\])(?::(\d{1,5}))?$/.exec(
      trimmed,
    );
  const host = match?.[2] ?? match?.[3];
  if (!match || !host) {
    throw new Error(`“${trimmed}” is not a host: write it as host, user@host or user@host:port.`);
  }
  const destination = match[1] ? `${match[1]}@${host}` : host;
  const port = match[4] === undefined ? undefined : Number(match[4]);
  if (port !== undefined && (port < 1 || port > 65535)) {
    throw new Error(`${port} is not a port: it is a number from 1 to 65535.`);
  }
  return port === undefined ? { destination } : { destination, port };
}

/**
 * The arguments every ssh of Byre's starts with, up to and including the destination: the one config file,
 * never a prompt (BatchMode: a host that wants a password fails at once, with ssh's reason), never a host
 * key taken on trust (StrictHostKeyChecking: an unknown or changed key is refused), one multiplexed
 * connection per host, and a lost connection noticed within half a minute. That connection outlives the
 * command that opened it, so it carries nothing of the user's config beyond the way in: no agent forwarding
 * (a host, or anyone root there, could use the user's keys for as long as it lasts) and no port forwards.
 */
export function sshArgs(setup: SshSetup, target: SshTarget): string[] {
  if (target.destination.startsWith('-')) throw new Error(`“${target.destination}” is not a host.`);
  return [
    '-F',
    setup.configFile ?? '/dev/null',
    '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'ForwardAgent=no',
    '-o',
    'ClearAllForwardings=yes',
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${controlPath(setup, target)}`,
    '-o',
    `ControlPersist=${setup.persistSeconds ?? DEFAULT_PERSIST_S}`,
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    '-o',
    `ServerAliveInterval=${ALIVE_INTERVAL_S}`,
    '-o',
    `ServerAliveCountMax=${ALIVE_COUNT}`,
    ...(target.port === undefined ? [] : ['-p', String(target.port)]),
    '--',
    target.destination,
  ];
}

/**
 * The socket of a host's master connection: one per target, named by Byre (40 hex characters, as ssh's own
 * %C) rather than by ssh from the config, so that an ssh run without the config (-F /dev/null: a forward
 * added or cancelled, the master closed) finds the same master.
 */
export function controlPath(setup: SshSetup, target: SshTarget): string {
  const key = createHash('sha256')
    .update(`${target.destination}\0${target.port ?? ''}`)
    .digest('hex');
  return `${setup.controlDir}/${key.slice(0, 40)}`;
}

/** One word for a POSIX shell: single-quoted, with each ' written as '\''. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A POSIX sh script and its arguments as one line that every login shell passes to sh alike: the host runs
 * what Byre sends with the user's shell (`$SHELL -c`). csh and tcsh refuse a quoted newline and expand a `!`
 * even inside quotes, and fish reads `\\` inside quotes as one backslash. So no word holds a newline, a `!`
 * or two backslashes in a row: a word with any of them, or with a backslash, is sent escaped for printf's
 * `%b` (each as `\0ddd`, the one escape every shell leaves alone) behind a `%`, a word without them as it is
 * behind a `=`, and a one-line prelude turns them back into what they were before it runs the script.
 */
export function portableSh(script: string, args: readonly string[]): string {
  const octal = (char: string) => `\\0${char.charCodeAt(0).toString(8).padStart(3, '0')}`;
  const escape = (text: string) => text.replace(/[\\\n!]/g, octal);
  const word = (text: string) => (/[\\\n!]/.test(text) ? `%${escape(text)}` : `=${text}`);
  // Only an escaped word spends a process on $(…); `x` keeps its own trailing newlines, which $(…) drops.
  const prelude = [
    'n=$#',
    'for a do case $a in %*) v=$(printf "%bx" "${a#%}"); a=${v%x} ;; *) a=${a#=} ;; esac; set -- "$@" "$a"; done',
    'shift "$n"',
    'eval "$(printf "%b" "$0")"',
  ].join('; ');
  return ['sh', '-c', prelude, escape(script), ...args.map(word)].map(shellQuote).join(' ');
}

/**
 * sh that sets `$login` to how the user's login shell runs a command as a terminal there would: `-lc`, or
 * `-c` for csh and tcsh, which take `-l` only alone.
 */
export const LOGIN_FLAG = 'case "${SHELL##*/}" in csh|tcsh) login=-c ;; *) login=-lc ;; esac';

/** sh that makes the path in `$<name>` one in the host's home folder when it is `~` or starts with `~/`. */
export function inHostHome(name: string): string {
  return `case "$${name}" in "~") ${name}=$HOME/ ;; "~/"*) ${name}="$HOME/\${${name}#"~/"}" ;; esac`;
}

/**
 * The line every remote command of Byre's prints first, on a line of its own: what the host's shell printed
 * before it (a greeting from ~/.bashrc) is not the command's output (main/claude/preamble.ts).
 */
export const OUTPUT_MARKER = 'byre-output-starts-7f3c9e';

/** `line`, printing OUTPUT_MARKER first (in words every login shell reads alike: sh, bash, zsh, fish, csh). */
export function markedLine(line: string): string {
  return `printf '\\n%s\\n' ${OUTPUT_MARKER}; ${line}`;
}

/** What the wrapper exits with when the folder is not there (the CLI never started). */
export const NO_FOLDER_EXIT = 90;

/**
 * sh that goes into the folder in `$1` (`~/…` in the host's home), or says in words that it is not there
 * and exits NO_FOLDER_EXIT.
 */
export const INTO_FOLDER = [
  'dir=$1',
  inHostHome('dir'),
  `cd -- "$dir" 2>/dev/null || { printf "There is no folder %s on this host.\\n" "$dir" >&2; exit ${NO_FOLDER_EXIT}; }`,
];

/**
 * sh that starts `command` in a process group of its own, so that it and everything it
 * starts can be ended together, in the background: by `setsid` where there is one (Linux), else by job
 * control, which puts each background job in its own group (macOS, whose sh is bash; where neither works,
 * the command alone is ended).
 */
function inOwnGroup(command: string): string {
  return `if command -v setsid >/dev/null 2>&1; then setsid ${command} & else set -m 2>/dev/null; ${command} & fi`;
}

/**
 * The remote side of a conversation, in POSIX sh: it goes to the folder, starts the command with the
 * channel's stdin (its own process group where `setsid` exists, so that the tools it runs end with it), and
 * watches its parent, the sshd of the connection. When the connection is gone sshd is too, and the command
 * and its group get SIGTERM, then SIGKILL: no process is left on the host once the connection is. A normal
 * end is the CLI's own, on stdin's end, as on this machine; the wrapper then exits with its status.
 */
const WRAPPER = [
  // A folder typed as ~/… is in the host's home folder.
  'dir=$1',
  inHostHome('dir'),
  `cd -- "$dir" || exit ${NO_FOLDER_EXIT}`,
  'session=$2',
  'shift 2',
  'parent=$PPID',
  // One process per session on the host: one left from a connection the host never saw go (a network that
  // dropped) ends before another carries the session on, or both would write its file.
  'mark=',
  'if [ -n "$session" ]; then',
  '  marks="${XDG_RUNTIME_DIR:-$HOME/.cache}/byre"',
  '  mkdir -p "$marks" 2>/dev/null && chmod 700 "$marks" 2>/dev/null',
  '  mark="$marks/$session.pid"',
  '  old=$(cat "$mark" 2>/dev/null)',
  '  case "$old" in',
  "    ''|*[!0-9]*) ;;",
  // Only the session's own CLI: a pid the system gave to another process since is left alone.
  '    *) if ps -o args= -p "$old" 2>/dev/null | grep -F -q -- "$session"; then',
  '         kill -TERM "-$old" 2>/dev/null; kill -TERM "$old" 2>/dev/null',
  '         n=0; while kill -0 "$old" 2>/dev/null && [ "$n" -lt 20 ]; do sleep 0.1; n=$((n + 1)); done',
  '         kill -KILL "-$old" 2>/dev/null; kill -KILL "$old" 2>/dev/null',
  '       fi ;;',
  '  esac',
  'fi',
  // A job started with & reads /dev/null unless told otherwise: the channel's stdin is kept on fd 3 for it.
  'exec 3<&0',
  inOwnGroup('"$@" 0<&3 3<&-'),
  'child=$!',
  'exec 3<&-',
  '[ -n "$mark" ] && printf "%s\\n" "$child" >"$mark"',
  '(',
  "  trap '' HUP",
  '  while kill -0 "$child" 2>/dev/null; do',
  '    if ! kill -0 "$parent" 2>/dev/null; then',
  '      kill -TERM "-$child" 2>/dev/null; kill -TERM "$child" 2>/dev/null',
  '      sleep 2',
  '      kill -KILL "-$child" 2>/dev/null; kill -KILL "$child" 2>/dev/null',
  '      exit 0',
  '    fi',
  '    sleep 1',
  '  done',
  ') </dev/null >/dev/null 2>&1 &',
  'wait "$child"',
  'status=$?',
  // Its own mark only: a newer process of the session may have written one since.
  'if [ -n "$mark" ] && [ "$(cat "$mark" 2>/dev/null)" = "$child" ]; then rm -f "$mark"; fi',
  // What the CLI left running in its group (a command in the background, a server) ends with it, as here.
  'kill -TERM "-$child" 2>/dev/null',
  '( sleep 2; kill -KILL "-$child" 2>/dev/null ) </dev/null >/dev/null 2>&1 &',
  'exit "$status"',
].join('\n');

/**
 * The line the remote shell runs for a launch: the wrapper, the folder, then the CLI with the launch's own
 * environment changes (and nothing of this machine's environment) and its arguments, each word quoted.
 */
export function remoteLaunchLine(
  launch: Pick<Launch, 'args' | 'cwd' | 'envSet' | 'envUnset'>,
  cli: string,
): string {
  const env = [
    'env',
    ...launch.envUnset.flatMap((name) => ['-u', name]),
    ...Object.entries(launch.envSet).map(([name, value]) => `${name}=${value}`),
  ];
  // The session the process writes: a fork's new one, else the one carried on (an id is a uuid).
  const named = (flag: string) =>
    launch.args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
  const session = named('--session-id') ?? named('--resume') ?? '';
  const words = [launch.cwd, /^[\w-]+$/.test(session) ? session : '', ...env, cli];
  // `exec`: the login shell gives way to sh, so that the wrapper's parent is sshd whatever that shell is
  // (fish, say, does not exec its last command itself).
  return `exec ${portableSh(WRAPPER, [...words, ...launch.args])}`;
}

/**
 * The line the remote shell runs for a Terminal conversation: into the folder, then the interactive CLI with
 * `env` (its own changes only: nothing of this machine's environment) and its arguments, each word quoted. No
 * wrapper: the CLI runs in the terminal ssh asked the host for (-tt), the foreground job of that terminal, so
 * that it reads keys and hears window changes; and when the connection goes the host hangs that terminal up,
 * which ends the CLI and its tools, as for anyone's ssh session.
 */
export function remoteTerminalLine(
  folder: string,
  env: Readonly<Record<string, string>>,
  cli: string,
  args: readonly string[],
): string {
  const script = [...INTO_FOLDER, 'shift', 'exec "$@"'].join('\n');
  const words = [
    folder,
    'env',
    ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
    cli,
    ...args,
  ];
  return `exec ${portableSh(script, words)}`;
}

/**
 * The arguments of the ssh a Terminal conversation runs in its PTY: Byre's own (sshArgs), with a terminal
 * asked of the host (-tt, whatever ssh's stdin is). Its hooks' socket is forwarded by the master
 * (sshForwardArgs), since ClearAllForwardings drops a -R given here too.
 */
export function sshTerminalArgs(setup: SshSetup, target: SshTarget): string[] {
  const args = sshArgs(setup, target);
  args.splice(args.indexOf('-T'), 1, '-tt');
  return args;
}

/**
 * The ssh that has a host's master connection forward a socket there to one here (`-R there:here`; the
 * host's sshd makes it 0600, in a folder that is 0700), or stop (`cancel`): the master keeps a forward until
 * told. It reads no config (-F /dev/null), so that it asks for this forward and none of the config's, and
 * finds the master by its socket's path. It never makes a connection of its own.
 */
export function sshForwardArgs(
  setup: SshSetup,
  target: SshTarget,
  forward: { there: string; here: string },
  command: 'forward' | 'cancel',
): string[] {
  if (target.destination.startsWith('-')) throw new Error(`“${target.destination}” is not a host.`);
  return [
    '-F',
    '/dev/null',
    '-o',
    'BatchMode=yes',
    '-o',
    `ControlPath=${controlPath(setup, target)}`,
    '-O',
    command,
    '-R',
    forwardSpec(forward),
    '--',
    target.destination,
  ];
}

function forwardSpec(forward: { there: string; here: string }): string {
  // ssh reads the spec at its colons: a path with one cannot be forwarded (mkdtemp's never have one).
  if (forward.there.includes(':') || forward.here.includes(':')) {
    throw new Error('A socket path with a colon cannot be forwarded.');
  }
  return `${forward.there}:${forward.here}`;
}

/**
 * sh that gets a host ready for a Terminal conversation's hooks: it finds `node` (on the PATH of a login
 * shell), makes a private folder (0700, by mktemp) and writes the secret (the first line of its stdin) and the
 * hook script (the rest) there, 0600; it prints node's path and the folder. Exit 3: no node there.
 */
export const HOOKS_THERE = [
  'case "${SHELL##*/}" in csh|tcsh) look="which node" ;; *) look="command -v node" ;; esac',
  LOGIN_FLAG,
  'node=$("${SHELL:-sh}" "$login" "$look" 2>/dev/null </dev/null | tail -n 1)',
  '[ -n "$node" ] && [ -x "$node" ] || exit 3',
  'umask 077',
  'dir=$(mktemp -d "${TMPDIR:-/tmp}/byre-h-XXXXXXXX") || exit 4',
  'IFS= read -r secret || exit 5',
  'printf "%s" "$secret" >"$dir/secret" && cat >"$dir/hook.cjs" || { rm -rf "$dir"; exit 5; }',
  'printf "%s\\n%s\\n" "$node" "$dir"',
].join('\n');

/**
 * The remote side of a "Done when" check, in POSIX sh: in the folder, the user's login shell runs the check
 * in a process group of its own, its output on the channel. The channel's stdin is its lifeline: Byre holds
 * it open while the check may run, and its end (Byre stopped the check or timed it out, Byre is gone, or the
 * connection is) ends the check's group, SIGTERM then SIGKILL. A multiplexed connection outlives the
 * channel, so its sshd alone would not say. When the check ends by itself, what it left running in its
 * group ends too, as here; the wrapper exits with the check's status.
 */
const CHECK_WRAPPER = [
  ...INTO_FOLDER,
  'shift',
  'exec 3<&0',
  LOGIN_FLAG,
  inOwnGroup('"${SHELL:-/bin/sh}" "$login" "$1" </dev/null 3<&-'),
  'child=$!',
  '(',
  "  trap '' HUP",
  '  cat <&3 >/dev/null 2>&1',
  '  kill -TERM "-$child" 2>/dev/null; kill -TERM "$child" 2>/dev/null',
  '  sleep 2',
  '  kill -KILL "-$child" 2>/dev/null; kill -KILL "$child" 2>/dev/null',
  ') >/dev/null 2>&1 &',
  'lifeline=$!',
  'exec 3<&-',
  'wait "$child"',
  'status=$?',
  'kill "$lifeline" 2>/dev/null',
  'kill -TERM "-$child" 2>/dev/null',
  '( sleep 2; kill -KILL "-$child" 2>/dev/null ) </dev/null >/dev/null 2>&1 &',
  'exit "$status"',
].join('\n');

/** The line the remote shell runs for a "Done when" check: the wrapper, the folder, the command. */
export function remoteCheckLine(folder: string, command: string): string {
  return `exec ${portableSh(CHECK_WRAPPER, [folder, command])}`;
}

/**
 * The command that runs a launch on a host: ssh with Byre's arguments and the remote line. It runs from
 * `localCwd` (any folder of this machine: the conversation's own is on the host) with this machine's
 * environment, which holds what ssh needs (SSH_AUTH_SOCK, say) and goes no further than ssh.
 */
export function sshTransport(
  setup: SshSetup,
  target: SshTarget,
  cli: string,
  local: { cwd: string; env: NodeJS.ProcessEnv },
): (launch: Launch) => PipeCommand {
  return (launch) => ({
    command: sshProgram(local.env),
    args: [...sshArgs(setup, target), markedLine(remoteLaunchLine(launch, cli))],
    cwd: local.cwd,
    env: local.env,
    preamble: OUTPUT_MARKER,
    // A client of the master connection hands its stdio to the master, which outlives it.
    sharedStdio: true,
  });
}

/** The command that runs a "Done when" check on a host, in a folder there (as sshTransport, from `local`). */
export function sshCheck(
  setup: SshSetup,
  target: SshTarget,
  local: { cwd: string; env: NodeJS.ProcessEnv },
): (folder: string, command: string) => PipeCommand {
  return (folder, command) => ({
    command: sshProgram(local.env),
    args: [...sshArgs(setup, target), markedLine(remoteCheckLine(folder, command))],
    cwd: local.cwd,
    env: local.env,
    preamble: OUTPUT_MARKER,
  });
}

/**
 * The hosts a config file names, in its order: each `Host` line's patterns without wildcards or negation
 * (`*`, `?`, `!`), each once. `Include`d files are not read.
 */
export function hostsFromConfig(text: string): string[] {
  const hosts: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^host(?:\s*=\s*|\s+)(.+)$/i.exec(line);
    if (!match?.[1]) continue;
    for (const pattern of match[1].split(/\s+/)) {
      const name = pattern.replace(/^"(.*)"$/, '$1');
      if (!name || /[*?!]/.test(name) || hosts.includes(name)) continue;
      hosts.push(name);
    }
  }
  return hosts;
}

/** What went wrong with an ssh that exited 255 (ssh's own failure), from the end of its stderr. */
export type SshFailure =
  | { kind: 'unknown-host-key'; message: string }
  | { kind: 'changed-host-key'; message: string }
  | { kind: 'authentication'; message: string }
  | { kind: 'unreachable'; message: string }
  | { kind: 'connection-lost'; message: string }
  | { kind: 'other'; message: string };

/** ssh's own last words: its lines, without the banner a server may print. */
function sshWords(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !/^[@*]+$/.test(line))
    .slice(-4)
    .join(' ');
}

/**
 * Says in words what an ssh failure means and what to do, with ssh's own message beside it. `host` is the
 * destination as the user named it.
 */
export function explainSshFailure(stderr: string, host: string): SshFailure {
  const said = sshWords(stderr);
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(stderr)) {
    return {
      kind: 'changed-host-key',
      message: `The host key of ${host} has changed since it was last seen, so Byre refuses to connect: someone may be in the middle, or the host was reinstalled. If you know why it changed, remove the old key with \`ssh-keygen -R <host>\` and connect once from a terminal to check the new one. ssh said: ${said}`,
    };
  }
  if (/Host key verification failed|host key is known|No .* host key is known/i.test(stderr)) {
    return {
      kind: 'unknown-host-key',
      message: `The host key of ${host} is not known, and Byre never accepts one unseen. Check its fingerprint and accept it, or connect once from a terminal. ssh said: ${said}`,
    };
  }
  if (/Permission denied|Too many authentication failures|no more authentication methods/i.test(stderr)) {
    return {
      kind: 'authentication',
      message: `${host} refused the login. Byre never asks for a password: set up a key (\`ssh-keygen\`, then \`ssh-copy-id ${host}\`) or load one into your ssh agent (\`ssh-add\`). ssh said: ${said}`,
    };
  }
  if (
    /Could not resolve hostname|Connection refused|Connection timed out|No route to host|Network is unreachable|Operation timed out/i.test(
      stderr,
    )
  ) {
    return {
      kind: 'unreachable',
      message: `Byre cannot reach ${host}: check that it is on and that its name and port are right. ssh said: ${said}`,
    };
  }
  if (
    /Broken pipe|Connection reset|closed by remote host|Timeout, server .* not responding|Connection to .* closed/i.test(
      stderr,
    )
  ) {
    return {
      kind: 'connection-lost',
      message: `Connection lost: the connection to ${host} went away. ssh said: ${said}`,
    };
  }
  return { kind: 'other', message: `ssh to ${host} failed: ${said || 'it said nothing'}` };
}

/**
 * OpenSSH's programs (`ssh`, `ssh-keyscan`, `ssh-keygen`) by their full path on the PATH, as every program Byre runs
 * (disk/programs.ts): never one in the folder Byre was started from. The bare name when the PATH has none, so
 * that starting it fails as a missing program does and says so.
 */
export function sshProgram(
  env: NodeJS.ProcessEnv,
  name: 'ssh' | 'ssh-keyscan' | 'ssh-keygen' = 'ssh',
): string {
  return findProgram(name, env) ?? name;
}
