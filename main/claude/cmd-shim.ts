import { existsSync, readFileSync } from 'node:fs';
import { win32 } from 'node:path';
import { findProgram } from '../disk/programs';
import { CliNotFound } from './errors';

/**
 * Windows: how to run a `claude.cmd`. Since Node's fix for CVE-2024-27980 a `.cmd` or `.bat` cannot be
 * spawned without a shell (EINVAL), and through cmd.exe every argument would need quoting that cmd.exe does
 * not reliably undo (the launch line holds JSON). So Byre reads the shim npm wrote (npm's cmd-shim format)
 * and runs what it runs, directly: `node …\cli.js`, or a `claude.exe`.
 */

export interface Command {
  command: string;
  args: string[];
}

export interface ShimFiles {
  read: (path: string) => string;
  exists: (path: string) => boolean;
  /** A bare program's full path on the PATH, never the working folder's (findProgram); null: none. */
  which: (name: string) => string | null;
}

const nodeFiles: ShimFiles = {
  read: (path) => readFileSync(path, 'utf8'),
  exists: (path) => existsSync(path),
  which: (name) => findProgram(name, process.env, 'win32'),
};

/**
 * The command that runs `program` with `args`: the program itself, or on Windows the target of a batch
 * file. Throws CliNotFound, with a sentence, for a batch file whose target it cannot read.
 */
export function commandFor(
  program: string,
  args: readonly string[],
  platform: NodeJS.Platform = process.platform,
  files: ShimFiles = nodeFiles,
): Command {
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(program)) return { command: program, args: [...args] };
  let text: string;
  try {
    text = files.read(program);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliNotFound([program], `${program} could not be read (${reason}).`);
  }
  const target = shimTarget(program, text, files.exists, files.which);
  if (!target) {
    throw new CliNotFound(
      [program],
      `${program} is a batch file Byre cannot run: it is not an npm shim. Choose claude.exe, or the cli.js it runs.`,
    );
  }
  return { command: target.command, args: [...target.args, ...args] };
}

/**
 * What an npm shim at `shimPath` runs, from its text; null if it is not one. Each line that passes on its
 * arguments (`%*`) is a way to run the target; the first whose program is there, or is a bare name PATH
 * finds (`node`), is the one cmd.exe would take.
 */
export function shimTarget(
  shimPath: string,
  text: string,
  exists: (path: string) => boolean,
  which: (name: string) => string | null,
): Command | null {
  // The folder the shim is in, as cmd.exe's `%~dp0` gives it: with a backslash at the end.
  const dp0 = `${win32.dirname(shimPath)}\\`;
  const localNode = win32.join(dp0, 'node.exe');
  const prog = exists(localNode) ? localNode : 'node';
  // Functions as replacements: a `$` in a folder's name is taken as it is.
  const expand = (token: string) =>
    token.replace(/%~dp0|%dp0%/gi, () => dp0).replace(/%_prog%/gi, () => prog);
  for (const line of text.split(/\r?\n/)) {
    const passOn = line.indexOf('%*');
    if (passOn < 0) continue;
    // cmd-shim runs the target after `endLocal & … &`: only the last command of the line is the target's.
    const tokens = tokensOf(lastCommand(line.slice(0, passOn))).map(expand);
    const [program, ...args] = tokens;
    if (!program || tokens.some((token) => token.includes('%'))) continue;
    const bare = !/[\\/]/.test(program);
    // A bare name by its full path on the PATH: the child runs in the project's folder, where Windows would
    // look first, and a node.exe planted there would run in its place.
    const command = bare ? which(program) : win32.normalize(program);
    if (!command || (!bare && !exists(command))) continue;
    return { command, args: args.map(normalizePath) };
  }
  return null;
}

/** The text after the last `&` outside quotes. */
function lastCommand(line: string): string {
  let quoted = false;
  let start = 0;
  for (let at = 0; at < line.length; at++) {
    if (line[at] === '"') quoted = !quoted;
    else if (line[at] === '&' && !quoted) start = at + 1;
  }
  return line.slice(start);
}

/** A command's words, quotes taken off; cmd.exe's `@` (do not echo) is not part of the program's name. */
function tokensOf(command: string): string[] {
  const tokens = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
  if (tokens[0]?.startsWith('@')) tokens[0] = tokens[0].slice(1);
  return tokens.filter((token) => token !== '');
}

/** Paths get cmd-shim's doubled backslashes (`%dp0%\…`) tidied; flags stay as written. */
function normalizePath(token: string): string {
  return /^[A-Za-z]:[\\/]|^\\\\/.test(token) ? win32.normalize(token) : token;
}
