import { randomUUID } from 'node:crypto';
import { CHECK_OUTPUT_SHOWN_CHARS, type CheckRun, type ConversationEvent } from '../../shared/ipc';
import type { HookOutput, JsonObject } from '../../shared/protocol';
import type { HookRegistration } from '../lanes/stream';
import { describeOutcome, lastLines, runCheck, type CheckOptions, type CheckOutcome } from './done-check';

/**
 * "Done when": a conversation's check command, run by Byre's Stop hook each time Claude stops. A check that
 * passes lets Claude stop; one that fails answers `decision: "block"` with the command, how it ended and the
 * end of its output, so Claude goes on with the failure in front of it. Bounded: after `maxRounds` runs in a
 * row it lets Claude stop and says so, and the user's Stop ends the loop at once.
 */

export interface CheckLimits {
  maxRounds: number;
  timeoutMs: number;
}

export const DEFAULT_CHECK_LIMITS: CheckLimits = { maxRounds: 5, timeoutMs: 10 * 60_000 };
/** Output kept of a check's run. */
export const CHECK_OUTPUT_MAX_BYTES = 1024 * 1024;
/** Lines of output the reason given to Claude ends with, and how much of them at most (long lines). */
const REASON_LINES = 200;
const REASON_MAX_CHARS = 32 * 1024;
/** The CLI waits this much longer than the check may run before it gives up on the hook. */
const HOOK_GRACE_SECONDS = 60;

export interface DoneWhenOptions {
  cwd: string;
  command: string;
  limits: CheckLimits;
  emit(event: ConversationEvent): void;
  /** Keeps a finished run in the conversation's transcript. */
  record(check: CheckRun): void;
  /** A system notification, shown when no window of the app has the focus. */
  notify(notification: { title: string; message: string }): void;
  env?: NodeJS.ProcessEnv;
  shell?: readonly string[];
  /** On another host: how the check runs there (runCheck's `via` and `viaFailure`). */
  elsewhere?: {
    via: (command: string) => CheckOptions['via'];
    failure: NonNullable<CheckOptions['viaFailure']>;
  };
}

export class DoneWhen {
  private command: string;
  private round = 0;
  /** The last run of the check kept Claude going: the next stop is the loop's next round. */
  private blocked = false;
  /** Aborts the check running now, if one is. */
  private running: AbortController | undefined;

  /** The Stop hook to register with the CLI. */
  readonly hook: HookRegistration;

  constructor(private readonly options: DoneWhenOptions) {
    this.command = options.command.trim();
    this.hook = {
      timeoutSeconds: Math.ceil(options.limits.timeoutMs / 1000) + HOOK_GRACE_SECONDS,
      callback: (input, signal) => this.onStop(input, signal),
    };
  }

  get current(): string {
    return this.command;
  }

  /** Takes effect from the next stop. */
  set(command: string): void {
    const next = command.trim();
    if (next === this.command) return;
    this.command = next;
    this.options.emit({ kind: 'done_when', command: next });
  }

  /** The user stopped Claude: a running check is killed, and this stop is let through. */
  stop(): void {
    this.running?.abort();
  }

  private async onStop(input: JsonObject, hookSignal: AbortSignal): Promise<HookOutput> {
    const command = this.command;
    if (!command) return {};
    // Rounds count only the runs this hook kept going in a row: any other stop starts again from one (the
    // CLI's stop_hook_active is also set when another Stop hook, the user's own, blocked).
    const stopHookActive = input.stop_hook_active === true;
    this.round = this.blocked && stopHookActive ? this.round + 1 : 1;
    this.blocked = false;
    const { maxRounds, timeoutMs } = this.options.limits;
    const running: CheckRun = {
      id: randomUUID(),
      command,
      round: this.round,
      maxRounds,
      stopHookActive,
      startedAt: Date.now(),
      status: 'running',
      summary: 'running',
      durationMs: null,
      output: '',
      outputTruncated: false,
      gaveUp: false,
    };
    this.options.emit({ kind: 'check', check: running });

    const controller = new AbortController();
    this.running = controller;
    const onHookAbort = () => controller.abort();
    hookSignal.addEventListener('abort', onHookAbort, { once: true });
    let outcome: CheckOutcome;
    try {
      outcome = await runCheck(command, {
        cwd: this.options.cwd,
        timeoutMs,
        maxOutputBytes: CHECK_OUTPUT_MAX_BYTES,
        signal: controller.signal,
        ...(this.options.env ? { env: this.options.env } : {}),
        ...(this.options.shell ? { shell: this.options.shell } : {}),
        ...(this.options.elsewhere
          ? { via: this.options.elsewhere.via(command), viaFailure: this.options.elsewhere.failure }
          : {}),
      });
    } finally {
      hookSignal.removeEventListener('abort', onHookAbort);
      if (this.running === controller) this.running = undefined;
    }

    const passed = outcome.exitCode === 0 && !outcome.timedOut && !outcome.stopped && !outcome.spawnError;
    const gaveUp = !passed && !outcome.stopped && this.round >= maxRounds;
    const shown = endOf(outcome.output, CHECK_OUTPUT_SHOWN_CHARS);
    const finished: CheckRun = {
      ...running,
      status: passed ? 'passed' : outcome.stopped ? 'stopped' : 'failed',
      summary: describeOutcome(outcome, timeoutMs),
      durationMs: outcome.durationMs,
      output: shown,
      outputTruncated: outcome.outputTruncated || shown.length < outcome.output.length,
      gaveUp,
    };
    this.options.emit({ kind: 'check', check: finished });
    this.options.record(finished);
    if (gaveUp) {
      const rounds = maxRounds === 1 ? 'its only round' : `${maxRounds} rounds in a row`;
      const message = `"Done when" still fails after ${rounds}; Claude was let stop. The check: ${command}`;
      this.options.emit({ kind: 'warning', message });
      this.options.notify({ title: 'Claude stopped; the check still fails', message });
    } else if (passed) {
      const rounds = this.round === 1 ? 'the first round' : `round ${this.round}`;
      this.options.notify({ title: 'Done: the check passed', message: `${command} passed on ${rounds}.` });
    }
    if (passed || outcome.stopped || gaveUp) return {};
    this.blocked = true;
    return { decision: 'block', reason: failureReason(command, finished, outcome.output) };
  }
}

/** The last `max` UTF-16 units of `text`, never starting with half a surrogate pair. */
export function endOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const start = text.length - max;
  const code = text.charCodeAt(start);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start);
}

/** What Claude is told when the check fails: the command, how it ended, the end of its output. */
function failureReason(command: string, check: CheckRun, output: string): string {
  const tail = lastLines(output, REASON_LINES);
  if (tail.text.length > REASON_MAX_CHARS) {
    tail.text = `…${endOf(tail.text, REASON_MAX_CHARS)}`;
    tail.dropped = true;
  }
  const heading =
    `The "Done when" check failed (round ${check.round} of ${check.maxRounds}), so the task is not done yet.\n` +
    `Command: ${command}\nResult: ${check.summary}\n`;
  if (!tail.text.trim()) return `${heading}It printed nothing.`;
  return `${heading}${tail.dropped ? `The end of its output (${REASON_LINES} lines at most)` : 'Its output'}:\n${tail.text}`;
}
