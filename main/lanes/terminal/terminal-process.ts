import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as pty from 'node-pty';
import type { PermissionModeChoice } from '../../../shared/ipc';
import { locateCli, restrictedArgs, type FolderSettingsUse } from '../../claude';

export type { FolderSettingsUse } from '../../claude';
import type { LaneProcess } from '../lane';

/**
 * The real interactive `claude` in a pseudo-terminal: what the Terminal lane runs (cli-facts 19). The CLI
 * draws its own screen; Byre passes on the person's keys and the screen's size, and nothing else. It bills to
 * the plan because it is the interactive CLI with a person at its keyboard: nothing here pretends otherwise
 * (no entrypoint, header or variable is set to make it look like anything but what it is).
 */

export interface TerminalLaunchOptions {
  cwd: string;
  /** A new session's id, known before the first turn. */
  sessionId?: string;
  /** Carry on this session (the same id, `--resume`). */
  resume?: string;
  model?: string;
  permissionMode?: PermissionModeChoice;
  /** False: the folder is not trusted, and its own settings and MCP servers are not loaded. */
  folderSettings: FolderSettingsUse;
  /** The hooks that report to Byre (HookChannel.hooksFor). */
  hooks: Record<string, unknown>;
  /** Who the commits Claude makes are by; null: git's own setting. */
  identity?: { name: string; email: string } | null;
  /** The opening prompt the person wrote (as `claude "…"` takes it). */
  prompt?: string;
}

/**
 * How the CLI runs elsewhere (another host, over ssh): the program to run in the PTY here for the CLI's
 * arguments and the environment changes it gets there.
 */
export type TerminalTransport = (cli: { args: string[]; env: Record<string, string> }) => {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
};

/** The CLI's arguments for a Terminal conversation. */
export function terminalArgs(options: TerminalLaunchOptions): string[] {
  // Values in equals forms: a value that begins with a dash is never read as a flag.
  const settings = JSON.stringify({ attribution: { commit: '', pr: '' }, hooks: options.hooks });
  const args = [`--settings=${settings}`];
  if (options.resume) args.push(`--resume=${options.resume}`);
  else if (options.sessionId) args.push(`--session-id=${options.sessionId}`);
  if (options.model) args.push(`--model=${options.model}`);
  if (options.permissionMode) {
    args.push(`--permission-mode=${options.permissionMode}`);
    if (options.permissionMode === 'bypassPermissions') args.push('--allow-dangerously-skip-permissions');
  }
  args.push(...restrictedArgs(options.folderSettings));
  // After `--`, a prompt that begins with a dash is still the prompt.
  if (options.prompt?.trim()) args.push('--', options.prompt);
  return args;
}

/** The environment of a Terminal conversation's CLI: the app's, as a terminal would have it. */
export function terminalEnv(
  base: NodeJS.ProcessEnv,
  identity: TerminalLaunchOptions['identity'],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  // Not nested in another Claude Code; and not Electron's node, which the app's own env may ask for.
  delete env.CLAUDECODE;
  delete env.ELECTRON_RUN_AS_NODE;
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  return { ...env, ...identityEnv(identity) };
}

/** Who the commits Claude makes are by, as git reads it from the environment. */
function identityEnv(identity: TerminalLaunchOptions['identity']): Record<string, string> {
  if (!identity) return {};
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

export interface TerminalProcessEvents {
  data(text: string): void;
  exit(exit: { code: number; signal: number | null }): void;
}

/** One CLI in a PTY. */
export class TerminalProcess implements LaneProcess {
  private exited = false;
  /** Resolves when the CLI has exited. */
  readonly done: Promise<void>;

  private constructor(
    private readonly child: pty.IPty,
    /** The value of TERMINAL_MARK in its environment. */
    private readonly mark: string,
    events: TerminalProcessEvents,
  ) {
    let ended!: () => void;
    this.done = new Promise((resolve) => (ended = resolve));
    child.onData((text) => events.data(text));
    child.onExit(({ exitCode, signal }) => {
      this.exited = true;
      events.exit({ code: exitCode, signal: signal ?? null });
      ended();
    });
  }

  /** Starts the CLI in a PTY of `size`; throws CliNotFound (in words) when there is no claude. */
  static start(
    options: TerminalLaunchOptions & {
      env: NodeJS.ProcessEnv;
      cols: number;
      rows: number;
      transport?: TerminalTransport;
    },
    events: TerminalProcessEvents,
  ): TerminalProcess {
    const mark = randomUUID();
    const size = { name: 'xterm-256color', cols: options.cols, rows: options.rows };
    if (options.transport) {
      // There, the CLI gets only its own changes: the host's environment is the host's. TERM goes with the
      // terminal ssh asks for.
      const there = options.transport({
        args: terminalArgs(options),
        env: { COLORTERM: 'truecolor', ...identityEnv(options.identity) },
      });
      const child = pty.spawn(there.file, there.args, {
        ...size,
        cwd: there.cwd,
        env: { ...terminalEnv(there.env, null), [TERMINAL_MARK]: mark },
      });
      return new TerminalProcess(child, mark, events);
    }
    const cli = resolve(locateCli({ env: options.env }));
    const child = pty.spawn(cli, terminalArgs(options), {
      ...size,
      cwd: options.cwd,
      env: { ...terminalEnv(options.env, options.identity), [TERMINAL_MARK]: mark },
    });
    return new TerminalProcess(child, mark, events);
  }

  get pid(): number {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** What the person typed, pasted or chose to send, as the terminal encodes it. */
  write(data: string): void {
    if (!this.exited) this.child.write(data);
  }

  /** Stops reading the CLI's output: it blocks on a full PTY until `resume` (the screen is behind). */
  pause(): void {
    if (!this.exited) this.child.pause();
  }

  resume(): void {
    if (!this.exited) this.child.resume();
  }

  resize(cols: number, rows: number): void {
    if (this.exited) return;
    try {
      this.child.resize(Math.max(2, cols), Math.max(1, rows));
    } catch {
      // The PTY closed between the check and the call.
    }
  }

  /**
   * Ends the CLI and everything it started. The CLI is asked to hang up, as a closed terminal does (it ends
   * its running tool too), then terminated, then killed, within `graceMs` each; then whatever it started
   * that is still there goes: its tree, and on Linux every process carrying its mark, so a server a tool left
   * running in the background (its parent gone, so no longer in the tree) goes too.
   */
  async close(graceMs = 2_000): Promise<void> {
    if (!this.exited) {
      signalAll([this.child.pid], 'SIGHUP');
      if (!(await settles(this.done, graceMs))) {
        signalAll(this.everything(), 'SIGTERM');
        if (!(await settles(this.done, graceMs))) signalAll(this.everything(), 'SIGKILL');
        await settles(this.done, graceMs);
      }
    }
    signalAll(this.everything(), 'SIGKILL');
  }

  /** At once, for app quit. */
  kill(): void {
    signalAll(this.everything(), 'SIGKILL');
  }

  /**
   * The CLI and every process it started that is still there, as far as can be told. Once the CLI has exited
   * its pid may be another program's (reused), so only what carries its mark is taken then.
   */
  private everything(): number[] {
    const tree = this.exited ? [] : [this.child.pid, ...descendants(this.child.pid)];
    return [...new Set([...tree, ...markedWith(this.mark)])].filter((pid) => pid !== process.pid);
  }
}

/** The variable that marks a Terminal conversation's processes: every program the CLI starts inherits it. */
export const TERMINAL_MARK = 'BYRE_TERMINAL';

/** The processes whose environment carries `mark` (Linux only: elsewhere none can be read). */
function markedWith(mark: string): number[] {
  if (process.platform !== 'linux') return [];
  const wanted = `${TERMINAL_MARK}=${mark}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(wanted))
        pids.push(Number(entry));
    } catch {
      // Ended meanwhile, or another user's.
    }
  }
  return pids;
}

function settles(done: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void done.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  }
}

/** The processes below `root`, children before grandchildren: from /proc on Linux, else from `ps`. */
export function descendants(root: number): number[] {
  const parents = processParents();
  const below: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([pid]) => pid);
    below.push(...next);
    frontier = next;
  }
  return below;
}

function processParents(): Map<number, number> {
  const parents = new Map<number, number>();
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        parents.set(Number(entry), Number(fields[1]));
      } catch {
        // Ended meanwhile.
      }
    }
    return parents;
  }
  if (process.platform === 'win32') return parents;
  try {
    const listing = execFileSync('/bin/ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
    for (const line of listing.split('\n')) {
      const [pid, parent] = line.trim().split(/\s+/).map(Number);
      if (pid && parent !== undefined) parents.set(pid, parent);
    }
  } catch {
    // No ps: the group signal of node-pty's kill is all there is.
  }
  return parents;
}
