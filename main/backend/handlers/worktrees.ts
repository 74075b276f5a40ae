import { fromHostFolderKey } from '../../data/host-folders';
import { settingsKey, where } from '../../machines/where';
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
    worktreeChoices: async ({ cwd, host }) =>
      worktreeChoices(cwd, settings, worktrees, where(parts.remote, host)),
    worktrees: async () => ({ worktrees: await worktreeStatuses.all() }),
    removeWorktree: async ({ conversationId, deleteBranch }) => {
      const conversation = open.any(conversationId);
      const { cwd, sessionId, host = null } = conversation.snapshot();
      // Only a worktree Byre made and recorded: a path a window names is never removed on its word.
      const record = worktrees.at(cwd, host);
      if (!record) throw new WorktreeRefused('This conversation does not run in a worktree Byre made.');
      // Every conversation at work in it ends first (a fork of this one runs in the same folder).
      const inIt = open.all().filter((other) => {
        const snapshot = other.snapshot();
        return snapshot.cwd === record.path && (snapshot.host ?? null) === host;
      });
      await Promise.all(inIt.map((other) => open.close(other.id)));
      await removeWorktree(
        {
          top: record.repository,
          commonDir: record.commonDir,
          ...(host ? { machine: where(parts.remote, host).machine } : {}),
        },
        record,
        deleteBranch,
      );
      // Kept, marked removed, so its conversations are listed as such; without its branch, Resume says so.
      worktrees.setRemoved(record.path, Date.now(), host);
      parts.worktreesChanged();
      return { sessionId };
    },
    setupAction: async ({ conversationId, action }) => {
      const conversation = open.any(conversationId);
      if (!conversation.setupWaiting) {
        throw new WorktreeRefused('The setup command is not waiting: it is running, passed, or was skipped.');
      }
      conversation.setupAction(action);
      return {};
    },
    // A host's repository is kept by its hostFolderKey: given back as its folder and host.
    worktreeSetups: async () => ({
      setups: settings.worktreeSetups.map(({ repository, command }) => {
        const there = fromHostFolderKey(repository);
        return there ? { repository: there.folder, command, host: there.host } : { repository, command };
      }),
    }),
    setWorktreeSetup: async ({ repository: folder, command, host }) => {
      const on = where(parts.remote, host);
      // A command kept for exactly this repository is removed without asking git: the repository (or its
      // host) may be gone, and its command must still go.
      const kept = settingsKey(on, folder);
      if (!command.trim() && settings.worktreeSetupFor(kept)) {
        settings.setWorktreeSetupFor(kept, '');
        return { repository: folder, command: '', ...(host ? { host } : {}) };
      }
      const repository = await mainRepositoryOf(folder, worktrees, on);
      if (!repository) throw new WorktreeRefused(NOT_A_REPOSITORY);
      const key = settingsKey(on, repository.top);
      settings.setWorktreeSetupFor(key, command);
      return {
        repository: repository.top,
        command: settings.worktreeSetupFor(key),
        ...(host ? { host } : {}),
      };
    },
  };
}
