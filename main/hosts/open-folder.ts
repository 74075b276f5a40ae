import { spawn } from 'node:child_process';

/**
 * Opens a folder in the system's file manager, for the browser host (Electron has shell.openPath). The host
 * runs on the user's own machine, bound to loopback: the folder opens on the screen the user is at.
 */
export function openFolderWithSystem(
  path: string,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const command = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  return new Promise((resolve, reject) => {
    const child = spawn(command, [path], { detached: true, stdio: 'ignore', windowsHide: false });
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `This system has no ${command} to open folders with; the folder is ${path}.`
            : `Could not open ${path}: ${error.message}`,
        ),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
