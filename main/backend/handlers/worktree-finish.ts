import type { MergeOutcome } from '../../../shared/ipc';
import type { LaneConversation } from '../../conversation/lane-conversation';
import type { WorktreeRecord } from '../../data/worktree-records';
import { UNTITLED } from '../../library/rules/titles';
import { draftFinish } from '../../worktrees/drafts';
import { mergeIntoBase } from '../../worktrees/merge';
import { createPullRequest, pullRequestReadiness } from '../../worktrees/pull-request';
import { worktreeStanding } from '../../worktrees/status';
import { commitOfUncommitted, moveBranchTo, WorktreeRefused } from '../../worktrees/worktrees';
import type { Machine } from '../../machines/machine';
import { where } from '../../machines/where';
import { hostFolderKey } from '../../data/host-folders';
import { NotSupported } from '../errors';
import type { HandlersOf, Parts } from '../parts';

/**
 * Finishing a worktree conversation: the merge and the pull request drafted from it, merging into its base,
 * a pull request through gh, and its folder opened in the file manager or a terminal. A conversation is a
 * worktree's exactly when Byre recorded its folder as one (worktrees.json): a path from a window is never
 * taken, only the open conversation's own folder.
 */
export function worktreeFinishHandlers(
  parts: Parts,
): HandlersOf<'worktreeDraft' | 'mergeWorktree' | 'createPullRequest' | 'openWorktreeFolder'> {
  const worktreeOf = (conversationId: string) => {
    const conversation = parts.open.any(conversationId);
    const { cwd, host = null } = conversation.snapshot();
    const record = parts.worktrees.at(cwd, host);
    if (!record) throw new WorktreeRefused('This conversation is not in a worktree.');
    return { conversation, record };
  };
  /** The computer a worktree is on: its host's git and files for one on another host. */
  const machineOf = (record: WorktreeRecord): Machine => where(parts.remote, record.host).machine;
  const present = async (record: WorktreeRecord) =>
    record.removedAt === null && (await machineOf(record).isFolder(record.path));
  /** Worktrees being merged now, by folder. */
  const merging = new Set<string>();
  /** Only ever one at a time per worktree (mergeWorktree sees to it). */
  const mergeNow = async (
    record: WorktreeRecord,
    base: string,
    { squash, message, commitUncommitted }: { squash: boolean; message: string; commitUncommitted: boolean },
  ): Promise<MergeOutcome> => {
    const machine = machineOf(record);
    const identity = parts.settings.commitIdentityFor(
      record.host ? hostFolderKey(record.host, record.repository) : record.repository,
    );
    // Made as a commit on top of the branch, but the branch moves to it only once the merge is done: a
    // merge that conflicts, or is refused, leaves the worktree exactly as it was.
    const tip =
      commitUncommitted && (await present(record))
        ? await commitOfUncommitted(record, message, identity, machine)
        : null;
    const result = await mergeIntoBase(
      {
        top: record.repository,
        commonDir: record.commonDir,
        ...(record.host ? { machine } : {}),
      },
      {
        branch: record.branch,
        base,
        squash,
        message,
        ...(identity ? { identity } : {}),
        ...(tip ? { tip } : {}),
      },
    );
    if (!result.merged) return result;
    if (tip) {
      await moveBranchTo(record, tip, machine).catch((error: unknown) =>
        // The base has the work either way; the worktree then still shows it as uncommitted.
        console.error(
          'Byre: the worktree’s branch could not take the commit of its uncommitted work:',
          error,
        ),
      );
    }
    parts.worktreesChanged();
    return { merged: true as const, commit: result.commit, base };
  };

  return {
    worktreeDraft: async ({ conversationId }) => {
      const { conversation, record } = worktreeOf(conversationId);
      const [standing, said] = await Promise.all([
        worktreeStanding(record, machineOf(record)),
        whatWasSaid(parts, conversation),
      ]);
      const { files, ...status } = standing;
      const drafts = draftFinish({ ...said, files, branch: record.branch });
      const pullRequest = !record.base
        ? { ready: false as const, reason: noBase(record, 'open a pull request against') }
        : record.host
          ? { ready: false as const, reason: onHost(record.host, record, 'open a pull request') }
          : await pullRequestReadiness(
              (await present(record)) ? record.path : record.repository,
              parts.options.env,
            );
      return { status, ...drafts, pullRequest };
    },

    mergeWorktree: async ({ conversationId, squash, message, commitUncommitted }) => {
      const { record } = worktreeOf(conversationId);
      const base = record.base;
      if (!base) throw new WorktreeRefused(noBase(record, 'merge it into'));
      // One merge of a worktree at a time (two windows, two clicks): the second is refused, not interleaved.
      if (merging.has(record.path)) {
        throw new WorktreeRefused('This worktree is being merged already: wait for that merge to end.');
      }
      merging.add(record.path);
      try {
        return await mergeNow(record, base, { squash, message, commitUncommitted });
      } finally {
        merging.delete(record.path);
      }
    },

    createPullRequest: async ({ conversationId, title, body }) => {
      const { record } = worktreeOf(conversationId);
      if (!record.base) throw new WorktreeRefused(noBase(record, 'open a pull request against'));
      if (record.host) throw new WorktreeRefused(onHost(record.host, record, 'open a pull request'));
      const made = await createPullRequest(
        {
          cwd: (await present(record)) ? record.path : record.repository,
          branch: record.branch,
          base: record.base,
          title,
          body,
        },
        parts.options.env,
      );
      parts.worktreesChanged();
      return made;
    },

    openWorktreeFolder: async ({ conversationId, in: where }) => {
      const { record } = worktreeOf(conversationId);
      if (record.host) {
        throw new NotSupported(
          `The worktree’s folder is on ${record.host}, where this computer’s ${where === 'files' ? 'file manager' : 'terminal'} cannot open it: it is ${record.path} there.`,
        );
      }
      if (!(await present(record))) {
        throw new WorktreeRefused(
          `The worktree’s folder ${record.path} is gone: resume the conversation to make it again.`,
        );
      }
      const open = where === 'files' ? parts.options.openFolder : parts.options.openTerminal;
      if (!open) {
        throw new NotSupported(
          where === 'files' ? 'This host cannot open folders.' : 'This host cannot open a terminal.',
        );
      }
      await open(record.path);
      return {};
    },
  };
}

/**
 * Why a pull request is not opened from here for a worktree on a host: gh and its login are this
 * computer's, and the branch is in the repository there. What to do instead.
 */
function onHost(host: string, record: WorktreeRecord, what: string): string {
  return `Byre does not ${what} for a worktree on ${host} yet: its branch ${record.branch} is in the repository there. Push it there and run gh pr create in ${record.path} on ${host}.`;
}

/** Why a worktree made from a detached HEAD's commit has no branch to finish into, and what to do instead. */
function noBase(record: WorktreeRecord, what: string): string {
  return `This worktree was made from a detached HEAD (commit ${record.baseCommit.slice(0, 12)}), so it has no base branch to ${what}. Merge its branch ${record.branch} by hand.`;
}

/**
 * The conversation's title, when it has one of its own, and the prompts it was sent, oldest first: read
 * from its log, every page (drafting is rare, and the first prompt is what names the work).
 */
async function whatWasSaid(
  parts: Parts,
  conversation: LaneConversation,
): Promise<{ title: string | null; prompts: string[] }> {
  const window = conversation.history();
  const pages = [window.events];
  for (let before = window.before; before !== null;) {
    const page = conversation.historyBefore(before);
    pages.unshift(page.events);
    before = page.before;
  }
  const events = [...window.prelude, ...pages.flat()];
  const prompts = events.flatMap((event) => (event.kind === 'prompt' ? [event.text] : []));
  const named = events.flatMap((event) => (event.kind === 'title' ? [event.title] : [])).at(-1) ?? null;
  // The library's title rules know a rename, and for a resumed conversation the prompts before this process.
  const row = await parts.library.row(conversation.sessionId).catch(() => null);
  const listed = row && row.title !== UNTITLED ? row.title : null;
  return { title: named ?? listed, prompts };
}
