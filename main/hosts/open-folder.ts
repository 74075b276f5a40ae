import { spawn } from 'node:child_process';
import { findProgram } from '../disk/programs';

/**
 * Opens a folder in the system's file manager, for the browser host (Electron has shell.openPath), and a
 * terminal in a folder, for both hosts ("Open folder" of a worktree). The host runs on the user's own
 * machine, bound to loopback: the folder opens on the screen the user is at.
 */
export function openFolderWithSystem(
  path: string,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const command = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  return launch({ command, args: [path], cwd: null }).then((launched) => {
    if (launched !== 'started') {
      throw new Error(
        launched === 'missing'
          ? `This system has no ${command} to open folders with; the folder is ${path}.`
          : `Could not open ${path}: ${launched.message}`,
      );
    }
  });
}

/** One way to open a terminal: a program, its arguments, and the folder it starts in (null: ours). */
export interface TerminalLaunch {
  command: string;
  args: string[];
  cwd: string | null;
}

/**
 * The ways to open a terminal in `path` on `platform`, the one to try first first: macOS's Terminal;
 * Windows Terminal, else a Command Prompt; on Linux and the other Unixes the user's own $TERMINAL, the
 * Debian family's x-terminal-emulator, then GNOME's, KDE's and xterm, each told the folder its own way.
 */
export function terminalCommand(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  path: string,
): TerminalLaunch[] {
  if (platform === 'darwin') return [{ command: 'open', args: ['-a', 'Terminal', path], cwd: null }];
  if (platform === 'win32') {
    return [
      { command: 'wt.exe', args: ['-d', path], cwd: path },
      // Started detached, it gets a console window of its own; /K keeps it open.
      { command: 'cmd.exe', args: ['/K'], cwd: path },
    ];
  }
  const own = env.TERMINAL?.trim();
  return [
    // Started in the folder: what every terminal opens its shell in when it is told nothing else.
    ...(own ? [{ command: own, args: [], cwd: path }] : []),
    { command: 'x-terminal-emulator', args: [], cwd: path },
    { command: 'gnome-terminal', args: [`--working-directory=${path}`], cwd: path },
    { command: 'konsole', args: ['--workdir', path], cwd: path },
    { command: 'xterm', args: [], cwd: path },
  ];
}

/** Opens a terminal in `path`: the first of terminalCommand's ways this system has. */
export async function openTerminalWithSystem(
  path: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const ways = terminalCommand(platform, env, path);
  for (const way of ways) {
    // By its full path on the PATH: started in the folder, Windows would look there first for wt.exe.
    const program = findProgram(way.command, env, platform);
    if (!program) continue;
    const launched = await launch({ ...way, command: program });
    if (launched === 'started') return;
    if (launched !== 'missing') throw new Error(`Could not open a terminal in ${path}: ${launched.message}`);
  }
  throw new Error(
    `No terminal was found to open (tried ${ways.map((way) => way.command).join(', ')}); the folder is ${path}.${platform === 'win32' || platform === 'darwin' ? '' : ' Set TERMINAL to the terminal you use.'}`,
  );
}

/** Starts a program on its own, not waiting for it: started, missing from the system, or why not. */
function launch(way: TerminalLaunch): Promise<'started' | 'missing' | Error> {
  return new Promise((resolve) => {
    const child = spawn(way.command, way.args, {
      detached: true,
      stdio: 'ignore',
      windowsHide: false,
      ...(way.cwd ? { cwd: way.cwd } : {}),
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ENOENT' ? 'missing' : error),
    );
    child.once('spawn', () => {
      child.unref();
      resolve('started');
    });
  });
}
