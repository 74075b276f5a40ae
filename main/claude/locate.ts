import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { CliNotFound } from './errors';
import { isExecutableFile } from '../disk/programs';

export interface LocateOptions {
  /** An explicit path; wins over everything else. */
  explicit?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Folder to resolve the node_modules copy from; defaults to this module's folder. */
  resolveFrom?: string;
  platform?: NodeJS.Platform;
}

const isExecutable = isExecutableFile;

/** What is at a path that is not an executable file, as the end of a sentence. */
function whatIsThere(file: string): string {
  try {
    const stats = statSync(file);
    if (stats.isDirectory()) return 'which is a folder, not the claude program';
    return 'which is not executable (make it so with chmod +x, or point at the claude program)';
  } catch {
    return 'where there is nothing: set it to the claude program, or unset it to let Byre find one';
  }
}

/**
 * Why `file` cannot be run as claude, in a sentence a settings screen can show; null when it is an executable
 * file (whether it is really claude, `claude --version` tells).
 */
export function cliPathProblem(file: string): string | null {
  if (!isAbsolute(file)) return `“${file}” is not a full path: give the whole path to the claude program.`;
  if (isExecutable(file)) return null;
  try {
    const stats = statSync(file);
    if (stats.isDirectory()) return `${file} is a folder, not the claude program.`;
    return `${file} is not executable (make it so with chmod +x, or choose the claude program itself).`;
  } catch {
    return `There is no file at ${file}.`;
  }
}

function executableNames(platform: NodeJS.Platform): string[] {
  return platform === 'win32' ? ['claude.exe', 'claude.cmd', 'claude'] : ['claude'];
}

/** The copy that `npm install` put in node_modules: the wrapper's bin, or its platform package's binary. */
function nodeModulesCandidates(resolveFrom: string | undefined, platform: NodeJS.Platform): string[] {
  // createRequire wants a file; any name inside the folder makes resolution start in the folder itself.
  const req = createRequire(resolveFrom ? join(resolveFrom, 'noop.js') : import.meta.url);
  let wrapperDir: string;
  try {
    wrapperDir = dirname(req.resolve('@anthropic-ai/claude-code/package.json'));
  } catch {
    return ['node_modules/@anthropic-ai/claude-code (not installed)'];
  }
  const exe = platform === 'win32' ? 'claude.exe' : 'claude';
  // The platform package holds the real binary; the wrapper's bin is that binary only once its postinstall ran.
  return [
    join(dirname(wrapperDir), `claude-code-${platform}-${process.arch}`, exe),
    join(wrapperDir, 'bin', 'claude.exe'),
  ];
}

/**
 * Finds the claude CLI, in this order: an explicit path or BYRE_CLAUDE_PATH, `claude` on PATH, the usual
 * install locations (npm global, the native installer's ~/.local/bin, ~/.claude/local), then the copy in
 * node_modules. Throws CliNotFound listing every place looked.
 */
export function locateCli(options: LocateOptions = {}): string {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const platform = options.platform ?? process.platform;
  const names = executableNames(platform);
  const looked: string[] = [];
  const tryPath = (file: string): boolean => {
    looked.push(file);
    return isExecutable(file);
  };

  const explicit = options.explicit ?? env.BYRE_CLAUDE_PATH;
  if (explicit) {
    if (tryPath(explicit)) return explicit;
    // An explicit choice that is wrong is an error, not a reason to silently run some other claude.
    const named = options.explicit ? 'The path Byre was given for claude' : 'BYRE_CLAUDE_PATH';
    throw new CliNotFound(looked, `${named} points at ${explicit}, ${whatIsThere(explicit)}.`);
  }

  for (const dir of (env.PATH ?? '').split(delimiter).filter((dir) => isAbsolute(dir))) {
    // Only a full folder: a relative one (`.`, `bin`) would be the project's, where the CLI is started.
    for (const name of names) if (tryPath(join(dir, name))) return join(dir, name);
  }

  const npmPrefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX;
  const usualDirs = [
    ...(npmPrefix ? [platform === 'win32' ? npmPrefix : join(npmPrefix, 'bin')] : []),
    join(home, '.npm-global', 'bin'),
    // npm's global bin sits beside node for nvm, fnm and the official installers.
    dirname(process.execPath),
    '/usr/local/bin',
    '/opt/homebrew/bin',
    ...(platform === 'win32' && env.APPDATA ? [join(env.APPDATA, 'npm')] : []),
    join(home, '.local', 'bin'),
    join(home, '.claude', 'local'),
    join(home, '.claude', 'local', 'node_modules', '.bin'),
  ];
  for (const dir of usualDirs) {
    for (const name of names) if (tryPath(join(dir, name))) return join(dir, name);
  }

  for (const file of nodeModulesCandidates(options.resolveFrom, platform)) {
    if (tryPath(file)) return file;
  }
  throw new CliNotFound(looked);
}
