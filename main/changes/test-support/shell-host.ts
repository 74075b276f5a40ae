/**
 * A "host" for tests of the snapshots engine: host-machine.ts's git and file operations, each line run by
 * this machine's sh (as a host's login shell runs what ssh brings), its output marked and taken after the
 * marker, stdin given. Everything a real host does but the ssh in between, which the remote integration
 * tests cover.
 */
import { spawn } from 'node:child_process';
import { Preamble } from '../../claude/preamble';
import { hostMachine } from '../../machines/host-machine';
import type { MarkedRun } from '../../remote/run';
import { markedLine, OUTPUT_MARKER } from '../../remote/ssh';
import { thisMachine, type Machine } from '../../machines/machine';

export function shellHost(env: NodeJS.ProcessEnv = process.env): Machine {
  return hostMachine('test-host', (line, limits) => {
    return new Promise<MarkedRun>((resolve, reject) => {
      // A greeting first, as a chatty ~/.bashrc prints: never taken for output.
      const child = spawn('sh', ['-c', `echo hello from the shell; ${markedLine(line)}`], { env });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        const preamble = new Preamble(OUTPUT_MARKER);
        const stdout = Buffer.concat([preamble.take(Buffer.concat(out)), preamble.end()]);
        resolve({ code, stdout, reached: preamble.found, stderr: Buffer.concat(err).toString('utf8') });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(limits.input ?? '');
    });
  });
}

/** The snapshot tests' computers: this one, and one reached through its shell. */
export const MACHINES: [string, Machine][] = [
  ['on this computer', thisMachine],
  ['on a host, through its shell', shellHost()],
];
