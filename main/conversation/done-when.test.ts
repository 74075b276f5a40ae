import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckRun, ConversationEvent } from '../../shared/ipc';
import { DoneWhen } from './done-when';

/** The Stop hook's decisions, without the CLI: what it answers each stop, and the rounds it counts. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-done-when-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function doneWhen(command: string, maxRounds = 3) {
  const events: ConversationEvent[] = [];
  const hook = new DoneWhen({
    cwd: dir,
    command,
    limits: { maxRounds, timeoutMs: 60_000 },
    emit: (event) => events.push(event),
    record: () => undefined,
    notify: () => undefined,
    shell: ['/bin/sh', '-c'],
  });
  const stop = (stopHookActive: boolean) =>
    hook.hook.callback(
      { hook_event_name: 'Stop', stop_hook_active: stopHookActive },
      new AbortController().signal,
    );
  const finished = () =>
    events.flatMap((event) =>
      event.kind === 'check' && event.check.status !== 'running' ? [event.check] : ([] as CheckRun[]),
    );
  return { hook, stop, finished };
}

describe('the "Done when" Stop hook', () => {
  it("counts only the rounds it kept going itself: another hook's block starts again from one", async () => {
    const { stop, finished } = doneWhen('exit 1');
    // stop_hook_active from some other Stop hook (the user's own): this is the check's first round.
    expect(await stop(true)).toMatchObject({ decision: 'block' });
    expect(await stop(true)).toMatchObject({ decision: 'block' });
    // The third round is the last: Claude is let stop.
    expect(await stop(true)).toEqual({});
    // A new stop after that is a new loop.
    expect(await stop(false)).toMatchObject({ decision: 'block' });
    expect(finished().map((check) => [check.round, check.gaveUp])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [1, false],
    ]);
  });

  it('lets Claude stop when the check passes, and starts counting again after it', async () => {
    const { hook, stop, finished } = doneWhen('exit 1');
    expect(await stop(false)).toMatchObject({ decision: 'block' });
    hook.set('true');
    expect(await stop(true)).toEqual({});
    hook.set('exit 1');
    expect(await stop(true)).toMatchObject({ decision: 'block' });
    expect(finished().map((check) => [check.command, check.round, check.status])).toEqual([
      ['exit 1', 1, 'failed'],
      ['true', 2, 'passed'],
      ['exit 1', 1, 'failed'],
    ]);
  });

  it("keeps Claude's reason to the end of the output, however long its lines", async () => {
    const { stop } = doneWhen("head -c 200000 /dev/zero | tr '\\0' x; echo; echo LAST; exit 1");
    const answer = await stop(false);
    expect(answer.decision).toBe('block');
    expect(answer.reason?.length).toBeLessThan(33 * 1024);
    expect(answer.reason).toMatch(/LAST$/);
    expect(answer.reason).toContain('Command: ');
  });
});
