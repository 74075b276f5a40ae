/**
 * Git as the tests run it to set a repository up and look at it afterwards: synchronously, with an
 * identity of its own (a test machine may have none).
 */
import { execFileSync } from 'node:child_process';

export const TEST_GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** Runs git in `cwd` and returns what it printed; throws (with git's stderr) when it fails. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: TEST_GIT_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
