#!/usr/bin/env node
// The house's arrows, checked (DESIGN.md, "Rooms"): no import cycle anywhere in main/, preload/, renderer/
// or shared/, and the rooms import only what their job allows. Part of `npm test`, so a cycle or a wrong
// arrow fails CI. It reads the sources as text: every `import … from`, `export … from`, `import '…'` and
// `import('…')`, type-only imports included (a type cycle is still a circle of rooms).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const ROOMS = ['main', 'preload', 'renderer', 'shared'];
const SOURCE = /\.(ts|tsx|mts)$/;

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'out' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The specifiers a file imports, comments left out. */
function specifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return [...code.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]);
}

function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base.replace(/\.js$/, '.ts');
}

const rel = (path) => relative(ROOT, path).split(sep).join('/');
const isTest = (path) => /\.test\.tsx?$|(^|\/)test-support\//.test(path);

const files = ROOMS.flatMap((room) => (existsSync(join(ROOT, room)) ? sources(join(ROOT, room)) : []));
const graph = new Map();
const problems = [];

for (const file of files) {
  const from = rel(file);
  const edges = [];
  for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
    const relativeImport = specifier.startsWith('.');
    const to = relativeImport ? rel(resolveRelative(file, specifier)) : specifier;
    if (relativeImport) edges.push(to);
    const broken = arrow(from, to, relativeImport);
    if (broken) problems.push(`${from} imports ${to}: ${broken}`);
  }
  graph.set(from, edges);
}

/** Why an import breaks the rooms' arrows, or null. */
function arrow(from, to, relativeImport) {
  if (isTest(from)) return null;
  if (from.startsWith('shared/')) {
    if (relativeImport ? !to.startsWith('shared/') : to !== 'zod')
      return 'shared/ imports nothing but itself and zod';
  }
  if (from.startsWith('main/claude/') && relativeImport) {
    if (!/^(shared|main\/claude|main\/disk)\//.test(to))
      return 'the driver imports only shared/, main/disk/ and node:';
  }
  if (from.startsWith('main/conversation/') && relativeImport && to.startsWith('main/claude/')) {
    return 'a conversation reaches Claude Code only through main/lanes/ (the Stream lane wraps the driver)';
  }
  if (from.startsWith('main/disk/') && relativeImport && !to.startsWith('main/disk/')) {
    return 'main/disk/ imports only node:';
  }
  if (
    from.startsWith('main/library/rules/') &&
    relativeImport &&
    !/^(shared|main\/library\/rules)\//.test(to)
  ) {
    return 'library rules are pure: they import only shared/ and themselves';
  }
  if (
    from.startsWith('main/changes/') &&
    relativeImport &&
    !/^(shared|main\/changes|main\/disk|main\/machines)\//.test(to)
  ) {
    return 'main/changes/ (git snapshots) imports only shared/, main/disk/, main/machines/ and itself';
  }
  if (
    from.startsWith('main/worktrees/') &&
    relativeImport &&
    !/^(shared|main\/worktrees|main\/disk|main\/machines)\//.test(to)
  ) {
    return 'main/worktrees/ imports only shared/, main/disk/, main/machines/ (git, on the computer a folder is on) and itself';
  }
  if (
    from.startsWith('main/machines/') &&
    relativeImport &&
    !/^(shared|main\/machines|main\/disk)\//.test(to) &&
    // A host's machine runs its lines over ssh (the remote room's runner) and keys its folders as data does.
    !/^main\/(remote\/(run|ssh)|data\/host-folders)\.ts$/.test(to)
  ) {
    return 'main/machines/ imports only shared/, main/disk/, the ssh runner (main/remote/run.ts, ssh.ts), host folder keys and itself';
  }
  if (from.startsWith('renderer/') && relativeImport && to.startsWith('main/')) {
    return 'the renderer imports nothing of main/';
  }
  if (
    from.startsWith('renderer/src/state/') &&
    from !== 'renderer/src/state/store.ts' &&
    to === 'renderer/src/state/store.ts'
  ) {
    return 'no slice imports the store: slices reach each other through get()';
  }
  return null;
}

// Tarjan's strongly connected components: each component of more than one file is a circle.
let index = 0;
const indices = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(node) {
  indices.set(node, index);
  low.set(node, index);
  index++;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node) ?? []) {
    if (!graph.has(next)) continue;
    if (!indices.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)));
  }
  if (low.get(node) === indices.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  }
}
for (const node of graph.keys()) if (!indices.has(node)) connect(node);

for (const cycle of cycles) problems.push(`import cycle: ${cycle.join(' ↔ ')}`);
if (problems.length > 0) {
  console.error(`check-imports: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, no import cycle, every arrow as DESIGN.md draws it`);
