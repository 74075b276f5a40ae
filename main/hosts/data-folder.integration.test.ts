import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stopProcess, waitForAddress } from '../../e2e/fixtures/host-process';
import { ForkRecords } from '../data/fork-records';
import { HOST_LOCK_FILE } from './host-lock';

/**
 * Two Byre processes on one data folder, as real processes: both keep their changes to its files, and a
 * second browser host says where the first is instead of serving the folder too. The processes run the
 * source through tsx, so nothing needs building first.
 */

let root: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-data-folder-'));
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopProcess(child)));
  rmSync(root, { recursive: true, force: true });
});

interface Child {
  process: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function start(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: join(import.meta.dirname, '../..'),
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stderr.on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}

/** A process that records `count` forks in `dataDir` as fast as it can once told to go. */
const FORKER = `
import { randomUUID } from 'node:crypto';
import { ForkRecords } from './main/data/fork-records.ts';
const records = new ForkRecords(process.env.DATA_DIR);
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  for (let i = 0; i < Number(process.env.COUNT); i += 1) {
    records.add({ sessionId: randomUUID(), parentSessionId: randomUUID(), forkPointUuid: null, createdAt: i });
  }
  process.exit(0);
});
`;

const printed = (child: Child, line: string) =>
  new Promise<void>((resolve, reject) => {
    const look = () => {
      if (child.output().includes(line)) resolve();
    };
    child.process.stdout?.on('data', look);
    child.process.once('exit', () => reject(new Error(`exited before "${line}":\n${child.output()}`)));
    look();
  });

describe('two processes on one data folder', { timeout: 120_000 }, () => {
  it('keep every fork each records when both record 50 at once', async () => {
    const env = { DATA_DIR: root, COUNT: '50' };
    const forkers = [0, 1].map(() => start(['--input-type=module', '-e', FORKER], env));
    await Promise.all(forkers.map((forker) => printed(forker, 'ready\n')));
    for (const forker of forkers) forker.process.stdin?.write('go\n');
    expect(await Promise.all(forkers.map((forker) => forker.exited))).toEqual([0, 0]);
    const forks = new ForkRecords(root).list();
    expect(new Set(forks.map((fork) => fork.sessionId)).size).toBe(100);
  });

  it('is served by one browser host: a second says where the first is, and one killed is taken over', async () => {
    const dataDir = join(root, 'data');
    const env = { BYRE_DATA_DIR: dataDir, HOME: root, XDG_DATA_HOME: root };
    const first = start(['main/hosts/web.ts'], env);
    const address = await waitForAddress(first.process, first.output, 60_000);

    const second = start(['main/hosts/web.ts'], env);
    expect(await second.exited).toBe(1);
    const lines = second.output().trim().split('\n');
    expect(lines).toEqual([expect.stringContaining(`already running on ${dataDir} at ${address}`)]);

    // kill -9 leaves the lock behind, naming a process that is gone.
    first.process.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, HOST_LOCK_FILE))).toBe(true);
    const third = start(['main/hosts/web.ts'], env);
    const thirdAddress = await waitForAddress(third.process, third.output, 60_000);
    expect(thirdAddress).not.toBe(address);

    // A clean stop lets go of the folder. It is given all the time a busy machine needs (from source, under
    // tsx, on two loaded cores it can pass the 5 s after which stopProcess would kill it and so keep the lock).
    await stopProcess(third.process, 60_000);
    expect(third.process.signalCode).toBeNull();
    expect(existsSync(join(dataDir, HOST_LOCK_FILE))).toBe(false);
  });
});
