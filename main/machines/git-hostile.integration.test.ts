import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorktree, repositoryOf } from '../worktrees/worktrees';
import { findGit, gitRun, readListing, trustForGit } from './git';
import { thisMachine } from './machine';
import { gitIn } from '../changes/test-support/git';
import { MACHINES, shellHost } from '../changes/test-support/shell-host';

/**
 * The git Byre runs, in hostile repositories, with real git: nothing the repository's own config names
 * runs (a filter driver on "New worktree", a diff driver), a bare repository inside a clone is not used, and
 * a git planted in the folder is never the one run.
 */

function hostileRepository(): { top: string; marker: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'byre-hostile-')));
  const marker = join(top, '..', `${top.split('/').at(-1)}-ran`);
  gitIn(top, 'init', '-q', '-b', 'main');
  writeFileSync(join(top, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  writeFileSync(join(top, 'a.txt'), 'hello\n');
  gitIn(top, 'add', '.');
  gitIn(top, 'commit', '-q', '-m', 'first');
  // What a repository from a tarball (or Claude itself) can put in .git/config.
  const run = `sh -c 'echo ran >> "${marker}"; cat'`;
  gitIn(top, 'config', 'filter.evil.smudge', run);
  gitIn(top, 'config', 'filter.evil.clean', run);
  gitIn(top, 'config', 'filter.evil.required', 'true');
  gitIn(top, 'config', 'diff.evil.textconv', run);
  gitIn(top, 'config', 'core.sshCommand', run);
  return { top, marker };
}

describe('git in a hostile repository', () => {
  it.each(MACHINES)(
    'makes a worktree without running the filter driver its config names, and the files are there (%s)',
    async (_where, machine) => {
      const { top, marker } = hostileRepository();
      const repository = await repositoryOf(top, machine);
      expect(repository).not.toBeNull();
      const worktree = await createWorktree(repository!, 'main', 'feature');
      expect(readFileSync(join(worktree.path, 'a.txt'), 'utf8')).toBe('hello\n');
      expect(existsSync(marker)).toBe(false);

      // Status, add and a diff with its textconv, as the Changes room and the worktree rows run them.
      writeFileSync(join(worktree.path, 'a.txt'), 'changed\n');
      for (const args of [
        ['status', '--porcelain'],
        ['add', 'a.txt'],
        ['diff', '--cached'],
      ]) {
        const run = await machine.git(args, { cwd: worktree.path });
        expect(run.code, run.stderr).toBe(0);
      }
      expect((await machine.git(['diff', '--cached'], { cwd: worktree.path })).stdout).toContain('+changed');
      expect(existsSync(marker)).toBe(false);

      // A driver the config names after Byre last looked (Claude can write .git/config) is set back too.
      gitIn(top, 'config', 'diff.evil.textconv', `sh -c 'echo again >> "${marker}"; cat'`);
      gitIn(top, 'config', 'diff.evil2.command', `sh -c 'echo again >> "${marker}"'`);
      writeFileSync(join(worktree.path, '.gitattributes'), '*.txt filter=evil diff=evil2\n');
      const again = await machine.git(['diff'], { cwd: worktree.path });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('.gitattributes');
      expect(existsSync(marker)).toBe(false);

      // Git itself, run by hand, would have run it: the test's repository is as hostile as it says.
      gitIn(worktree.path, 'diff', '--cached');
      expect(existsSync(marker)).toBe(true);
    },
  );

  it.each(MACHINES)(
    'runs the filter a trusted repository’s config names (git-crypt’s kind), and not once the trust is gone (%s)',
    async (_where, machine) => {
      const top = realpathSync(mkdtempSync(join(tmpdir(), 'byre-trusted-')));
      gitIn(top, 'init', '-q', '-b', 'main');
      writeFileSync(join(top, '.gitattributes'), 'secret.txt filter=crypt\n');
      // Kept "encrypted" (lower case) in the repository, "decrypted" (upper case) in a checkout.
      gitIn(top, 'config', 'filter.crypt.smudge', 'tr a-z A-Z');
      gitIn(top, 'config', 'filter.crypt.clean', 'tr A-Z a-z');
      gitIn(top, 'config', 'filter.crypt.required', 'true');
      writeFileSync(join(top, 'secret.txt'), 'HUNTER2\n');
      gitIn(top, 'add', '.');
      gitIn(top, 'commit', '-q', '-m', 'first');
      const host = machine.where;
      const asked: [string, string | null][] = [];
      let trusted = true;
      trustForGit((folder, on) => {
        asked.push([folder, on]);
        return trusted && folder.startsWith(top);
      });
      try {
        const repository = await repositoryOf(top, machine);
        const worktree = await createWorktree(repository!, 'main', 'trusted');
        expect(readFileSync(join(worktree.path, 'secret.txt'), 'utf8')).toBe('HUNTER2\n');
        expect(asked).toContainEqual([top, host]);

        trusted = false;
        const untrusted = await createWorktree(repository!, 'main', 'untrusted');
        expect(readFileSync(join(untrusted.path, 'secret.txt'), 'utf8')).toBe('hunter2\n');
      } finally {
        trustForGit(() => false);
      }
    },
  );

  it('keeps the user’s own settings: a helper or a filter in their global config still counts, a repository’s is dropped', () => {
    const entry = (scope: string, text: string) =>
      [scope, scope === 'global' ? 'file:/home/u/.gitconfig' : 'file:.git/config', text].join('\0');
    const listing = [
      entry('global', 'credential.helper\nosxkeychain'),
      entry('local', 'credential.helper\n!curl evil'),
      entry('local', 'core.sshcommand\nsh evil'),
      entry('global', 'core.sshcommand\nssh -i ~/.ssh/work'),
      entry('local', 'filter.lfs.process\nevil'),
      entry('global', 'filter.lfs.process\ngit-lfs filter-process'),
      entry('global', 'filter.lfs.required\ntrue'),
      entry('local', 'filter.crypt.required'),
      entry('local', 'submodule.lib.update\nrebase'),
      entry('local', 'submodule.app.update\n!sh evil'),
      entry('local', 'include.path\n../shared.inc'),
    ].join('\0');
    const read = readListing(Buffer.from(`${listing}\0`));
    expect(read).toEqual({
      programs: {
        overrides: [
          ['credential.helper', ''],
          ['credential.helper', 'osxkeychain'],
          ['core.sshcommand', 'ssh -i ~/.ssh/work'],
          ['filter.lfs.clean', ''],
          ['filter.lfs.smudge', ''],
          ['filter.lfs.process', 'git-lfs filter-process'],
          ['filter.lfs.required', 'true'],
          ['filter.crypt.clean', ''],
          ['filter.crypt.smudge', ''],
          ['filter.crypt.process', ''],
          ['filter.crypt.required', 'false'],
          ['submodule.app.update', 'checkout'],
        ],
        own: [
          { key: 'credential.helper', value: '!curl evil' },
          { key: 'core.sshcommand', value: 'sh evil' },
          { key: 'filter.lfs.process', value: 'evil' },
          { key: 'filter.crypt.required', value: null },
          { key: 'submodule.app.update', value: '!sh evil' },
        ],
        files: ['.git/config', 'shared.inc'],
      },
    });
  });

  it('runs no git where the config names a driver in bytes no environment can carry, and says why', async () => {
    const { top, marker } = hostileRepository();
    // A driver whose name is not UTF-8: read as text it would become another name, and its own would stand.
    const config = join(top, '.git', 'config');
    writeFileSync(
      config,
      Buffer.concat([
        readFileSync(config),
        Buffer.from('[filter "\xff"]\n\tclean = ', 'latin1'),
        Buffer.from(`sh -c 'echo ran >> "${marker}"; cat'\n`),
      ]),
    );
    writeFileSync(join(top, '.gitattributes'), Buffer.from('*.txt filter=\xff\n', 'latin1'));
    writeFileSync(join(top, 'b.txt'), 'new\n');
    const machines = [thisMachine, shellHost()];
    for (const machine of machines) {
      const run = await machine.git(['add', 'b.txt'], { cwd: top });
      expect(run.code).toBe('EREFUSED');
      expect(run.stderr).toContain('not UTF-8');
    }
    expect(existsSync(marker)).toBe(false);
    // Mended, git runs there again, on a host too (what was seen there is looked at anew).
    writeFileSync(
      config,
      readFileSync(config).subarray(0, readFileSync(config).indexOf('[filter "\xff"]', 0, 'latin1')),
    );
    for (const machine of machines) {
      const run = await machine.git(['add', 'b.txt'], { cwd: top });
      expect(run.code, run.stderr).toBe(0);
    }
  });

  it('sets back a driver that comes in later through an included file, a branch’s include, or above an empty .git', async () => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'byre-included-')));
    const marker = join(top, '..', `${top.split('/').at(-1)}-ran`);
    const evil = `[filter "evil"]\n\tclean = "sh -c 'echo ran >> \\"${marker}\\"; cat'"\n\trequired = true\n`;
    gitIn(top, 'init', '-q', '-b', 'main');
    writeFileSync(join(top, '.gitattributes'), '*.txt filter=evil\n');
    writeFileSync(join(top, 'included.cfg'), '[user]\n\tname = Someone\n');
    writeFileSync(join(top, 'branch.cfg'), evil);
    gitIn(top, 'config', 'include.path', '../included.cfg');
    gitIn(top, 'config', 'includeIf.onbranch:evil.path', '../branch.cfg');
    // An empty .git folder in a subfolder is no repository to git, which goes on to the one above.
    mkdirSync(join(top, 'sub', '.git'), { recursive: true });
    const add = async (file: string, cwd = top) => {
      writeFileSync(join(cwd, file), `${file}\n`);
      const run = await gitRun(['add', file], { cwd });
      expect(run.code, run.stderr).toBe(0);
    };
    await add('a.txt');
    await add('b.txt', join(top, 'sub'));
    // Twice from the subfolder: what is kept for it then names the included file (git names it from the top).
    await add('b2.txt', join(top, 'sub'));
    // Kept: nothing changed since.
    await add('c.txt');
    // The included file (tracked, rewritten by a pull, say) gains the driver; .git/config stays as it was.
    writeFileSync(join(top, 'included.cfg'), evil);
    await add('d.txt');
    await add('e.txt', join(top, 'sub'));
    writeFileSync(join(top, 'included.cfg'), '');
    // A checkout makes the branch's include apply.
    gitIn(top, 'commit', '-q', '-m', 'first');
    gitIn(top, 'checkout', '-q', '-b', 'evil');
    await add('f.txt');
    await add('g.txt', join(top, 'sub'));
    expect(existsSync(marker)).toBe(false);
    // Git by hand would have run it.
    writeFileSync(join(top, 'h.txt'), 'h\n');
    gitIn(top, 'add', 'h.txt');
    expect(existsSync(marker)).toBe(true);
  });

  it.each(MACHINES)(
    'runs none of the repository’s hooks or its fsmonitor, trusted or not (%s)',
    async (_where, machine) => {
      const top = realpathSync(mkdtempSync(join(tmpdir(), 'byre-hooks-')));
      const marker = join(top, '..', `${top.split('/').at(-1)}-ran`);
      gitIn(top, 'init', '-q', '-b', 'main');
      writeFileSync(join(top, 'a.txt'), 'a\n');
      gitIn(top, 'add', '.');
      gitIn(top, 'commit', '-q', '-m', 'first');
      const script = `#!/bin/sh\necho "$0" >> "${marker}"\n`;
      for (const hook of ['post-checkout', 'pre-commit', 'post-commit', 'reference-transaction']) {
        writeFileSync(join(top, '.git', 'hooks', hook), script);
        chmodSync(join(top, '.git', 'hooks', hook), 0o755);
      }
      writeFileSync(join(top, 'monitor.sh'), script);
      chmodSync(join(top, 'monitor.sh'), 0o755);
      gitIn(top, 'config', 'core.fsmonitor', join(top, 'monitor.sh'));
      trustForGit(() => true);
      try {
        const repository = await repositoryOf(top, machine);
        const worktree = await createWorktree(repository!, 'main', 'hooked');
        writeFileSync(join(worktree.path, 'a.txt'), 'changed\n');
        for (const args of [
          ['status', '--porcelain'],
          ['add', 'a.txt'],
          ['commit', '-q', '-m', 'by Byre'],
        ]) {
          const run = await machine.git(args, {
            cwd: worktree.path,
            env: {
              GIT_AUTHOR_NAME: 'B',
              GIT_AUTHOR_EMAIL: 'b@x',
              GIT_COMMITTER_NAME: 'B',
              GIT_COMMITTER_EMAIL: 'b@x',
            },
          });
          expect(run.code, run.stderr).toBe(0);
        }
      } finally {
        trustForGit(() => false);
      }
      expect(existsSync(marker)).toBe(false);
      // Git by hand runs them: the repository is as hooked as it says.
      gitIn(top, 'status');
      expect(existsSync(marker)).toBe(true);
    },
  );

  it('never uses a bare repository inside a clone, whose config could name any program', async () => {
    const { top } = hostileRepository();
    const bare = join(top, 'vendor', 'lib.git');
    mkdirSync(join(top, 'vendor'));
    gitIn(join(top, 'vendor'), 'init', '-q', '--bare', 'lib.git');
    const run = await gitRun(['rev-parse', '--git-dir'], { cwd: bare });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/bare repository/);
  });

  it('runs the git on the PATH, never one planted in the folder, even when the PATH names the folder', () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'byre-planted-')));
    const planted = join(folder, 'git');
    writeFileSync(planted, '#!/bin/sh\necho planted\n');
    chmodSync(planted, 0o755);
    const real = findGit();
    expect(real).toMatch(/^\//);
    const dir = real!.slice(0, real!.lastIndexOf('/'));
    for (const PATH of [`.:${dir}`, `:${dir}`, `bin/..:${dir}`]) {
      expect(findGit({ PATH }, 'linux')).toBe(real);
    }
    expect(findGit({ PATH: folder }, 'linux')).toBe(planted);
    expect(findGit({ PATH: '' }, 'linux')).toBeNull();
  });
});
