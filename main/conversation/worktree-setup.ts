/**
 * A new worktree's setup command ("Run in each new worktree", e.g. `npm ci`), run once before the
 * conversation's first turn, the way "Done when" checks run: in the login shell, in the worktree, killed
 * whole on a timeout or a stop. Its card is a `setup` event (running, then how it ended), kept in the
 * transcript. Until it passes, or the user goes on without it, `opened` stays pending: the conversation's
 * prompts wait behind it (HeldPrompts' gate). A failed or stopped run waits for Run again or Go on.
 */
import { randomUUID } from 'node:crypto';
import { CHECK_OUTPUT_SHOWN_CHARS, type ConversationEvent, type SetupRun } from '../../shared/ipc';
import { describeOutcome, runCheck } from './done-check';
import { CHECK_OUTPUT_MAX_BYTES, endOf, type DoneWhenOptions } from './done-when';

export interface WorktreeSetupOptions {
  cwd: string;
  command: string;
  timeoutMs: number;
  emit(event: ConversationEvent): void;
  /** Keeps a finished run in the conversation's transcript. */
  record(run: SetupRun): void;
  env?: NodeJS.ProcessEnv;
  shell?: readonly string[];
  /** On another host: how it runs there (as a "Done when" check does). */
  elsewhere?: DoneWhenOptions['elsewhere'];
}

export class WorktreeSetup {
  /** Settles once the setup passed or was skipped: the prompts go then. */
  readonly opened: Promise<void>;
  private open: () => void = () => undefined;
  private last: SetupRun | null = null;
  private running: AbortController | undefined;

  constructor(private readonly options: WorktreeSetupOptions) {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  /** Whether it failed (or was stopped) and waits for the user: Run again or Go on without it. */
  get waiting(): boolean {
    return this.last !== null && (this.last.status === 'failed' || this.last.status === 'stopped');
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Runs the command; the first run, or again after a failure. */
  async run(): Promise<void> {
    if (this.running) return;
    const controller = new AbortController();
    this.running = controller;
    const started: SetupRun = {
      id: randomUUID(),
      command: this.options.command,
      startedAt: Date.now(),
      status: 'running',
      summary: 'running',
      durationMs: null,
      output: '',
      outputTruncated: false,
    };
    this.show(started);
    try {
      const outcome = await runCheck(this.options.command, {
        cwd: this.options.cwd,
        timeoutMs: this.options.timeoutMs,
        maxOutputBytes: CHECK_OUTPUT_MAX_BYTES,
        signal: controller.signal,
        ...(this.options.env ? { env: this.options.env } : {}),
        ...(this.options.shell ? { shell: this.options.shell } : {}),
        ...(this.options.elsewhere
          ? {
              via: this.options.elsewhere.via(this.options.command),
              viaFailure: this.options.elsewhere.failure,
            }
          : {}),
      });
      const passed = outcome.exitCode === 0 && !outcome.timedOut && !outcome.stopped && !outcome.spawnError;
      const shown = endOf(outcome.output, CHECK_OUTPUT_SHOWN_CHARS);
      this.finish({
        ...started,
        status: passed ? 'passed' : outcome.stopped ? 'stopped' : 'failed',
        summary: describeOutcome(outcome, this.options.timeoutMs),
        durationMs: outcome.durationMs,
        output: shown,
        outputTruncated: outcome.outputTruncated || shown.length < outcome.output.length,
      });
      if (passed) this.open();
    } finally {
      this.running = undefined;
    }
  }

  /** Goes on without it (after a failure): the run is marked skipped and the prompts go. */
  skip(): void {
    if (this.last) this.finish({ ...this.last, status: 'skipped' });
    this.open();
  }

  /** The user stopped Claude: a run going now is killed, and the card says stopped. */
  stop(): void {
    this.running?.abort();
  }

  private show(run: SetupRun): void {
    this.last = run;
    this.options.emit({ kind: 'setup', run });
  }

  private finish(run: SetupRun): void {
    this.show(run);
    this.options.record(run);
  }
}
