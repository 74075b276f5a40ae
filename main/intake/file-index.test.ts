import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileIndex, listFiles } from './file-index';

const roots: string[] = [];

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'byre-files-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function git(root: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: root, stdio: 'ignore' });
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('listFiles', () => {
  it('in a repository, lists tracked and untracked files but not what .gitignore names', async () => {
    const root = folder({
      '.gitignore': 'build/\n*.log\n',
      'src/index.ts': '',
      'src/util/strings.ts': '',
      'build/out.js': '',
      'debug.log': '',
      'notes.md': '',
    });
    git(root, 'init', '-q');
    git(root, 'add', '.gitignore', 'src/index.ts');
    const { paths, truncated } = await listFiles(root);
    expect(truncated).toBe(false);
    expect(paths.sort()).toEqual(
      ['.gitignore', 'notes.md', 'src/', 'src/index.ts', 'src/util/', 'src/util/strings.ts'].sort(),
    );
  });

  it('outside a repository, walks the folder and honours every .gitignore on the way', async () => {
    const root = folder({
      '.gitignore': 'node_modules/\n',
      'node_modules/x/index.js': '',
      'app/.gitignore': 'generated.ts\n',
      'app/generated.ts': '',
      'app/main.ts': '',
      'generated.ts': '',
      '.git/config': '',
    });
    const { paths } = await listFiles(root);
    expect(paths.sort()).toEqual(
      ['.gitignore', 'app/', 'app/.gitignore', 'app/main.ts', 'generated.ts'].sort(),
    );
  });
});

describe('FileIndex', () => {
  it('finds a file by a fuzzy query, best first, and shows the top of the folder for an empty one', async () => {
    const root = folder({
      'README.md': '',
      'src/components/Composer.tsx': '',
      'src/components/CommandPalette.tsx': '',
      'docs/deep/nested/composer-notes.md': '',
    });
    const index = new FileIndex();
    const found = await index.find(root, 'compcomposer');
    expect(found.matches[0]?.path).toBe('src/components/Composer.tsx');
    expect(found.matches[0]?.indexes.length).toBeGreaterThan(0);
    const top = await index.find(root, '', 3);
    expect(top.matches.map((match) => match.path)).toEqual(['README.md', 'docs/', 'src/']);
    expect(top.total).toBe(9);
  });

  it('answers from the list it has while a stale one is read again, then from the new one', async () => {
    const root = folder({ 'first.txt': '' });
    let now = 0;
    const index = new FileIndex({ now: () => now });
    expect((await index.find(root, 'second')).matches).toEqual([]);
    writeFileSync(join(root, 'second.txt'), '');
    // Still fresh: the same list.
    expect((await index.find(root, 'second')).matches).toEqual([]);
    now = 60_000;
    // Stale: answered at once from the old list, while the folder is read again.
    expect((await index.find(root, 'second')).matches).toEqual([]);
    await expect.poll(async () => (await index.find(root, 'second')).matches[0]?.path).toBe('second.txt');
  });

  it('keeps lists within a budget of paths across folders, letting the least recently used go first', async () => {
    const small = folder({ 'a.txt': '', 'b.txt': '' });
    const other = folder({ 'c.txt': '', 'd.txt': '' });
    const third = folder({ 'e.txt': '', 'f.txt': '' });
    const index = new FileIndex({ maxKeptPaths: 4 });
    await index.find(small, 'a');
    await index.find(other, 'c');
    await index.find(small, 'b');
    await index.find(third, 'e');
    // `other` was used least recently: it went, the rest fit.
    expect(index.kept()).toEqual({ folders: [small, third], paths: 4 });
  });

  it('lets go of a list nobody asked for in a while', async () => {
    let now = 0;
    const early = folder({ 'a.txt': '' });
    const late = folder({ 'b.txt': '' });
    const index = new FileIndex({ now: () => now, idleMs: 300_000 });
    await index.find(early, 'a');
    now = 200_000;
    await index.find(late, 'b');
    now = 300_000;
    index.dropIdle();
    expect(index.kept().folders).toEqual([late]);
    now = 600_000;
    index.dropIdle();
    expect(index.kept()).toEqual({ folders: [], paths: 0 });
  });
});

describe('listFiles with a deadline', () => {
  it('gives what it walked when the time runs out, marked as cut short', async () => {
    const root = folder({ 'top.txt': '', 'deep/inner.txt': '', 'deep/er/most.txt': '' });
    // Each look at the clock takes a second: the walk reads the top folder and then runs out of time.
    let now = 0;
    const { paths, truncated } = await listFiles(root, { timeoutMs: 1_500, now: () => (now += 1_000) });
    expect(truncated).toBe(true);
    expect(paths.sort()).toEqual(['top.txt']);
  });
});
