import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { HookChannel, hookRunner } from './hook-channel';

/** A hook as the CLI runs it: its command through sh, its input on stdin; resolves with what it printed. */
function runHook(command: string, input: unknown): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile('/bin/sh', ['-c', command], (error, stdout) =>
      resolve({ stdout, code: error ? Number(error.code ?? 1) : 0 }),
    );
    child.stdin?.end(JSON.stringify(input));
  });
}

const commandOf = (channel: HookChannel, key: string, event: string) => {
  const hooks = channel.hooksFor(key) as Record<string, { hooks: { command: string }[] }[]>;
  const command = hooks[event]?.[0]?.hooks[0]?.command;
  if (!command) throw new Error(`no ${event} hook`);
  return command;
};

const found = hookRunner(process.env);
if (!found) throw new Error('the tests run under Node, which runs the hook script');
const runner = found;

let channel: HookChannel | undefined;
afterEach(() => channel?.close());

describe('HookChannel', () => {
  it("passes a hook's input to its conversation and prints the answer as the hook's output", async () => {
    channel = await HookChannel.open(runner);
    const heard: unknown[] = [];
    channel.register('c1', (event, payload) => {
      heard.push({ event, payload });
      return event === 'Stop' ? { decision: 'block', reason: 'the check failed' } : {};
    });
    const stop = await runHook(commandOf(channel, 'c1', 'Stop'), { stop_hook_active: false });
    expect(JSON.parse(stop.stdout)).toEqual({ decision: 'block', reason: 'the check failed' });
    const prompt = await runHook(commandOf(channel, 'c1', 'UserPromptSubmit'), { prompt: 'hi' });
    expect(prompt).toEqual({ stdout: '', code: 0 });
    expect(heard).toEqual([
      { event: 'Stop', payload: { stop_hook_active: false } },
      { event: 'UserPromptSubmit', payload: { prompt: 'hi' } },
    ]);
  });

  it('keeps its folder private, and answers nothing to a call without the secret', async () => {
    channel = await HookChannel.open(runner);
    expect(statSync(channel.folder).mode & 0o777).toBe(0o700);
    let called = false;
    channel.register('c1', () => {
      called = true;
      return { decision: 'block', reason: 'x' };
    });
    const forged = await new Promise<string>((resolve) => {
      const script = `const s=require('net').connect(process.argv[1]);let r='';s.on('data',d=>r+=d);s.on('close',()=>process.stdout.write(r));s.end(JSON.stringify({secret:'guess',key:'c1',event:'Stop',payload:{}}))`;
      execFile(process.execPath, ['-e', script, `${channel?.folder}/hooks.sock`], (_error, stdout) =>
        resolve(stdout),
      );
    });
    expect(forged).toBe('{}');
    expect(called).toBe(false);
  });

  it('lets the CLI go on, saying nothing, once Byre is gone', async () => {
    channel = await HookChannel.open(runner);
    const command = commandOf(channel, 'c1', 'Stop');
    channel.close();
    channel = undefined;
    expect(await runHook(command, { stop_hook_active: false })).toEqual({ stdout: '', code: 0 });
  });
});

describe('hookRunner (what runs the hook script)', () => {
  const electron = (packaged: boolean) => ({
    execPath: '/opt/Byre/byre',
    electron: true,
    packaged,
    platform: 'linux' as const,
  });

  it('is Node itself under Node', () => {
    const node = { execPath: '/usr/bin/node', electron: false, packaged: false, platform: 'linux' as const };
    expect(hookRunner({ PATH: '' }, node)).toEqual({ path: '/usr/bin/node', env: {} });
  });

  it('is a node on the PATH under Electron, never one in a relative folder', () => {
    const programs = new Set(['/usr/local/bin/node', 'bin/node']);
    const isProgram = (path: string) => programs.has(path);
    expect(hookRunner({ PATH: 'bin:/usr/local/bin' }, electron(true), isProgram)).toEqual({
      path: '/usr/local/bin/node',
      env: {},
    });
  });

  it('is none in a packaged app without node (its own binary would start Byre again), Electron as node unpackaged', () => {
    expect(hookRunner({ PATH: '/usr/bin' }, electron(true), () => false)).toBeNull();
    expect(hookRunner({ PATH: '/usr/bin' }, electron(false), () => false)).toEqual({
      path: '/opt/Byre/byre',
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });
});
