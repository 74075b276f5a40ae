// `npm start -- [dir]`: runs the built app in Electron, or, where Electron's binary is missing and cannot be
// fetched (or there is no display to show a window on), the browser host, which prints an address to open.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = join(root, 'node_modules', 'electron');
const userArgs = process.argv.slice(2);
const FETCH_TIMEOUT_MS = 60_000;

/** The Electron executable, if its package has fetched it. */
function electronBinary() {
  try {
    const binary = join(electronDir, 'dist', readFileSync(join(electronDir, 'path.txt'), 'utf8').trim());
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Electron's own installer downloads the binary; a slow or offline network must not hang the start. */
function fetchElectron() {
  const installer = join(electronDir, 'install.js');
  if (!existsSync(installer)) return;
  spawnSync(process.execPath, [installer], { cwd: electronDir, stdio: 'ignore', timeout: FETCH_TIMEOUT_MS });
}

function hasDisplay() {
  return process.platform !== 'linux' || !!(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function run(command, args, env = process.env) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
  // Ctrl-C reaches the child from the terminal already; a second SIGINT would cut its clean shutdown short.
  process.on('SIGINT', () => undefined);
  for (const signal of ['SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`Byre: could not start ${command}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}

function runBrowserHost(reason) {
  process.stderr.write(`Byre: ${reason}; opening the browser host instead.\n`);
  run(process.execPath, [join(root, 'out', 'main', 'web.js'), ...userArgs]);
}

if (!hasDisplay()) {
  runBrowserHost('there is no display to open a window on');
} else {
  if (!electronBinary()) fetchElectron();
  const binary = electronBinary();
  if (binary) {
    // The app reads its arguments after the app path: `electron . <dir>`.
    const env = { ...process.env };
    delete env.ELECTRON_RUN_AS_NODE;
    run(binary, ['.', ...userArgs], env);
  } else {
    runBrowserHost('the Electron binary is not installed and could not be fetched');
  }
}
