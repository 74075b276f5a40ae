import { spawn } from 'node:child_process';

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

/** `$SHELL -lc` (a login shell reads the user's profile: PATH and the rest), or cmd.exe on Windows. */
export function loginShell(env: NodeJS.ProcessEnv = process.env): string[] {
  if (process.platform === 'win32') return [env.ComSpec || 'cmd.exe', '/d', '/s', '/c'];
  return [env.SHELL || '/bin/sh', '-lc'];
}

export function runCheck(command: string, options: CheckOptions): Promise<CheckOutcome> {
  const started = Date.now();
  const [shell = '/bin/sh', ...shellArgs] = options.shell ?? loginShell(options.env);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let stopped = false;
    let spawnError: string | null = null;
    let killTimer: NodeJS.Timeout | undefined;

    const child = spawn(shell, [...shellArgs, command], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that the group can be killed whole.
      detached: process.platform !== 'win32',
      windowsHide: true,
    });

    const keep = (chunk: Buffer) => {
      chunks.push(chunk);
      kept += chunk.length;
      while (kept > options.maxOutputBytes && chunks.length > 0) {
        const first = chunks[0] as Buffer;
        const excess = kept - options.maxOutputBytes;
        truncated = true;
        if (first.length <= excess) {
          chunks.shift();
          kept -= first.length;
        } else {
          chunks[0] = first.subarray(excess);
          kept -= excess;
        }
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);

    const signalGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        if (process.platform === 'win32') child.kill(signal);
        else process.kill(-child.pid, signal);
      } catch {
        // Gone already.
      }
    };
    const end = (why: 'timeout' | 'stop') => {
      if (why === 'timeout') timedOut = true;
      else stopped = true;
      signalGroup('SIGTERM');
      killTimer ??= setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => end('timeout'), options.timeoutMs);
    const onAbort = () => end('stop');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      spawnError = error.message;
    });
    // The shell has exited: whatever it left running in its group goes too.
    child.on('exit', () => signalGroup('SIGKILL'));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode: code,
        signal: signal ?? null,
        timedOut,
        stopped,
        spawnError,
        output: Buffer.concat(chunks).toString('utf8'),
        outputTruncated: truncated,
        durationMs: Date.now() - started,
      });
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
