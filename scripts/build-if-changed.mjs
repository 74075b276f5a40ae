// Builds the app (electron-vite) only when its sources changed since the last build this script made, and
// quietly: `npm start` and `npm run web` start at once when nothing changed, and print a line or two when
// something did. `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'out', '.build-stamp');
const SOURCES = ['main', 'preload', 'renderer', 'shared'];
const FILES = [
  'electron.vite.config.ts',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
];

/** Every source file's path, size and time, in one string: any change, addition or removal changes it. */
function signature() {
  const parts = [];
  const add = (path) => {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats) parts.push(`${path.slice(root.length)}:${stats.size}:${stats.mtimeMs}`);
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of FILES) add(join(root, file));
  return parts.sort().join('\n');
}

/** Builds if needed; false if the build failed (it has said why). */
export function buildIfChanged() {
  const now = signature();
  const built =
    existsSync(join(root, 'out', 'main', 'index.js')) && existsSync(join(root, 'out', 'main', 'web.js'));
  if (built && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === now) return true;
  process.stderr.write('Byre: building (the sources changed since the last build)…\n');
  const cli = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const result = spawnSync(process.execPath, [cli, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    process.stderr.write('Byre: the build failed (above).\n');
    return false;
  }
  writeFileSync(STAMP, now);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && !buildIfChanged()) process.exit(1);
