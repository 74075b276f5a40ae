import { spawn } from 'node:child_process';
import { Preamble } from '../lanes/lane';
import { findProgram } from '../disk/programs';

/**
 * Runs a "Done when" check: a command line, in the user's login shell, in the conversation's folder. The
 * shell and everything it starts are one process group, which is killed whole on a timeout or a stop, and
 * once the shell has exited (a check must not leave a server or a watcher running behind it).
 */

export interface CheckOptions {
  cwd: string;
  timeoutMs: number;
  /** Output kept, from its end: the failure is usually last. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** The shell and its arguments before the command; by default the login shell (see loginShell). */
  shell?: readonly string[];
  /**
   * Run it elsewhere (another host, over ssh): the process that runs `command` there, in place of the shell.
   * Its stdin is the check's lifeline, held open until the check ends or is ended; `cwd` is then unused.
   */
  via?: { command: string; args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv; preamble?: string };
  /** Over `via`: what its own failure means, from its exit code and output; null when it is the check's. */
  viaFailure?: (code: number | null, output: string, reached: boolean) => string | null;
}

export interface CheckOutcome {
  exitCode: number | null;
  /** The signal that ended the shell, when one did. */
  signal: string | null;
  timedOut: boolean;
  /** Stopped by the signal in the options (the user stopped Claude). */
  stopped: boolean;
  /** The shell could not be started at all. */
  spawnError: string | null;
  output: string;
  outputTruncated: boolean;
  durationMs: number;
}

/** How long a group asked to end (SIGTERM) has before it is killed. */
const KILL_GRACE_MS = 2_000;
/** How long a check elsewhere has to end its group there (the host's own SIGTERM to SIGKILL), and say so. */
const REMOTE_GRACE_MS = 5_000;
/**
 * Once the shell has exited, how long output still in the pipes may take to arrive. A process that left the
 * group (setsid, a daemon) may hold them open for good: the check is over when its shell is.
 */
const DRAIN_MS = 500;

/** The process groups of the checks running now, so that quitting the app ends them too. */
const liveGroups = new Set<() => void>();

/** Kills every check still running, with everything it started; for app quit, where waiting is not an option. */
export function killAllChecks(): void {
  for (const kill of [...liveGroups]) kill();
}

/** `$SHELL -lc` (a login shell reads the user's profile: PATH and the rest), or cmd.exe on Windows. */
export function loginShell(env: NodeJS.ProcessEnv = process.env): string[] {
  if (process.platform === 'win32') return [env.ComSpec || 'cmd.exe', '/d', '/s', '/c'];
  return [env.SHELL || '/bin/sh', '-lc'];
}

const WINDOWS = process.platform === 'win32';

/** Sends `signal` to the whole group led by `pid` (Windows: ends the whole process tree). */
function signalTree(pid: number, signal: NodeJS.Signals): void {
  try {
    if (WINDOWS) {
      // By its full path: never a taskkill.exe in the folder Byre was started from.
      const taskkill = findProgram('taskkill', process.env) ?? 'taskkill';
      spawn(taskkill, ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => undefined,
      );
    } else {
      process.kill(-pid, signal);
    }
  } catch {
    // Gone already.
  }
}

/**
 * The last `max` bytes of `chunks` as text: the cut never starts inside a UTF-8 character (its continuation
 * bytes are dropped with it).
 */
function keptText(chunks: readonly Buffer[], max: number): { text: string; truncated: boolean } {
  const all = Buffer.concat(chunks);
  if (all.length <= max) return { text: all.toString('utf8'), truncated: false };
  let start = all.length - max;
  while (start < all.length && ((all[start] as number) & 0xc0) === 0x80) start++;
  return { text: all.subarray(start).toString('utf8'), truncated: true };
}

export function runCheck(command: string, options: CheckOptions): Promise<CheckOutcome> {
  const started = performance.now();
  const [shell = '/bin/sh', ...shellArgs] = options.shell ?? loginShell(options.env);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = false;
    let timedOut = false;
    let stopped = false;
    let spawnError: string | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    // cmd.exe takes the command line as it is, quoted whole (as Node's own `shell: true` does).
    const cmdExe = WINDOWS && options.shell === undefined && !options.via;
    const { via } = options;
    const child = spawn(
      via ? via.command : shell,
      via ? [...via.args] : [...shellArgs, cmdExe ? `"${command}"` : command],
      {
        cwd: via ? via.cwd : options.cwd,
        env: via ? via.env : (options.env ?? process.env),
        // Elsewhere, stdin is the lifeline: its end ends the check there.
        stdio: [via ? 'pipe' : 'ignore', 'pipe', 'pipe'],
        // Its own process group, so that the group can be killed whole.
        detached: !WINDOWS,
        windowsHide: true,
        windowsVerbatimArguments: cmdExe,
      },
    );
    child.stdin?.on('error', () => undefined);

    const keep = (chunk: Buffer) => {
      chunks.push(chunk);
      kept += chunk.length;
      // Twice the cap at most in memory; the exact cut is made at the end.
      while (kept - (chunks[0]?.length ?? 0) >= options.maxOutputBytes && chunks.length > 1) {
        kept -= (chunks.shift() as Buffer).length;
        dropped = true;
      }
    };
    // What a host's shell printed before the check is not the check's (preamble.ts).
    const preamble = via?.preamble ? new Preamble(via.preamble) : null;
    child.stdout?.on('data', (chunk: Buffer) => keep(preamble ? preamble.take(chunk) : chunk));
    if (preamble) child.stdout?.on('end', () => keep(preamble.end()));
    child.stderr?.on('data', keep);

    const killGroup = () => {
      if (child.pid !== undefined) signalTree(child.pid, 'SIGKILL');
    };
    liveGroups.add(killGroup);
    const end = (why: 'timeout' | 'stop') => {
      if (settled) return;
      if (why === 'timeout') timedOut = true;
      else stopped = true;
      if (via) {
        // The lifeline's end, which ssh carries to the host: the check there ends its group (SIGTERM, SIGKILL
        // 2 s later), then its ssh. Ended here at once, ssh might not carry it first.
        child.stdin?.end();
        killTimer ??= setTimeout(killGroup, KILL_GRACE_MS + REMOTE_GRACE_MS);
        return;
      }
      if (child.pid !== undefined) signalTree(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(killGroup, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => end('timeout'), options.timeoutMs);
    const onAbort = () => end('stop');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      liveGroups.delete(killGroup);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      const output = keptText(chunks, options.maxOutputBytes);
      // ssh's own failure (the host could not be reached, say) is not the check's.
      // `reached`: the output marker came, so the host's shell ran Byre's line.
      if (options.viaFailure && !timedOut && !stopped) {
        spawnError ??= options.viaFailure(code, output.text, preamble ? preamble.found : true);
      }
      resolve({
        exitCode: code,
        signal: signal ?? null,
        timedOut,
        stopped,
        spawnError,
        output: output.text,
        outputTruncated: dropped || output.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    };

    child.on('error', (error) => {
      spawnError = error.message;
      // A shell that never started has no exit to wait for.
      if (child.pid === undefined) finish(null, null);
    });
    child.on('exit', (code, signal) => {
      // The shell has exited: whatever it left running in its group goes too, and the check is over once
      // its output has drained (or a moment later, if something outside the group holds the pipes).
      killGroup();
      clearTimeout(timer);
      drainTimer = setTimeout(() => finish(code, signal), DRAIN_MS);
      child.on('close', () => finish(code, signal));
    });
  });
}

/** What a check's end was, in words, for its card and for Claude. */
export function describeOutcome(outcome: CheckOutcome, timeoutMs: number): string {
  if (outcome.spawnError) return `could not be started: ${outcome.spawnError}`;
  if (outcome.stopped) return 'stopped';
  if (outcome.timedOut) return `timed out after ${formatDuration(timeoutMs)}`;
  if (outcome.exitCode === 127) return 'command not found (exit 127)';
  if (outcome.exitCode === 126) return 'command not executable (exit 126)';
  if (outcome.exitCode !== null) return `exit ${outcome.exitCode}`;
  return `killed by ${outcome.signal ?? 'a signal'}`;
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** The last `count` lines of `text`. */
export function lastLines(text: string, count: number): { text: string; dropped: boolean } {
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length <= count) return { text: lines.join('\n'), dropped: false };
  return { text: lines.slice(-count).join('\n'), dropped: true };
}
