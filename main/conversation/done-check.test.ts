import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeOutcome, lastLines, runCheck } from './done-check';
import { processAlive } from '../../e2e/fixtures/cli-env';

/** The checks run in /bin/sh -c here: the user's login shell reads profiles this test does not control. */
const SH = ['/bin/sh', '-c'];
const LONG = 60_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (
  command: string,
  options: { timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal } = {},
) =>
  runCheck(command, {
    cwd: dir,
    timeoutMs: options.timeoutMs ?? LONG,
    maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
    shell: SH,
    ...(options.signal ? { signal: options.signal } : {}),
  });

/** The pids of the processes whose command line holds `fragment` (an argument no other process has). */
function processesRunning(fragment: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      return args.includes(fragment) && processAlive(Number(entry)) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** Waits until `check` holds; the machine may be busy, so there is no deadline but the test's own. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('runCheck', () => {
  it('passes on exit 0, in the conversation folder, with stdout and stderr as they came', async () => {
    writeFileSync(join(dir, 'marker.txt'), 'here');
    const outcome = await run('cat marker.txt; echo " to stderr" >&2; exit 0');
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, stopped: false, spawnError: null });
    expect(outcome.output).toBe('here to stderr\n');
    expect(describeOutcome(outcome, LONG)).toBe('exit 0');
  });

  it('reports a failing command with its exit code, and a missing one as not found', async () => {
    const failed = await run('echo broken; exit 3');
    expect(failed.exitCode).toBe(3);
    expect(describeOutcome(failed, LONG)).toBe('exit 3');
    const missing = await run('no-such-command-for-byre');
    expect(missing.exitCode).toBe(127);
    expect(describeOutcome(missing, LONG)).toBe('command not found (exit 127)');
    expect(missing.output).toMatch(/not found/);
  });

  it('keeps only the end of an output over the cap, and says it dropped some', async () => {
    // About 2 MB of numbered lines; the cap is 64 KB.
    const outcome = await run('seq 1 300000', { maxOutputBytes: 64 * 1024 });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.outputTruncated).toBe(true);
    expect(Buffer.byteLength(outcome.output)).toBeLessThanOrEqual(64 * 1024);
    expect(outcome.output.endsWith('299999\n300000\n')).toBe(true);
  });

  it('keeps the last 1 MB of a check that prints 100 MB', async () => {
    const outcome = await run("head -c 100000000 /dev/zero | tr '\\0' x; echo; echo the end", {
      maxOutputBytes: 1024 * 1024,
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.outputTruncated).toBe(true);
    expect(Buffer.byteLength(outcome.output)).toBe(1024 * 1024);
    expect(outcome.output.endsWith('xxx\nthe end\n')).toBe(true);
  });

  it('kills a check that hangs at its timeout, with everything it started', async () => {
    // The shell starts a sleeper of its own and waits for it; the sleeper is known by its odd argument.
    const outcome = await run('sleep 301.25 & wait', { timeoutMs: 500 });
    expect(outcome.timedOut).toBe(true);
    expect(describeOutcome(outcome, 500)).toBe('timed out after 0.5 s');
    await until(() => processesRunning('301.25').length === 0);
  });

  it('ends when its shell exits, even if something outside its group holds its output open', async () => {
    // setsid leaves the group: the group kill cannot reach it, and it keeps the pipes.
    const outcome = await run('echo before; setsid sleep 302.5 & exit 0');
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, stopped: false });
    expect(outcome.output).toBe('before\n');
    for (const pid of processesRunning('302.5')) process.kill(pid, 'SIGKILL');
  });

  it('never starts the kept output inside a UTF-8 character', async () => {
    // Ten bytes; a cut 5 bytes from the end falls inside the third é.
    const outcome = await run("printf 'ééééé'", { maxOutputBytes: 5 });
    expect(outcome.outputTruncated).toBe(true);
    expect(outcome.output).toBe('éé');
  });

  it('is stopped by its signal, and leaves no process of its group behind', async () => {
    const pidFile = join(dir, 'child.pid');
    const controller = new AbortController();
    const running = run(`sleep 300 & echo $! > ${pidFile}; wait`, { signal: controller.signal });
    await until(() => {
      try {
        return readFileSync(pidFile, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    });
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    expect(processAlive(sleeper)).toBe(true);
    controller.abort();
    const outcome = await running;
    expect(outcome.stopped).toBe(true);
    expect(describeOutcome(outcome, LONG)).toBe('stopped');
    await until(() => !processAlive(sleeper));
  });

  it('kills what a passing check left running in the background', async () => {
    const pidFile = join(dir, 'child.pid');
    const outcome = await run(`(sleep 300 > /dev/null 2>&1 &  echo $! > ${pidFile}); exit 0`);
    expect(outcome.exitCode).toBe(0);
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !processAlive(sleeper));
  });

  it('reports a check that was killed by a signal as such', async () => {
    const outcome = await run('echo going; kill -9 $$');
    expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, stopped: false });
    expect(describeOutcome(outcome, LONG)).toBe('killed by SIGKILL');
    expect(outcome.output).toBe('going\n');
  });

  it('reports a shell that cannot be started', async () => {
    const outcome = await runCheck('true', {
      cwd: dir,
      timeoutMs: LONG,
      maxOutputBytes: 1024,
      shell: [join(dir, 'no-such-shell'), '-c'],
    });
    expect(outcome.spawnError).toMatch(/ENOENT/);
    expect(describeOutcome(outcome, LONG)).toMatch(/^could not be started: /);
  });
});

describe('lastLines', () => {
  it('keeps the last lines and says whether it dropped any', () => {
    expect(lastLines('a\nb\nc\n', 2)).toEqual({ text: 'b\nc', dropped: true });
    expect(lastLines('a\nb\n', 5)).toEqual({ text: 'a\nb', dropped: false });
  });
});
