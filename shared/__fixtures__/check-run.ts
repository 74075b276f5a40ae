import type { CheckRun } from '../ipc';

/** For tests: a run of the "Done when" check `npm test`, round 1 of 5, as given, else a pass. */
export function checkRun(fields: Partial<CheckRun> = {}): CheckRun {
  return {
    id: 'check-1',
    command: 'npm test',
    round: 1,
    maxRounds: 5,
    stopHookActive: false,
    startedAt: 1_000,
    status: 'passed',
    summary: 'exit 0',
    durationMs: 10,
    output: '',
    outputTruncated: false,
    gaveUp: false,
    ...fields,
  };
}
