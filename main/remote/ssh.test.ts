import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { compareVersions } from './run';
import {
  controlPath,
  explainSshFailure,
  hostsFromConfig,
  markedLine,
  NO_FOLDER_EXIT,
  OUTPUT_MARKER,
  parseSshTarget,
  remoteCheckLine,
  remoteLaunchLine,
  remoteTerminalLine,
  shellQuote,
  sshArgs,
  sshForwardArgs,
  sshTerminalArgs,
} from './ssh';

const setup = { configFile: '/home/ada/.ssh/config', controlDir: '/tmp/bs-1' };

describe('the hosts of a config file', () => {
  it('lists each Host pattern without wildcards, once, in order', () => {
    const config = [
      '# my hosts',
      'Host devbox gpu',
      '  HostName 10.0.0.2',
      'Host *.internal !bastion',
      'host=Cloud',
      'Host gpu "quoted"',
      'Match host foo',
      'Host ?x',
    ].join('\n');
    expect(hostsFromConfig(config)).toEqual(['devbox', 'gpu', 'Cloud', 'quoted']);
  });
});

describe('what the Other… field takes', () => {
  it('host, user@host and user@host:port', () => {
    expect(parseSshTarget(' devbox ')).toEqual({ destination: 'devbox' });
    expect(parseSshTarget('ada@10.0.0.2')).toEqual({ destination: 'ada@10.0.0.2' });
    expect(parseSshTarget('ada@example.com:2222')).toEqual({ destination: 'ada@example.com', port: 2222 });
  });

  it('refuses what ssh could take for an option, and ports out of range, saying why', () => {
    expect(() => parseSshTarget('-oProxyCommand=evil')).toThrow(/is not a host/);
    expect(() => parseSshTarget('ada@-oProxyCommand=x')).toThrow(/is not a host/);
    expect(() => parseSshTarget('two words')).toThrow(/user@host:port/);
    expect(() => parseSshTarget('host:70000')).toThrow(/not a port/);
    // Nothing a ProxyCommand's shell or ssh's own patterns would read as more than a name.
    for (const hostile of ['a$(id)', 'a`x`', 'a;b', 'a|b', 'a,b', '*', 'ada@host*', '.hidden', 'a b@c']) {
      expect(() => parseSshTarget(hostile)).toThrow(/is not a host/);
    }
    expect(parseSshTarget('ada@[fe80::1]:2200')).toEqual({ destination: 'ada@fe80::1', port: 2200 });
  });
});

describe('the arguments of every ssh', () => {
  it('give the one config file, never prompt, never take a host key unseen, and share one connection', () => {
    const args = sshArgs(setup, { destination: 'ada@box', port: 2222 });
    expect(args.slice(0, 2)).toEqual(['-F', '/home/ada/.ssh/config']);
    expect(args).toContain('BatchMode=yes');
    expect(args).toContain('StrictHostKeyChecking=yes');
    expect(args).toContain('ControlMaster=auto');
    expect(args).toContain(`ControlPath=${controlPath(setup, { destination: 'ada@box', port: 2222 })}`);
    expect(controlPath(setup, { destination: 'ada@box', port: 2222 })).toMatch(/^\/tmp\/bs-1\/[0-9a-f]{40}$/);
    // One master per host: another host or port has another.
    expect(controlPath(setup, { destination: 'ada@box' })).not.toBe(
      controlPath(setup, { destination: 'ada@box', port: 2222 }),
    );
    // The connection outlives its command: none of the user's forwards ride on it.
    expect(args).toContain('ForwardAgent=no');
    expect(args).toContain('ClearAllForwardings=yes');
    expect(args.slice(-4)).toEqual(['-p', '2222', '--', 'ada@box']);
  });

  it('without a config file, read none (not the passwd home’s)', () => {
    expect(sshArgs({ ...setup, configFile: null }, { destination: 'box' }).slice(0, 2)).toEqual([
      '-F',
      '/dev/null',
    ]);
  });
});

describe('the remote launch line', () => {
  const run = (line: string) =>
    execFileSync('sh', ['-c', line], { encoding: 'utf8', env: { PATH: process.env.PATH, CLAUDECODE: '1' } });

  // sshd runs the line with the user's login shell: sh-like, or csh's, which refuses a quoted newline and
  // expands a `!` even inside quotes.
  it.each(['sh', 'bash', 'tcsh'])(
    'reaches the CLI with every argument as it was, the launch’s environment, and none of this machine’s (login shell: %s)',
    (shell) => {
      const folder = mkdtempSync(join(tmpdir(), "byre ssh 'quoted' $HOME!-"));
      try {
        const tricky = [
          "it's",
          '$HOME',
          '`date`',
          'two words',
          'line\nbreak',
          '--x=--y',
          '"',
          '',
          'wow!',
          'a\\nb\\',
          'ends\n',
        ];
        const line = remoteLaunchLine(
          {
            cwd: folder,
            args: [
              '-e',
              'console.log(JSON.stringify({ args: process.argv.slice(1), cwd: process.cwd(), name: process.env.GIT_AUTHOR_NAME, nested: process.env.CLAUDECODE ?? null }))',
              ...tricky,
            ],
            envSet: { GIT_AUTHOR_NAME: "Ada O'Brien" },
            envUnset: ['CLAUDECODE'],
          },
          process.execPath,
        );
        const printed = execFileSync(shell, ['-c', markedLine(line)], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, CLAUDECODE: '1' },
        });
        // The marker first, on a line of its own, then the CLI's output alone.
        expect(printed.startsWith(`\n${OUTPUT_MARKER}\n`)).toBe(true);
        expect(JSON.parse(printed.slice(OUTPUT_MARKER.length + 2))).toEqual({
          args: tricky,
          cwd: folder,
          name: "Ada O'Brien",
          nested: null,
        });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it.each([false, true])(
    'ends what the CLI left running in its group when it exits, passing its exit status on (no setsid: %s)',
    async (mac) => {
      const marker = `byre-left-${mac}-${process.pid}-${Date.now()}`;
      const path = mac ? withoutSetsid() : null;
      const line = remoteLaunchLine(
        // A command left in the background, as a server started by a tool would be.
        {
          cwd: tmpdir(),
          args: ['-c', `sh -c 'sleep 300; : ${marker}' >/dev/null 2>&1 & exit 3`],
          envSet: {},
          envUnset: [],
        },
        '/bin/sh',
      );
      let code = 0;
      try {
        execFileSync('sh', ['-c', line], {
          encoding: 'utf8',
          env: { PATH: path ? path.bin : process.env.PATH, HOME: tmpdir() },
        });
      } catch (error) {
        code = (error as { status: number }).status;
      } finally {
        path?.dispose();
      }
      expect(code).toBe(3);
      const left = () =>
        execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
          .split('\n')
          // The command itself, not the wrapper's own forks, whose arguments name it too.
          .filter((args) => args.startsWith(`sh -c sleep 300; : ${marker}`));
      await vi.waitFor(() => expect(left()).toEqual([]), { timeout: 10_000, interval: 100 });
    },
    20_000,
  );

  it('ends a process still carrying on the same session (from a connection the host never saw go) before another starts', async () => {
    const home = mkdtempSync(join(tmpdir(), 'byre-marks-'));
    const session = '0b7a3c1e-5d2f-4e6a-9b8c-7d6e5f4a3b2c';
    try {
      // A CLI that never ends by itself, named by its session as the real one's arguments are.
      const launch = (tag: string) =>
        remoteLaunchLine(
          {
            cwd: tmpdir(),
            args: ['-c', `sleep 300; : ${tag}`, `--session-id=${session}`],
            envSet: {},
            envUnset: [],
          },
          '/bin/sh',
        );
      const alive = (tag: string) =>
        execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
          .split('\n')
          .some((args) => args.startsWith(`/bin/sh -c sleep 300; : ${tag}`));
      const env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: '' };
      const first = spawn('sh', ['-c', launch('first')], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      await vi.waitFor(() => expect(alive('first')).toBe(true), { timeout: 10_000, interval: 50 });
      const second = spawn('sh', ['-c', launch('second')], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      await vi.waitFor(() => expect(alive('second')).toBe(true), { timeout: 10_000, interval: 50 });
      await vi.waitFor(() => expect(alive('first')).toBe(false), { timeout: 10_000, interval: 50 });
      second.kill('SIGKILL');
      first.kill('SIGKILL');
      execFileSync('pkill', ['-f', `sleep 300; : second`]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);

  it('takes a folder typed as ~ or ~/… in the host’s home folder', () => {
    const home = mkdtempSync(join(tmpdir(), 'byre-home-'));
    try {
      mkdirSync(join(home, 'sub'));
      for (const [typed, where] of [
        ['~', home],
        ['~/sub', join(home, 'sub')],
      ] as const) {
        const line = remoteLaunchLine(
          { cwd: typed, args: ['-e', 'console.log(process.cwd())'], envSet: {}, envUnset: [] },
          process.execPath,
        );
        const printed = execFileSync('sh', ['-c', line], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HOME: home },
        });
        expect(printed.trim()).toBe(where);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('exits with its own code when the folder is not there, running nothing', () => {
    const line = remoteLaunchLine({ cwd: '/no/such/folder', args: [], envSet: {}, envUnset: [] }, 'false');
    let code = 0;
    try {
      run(`${line} 2>/dev/null`);
    } catch (error) {
      code = (error as { status: number }).status;
    }
    expect(code).toBe(NO_FOLDER_EXIT);
  });

  it('sends no word that a login shell reads otherwise: no newline, no !, no two backslashes (fish)', () => {
    const line = remoteLaunchLine(
      {
        cwd: '/srv/a b',
        args: ['--append-system-prompt', 'two\nlines!', 'C:\\\\path\\', "it's"],
        envSet: {},
        envUnset: [],
      },
      '/usr/bin/claude',
    );
    expect(line).not.toMatch(/[\n!]|\\\\/);
  });

  it('quotes a word so that sh reads it back as it was', () => {
    for (const word of ["a'b", '', '$(id)', 'x y']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' })).toBe(word);
    }
  });
});

describe('ssh’s failures, in words', () => {
  it('tells an unknown host key, a changed one, a refused login, an unreachable host and a lost connection apart', () => {
    expect(
      explainSshFailure(
        'No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.',
        'box',
      ),
    ).toMatchObject({
      kind: 'unknown-host-key',
      message: expect.stringMatching(/host key of box is not known/),
    });
    expect(
      explainSshFailure(
        '@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@\nHost key verification failed.',
        'box',
      ),
    ).toMatchObject({
      kind: 'changed-host-key',
      message: expect.stringMatching(/host key of box has changed/),
    });
    expect(explainSshFailure('ada@box: Permission denied (publickey).', 'box')).toMatchObject({
      kind: 'authentication',
      message: expect.stringMatching(/never asks for a password.*ssh-copy-id box/),
    });
    expect(explainSshFailure('ssh: connect to host box port 22: Connection refused', 'box').kind).toBe(
      'unreachable',
    );
    expect(explainSshFailure('Timeout, server box not responding.', 'box').kind).toBe('connection-lost');
    expect(explainSshFailure('', 'box').message).toMatch(/it said nothing/);
  });
});

describe('versions', () => {
  it('compare by their numbers', () => {
    expect(compareVersions('2.1.332', '2.1.0')).toBe(1);
    expect(compareVersions('2.0.9', '2.1.0')).toBe(-1);
    expect(compareVersions('2.1', '2.1.0')).toBe(0);
  });
});

/**
 * A PATH as a Mac has it: no `setsid`, and an sh that is bash (job control gives a group there instead).
 * Every other program of this machine's is in it.
 */
function withoutSetsid(): { bin: string; dispose: () => void } {
  const bin = mkdtempSync(join(tmpdir(), 'byre-nosetsid-'));
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name === 'setsid' || name === 'sh' || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  symlinkSync('/bin/bash', join(bin, 'sh'));
  return { bin, dispose: () => rmSync(bin, { recursive: true, force: true }) };
}

/** The processes whose arguments start with `start` (the command itself, not the wrappers that name it). */
const running = (start: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((args) => args.startsWith(start));

describe('the remote line of a "Done when" check', () => {
  it('runs the check in the folder, in the login shell, and exits with its status', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'byre-check-')));
    try {
      // Its stdin held open, as ssh's is while the check may run.
      const child = spawn('sh', ['-c', remoteCheckLine(folder, 'echo "in $(pwd -P)"; exit 7')], {
        env: { PATH: process.env.PATH, SHELL: '/bin/sh' },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      const status = await new Promise((resolve) => child.on('close', resolve));
      child.stdin.end();
      expect(status).toBe(7);
      expect(stdout).toContain(`in ${folder}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('runs in the user’s login shell when that is tcsh, which takes -l only alone', async () => {
    const child = spawn('sh', ['-c', remoteCheckLine(tmpdir(), 'echo "from tcsh"; exit 3')], {
      env: { PATH: process.env.PATH, SHELL: '/usr/bin/tcsh', HOME: tmpdir() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const status = await new Promise((resolve) => child.on('close', resolve));
    child.stdin.end();
    expect(output).toBe('from tcsh\n');
    expect(status).toBe(3);
  });

  it('says so when the folder is not there, running nothing', () => {
    let result = { status: 0, stderr: '' };
    try {
      execFileSync('sh', ['-c', remoteCheckLine('/no/such/folder', 'touch /tmp/never')], {
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      result = error as { status: number; stderr: string };
    }
    expect(result).toMatchObject({
      status: NO_FOLDER_EXIT,
      stderr: expect.stringContaining('/no/such/folder'),
    });
  });

  for (const mac of [false, true]) {
    it(`ends the check and all it started when its stdin ends${mac ? ', with no setsid (bash’s job control)' : ''}`, async () => {
      const marker = `byre-lifeline-${mac ? 'mac' : 'linux'}-${process.pid}-${Date.now()}`;
      const path = mac ? withoutSetsid() : null;
      try {
        const child = spawn(
          'sh',
          ['-c', remoteCheckLine(tmpdir(), `sh -c 'sleep 300; : ${marker}' & sleep 300`)],
          {
            env: { PATH: path ? path.bin : process.env.PATH, SHELL: '/bin/bash', HOME: tmpdir() },
            stdio: ['pipe', 'ignore', 'ignore'],
          },
        );
        await vi.waitFor(() => expect(running(`sh -c sleep 300; : ${marker}`)).toHaveLength(1), {
          timeout: 10_000,
          interval: 50,
        });
        // What ssh does when Byre stops the check, or the connection goes.
        child.stdin.end();
        await vi.waitFor(() => expect(running(`sh -c sleep 300; : ${marker}`)).toEqual([]), {
          timeout: 10_000,
          interval: 50,
        });
      } finally {
        path?.dispose();
      }
    }, 30_000);
  }
});

describe("a Terminal conversation's ssh", () => {
  const target = { destination: 'build-box' };
  const forward = { there: '/tmp/byre-h-abc/hooks.sock', here: '/tmp/byre-h-xyz/hooks.sock' };

  it('asks the host for a terminal, on the same master, with none of the config’s forwards', () => {
    const args = sshTerminalArgs(setup, target);
    expect(args).toContain('-tt');
    expect(args).not.toContain('-T');
    expect(args).toContain('ClearAllForwardings=yes');
    expect(args).toContain(`ControlPath=${controlPath(setup, target)}`);
    expect(args.at(-1)).toBe('build-box');
  });

  it('has the master forward the hooks socket, and cancel it, reading no config', () => {
    for (const command of ['forward', 'cancel'] as const) {
      const args = sshForwardArgs(setup, target, forward, command);
      // The config's forwards would come along, and its ClearAllForwardings would drop this one.
      expect(args.slice(0, 2)).toEqual(['-F', '/dev/null']);
      expect(args).toContain(`ControlPath=${controlPath(setup, target)}`);
      expect(args.slice(args.indexOf('-O'), args.indexOf('--'))).toEqual([
        '-O',
        command,
        '-R',
        `${forward.there}:${forward.here}`,
      ]);
      expect(args.at(-1)).toBe('build-box');
    }
    expect(() => sshForwardArgs(setup, target, { ...forward, here: '/tmp/a:b' }, 'forward')).toThrow(/colon/);
    expect(() => sshForwardArgs(setup, { destination: '-oProxyCommand=x' }, forward, 'forward')).toThrow(
      /not a host/,
    );
  });

  it('runs the CLI in the folder with only its own environment, each word as it was', () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'byre-term-line-')));
    try {
      const settings = '--settings={"a":"$HOME !x \\ `y`"}';
      const line = remoteTerminalLine(folder, { GIT_AUTHOR_NAME: "O'Neil & co" }, 'sh', [
        '-c',
        'pwd; printf "%s\\n" "$GIT_AUTHOR_NAME" "$1"',
        'sh',
        settings,
      ]);
      const out = execFileSync('sh', ['-c', line], { encoding: 'utf8' });
      expect(out.split('\n')).toEqual([folder, "O'Neil & co", settings, '']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
