import { NotSupported } from '../errors';
import type { HandlersOf, Parts } from '../parts';

/**
 * Finishing a worktree conversation: the merge and the pull request drafted from it, merging into its base,
 * a pull request through gh, and its folder opened in the file manager or a terminal.
 */
export function worktreeFinishHandlers(
  _parts: Parts,
): HandlersOf<'worktreeDraft' | 'mergeWorktree' | 'createPullRequest' | 'openWorktreeFolder'> {
  const notYet = async (): Promise<never> => {
    throw new NotSupported('Worktrees are not wired yet.');
  };
  return {
    worktreeDraft: notYet,
    mergeWorktree: notYet,
    createPullRequest: notYet,
    openWorktreeFolder: notYet,
  };
}
