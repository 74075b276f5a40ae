import { resolve } from 'node:path';

/**
 * `npm start -- <dir>` or `npm run web -- <dir>`: the first positional argument is the folder to open a
 * conversation in. A relative one is taken from where the command was typed: npm runs scripts in Byre's own
 * folder and says where it was started in INIT_CWD.
 */
export function initialCwdFromArgs(
  args: readonly string[],
  base = process.env.INIT_CWD || process.cwd(),
): string | null {
  const positional = args.filter((arg) => !arg.startsWith('-'));
  return positional[0] ? resolve(base, positional[0]) : null;
}
