import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { version } from '../../package.json';
import { resolveDataDir } from '../data/settings';
import { initialCwdFromArgs, initialLaneFromArgs } from './args';
import { Backend } from '../backend/backend';
import { Downloads } from './downloads';
import { reportEventLoopDelay } from './event-loop-report';
import { holdDataFolder } from './host-lock';
import { openFolderWithSystem, openTerminalWithSystem } from './open-folder';
import { startWebBridge } from './web-bridge';
import { skipWorkingFolderLookups } from '../disk/programs';

/**
 * The browser host: `node out/main/web.js [dir] [--port N]` serves the app on 127.0.0.1 and prints the one
 * address to open. One host per data folder (host-lock.ts). Plain Node: it never imports electron.
 */

const SHUTDOWN_GRACE_MS = 3_000;

/** `--port N` or `--port=N`; everything else is left for initialCwdFromArgs. */
function parseArgs(args: readonly string[]): { port: number; rest: string[] } {
  let port = 0;
  const rest: string[] = [];
  const queue = [...args];
  for (let arg = queue.shift(); arg !== undefined; arg = queue.shift()) {
    const inline = /^--port=(.*)$/.exec(arg)?.[1];
    if (arg !== '--port' && inline === undefined) {
      rest.push(arg);
      continue;
    }
    const value = inline ?? queue.shift() ?? '';
    port = Number(value);
    if (!/^\d+$/.test(value) || port > 65_535) {
      throw new Error(`--port needs a number from 0 to 65535, not "${value}".`);
    }
  }
  return { port, rest };
}

/** `BYRE_PAGE_MESSAGES`: how many messages a page of an open conversation holds (for tests). */
function pageLimits(env: NodeJS.ProcessEnv): { pageLimits?: { minMessages: number } } {
  const value = Number(env.BYRE_PAGE_MESSAGES);
  return Number.isInteger(value) && value > 0 ? { pageLimits: { minMessages: value } } : {};
}

/**
 * The process that started the host, read before anything is announced: once the address is printed the
 * starter may go at once, and on a busy machine that can happen before the next line here runs.
 */
const parent = process.ppid;

async function main(): Promise<void> {
  if (process.env.BYRE_BENCH_ELD === '1') reportEventLoopDelay();
  const { port, rest } = parseArgs(process.argv.slice(2));
  // Beside the build (out/main/web.js → out/renderer), or beside the source when run through tsx
  // (main/hosts/web.ts → renderer/), as the data-folder test does.
  const rendererDir =
    [join(import.meta.dirname, '../renderer'), join(import.meta.dirname, '../../renderer')].find((dir) =>
      existsSync(join(dir, 'index.html')),
    ) ?? join(import.meta.dirname, '../renderer');
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`the built renderer is missing from ${rendererDir}; run \`npm run build\` first.`);
  }
  const dataDir = resolveDataDir(process.env);
  // Before anything opens the folder's files; let go of however the process ends (a kill -9 leaves it
  // behind, and the next host takes it over).
  const hold = holdDataFolder(dataDir);
  process.on('exit', () => hold.release());
  const downloads = new Downloads();
  // No program Byre or the CLI starts by name is taken from the working folder (Windows looks there first).
  skipWorkingFolderLookups(process.env);
  const backend = new Backend({
    host: 'browser',
    version,
    dataDir,
    initialCwd: initialCwdFromArgs(rest),
    initialLane: initialLaneFromArgs(rest),
    env: process.env,
    libraryWorker: join(import.meta.dirname, 'library-worker.js'),
    rewindDiffWorker: join(import.meta.dirname, 'rewind-diff-worker.js'),
    openFolder: (path) => openFolderWithSystem(path),
    openTerminal: (path) => openTerminalWithSystem(path),
    deliverExport: async (files) => downloads.deliver(files),
    ...pageLimits(process.env),
  });
  // Ready for a signal before the address is printed: whoever started the host may stop it the moment it
  // reads the address, and a SIGTERM with no handler yet would end it without letting go of the folder.
  const serving: { bridge?: Awaited<ReturnType<typeof startWebBridge>> } = {};
  let stopping = false;
  const stop = () => {
    if (stopping) {
      // A second Ctrl-C means now.
      backend.killAll();
      process.exit(0);
    }
    stopping = true;
    const deadline = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    void Promise.race([Promise.all([backend.dispose(), serving.bridge?.close()]), deadline]).finally(() => {
      backend.killAll();
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);

  const bridge = await startWebBridge({ backend, rendererDir, port, downloads });
  serving.bridge = bridge;
  hold.announce(bridge.url);
  process.stdout.write(`Byre: ${bridge.url}\n`);
  // The host goes with whatever started it (a terminal's npm, start.mjs, a test): if that dies without a
  // signal reaching here, the host is reparented, and stops rather than serve on with no one to answer to.
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    // Once: a second stop() would mean "now" and cut the clean shutdown short.
    if (!stopping) stop();
  }, PARENT_CHECK_MS).unref();
}

/** How often the host looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 1_000;

main().catch((error: unknown) => {
  process.stderr.write(`Byre: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
