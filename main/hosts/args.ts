import { resolve } from 'node:path';
import { z } from 'zod';
import { Lane } from '../../shared/ipc';

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

/**
 * `--lane=terminal` or `--lane=stream` beside the folder: the lane its conversation starts in; null (none,
 * or a value that is neither): the default. Only the `=` form, so that a folder is never taken for a lane.
 */
export function initialLaneFromArgs(args: readonly string[]): Lane | null {
  const given = args.find((arg) => arg.startsWith('--lane='))?.slice('--lane='.length);
  const lane = Lane.safeParse(given);
  return lane.success ? lane.data : null;
}

/**
 * The user's arguments in an Electron command line: after the binary when packaged, and after the app's
 * own path too when run as `electron . <dir>`. Chromium's switches may come anywhere (and Electron may
 * reorder a second launch's), so the app path is the first positional argument, not the second of argv.
 */
export function electronUserArgs(argv: readonly string[], isPackaged: boolean): string[] {
  const positional = argv.slice(1).filter((arg) => !arg.startsWith('-'));
  return isPackaged ? positional : positional.slice(1);
}

/** What a second launch hands the running Byre (Electron's additionalData): the folder it was asked for. */
export const SecondLaunch = z.object({ folder: z.string().nullable() });
export type SecondLaunch = z.infer<typeof SecondLaunch>;

/**
 * The folder a second launch asks the running Byre to open (null: none, just show the window). The second
 * one resolved it itself, with its own INIT_CWD (npm starts Electron in Byre's folder, so its working
 * directory says nothing of where the command was typed); failing that, from its argv and working directory.
 */
export function secondLaunchFolder(
  launch: { argv: readonly string[]; workingDirectory: string; additionalData: unknown },
  isPackaged: boolean,
): string | null {
  const sent = SecondLaunch.safeParse(launch.additionalData);
  if (sent.success) return sent.data.folder;
  return initialCwdFromArgs(electronUserArgs(launch.argv, isPackaged), launch.workingDirectory);
}
