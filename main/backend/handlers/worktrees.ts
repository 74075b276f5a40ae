import { worktreeChoices, mainRepositoryOf, NOT_A_REPOSITORY } from '../worktree-choices';
import { removeWorktree, WorktreeRefused } from '../../worktrees/worktrees';
import type { HandlersOf, Parts } from '../parts';

/**
 * Worktrees, starting and keeping: whether a folder can have one and from which branches, how each stands,
 * removing one, a new worktree's setup command, and the setup commands of Settings.
 */
export function worktreeHandlers(
  parts: Parts,
): HandlersOf<
  'worktreeChoices' | 'worktrees' | 'removeWorktree' | 'setupAction' | 'worktreeSetups' | 'setWorktreeSetup'
> {
  const { open, settings, worktrees, worktreeStatuses } = parts;
  return {
    worktreeChoices: async ({ cwd }) => worktreeChoices(cwd, settings, worktrees),
    worktrees: async () => ({ worktrees: await worktreeStatuses.all() }),
    removeWorktree: async ({ conversationId, deleteBranch }) => {
      const conversation = open.get(conversationId);
      const { cwd, sessionId } = conversation.snapshot();
      // Only a worktree Byre made and recorded: a path a window names is never removed on its word.
      const record = worktrees.at(cwd);
      if (!record) throw new WorktreeRefused('This conversation does not run in a worktree Byre made.');
      // Every conversation at work in it ends first (a fork of this one runs in the same folder).
      const inIt = open.all().filter((other) => other.snapshot().cwd === record.path);
      await Promise.all(inIt.map((other) => open.close(other.id)));
      await removeWorktree({ top: record.repository, commonDir: record.commonDir }, record, deleteBranch);
      // Kept, marked removed, so its conversations are listed as such; without its branch, Resume says so.
      worktrees.setRemoved(record.path, Date.now());
      parts.worktreesChanged();
      return { sessionId };
    },
    setupAction: async ({ conversationId, action }) => {
      const conversation = open.get(conversationId);
      if (!conversation.setupWaiting) {
        throw new WorktreeRefused('The setup command is not waiting: it is running, passed, or was skipped.');
      }
      conversation.setupAction(action);
      return {};
    },
    worktreeSetups: async () => ({ setups: settings.worktreeSetups }),
    setWorktreeSetup: async ({ repository: folder, command }) => {
      const repository = await mainRepositoryOf(folder, worktrees);
      if (!repository) throw new WorktreeRefused(NOT_A_REPOSITORY);
      settings.setWorktreeSetupFor(repository.top, command);
      return { repository: repository.top, command: settings.worktreeSetupFor(repository.top) };
    },
  };
}
