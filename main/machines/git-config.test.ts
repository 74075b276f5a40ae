import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { includedPaths, parseGitConfig, programEntries } from './git-config';

/**
 * A repository's git config read as text, for the trust question: it must say what git itself reads, or a
 * program could hide from the question behind a quote, a continued line or a comment.
 */

/** What real git reads from a config file: each key and value, as `git config --list -z` prints them. */
function gitReads(text: string): { key: string; value: string | null }[] {
  const file = join(mkdtempSync(join(tmpdir(), 'byre-config-')), 'config');
  writeFileSync(file, text);
  const listed = execFileSync('git', ['config', '-f', file, '--list', '-z'], { encoding: 'utf8' });
  return listed
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const newline = entry.indexOf('\n');
      return newline < 0
        ? { key: entry, value: null }
        : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
    });
}

describe('a git config read as git reads it', () => {
  it('takes sections, quotes, escapes, continued lines and comments as git does', () => {
    const text = [
      '# a comment',
      '[core]',
      '\teditor = "vim -u NONE" ; the rest is a comment',
      '\tpager = less \\',
      '  -R   # trailing',
      '[filter "crypt"]',
      '\tsmudge = git-crypt smudge',
      '\tclean = "git-crypt \\"clean\\"\\t"   ',
      '\trequired',
      '[Diff "My Driver"]',
      "\tTextConv = sh -c 'cat' # but # this",
      '[credential "https://example.com"]',
      '\thelper = store --file=x',
      '[gpg.ssh]',
      '\tprogram = ssh-keygen',
      '[user]',
      '\tname = A \\"quoted\\" person;not this',
      '[include]',
      '\tpath = other.inc',
      '[includeIf "gitdir:/x/"]',
      '\tpath = /abs/inc',
      '',
    ].join('\n');
    const read = parseGitConfig(text);
    expect(read).toEqual(gitReads(text));
    expect(programEntries(read).map((entry) => entry.key)).toEqual([
      'core.editor',
      'core.pager',
      'filter.crypt.smudge',
      'filter.crypt.clean',
      'filter.crypt.required',
      'diff.My Driver.textconv',
      'credential.https://example.com.helper',
      'gpg.ssh.program',
    ]);
    expect(includedPaths(read)).toEqual(['other.inc', '/abs/inc']);
  });

  it('finds a program behind CRLF line ends and a value continued across lines', () => {
    const text =
      '[filter "x"]\r\n\tsmudge = sh -c \\\r\n  evil\r\n[diff]\r\n\texternal=run-me\r\n[core]\n\tpager = less\t\t-R \t\n';
    const read = parseGitConfig(text);
    expect(read).toEqual(gitReads(text));
    expect(programEntries(read).map((entry) => entry.key)).toEqual([
      'filter.x.smudge',
      'diff.external',
      'core.pager',
    ]);
  });
});
