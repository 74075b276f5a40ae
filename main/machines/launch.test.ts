import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LAUNCHED_NICE, LAUNCHER_FAILED, launch, stopLauncher } from './launch';

const dir = mkdtempSync(join(tmpdir(), 'byre-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const options = { cwd: dir, env, maxBuffer: 1024 * 1024 };
/** Main's nice value before any launcher ran (a test runner may run niced already). */
const mainNice = getPriority();

describe.runIf(process.platform !== 'win32')("the launcher of Byre's programs", () => {
  it('lowers what it starts to its nice value, and leaves main as it was (Linux)', async () => {
    if (process.platform !== 'linux') return;
    // The program waits until it has been lowered (field 19 of its stat), for five seconds at most, and says
    // what it runs at: a program never lowered says its first value.
    const waitLowered = `for i in $(seq 100); do n=$(cut -d" " -f19 /proc/$$/stat); [ "$n" -ge ${LAUNCHED_NICE} ] && break; sleep 0.05; done; echo "$n"`;
    const ran = await launch('/bin/sh', ['-c', waitLowered], options);
    expect(Number(ran.stdout)).toBe(Math.max(LAUNCHED_NICE, mainNice));
    expect(getPriority()).toBe(mainNice);
  });

  it('gives a program its input and takes its output, its errors and its exit code', async () => {
    const ran = await launch('/bin/sh', ['-c', 'cat; echo "to stderr" >&2; exit 3'], {
      ...options,
      input: 'héllo\n',
    });
    expect(ran).toEqual({ stdout: 'héllo\n', stderr: 'to stderr\n', code: 3 });
    expect(await launch('/bin/sh', ['-c', 'pwd'], options)).toMatchObject({ stdout: `${dir}\n`, code: 0 });
  });

  it('closes stdin when there is no input: a program never waits on it', async () => {
    expect(await launch('/bin/cat', [], options)).toEqual({ stdout: '', stderr: '', code: 0 });
  });

  it('takes output as bytes, exactly, when asked', async () => {
    const ran = await launch('/bin/sh', ['-c', "printf 'a\\377\\000b'"], { ...options, bytes: true });
    expect(Buffer.isBuffer(ran.stdout)).toBe(true);
    expect([...ran.stdout]).toEqual([0x61, 0xff, 0x00, 0x62]);
    // Large enough to be a buffer of its own, handed over rather than copied: still whole.
    const big = await launch('/bin/sh', ['-c', 'head -c 300000 /dev/zero'], { ...options, bytes: true });
    expect(big.stdout.length).toBe(300_000);
    expect(big.stdout.every((byte) => byte === 0)).toBe(true);
  });

  it('says when there is no such program, and when the output is past its limit', async () => {
    const missing = await launch(join(dir, 'no-such-program'), [], options);
    expect(missing.code).toBe('ENOENT');
    const flood = await launch('/bin/sh', ['-c', 'head -c 5000 /dev/zero'], { ...options, maxBuffer: 100 });
    expect(flood.code).toBe('ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
  });

  it("starts programs off main's thread: main's own start of a process is never called", async () => {
    // Node's own method, under execFile and spawn: not in its types.
    const prototype = ChildProcess.prototype as unknown as { spawn(options: unknown): unknown };
    const started = vi.spyOn(prototype, 'spawn');
    try {
      const runs = await Promise.all(
        Array.from({ length: 3 }, () => launch('/bin/sh', ['-c', 'echo ran'], options)),
      );
      expect(runs.map((run) => run.stdout)).toEqual(['ran\n', 'ran\n', 'ran\n']);
      expect(started).not.toHaveBeenCalled();
    } finally {
      started.mockRestore();
    }
  });

  it('fails the runs it had when it is stopped, with a clear message, and starts again for the next', async () => {
    const running = launch('/bin/sh', ['-c', 'sleep 5'], options);
    await stopLauncher();
    const stopped = await running;
    expect(stopped.code).toBe(LAUNCHER_FAILED);
    expect(stopped.stderr).toMatch(/launcher of programs was stopped/);
    expect(await launch('/bin/sh', ['-c', 'echo again'], options)).toMatchObject({
      stdout: 'again\n',
      code: 0,
    });
  });

  it('rejects a run Node refuses to start, as starting it in main would', async () => {
    await expect(launch('/bin/sh', ['-c', 'echo a\0b'], options)).rejects.toThrow(
      /null bytes|\\u0000|string without null/i,
    );
    expect(await launch('/bin/sh', ['-c', 'echo after'], options)).toMatchObject({ stdout: 'after\n' });
  });

  it('runs many at once, each with its own output', async () => {
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, n) => launch('/bin/sh', ['-c', `echo ${n}`], options)),
    );
    expect(runs.map((run) => run.stdout)).toEqual(Array.from({ length: 12 }, (_, n) => `${n}\n`));
  });
});
