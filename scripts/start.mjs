// `npm start -- [dir]`: runs the built app in Electron, or, where Electron's binary is missing and cannot be
// fetched (or there is no display to show a window on), the browser host, which prints an address to open.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from './build-if-changed.mjs';

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

/**
 * better-sqlite3 as Electron can load it. `npm install` compiles it for Node, which the tests and the browser
 * host use; Electron has an ABI of its own. So the first `npm start` with Electron compiles a second copy
 * against Electron's headers, beside the first, and the app is told where it is (BYRE_SQLITE_BINDING). A
 * packaged app needs none of this: electron-builder rebuilds the module for Electron (electron-builder.yml).
 */
function electronSqliteBinding() {
  let version;
  try {
    version = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
  const dir = join(root, 'node_modules', '.byre-electron', `better-sqlite3-electron-${version}`);
  const binding = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(binding)) return binding;
  const gyp = process.env.npm_config_node_gyp;
  if (!gyp) {
    process.stderr.write(
      'Byre: run this with `npm start` so that the search index can be built for Electron.\n',
    );
    return null;
  }
  process.stderr.write(
    `Byre: building the search index's SQLite for Electron ${version} (once; a few minutes)…\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(root, 'node_modules', 'better-sqlite3'), dir, {
    recursive: true,
    filter: (source) => !source.includes(`${join('better-sqlite3', 'build')}`),
  });
  const built = spawnSync(
    process.execPath,
    [
      gyp,
      'rebuild',
      `--target=${version}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers',
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  if (built.status !== 0 || !existsSync(binding)) {
    process.stderr.write('Byre: SQLite could not be built for Electron; the library will say so.\n');
    return null;
  }
  return binding;
}

function runBrowserHost(reason) {
  process.stderr.write(`Byre: ${reason}; opening the browser host instead.\n`);
  run(process.execPath, [join(root, 'out', 'main', 'web.js'), ...userArgs]);
}

if (!buildIfChanged()) process.exit(1);

if (!hasDisplay()) {
  runBrowserHost('there is no display to open a window on');
} else {
  if (!electronBinary()) fetchElectron();
  const binary = electronBinary();
  if (binary) {
    // The app reads its arguments after the app path: `electron . <dir>`.
    const env = { ...process.env };
    delete env.ELECTRON_RUN_AS_NODE;
    const sqlite = electronSqliteBinding();
    if (sqlite) env.BYRE_SQLITE_BINDING = sqlite;
    run(binary, ['.', ...userArgs], env);
  } else {
    runBrowserHost('the Electron binary is not installed and could not be fetched');
  }
}
