import { resolve } from 'node:path';

/** `byre <dir>` (like `code .`): the first positional argument is the folder to open a conversation in. */
export function initialCwdFromArgs(args: readonly string[], base = process.cwd()): string | null {
  const positional = args.filter((arg) => !arg.startsWith('-'));
  return positional[0] ? resolve(base, positional[0]) : null;
}
