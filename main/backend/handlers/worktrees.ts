import { NotSupported } from '../errors';
import type { HandlersOf, Parts } from '../parts';

/**
 * Worktrees, starting and keeping: whether a folder can have one and from which branches, how each stands,
 * removing one, a new worktree's setup command, and the setup commands of Settings.
 */
export function worktreeHandlers(
  _parts: Parts,
): HandlersOf<
  'worktreeChoices' | 'worktrees' | 'removeWorktree' | 'setupAction' | 'worktreeSetups' | 'setWorktreeSetup'
> {
  const notYet = async (): Promise<never> => {
    throw new NotSupported('Worktrees are not wired yet.');
  };
  return {
    worktreeChoices: notYet,
    worktrees: notYet,
    removeWorktree: notYet,
    setupAction: notYet,
    worktreeSetups: notYet,
    setWorktreeSetup: notYet,
  };
}
