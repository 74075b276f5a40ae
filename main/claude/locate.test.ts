import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CliNotFound } from './errors';
import { cliPathProblem, locateCli } from './locate';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-locate-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Creates `<root>/<rel>` as a stub file, executable unless told otherwise. */
function stub(rel: string, mode = 0o755): string {
  const file = join(root, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode });
  return file;
}

function folder(rel: string): string {
  const dir = join(root, rel);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A fake project with the npm package and its platform binary, for the node_modules step. */
function nodeModulesCopy(): { resolveFrom: string; binary: string } {
  const pkg = join(root, 'proj', 'node_modules', '@anthropic-ai', 'claude-code');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{"name":"@anthropic-ai/claude-code","version":"2.1.332"}');
  const binary = stub(
    `proj/node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`,
  );
  return { resolveFrom: join(root, 'proj', 'index.js'), binary };
}

/** The fixed system folders locateCli also looks in; tests that need them empty skip if they are not. */
const systemClaude = [dirname(process.execPath), '/usr/local/bin', '/opt/homebrew/bin'].some((dir) =>
  existsSync(join(dir, 'claude')),
);

function locateError(run: () => string): CliNotFound {
  try {
    run();
  } catch (error) {
    if (error instanceof CliNotFound) return error;
    throw error;
  }
  throw new Error('expected CliNotFound');
}

describe('locateCli', () => {
  it('prefers an explicit path over everything else', () => {
    const explicit = stub('explicit/claude');
    const fromEnv = stub('env/claude');
    stub('path/claude');
    stub('prefix/bin/claude');
    const found = locateCli({
      explicit,
      env: { BYRE_CLAUDE_PATH: fromEnv, PATH: join(root, 'path'), npm_config_prefix: join(root, 'prefix') },
      home: folder('home'),
      resolveFrom: nodeModulesCopy().resolveFrom,
    });
    expect(found).toBe(explicit);
  });

  it('prefers BYRE_CLAUDE_PATH over PATH', () => {
    const fromEnv = stub('env/claude');
    stub('path/claude');
    expect(
      locateCli({ env: { BYRE_CLAUDE_PATH: fromEnv, PATH: join(root, 'path') }, home: folder('home') }),
    ).toBe(fromEnv);
  });

  it('prefers PATH, in PATH order, over the usual locations', () => {
    const second = stub('second/claude');
    stub('third/claude');
    stub('prefix/bin/claude');
    stub('home/.local/bin/claude');
    const PATH = [join(root, 'missing'), folder('first'), join(root, 'second'), join(root, 'third')].join(
      delimiter,
    );
    expect(
      locateCli({
        env: { PATH, npm_config_prefix: join(root, 'prefix') },
        home: join(root, 'home'),
        resolveFrom: nodeModulesCopy().resolveFrom,
      }),
    ).toBe(second);
  });

  it('never takes a relative PATH entry, which would be the project folder the CLI starts in', () => {
    const second = stub('second/claude');
    stub('claude');
    const PATH = ['.', '', 'second', join(root, 'second')].join(delimiter);
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(
        locateCli({ env: { PATH }, home: join(root, 'home'), resolveFrom: nodeModulesCopy().resolveFrom }),
      ).toBe(second);
    } finally {
      process.chdir(cwd);
    }
  });

  it('prefers the usual locations over node_modules', () => {
    const fromPrefix = stub('prefix/bin/claude');
    const { resolveFrom } = nodeModulesCopy();
    expect(
      locateCli({
        env: { PATH: folder('empty'), npm_config_prefix: join(root, 'prefix') },
        home: folder('home'),
        resolveFrom,
      }),
    ).toBe(fromPrefix);
  });

  it.skipIf(systemClaude)('looks in the home install locations, npm-global first', () => {
    const npmGlobal = stub('home/.npm-global/bin/claude');
    const local = stub('home/.local/bin/claude');
    const claudeLocal = stub('home/.claude/local/claude');
    const env = { PATH: folder('empty') };
    const home = join(root, 'home');
    expect(locateCli({ env, home, resolveFrom: nodeModulesCopy().resolveFrom })).toBe(npmGlobal);
    rmSync(npmGlobal);
    expect(locateCli({ env, home })).toBe(local);
    rmSync(local);
    expect(locateCli({ env, home })).toBe(claudeLocal);
  });

  it.skipIf(systemClaude)('falls back to the copy in node_modules', () => {
    const { resolveFrom, binary } = nodeModulesCopy();
    expect(locateCli({ env: { PATH: folder('empty') }, home: folder('home'), resolveFrom })).toBe(binary);
  });

  // Bug: resolveFrom is documented as a folder, but createRequire treats a path without a trailing slash
  // as a file, so resolution starts in the folder's parent and misses its node_modules.
  it('resolves node_modules from the folder given as resolveFrom', () => {
    const { binary } = nodeModulesCopy();
    expect(
      locateCli({ env: { PATH: folder('empty') }, home: folder('home'), resolveFrom: join(root, 'proj') }),
    ).toBe(binary);
  });

  it('skips a file that is not executable', () => {
    stub('first/claude', 0o644);
    const second = stub('second/claude');
    const PATH = [join(root, 'first'), join(root, 'second')].join(delimiter);
    expect(locateCli({ env: { PATH }, home: folder('home') })).toBe(second);
  });

  it('on Windows tries claude.exe, claude.cmd, then claude in each folder', () => {
    const cmd = stub('win/claude.cmd');
    stub('win/claude');
    expect(locateCli({ env: { PATH: join(root, 'win') }, home: folder('home'), platform: 'win32' })).toBe(
      cmd,
    );
  });

  it('throws CliNotFound for a wrong explicit path instead of falling through', () => {
    stub('path/claude');
    const missing = join(root, 'nowhere', 'claude');
    const error = locateError(() =>
      locateCli({ explicit: missing, env: { PATH: join(root, 'path') }, home: folder('home') }),
    );
    expect(error.looked).toEqual([missing]);
    expect(error.message).toContain(missing);
  });

  it('says what is wrong with the path the user chose: nothing there, a folder, or not executable', () => {
    const env = (path: string) => ({ BYRE_CLAUDE_PATH: path, PATH: '' });
    const missing = join(root, 'nowhere', 'claude');
    expect(locateError(() => locateCli({ env: env(missing), home: folder('home') })).message).toBe(
      `BYRE_CLAUDE_PATH points at ${missing}, where there is nothing: set it to the claude program, or unset it to let Byre find one.`,
    );
    const dir = folder('a-folder');
    expect(locateError(() => locateCli({ env: env(dir), home: folder('home') })).explanation).toBe(
      `BYRE_CLAUDE_PATH points at ${dir}, which is a folder, not the claude program.`,
    );
    const plain = stub('plain2/claude', 0o644);
    const notExecutable = locateError(() => locateCli({ env: env(plain), home: folder('home') }));
    // As root any file with an execute bit counts; one with none does not.
    expect(notExecutable.explanation).toContain(
      `BYRE_CLAUDE_PATH points at ${plain}, which is not executable`,
    );
  });

  it('throws for a wrong BYRE_CLAUDE_PATH too, and for an explicit file that is not executable', () => {
    stub('path/claude');
    const plain = stub('plain/claude', 0o644);
    expect(() =>
      locateCli({
        env: { BYRE_CLAUDE_PATH: join(root, 'nope'), PATH: join(root, 'path') },
        home: folder('home'),
      }),
    ).toThrow(CliNotFound);
    expect(() => locateCli({ explicit: plain, env: { PATH: join(root, 'path') } })).toThrow(CliNotFound);
  });

  it.skipIf(systemClaude)('lists every place it looked, in order, and names them in its message', () => {
    const home = folder('home');
    const PATH = [folder('a'), folder('b')].join(delimiter);
    const prefix = folder('prefix');
    const resolveFrom = join(folder('no-modules'), 'index.js');
    const error = locateError(() =>
      locateCli({ env: { PATH, npm_config_prefix: prefix }, home, resolveFrom, platform: 'linux' }),
    );
    const expected = [
      join(root, 'a', 'claude'),
      join(root, 'b', 'claude'),
      join(prefix, 'bin', 'claude'),
      join(home, '.npm-global', 'bin', 'claude'),
      join(dirname(process.execPath), 'claude'),
      '/usr/local/bin/claude',
      '/opt/homebrew/bin/claude',
      join(home, '.local', 'bin', 'claude'),
      join(home, '.claude', 'local', 'claude'),
      join(home, '.claude', 'local', 'node_modules', '.bin', 'claude'),
    ];
    expect(error.looked.slice(0, expected.length)).toEqual(expected);
    expect(error.looked.slice(expected.length).join('\n')).toContain('node_modules');
    expect(error.name).toBe('CliNotFound');
    for (const place of error.looked) expect(error.message).toContain(place);
  });
});

describe('cliPathProblem', () => {
  it('says why a path is not a program to run, and nothing for one that is', () => {
    const program = stub('bin/claude');
    expect(cliPathProblem(program)).toBeNull();
    expect(cliPathProblem(join(root, 'nothing'))).toBe(`There is no file at ${join(root, 'nothing')}.`);
    expect(cliPathProblem(folder('bin2'))).toBe(`${join(root, 'bin2')} is a folder, not the claude program.`);
    expect(cliPathProblem(stub('plain', 0o644))).toContain('is not executable');
    expect(cliPathProblem('bin/claude')).toContain('is not a full path');
  });
});
