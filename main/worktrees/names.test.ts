import { describe, expect, it } from 'vitest';
import { nameProblem, worktreeName } from './names';

/** Names made from a first prompt: short, a valid branch name, unique; and a typed name checked. */

describe('worktreeName', () => {
  it('takes the first few words of the prompt, as a branch name', () => {
    expect(worktreeName('Fix the failing login tests, please!', new Set())).toBe(
      'fix-the-failing-login-tests',
    );
    expect(worktreeName('Réécris le README en français', new Set())).toBe('reecris-le-readme-en-francais');
    expect(worktreeName('  --  ', new Set())).toBe('conversation');
    expect(worktreeName('a'.repeat(80), new Set())).toBe('conversation');
    expect(worktreeName('refactor internationalisation configuration loading', new Set())).toBe(
      'refactor-internationalisation',
    );
  });

  it('is unlike any name the repository has', () => {
    const taken = new Set(['fix-login', 'fix-login-2']);
    expect(worktreeName('fix login', taken)).toBe('fix-login-3');
  });

  it('every name it makes passes the check a typed one gets', () => {
    for (const prompt of ['..', 'x.lock', '-a', 'ünïcödé', 'a/b c', 'What now?']) {
      expect(nameProblem(worktreeName(prompt, new Set()))).toBeNull();
    }
  });
});

describe('nameProblem', () => {
  it('says why a typed name cannot name a branch', () => {
    expect(nameProblem('good-name_1.2')).toBeNull();
    expect(nameProblem('')).toMatch(/needs a name/);
    expect(nameProblem('has space')).toMatch(/letters, digits/);
    expect(nameProblem('-x')).toMatch(/cannot begin/);
    expect(nameProblem('a..b')).toMatch(/cannot hold/);
    expect(nameProblem('x.lock')).toMatch(/cannot hold/);
  });
});
