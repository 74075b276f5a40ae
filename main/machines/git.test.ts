import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { GIT_NICE, GitFailed, git, gitRun } from './git';
import { stopLauncher } from './launch';

/** The nice value of each running git whose command line holds `marker` (Linux's /proc). */
function nicesOf(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!line.includes(marker) || !line.split('\0')[0]?.endsWith('git')) continue;
      // After the name in parentheses: state is field 3, nice field 19.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push(Number(fields[16]));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe.runIf(process.platform === 'linux')("Byre's own git", () => {
  it('runs below the priority of the window, main and the CLI: it is bookkeeping', async () => {
    const marker = `byre-nice-probe-${process.pid}`;
    // An alias that waits: git stays running while its priority is looked at.
    const running = gitRun(['-c', `alias.${marker}=!sleep 2`, marker], { cwd: tmpdir() });
    const expected = Math.max(GIT_NICE, getPriority());
    // Lowered just after it starts: waited for, five seconds at most.
    let nices: number[] = [];
    for (let tries = 0; tries < 500 && !(nices.length > 0 && nices.every((n) => n === expected)); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      nices = nicesOf(marker);
    }
    // Never raised: a runner already at a higher nice value keeps it. (Git's child for the alias can show
    // git's own command line for a moment, between its start and its exec: it runs at the same value.)
    expect(nices.length).toBeGreaterThan(0);
    expect(new Set(nices)).toEqual(new Set([expected]));
    expect((await running).code).toBe(0);
  });
});

describe.runIf(process.platform === 'linux')('a git the launcher did not finish', () => {
  it("is never taken for git's own no, even where a failure is allowed", async () => {
    const marker = `byre-stopped-probe-${process.pid}`;
    const running = git(['-c', `alias.${marker}=!sleep 5`, marker], { cwd: tmpdir(), mayFail: true }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    for (let tries = 0; tries < 500 && nicesOf(marker).length === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(nicesOf(marker).length).toBeGreaterThan(0);
    await stopLauncher();
    const outcome = await running;
    expect('error' in outcome && outcome.error).toBeInstanceOf(GitFailed);
    // The next git starts a launcher again.
    expect((await gitRun(['--version'], { cwd: tmpdir() })).stdout).toMatch(/^git version/);
  });
});
