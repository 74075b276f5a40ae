import type { ChangesAgainst, ChangesBase, ConversationChanges } from '../../changes/conversation-changes';
import { partedFrom } from '../../worktrees/worktrees';
import { where } from '../../machines/where';
import { NotSupported } from '../errors';
import type { HandlersOf, Parts } from '../parts';

/**
 * The Changes panel's channels: what a conversation changed (since its start, or in one step, or in a
 * worktree against its base), one file's diff, and reverts, asked first and then done. All of it is the
 * open conversation's tracker's; a worktree conversation's base is where its branch parted from the base
 * Byre recorded for it.
 */
export function changesHandlers(
  parts: Parts,
): HandlersOf<'changes' | 'changesDiff' | 'previewRevert' | 'revert'> {
  const { open } = parts;
  const of = (conversationId: string): ConversationChanges => {
    const { changes } = open.any(conversationId);
    if (!changes) throw new NotSupported('This conversation keeps no snapshots of its folder.');
    return changes;
  };
  /** The conversation's worktree base, or null when it is not in a worktree (or its folder is gone). */
  const baseOf = async (conversationId: string): Promise<ChangesBase | null> => {
    const { cwd, host = null } = open.any(conversationId).snapshot();
    const record = parts.worktrees.at(cwd, host);
    if (!record) return null;
    const { machine } = where(parts.remote, host);
    if (!(await machine.isFolder(record.path))) return null;
    return {
      branch: record.base ?? record.baseCommit,
      commit: await partedFrom(record, record.path, machine),
    };
  };
  const compared = async (
    conversationId: string,
    scope: 'conversation' | 'base',
  ): Promise<{ against: ChangesAgainst; base: ChangesBase | null }> => {
    const base = await baseOf(conversationId);
    if (scope === 'conversation') return { against: { scope }, base };
    if (!base) {
      throw new NotSupported('This conversation is not in a worktree, so it has no base to compare with.');
    }
    return { against: { scope, base }, base };
  };
  return {
    changes: async ({ conversationId, step, scope }) => {
      const changes = of(conversationId);
      const { against, base } = await compared(conversationId, scope);
      return changes.view(step, against, base);
    },
    changesDiff: async ({ conversationId, step, path, scope }) => {
      const changes = of(conversationId);
      return changes.diff(step, path, (await compared(conversationId, scope)).against);
    },
    previewRevert: async ({ conversationId, target }) => of(conversationId).previewRevert(target),
    revert: async ({ conversationId, target, overwriteChanged }) =>
      of(conversationId).revert(target, overwriteChanged),
  };
}
