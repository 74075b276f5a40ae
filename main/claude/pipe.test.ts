import { afterEach, describe, it, expect, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CliExited } from './errors';
import { CliPipe, type ExitInfo, type PipeOptions } from './pipe';
import { killAllCliProcesses } from './registry';

/** `node -e` children stand in for the CLI. */
const started: CliPipe[] = [];
afterEach(async () => {
  for (const pipe of started.splice(0)) {
    pipe.kill();
    await pipe.exited;
  }
});

function start(script: string, options: Partial<PipeOptions> = {}) {
  const lines: string[] = [];
  const exits: { info: ExitInfo; linesSoFar: number }[] = [];
  const pipe = new CliPipe(
    {
      command: process.execPath,
      args: ['-e', script],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH },
      ...options,
    },
    {
      line: (text) => lines.push(text),
      oversized: () => undefined,
      truncated: () => undefined,
      exit: (info) => exits.push({ info, linesSoFar: lines.length }),
    },
  );
  started.push(pipe);
  const ready = () => vi.waitFor(() => expect(lines).toContain('ready'), { timeout: 5_000, interval: 5 });
  return { pipe, lines, exits, ready };
}

/** A child that stays up and ignores stdin EOF. */
const STAYS_UP = "setInterval(() => {}, 1000); console.log('ready');";

describe('CliPipe', () => {
  it('delivers every stdout line before reporting the exit', async () => {
    const { pipe, lines, exits } = start(
      "for (let i = 0; i < 500; i++) console.log(JSON.stringify({ type: 'n', i })); process.stdout.write('{\"last\":true}\\n');",
    );
    const info = await pipe.exited;
    expect(lines).toHaveLength(501);
    expect(lines[0]).toBe('{"type":"n","i":0}');
    expect(lines[500]).toBe('{"last":true}');
    expect(exits).toEqual([{ info, linesSoFar: 501 }]);
    expect(info).toMatchObject({ code: 0, signal: null });
  });

  it('lets timers run between chunks while the CLI writes faster than its lines are handled', async () => {
    // 4 MB of 100-byte lines, written at once; each line then costs 50 µs to handle (2 s in all). Read
    // greedily, libuv would hand over up to 2 MB (20,000 lines, a second of work) in one turn of the loop.
    const script =
      "const line = JSON.stringify({ type: 'n', pad: 'x'.repeat(80) }) + '\\n'; process.stdout.write(line.repeat(40000));";
    const delivered: number[] = [];
    let count = 0;
    const pipe = new CliPipe(
      { command: process.execPath, args: ['-e', script], cwd: tmpdir(), env: { PATH: process.env.PATH } },
      {
        line: () => {
          count++;
          const until = performance.now() + 0.05;
          while (performance.now() < until);
        },
        oversized: () => undefined,
        truncated: () => undefined,
        exit: () => undefined,
      },
    );
    started.push(pipe);
    const ticks = setInterval(() => delivered.push(count), 1);
    await pipe.exited;
    clearInterval(ticks);
    expect(count).toBe(40_000);
    const during = delivered.filter((n) => n > 0 && n < 40_000);
    const steps = during.slice(1).map((n, i) => n - (during[i] ?? 0));
    // Between two timers: a 64 KB read (about 650 lines) and at most one that Node had already buffered
    // and hands over as reading resumes. Greedy reading hands over 15,000 lines or more.
    expect(Math.max(...steps)).toBeLessThanOrEqual(2_000);
    expect(during.length).toBeGreaterThan(20);
    // Two seconds of work on a quiet machine; several times that beside other busy processes.
  }, 60_000);

  it('writes lines to stdin', async () => {
    const { pipe, lines, ready } = start(
      "require('readline').createInterface({ input: process.stdin }).on('line', (l) => console.log('echo ' + l)); console.log('ready');",
    );
    await ready();
    await pipe.write('{"type":"user"}');
    await pipe.write('second');
    await vi.waitFor(() => expect(lines).toEqual(['ready', 'echo {"type":"user"}', 'echo second']));
    await pipe.close();
  });

  it('reports an exit it did not ask for with its code, expected:false, and the stderr tail', async () => {
    const { pipe, exits } = start(
      "process.stderr.write('noise '.repeat(5000)); process.stderr.write('\\nfatal: boom\\n'); process.exit(3);",
      { stderrTailBytes: 100 },
    );
    const info = await pipe.exited;
    expect(info).toMatchObject({ code: 3, signal: null, expected: false });
    expect(info.spawnError).toBeUndefined();
    expect(info.stderrTail.endsWith('fatal: boom')).toBe(true);
    expect(info.stderrTail.length).toBeLessThanOrEqual(100);
    expect(pipe.stderr).toBe(info.stderrTail);
    expect(exits).toHaveLength(1);
    expect(pipe.running).toBe(false);
    const error: unknown = await pipe.write('late').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliExited);
    expect(error).toMatchObject({ code: 3, message: expect.stringContaining('fatal: boom') });
  });

  it('a write the CLI refused reports its real exit, with its code and stderr, not "code null"', async () => {
    // The CLI closes its input at once, says why on stderr, and exits a moment later: the write error comes
    // first, and used to win the race with the exit. Here "a moment later" is when the test says, so that
    // no clock decides which comes first.
    const { pipe } = start(
      "require('fs').closeSync(0); process.on('SIGUSR2', () => process.exit(3)); process.stderr.write('boom: bad settings\\n'); setInterval(() => {}, 1000);",
    );
    await vi.waitFor(() => expect(pipe.stderr).toContain('boom'), { timeout: 10_000 });
    // Still running: the write is refused by a live CLI, before its exit (the race this is about).
    expect(pipe.running).toBe(true);
    const writing = pipe.write('{"type":"user"}').then(
      () => null,
      (failure: unknown) => failure,
    );
    process.kill(pipe.pid!, 'SIGUSR2');
    const error = await writing;
    expect(error).toBeInstanceOf(CliExited);
    expect(error).toMatchObject({ code: 3, stderrTail: expect.stringContaining('boom: bad settings') });
    expect(String((error as Error).message)).toContain('exited with code 3');
  }, 30_000);

  it('close() ends stdin first, and a child that exits on EOF is not signalled', async () => {
    const { pipe, lines, ready } = start(
      "process.stdin.resume(); process.stdin.on('end', () => { console.log('bye'); process.exit(0); }); console.log('ready');",
    );
    await ready();
    // A grace far longer than the child needs, however busy the machine: not being signalled proves it.
    const info = await pipe.close({ graceMs: 30_000, termMs: 5_000 });
    expect(info).toMatchObject({ code: 0, signal: null, expected: true });
    expect(lines).toEqual(['ready', 'bye']);
  });

  it('close() sends SIGTERM after graceMs to a child that ignores stdin EOF', async () => {
    const { pipe, ready } = start(STAYS_UP);
    await ready();
    const began = Date.now();
    const info = await pipe.close({ graceMs: 150, termMs: 5_000 });
    const took = Date.now() - began;
    expect(info).toMatchObject({ signal: 'SIGTERM', expected: true });
    expect(took).toBeGreaterThanOrEqual(140);
  });

  it('close() sends SIGKILL after termMs to a child that also ignores SIGTERM', async () => {
    const { pipe, ready } = start(`process.on('SIGTERM', () => {}); ${STAYS_UP}`);
    await ready();
    const began = Date.now();
    const info = await pipe.close({ graceMs: 50, termMs: 150 });
    expect(info).toMatchObject({ signal: 'SIGKILL', expected: true });
    expect(Date.now() - began).toBeGreaterThanOrEqual(190);
    expect(pipe.running).toBe(false);
  });

  /** A CLI that started a long tool (a sleep of its own) and says its pid; it ignores stdin EOF. */
  const WITH_TOOL = (then: string) =>
    `const tool = require('child_process').spawn('sleep', ['300'], { stdio: 'ignore' }); console.log('tool ' + tool.pid); ${then}`;
  const toolPid = (lines: string[]) => Number(lines.find((line) => line.startsWith('tool '))?.slice(5));
  /** Running: in /proc and not a zombie (one whose parent died may wait a while for its reaper). */
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it.runIf(process.platform === 'linux')(
    'close() ends the tools the CLI started, not only the CLI',
    async () => {
      const { pipe, lines } = start(WITH_TOOL(STAYS_UP));
      await vi.waitFor(() => expect(lines).toContain('ready'), { timeout: 10_000 });
      const tool = toolPid(lines);
      expect(alive(tool)).toBe(true);
      await pipe.close({ graceMs: 100, termMs: 5_000 });
      await vi.waitFor(() => expect(alive(tool)).toBe(false), { timeout: 10_000 });
    },
  );

  it.runIf(process.platform === 'linux')(
    'a CLI that crashes takes its running tools with it',
    async () => {
      const { pipe, lines } = start(
        WITH_TOOL("console.log('ready'); setTimeout(() => process.exit(9), 200);"),
      );
      await vi.waitFor(() => expect(lines).toContain('ready'), { timeout: 10_000 });
      const tool = toolPid(lines);
      expect(await pipe.exited).toMatchObject({ code: 9, expected: false });
      await vi.waitFor(() => expect(alive(tool)).toBe(false), { timeout: 10_000 });
    },
    30_000,
  );

  it.runIf(process.platform === 'linux')(
    'kill() ends the CLI and its tools at once',
    async () => {
      const { pipe, lines } = start(WITH_TOOL(STAYS_UP));
      await vi.waitFor(() => expect(lines).toContain('ready'), { timeout: 10_000 });
      const tool = toolPid(lines);
      pipe.kill();
      expect(await pipe.exited).toMatchObject({ signal: 'SIGKILL', expected: true });
      await vi.waitFor(() => expect(alive(tool)).toBe(false), { timeout: 10_000 });
    },
    30_000,
  );

  it('reports a command that cannot be spawned through exit, without throwing', async () => {
    let pipe: CliPipe | undefined;
    const exits: ExitInfo[] = [];
    expect(() => {
      pipe = new CliPipe(
        { command: '/nonexistent/byre-test/claude', args: [], cwd: tmpdir(), env: {} },
        {
          line: () => undefined,
          oversized: () => undefined,
          truncated: () => undefined,
          exit: (info) => exits.push(info),
        },
      );
    }).not.toThrow();
    const info = await pipe!.exited;
    expect(info).toMatchObject({ code: null, signal: null, expected: false });
    expect(info.spawnError).toMatchObject({ code: 'ENOENT' });
    expect(info.stderrTail).toContain('/nonexistent/byre-test/claude');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(exits).toEqual([info]);
    expect(pipe!.running).toBe(false);
    await expect(pipe!.write('{}')).rejects.toBeInstanceOf(CliExited);
    await expect(pipe!.close({ graceMs: 10, termMs: 10 })).resolves.toBe(info);
    expect(killAllCliProcesses()).toBe(0);
  }, 30_000);

  it('killAllCliProcesses kills every live child', async () => {
    const first = start(STAYS_UP);
    const second = start(`process.on('SIGTERM', () => {}); ${STAYS_UP}`);
    await Promise.all([first.ready(), second.ready()]);
    expect(killAllCliProcesses()).toBe(2);
    const infos = await Promise.all([first.pipe.exited, second.pipe.exited]);
    for (const info of infos) expect(info).toMatchObject({ signal: 'SIGKILL', expected: true });
    expect(killAllCliProcesses()).toBe(0);
  });
});
