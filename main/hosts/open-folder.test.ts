import { describe, expect, it } from 'vitest';
import { terminalCommand } from './open-folder';

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
