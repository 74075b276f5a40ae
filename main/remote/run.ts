import { execFile } from 'node:child_process';
import { CliExited } from '../claude';
import { Preamble } from '../claude/preamble';
import {
  explainSshFailure,
  LOGIN_FLAG,
  markedLine,
  NO_FOLDER_EXIT,
  OUTPUT_MARKER,
  portableSh,
  sshArgs,
  sshProgram,
  type SshSetup,
  type SshTarget,
} from './ssh';

/** Short commands on a host over its multiplexed connection: what the remote CLI is, and where. */

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** It had not finished within its time (RUN_TIMEOUT_MS, or RAW_TIMEOUT_MS), and was ended. */
  timedOut?: boolean;
  /** That time, in ms, when it is not RUN_TIMEOUT_MS. */
  timeoutMs?: number;
  /** ssh itself could not be run (not installed, say). */
  spawnFailed?: boolean;
}

/** A host could not be used: what went wrong, in words, and of which kind. */
export class RemoteProblem extends Error {
  override readonly name = 'RemoteProblem';
  constructor(
    readonly kind: string,
    message: string,
    /** For a host key not known: the keys the host offers, to check and accept. */
    readonly hostKey?: { host: string; fingerprints: string[] },
  ) {
    super(message);
  }
}

const RUN_TIMEOUT_MS = 30_000;
/** For a run that brings bytes back (the library's copies): up to some MB over a slow link. */
const RAW_TIMEOUT_MS = 120_000;
/** The oldest CLI whose stream-json and control channel Byre speaks. */
export const MIN_REMOTE_CLI = '2.1.0';
const INSTALL_COMMAND = 'npm install -g @anthropic-ai/claude-code';

/** A run's result with its output's bytes, and whether the host's shell ran Byre's line (its marker came). */
export type MarkedRun = Omit<SshResult, 'stdout'> & { stdout: Buffer; reached: boolean };

/** How long a run may take, how much it may print, and what it reads on its stdin (nothing otherwise). */
export interface RunLimits {
  timeoutMs: number;
  maxBuffer: number;
  input?: Buffer | string;
}

/**
 * Runs `line` in the host's shell, its output marked (markedLine) and taken after the marker: its exit code,
 * its output's bytes and what ssh said. Its stdin is `input`, then its end. Never rejects.
 */
export function runMarked(
  setup: SshSetup,
  target: SshTarget,
  line: string,
  limits: RunLimits,
  env: NodeJS.ProcessEnv,
): Promise<MarkedRun> {
  return new Promise((resolve) => {
    const child = execFile(
      sshProgram(env),
      [...sshArgs(setup, target), markedLine(line)],
      { env, timeout: limits.timeoutMs, maxBuffer: limits.maxBuffer, encoding: 'buffer' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        const preamble = new Preamble(OUTPUT_MARKER);
        const taken = Buffer.concat([preamble.take(stdout), preamble.end()]);
        resolve({
          code,
          stdout: taken,
          reached: preamble.found,
          stderr: stderr.toString('utf8'),
          ...(error?.killed ? { timedOut: true, timeoutMs: limits.timeoutMs } : {}),
          ...(error?.code === 'ENOENT' ? { spawnFailed: true } : {}),
        });
      },
    );
    // A command that reads its stdin gets `input` and then its end, never a pipe left open to wait on.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(limits.input ?? '');
  });
}

/** Runs `line` in the host's shell. Resolves with what it printed and its exit code; never rejects. */
export async function runOnHost(
  setup: SshSetup,
  target: SshTarget,
  line: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SshResult> {
  const result = await runMarked(
    setup,
    target,
    line,
    { timeoutMs: RUN_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
    env,
  );
  const { reached: _reached, ...rest } = result;
  return { ...rest, stdout: result.stdout.toString('utf8') };
}

/**
 * Runs `line` in the host's shell for its bytes, as they are (up to `maxBuffer`): its exit code and output.
 * Throws a RemoteProblem when ssh itself failed.
 */
export async function runOnHostRaw(
  setup: SshSetup,
  target: SshTarget,
  line: string,
  maxBuffer: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: Buffer }> {
  const result = await runMarked(setup, target, line, { timeoutMs: RAW_TIMEOUT_MS, maxBuffer }, env);
  checkSsh({ ...result, stdout: '' }, target.destination);
  return { code: result.code, stdout: result.stdout };
}

/** Throws a RemoteProblem saying what is wrong when ssh itself failed (exit 255, or it could not run). */
export function checkSsh(result: SshResult, host: string): void {
  if (result.timedOut) {
    const seconds = (result.timeoutMs ?? RUN_TIMEOUT_MS) / 1000;
    throw new RemoteProblem('unreachable', `${host} did not answer within ${seconds} s.`);
  }
  if (result.code !== 255 && result.code !== null) return;
  if (result.spawnFailed) {
    throw new RemoteProblem(
      'no-ssh',
      'Byre needs OpenSSH’s ssh on this computer to reach other hosts; it was not found on the PATH.',
    );
  }
  const failure = explainSshFailure(result.stderr, host);
  throw new RemoteProblem(failure.kind, failure.message);
}

/**
 * Finds the CLI on a host as Byre does here: on the PATH of a login shell, then in ~/.local/bin and npm's
 * global bin. Its path and version; a RemoteProblem that says how to install it when it is missing or older
 * than Byre speaks.
 */
export async function findRemoteCli(
  setup: SshSetup,
  target: SshTarget,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ path: string; version: string }> {
  const look = [
    // csh's own way to say where a command is: it has no `command -v`.
    'case "${SHELL##*/}" in csh|tcsh) look="which claude" ;; *) look="command -v claude" ;; esac',
    LOGIN_FLAG,
    'found=$("${SHELL:-sh}" "$login" "$look" 2>/dev/null </dev/null | tail -n 1)',
    'for c in "$found" "$HOME/.local/bin/claude" "$(npm prefix -g 2>/dev/null)/bin/claude"; do',
    '  if [ -n "$c" ] && [ -x "$c" ]; then printf "%s\\n" "$c"; "$c" --version 2>/dev/null </dev/null | head -n 1; exit 0; fi',
    'done',
    'exit 127',
  ].join('\n');
  const result = await runOnHost(setup, target, portableSh(look, []), env);
  checkSsh(result, target.destination);
  const [path, versionLine] = result.stdout.trim().split('\n');
  if (result.code !== 0 || !path) {
    throw new RemoteProblem(
      'no-cli',
      `Claude Code is not installed on ${target.destination} (Byre looked on the PATH of a login shell, in ~/.local/bin and in npm’s global bin). Install it there with \`${INSTALL_COMMAND}\`.`,
    );
  }
  const version = /\d+\.\d+\.\d+/.exec(versionLine ?? '')?.[0] ?? '';
  if (!version || compareVersions(version, MIN_REMOTE_CLI) < 0) {
    throw new RemoteProblem(
      'old-cli',
      `Claude Code on ${target.destination} is ${version || 'of an unknown version'}; Byre needs ${MIN_REMOTE_CLI} or newer. Update it there with \`${INSTALL_COMMAND}\`.`,
    );
  }
  return { path, version };
}

/** Compares dotted versions by their numbers. */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/**
 * What a remote conversation's exit means: ssh's own failure (exit 255: most often the connection lost, for
 * a multiplexed client that says nothing of why), the folder gone from the host, or the CLI's own exit.
 */
export function explainRemoteExit(error: Error, host: string): Error {
  if (!(error instanceof CliExited)) return error;
  if (error.code === NO_FOLDER_EXIT) {
    return new RemoteProblem('no-folder', `The conversation's folder is no longer there on ${host}.`);
  }
  if (error.code === null && error.signal) {
    // Killed here (by the OS, or a master connection that died): no word from ssh, the connection is gone.
    return new RemoteProblem(
      'connection-lost',
      `Connection lost: the ssh to ${host} was ended (${error.signal}). What happened before it is kept in the session on the host: Resume carries on there.`,
    );
  }
  if (error.code !== 255) return error;
  const failure = explainSshFailure(error.stderrTail, host);
  if (failure.kind !== 'other') return new RemoteProblem(failure.kind, failure.message);
  return new RemoteProblem(
    'connection-lost',
    `Connection lost: the connection to ${host} went away${error.stderrTail.trim() ? ` (ssh said: ${error.stderrTail.trim().split('\n').slice(-2).join(' ')})` : ''}. What happened before it is kept in the session on the host: Resume carries on once ${host} can be reached again. If the host did not notice the connection go (a network that dropped, not a host that went down), Claude Code may still be running there until it does.`,
  );
}

/**
 * What a "Done when" check's ssh exit says of ssh itself or the wrapper, from its output (ssh's stderr is
 * in it); null when the exit is the check's own.
 */
export function explainCheckExit(
  code: number | null,
  output: string,
  host: string,
  /** The host's shell ran Byre's line (its output marker came): the exit is the wrapper's or the check's. */
  reached: boolean,
): string | null {
  if (!reached) {
    // Byre's line never ran: whatever the exit, it is ssh's (or the host shell's) own.
    if (code === 0) return null;
    const failure = explainSshFailure(output, host);
    return failure.message;
  }
  // The wrapper's own exit, which it says in words; a check that exits 90 is the check's.
  if (code === NO_FOLDER_EXIT && /^There is no folder .* on this host\.$/m.test(output)) {
    return `the conversation's folder is no longer there on ${host}.`;
  }
  // 255 after the line ran is the check's own, unless ssh's last words say the connection went.
  if (code === 255) {
    const failure = explainSshFailure(output.split('\n').slice(-3).join('\n'), host);
    if (failure.kind === 'connection-lost') return failure.message;
  }
  return null;
}
