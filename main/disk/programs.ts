import { accessSync, constants, statSync } from 'node:fs';
import { posix, win32 } from 'node:path';

/**
 * A program's absolute path on the PATH, as Byre runs every program it names (git, node, a terminal): never
 * one in the working folder. Node on Windows (libuv) looks in the child's working folder before the PATH,
 * and so does cmd.exe unless NoDefaultCurrentDirectoryInExePath is set, so a `git.exe` or `node.exe` planted
 * at the top of a repository would run in place of the real one; and an empty or relative entry of the PATH
 * means the working folder anywhere. Null when the PATH has none.
 */
export function findProgram(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  isProgram: (path: string) => boolean = platform === 'win32' ? isFile : isExecutableFile,
): string | null {
  const windows = platform === 'win32';
  const paths = windows ? win32 : posix;
  if (paths.isAbsolute(name)) return isProgram(name) ? name : null;
  const pathList = env.PATH ?? env.Path ?? '';
  const names =
    windows && !/\.[a-z0-9]+$/i.test(name)
      ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD')
          .split(';')
          .filter(Boolean)
          .map((extension) => `${name}${extension.toLowerCase()}`)
      : [name];
  for (const dir of pathList.split(windows ? ';' : ':')) {
    if (!dir || !paths.isAbsolute(dir)) continue;
    for (const candidate of names) {
      const path = paths.join(dir, candidate);
      if (isProgram(path)) return path;
    }
  }
  return null;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A file this user may run: a folder has its x bit too, and is no program. */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * On Windows, marks the environment every program Byre starts inherits (the CLI, cmd.exe for npm's shim,
 * git) so that their own lookups of a program by name skip the working folder too, as cmd.exe and Windows'
 * search do with NoDefaultCurrentDirectoryInExePath set; a value the user set stands. Nothing elsewhere.
 */
export function skipWorkingFolderLookups(env: NodeJS.ProcessEnv, platform = process.platform): void {
  if (platform === 'win32' && env.NoDefaultCurrentDirectoryInExePath === undefined) {
    env.NoDefaultCurrentDirectoryInExePath = '1';
  }
}
