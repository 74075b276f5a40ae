import { describe, expect, it } from 'vitest';
import { worktreeLayout } from './worktrees';

describe('worktreeLayout', () => {
  it('finds the repository and name of a folder where worktrees go', () => {
    expect(worktreeLayout('/home/me/app/.claude/worktrees/fix-login')).toEqual({
      repository: '/home/me/app',
      name: 'fix-login',
    });
    expect(worktreeLayout('/home/me/app/.claude/worktrees/fix-login/')).toEqual({
      repository: '/home/me/app',
      name: 'fix-login',
    });
    expect(worktreeLayout('C:\\code\\app\\.claude\\worktrees\\x')).toEqual({
      repository: 'C:\\code\\app',
      name: 'x',
    });
  });

  it('is null for any other folder, one inside a worktree included', () => {
    expect(worktreeLayout('/home/me/app')).toBeNull();
    expect(worktreeLayout('/home/me/app/.claude/worktrees')).toBeNull();
    expect(worktreeLayout('/home/me/app/.claude/worktrees/x/src')).toBeNull();
    expect(worktreeLayout('/home/me/app/claude/worktrees/x')).toBeNull();
    expect(worktreeLayout(null)).toBeNull();
    expect(worktreeLayout('')).toBeNull();
  });
});
