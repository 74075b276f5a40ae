import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CliExited } from './errors';
import { LineSplitter, type LineSink } from './lines';
import { Preamble } from './preamble';
import { liveProcesses } from './registry';

/**
 * The byte pipe under the protocol: spawns the CLI, frames stdout into lines, keeps stderr's tail, writes
 * lines to stdin, and shuts down in stages. It knows nothing about message kinds.
 */

export interface PipeOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxLineBytes?: number;
  /** How much of stderr to keep for error messages. */
  stderrTailBytes?: number;
  /** Stdout starts with what a host's shell printed, up to a line that is this marker: dropped (preamble.ts). */
  preamble?: string;
  /**
   * Its stdio may be held by a process outside its group: an ssh multiplexed over a master connection hands
   * its stdin, stdout and stderr to the master, which outlives it. Killed (by the OS, or a master that died),
   * it would hold off 'close' until the master ends the session, if ever: once it exits, what is already
   * there is read, and the pipes are closed.
   */
  sharedStdio?: boolean;
}

export interface PipeEvents extends LineSink {
  exit(info: ExitInfo): void;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
  /** True when the exit was asked for (close/kill); false when the CLI went away by itself. */
  expected: boolean;
  /** Why the process could not run at all (e.g. spawn failed). */
  spawnError?: Error;
}

export interface CloseTimings {
  /** After stdin EOF, how long the CLI gets to finish its turn and exit. */
  graceMs?: number;
  /** After SIGTERM, how long before SIGKILL. */
  termMs?: number;
}

const DEFAULT_STDERR_TAIL = 8 * 1024;
/** How long one turn of the event loop may spend on the CLI's output before it lets other work run. */
const READ_SLICE_MS = 8;

/** How long a refused write waits for the CLI's exit, to report it (it exits within moments of closing). */
const EXIT_WAIT_MS = 5_000;
/** After stdin EOF, how long the CLI has to exit by itself, then after SIGTERM: 2.5 s in all. */
const DEFAULT_GRACE_MS = 1_500;
const DEFAULT_TERM_MS = 1_000;
/** Process groups (POSIX): the CLI is spawned as the leader of its own, so that it and its tools end together. */
const GROUPS = process.platform !== 'win32';
/** What is left of the CLI's group after it exits gets this long between SIGTERM and SIGKILL. */
const LEFTOVER_GRACE_MS = 1_000;
/** After a process whose stdio another may hold exits, how long its output has to arrive before the pipes close. */
const SHARED_STDIO_DRAIN_MS = 300;

export class CliPipe {
  readonly pid: number | undefined;
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcessWithoutNullStreams;
  private stderrTail = '';
  private closing = false;
  private exitInfo: ExitInfo | undefined;
  private readonly command: string;

  constructor(
    options: PipeOptions,
    private readonly events: PipeEvents,
  ) {
    const tailBytes = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL;
    this.command = options.command;
    this.child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      // A process group of its own: the CLI and the tools it runs (a Bash command, say) end together.
      detached: GROUPS,
    });
    this.pid = this.child.pid;
    const splitter = new LineSplitter(events, options.maxLineBytes);
    const preamble = options.preamble ? new Preamble(options.preamble) : null;
    const stdout = this.child.stdout;
    // libuv reads a pipe up to 32 times in one go when the CLI writes fast (a resumed or bulk turn), so a
    // burst would hold the event loop for hundreds of ms. After READ_SLICE_MS of work in one turn of the
    // loop, stop reading until the next: timers, IPC and the other conversations get their turn.
    let sliceStart = -1;
    stdout.on('data', (chunk: Buffer) => {
      if (sliceStart < 0) {
        sliceStart = performance.now();
        setImmediate(() => (sliceStart = -1));
      }
      splitter.push(preamble ? preamble.take(chunk) : chunk);
      if (performance.now() - sliceStart > READ_SLICE_MS && !stdout.isPaused()) {
        stdout.pause();
        setImmediate(() => stdout.resume());
      }
    });
    this.child.stdout.on('end', () => {
      if (preamble) splitter.push(preamble.end());
      splitter.end();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-tailBytes);
    });
    // EPIPE after the CLI died is reported through exit, not as an unhandled error.
    this.child.stdin.on('error', () => undefined);

    let spawnError: Error | undefined;
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        spawnError = error;
        if (this.child.pid === undefined) this.finish({ code: null, signal: null, spawnError }, resolve);
      });
      // 'close' waits for stdout to drain, so every line is delivered before exit is.
      this.child.once('close', (code, signal) => this.finish({ code, signal, spawnError }, resolve));
    });
    // The CLI is gone, closed or crashed: what is left of its group (a tool it was running, work it put in
    // the background) has no one to report to. Asked to stop, then made to. On 'exit', not 'close': a
    // leftover holding the CLI's stdout open would otherwise hold off 'close' for good.
    this.child.once('exit', () => {
      this.endGroup();
      if (options.sharedStdio) {
        setTimeout(() => {
          if (this.exitInfo !== undefined) return;
          stdout.destroy();
          this.child.stderr.destroy();
        }, SHARED_STDIO_DRAIN_MS).unref();
      }
    });
    liveProcesses.add(this);
  }

  private endGroup(): void {
    if (this.signalGroup('SIGTERM')) setTimeout(() => this.signalGroup('SIGKILL'), LEFTOVER_GRACE_MS).unref();
  }

  /** Sends `signal` to the CLI's process group; false where there are no groups or nothing is left in it. */
  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (!GROUPS || pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  get stderr(): string {
    return this.stderrTail.trim();
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /**
   * Writes one line; resolves once the OS took it (back-pressure), rejects if the CLI is gone. A write
   * refused by a CLI on its way out (EPIPE) comes before its exit does: the error waits for the exit, so it
   * says how the CLI really ended and what it wrote on stderr.
   */
  write(line: string): Promise<void> {
    const stdin = this.child.stdin;
    if (!this.running || stdin.destroyed || stdin.writableEnded) return this.failedWrite();
    return new Promise((resolve, reject) => {
      stdin.write(`${line}\n`, (error) => (error ? this.failedWrite().catch(reject) : resolve()));
    });
  }

  /** Rejects with the CLI's exit once it has exited (at most EXIT_WAIT_MS after a refused write). */
  private async failedWrite(): Promise<never> {
    if (this.running) await this.exitsWithin(EXIT_WAIT_MS);
    throw this.exitError();
  }

  /** Stdin EOF: the CLI finishes the turn it is on, then exits (cli-facts §10). */
  endInput(): void {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
  }

  /**
   * Staged, bounded shutdown: stdin EOF, wait, SIGTERM to the CLI's process group, wait, SIGKILL to it.
   * The defaults fit inside the hosts' 3 s for quitting. Whatever is left of the group once the CLI has
   * exited (a tool it started) is killed with it.
   */
  async close(timings: CloseTimings = {}): Promise<ExitInfo> {
    this.closing = true;
    this.endInput();
    if (!(await this.exitsWithin(timings.graceMs ?? DEFAULT_GRACE_MS))) {
      this.signal('SIGTERM');
      if (!(await this.exitsWithin(timings.termMs ?? DEFAULT_TERM_MS))) this.signal('SIGKILL');
    }
    return this.exited;
  }

  /** Immediate kill of the CLI and everything it started, for app quit. */
  kill(): void {
    this.closing = true;
    if (this.running) this.signal('SIGKILL');
  }

  /** Sends `signal` to the CLI's process group (to the CLI alone where there are no groups). */
  private signal(signal: NodeJS.Signals): void {
    if (!this.signalGroup(signal)) this.child.kill(signal);
  }

  exitError(): CliExited {
    const info = this.exitInfo;
    return new CliExited(info?.code ?? null, info?.signal ?? null, info?.stderrTail ?? this.stderr);
  }

  private exitsWithin(ms: number): Promise<boolean> {
    if (!this.running) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private finish(
    partial: Pick<ExitInfo, 'code' | 'signal' | 'spawnError'>,
    resolve: (info: ExitInfo) => void,
  ): void {
    if (this.exitInfo) return;
    // A process that never started has no stderr; the reason it could not start stands in for it.
    const stderrTail = partial.spawnError
      ? `Could not start ${this.command}: ${partial.spawnError.message}`
      : this.stderr;
    const info: ExitInfo = { ...partial, stderrTail, expected: this.closing };
    this.exitInfo = info;
    liveProcesses.delete(this);
    this.events.exit(info);
    resolve(info);
  }
}
