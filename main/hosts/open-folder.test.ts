import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openTerminalWithSystem, terminalCommand } from './open-folder';

/** Which terminal "Open folder" in a terminal starts on each system, and how it is told the folder. */

const FOLDER = '/work/repo/.claude/worktrees/fix login';

describe('terminalCommand', () => {
  it("opens macOS's Terminal on the folder", () => {
    expect(terminalCommand('darwin', {}, FOLDER)).toEqual([
      { command: 'open', args: ['-a', 'Terminal', FOLDER], cwd: null },
    ]);
  });

  it('opens Windows Terminal in the folder, else a Command Prompt started there', () => {
    const folder = 'C:\\work\\repo\\.claude\\worktrees\\x';
    expect(terminalCommand('win32', {}, folder)).toEqual([
      { command: 'wt.exe', args: ['-d', folder], cwd: folder },
      { command: 'cmd.exe', args: ['/K'], cwd: folder },
    ]);
  });

  it("tries the user's $TERMINAL first on Linux, then the usual terminals with their folder flags", () => {
    expect(terminalCommand('linux', { TERMINAL: 'alacritty' }, FOLDER)).toEqual([
      { command: 'alacritty', args: [], cwd: FOLDER },
      { command: 'x-terminal-emulator', args: [], cwd: FOLDER },
      { command: 'gnome-terminal', args: [`--working-directory=${FOLDER}`], cwd: FOLDER },
      { command: 'konsole', args: ['--workdir', FOLDER], cwd: FOLDER },
      { command: 'xterm', args: [], cwd: FOLDER },
    ]);
  });

  it('goes without $TERMINAL when it is unset or blank', () => {
    const commands = (env: NodeJS.ProcessEnv) =>
      terminalCommand('freebsd', env, FOLDER).map((way) => way.command);
    expect(commands({})).toEqual(['x-terminal-emulator', 'gnome-terminal', 'konsole', 'xterm']);
    expect(commands({ TERMINAL: '  ' })).toEqual(commands({}));
  });
});

describe('opening a terminal', () => {
  it('runs the terminal on the PATH, never one planted in the folder, even when the PATH names `.`', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'byre-term-')));
    const folder = join(root, 'repo');
    const bin = join(root, 'bin');
    mkdirSync(folder);
    mkdirSync(bin);
    const program = (path: string, marker: string) => {
      writeFileSync(path, `#!/bin/sh\npwd > '${marker}'\n`);
      chmodSync(path, 0o755);
    };
    program(join(folder, 'x-terminal-emulator'), join(root, 'planted-ran'));
    program(join(bin, 'xterm'), join(root, 'xterm-ran'));
    try {
      await openTerminalWithSystem(folder, 'linux', { PATH: `.:${bin}` });
      await vi.waitFor(() => expect(readFileSync(join(root, 'xterm-ran'), 'utf8').trim()).toBe(folder), {
        timeout: 10_000,
        interval: 50,
      });
      expect(existsSync(join(root, 'planted-ran'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
