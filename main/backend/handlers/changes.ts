import type { ConversationChanges } from '../../changes/conversation-changes';
import { NotSupported } from '../errors';
import type { HandlersOf, Parts } from '../parts';

/**
 * The Changes panel's channels: what a conversation changed (since its start, or in one step), one file's
 * diff, and reverts, asked first and then done. All of it is the open conversation's tracker's.
 */
export function changesHandlers({
  open,
}: Parts): HandlersOf<'changes' | 'changesDiff' | 'previewRevert' | 'revert'> {
  const of = (conversationId: string): ConversationChanges => {
    const changes = open.get(conversationId).changes;
    if (!changes) throw new NotSupported('This conversation keeps no snapshots of its folder.');
    return changes;
  };
  return {
    changes: async ({ conversationId, step }) => of(conversationId).view(step),
    changesDiff: async ({ conversationId, step, path }) => of(conversationId).diff(step, path),
    previewRevert: async ({ conversationId, target }) => of(conversationId).previewRevert(target),
    revert: async ({ conversationId, target, overwriteChanged }) =>
      of(conversationId).revert(target, overwriteChanged),
  };
}
