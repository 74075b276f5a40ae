/**
 * Worktrees (DESIGN.md, "Worktrees"): a conversation may run in a git worktree of its own, made from a base
 * branch the user picks, so several conversations work in one repository without seeing each other's files.
 * These channels offer the choice (is the folder a repository, which branches), say how each worktree
 * stands (for the sidebar and the header), and finish one: merge into its base, a pull request, open its
 * folder, remove it. A conversation is started in a worktree by `startConversation`'s `worktree`.
 */
import { z } from 'zod';
import { ConversationRef, Empty, FolderPath } from './refs';
import { HostName } from './remote';

/** A worktree's name: also its branch's name and its folder's under `<repository>/.claude/worktrees/`. */
export const WorktreeName = z.string().trim().min(1).max(100);

/** A branch or commit of the repository, as the user picked it. */
export const BranchName = z.string().trim().min(1).max(250);

/** The setup command run in each new worktree of a repository (e.g. `npm ci`), a shell command line. */
export const SETUP_COMMAND_MAX_CHARS = 4_000;
export const SetupCommand = z.string().max(SETUP_COMMAND_MAX_CHARS);

/** What the new-conversation form offers for a folder. */
/** The most submodules the form lists (the rest are fetched too, when asked). */
export const MAX_SUBMODULES_LISTED = 200;

export const WorktreeChoices = z.discriminatedUnion('available', [
  z.object({
    available: z.literal(true),
    /** The main checkout's top level: worktrees and their setup command belong to it. */
    repository: z.string(),
    /** Local branches, the current one first. */
    branches: z.array(z.string()),
    /** The branch checked out in the folder; null for a detached HEAD (then `head` is the base offered). */
    current: z.string().nullable(),
    /** The commit HEAD is at. */
    head: z.string(),
    /** The repository's setup command, from Settings; empty: none. */
    setupCommand: SetupCommand,
    /** Something to know before starting. */
    notes: z.array(z.string()),
    /**
     * The submodules its main checkout's .gitmodules names, each with the URL it would be fetched from: a new
     * worktree fetches them only when asked (NewWorktree.submodules).
     */
    submodules: z.array(z.object({ path: z.string(), url: z.string() })).max(MAX_SUBMODULES_LISTED),
  }),
  /** Why the checkbox is disabled: "This folder is not in a git repository.", "Git is not installed…". */
  z.object({ available: z.literal(false), reason: z.string() }),
]);
export type WorktreeChoices = z.infer<typeof WorktreeChoices>;

/** How a new conversation's worktree is made. */
export const NewWorktree = z.object({
  /** The branch (or commit) it starts from. */
  base: BranchName,
  /** Otherwise made from the first message (short, unique, a valid branch name). */
  name: WorktreeName.optional(),
  /** Fetch its submodules (from the URLs WorktreeChoices listed) into it; not fetched otherwise. */
  submodules: z.boolean().optional(),
});
export type NewWorktree = z.infer<typeof NewWorktree>;

/** A worktree a conversation runs in, and how it stands now. */
export const WorktreeStatus = z.object({
  /** The worktree's folder: the conversation's `cwd`. */
  path: z.string(),
  /** The main checkout's top level. */
  repository: z.string(),
  name: z.string(),
  branch: z.string(),
  /** The branch it was made from (what "Merge into" merges into); null for a detached HEAD's commit. */
  base: z.string().nullable(),
  /** The commit it was made from. */
  baseCommit: z.string(),
  createdAt: z.number(),
  /** Its folder is gone: removed from Byre (the conversation opens read-only; Resume makes it again) or by hand. */
  removed: z.boolean(),
  /** Commits on its branch the base lacks, and the other way round; null when they cannot be counted. */
  ahead: z.number().int().nonnegative().nullable(),
  behind: z.number().int().nonnegative().nullable(),
  /** Files that differ from the base: committed on the branch or not, new files included; null: unknown. */
  filesChanged: z.number().int().nonnegative().nullable(),
  /** Paths not committed in the worktree (what removing it would lose), as `git status` names them. */
  uncommitted: z.array(z.string()),
  /** Why the figures could not be had, in words; null when they could. */
  problem: z.string().nullable(),
  /** The host it is on, for a worktree of a repository on another host. */
  host: z.string().optional(),
});
export type WorktreeStatus = z.infer<typeof WorktreeStatus>;

/** What a worktree conversation's finishing dialogs start from, drafted from the conversation. */
export const WorktreeDraft = z.object({
  status: WorktreeStatus,
  /** A commit message for the merge (first line, blank line, body). */
  commitMessage: z.string(),
  /** A pull request's title and body. */
  title: z.string(),
  body: z.string(),
  /** Whether "Create pull request" can work here, and if not, what to do. */
  pullRequest: z.discriminatedUnion('ready', [
    z.object({ ready: z.literal(true), remote: z.string() }),
    /** E.g. "GitHub CLI (gh) is not installed: get it from https://cli.github.com, then run gh auth login." */
    z.object({ ready: z.literal(false), reason: z.string() }),
  ]),
});
export type WorktreeDraft = z.infer<typeof WorktreeDraft>;

/** One run of a repository's setup command in a new worktree: its card, before the first turn. */
export const SetupRun = z.object({
  id: z.string().min(1).max(100),
  command: SetupCommand,
  startedAt: z.number(),
  /** `skipped`: it failed and the user chose to go on without it. */
  status: z.enum(['running', 'passed', 'failed', 'stopped', 'skipped']),
  /** In words: "exit 0", "exit 1", "command not found (exit 127)", "timed out after 10 min". */
  summary: z.string(),
  durationMs: z.number().nonnegative().nullable(),
  /** The end of its output, at most CHECK_OUTPUT_SHOWN_CHARS. */
  output: z.string(),
  outputTruncated: z.boolean(),
});
export type SetupRun = z.infer<typeof SetupRun>;

export const MergeOutcome = z.discriminatedUnion('merged', [
  /** The base now has the work: `commit` is the merge (or squash) commit. */
  z.object({ merged: z.literal(true), commit: z.string(), base: z.string() }),
  /** Nothing was changed anywhere: the paths that conflict, to resolve in the worktree first. */
  z.object({ merged: z.literal(false), conflicts: z.array(z.string()) }),
]);
export type MergeOutcome = z.infer<typeof MergeOutcome>;

export const worktreeChannels = {
  /** Whether a conversation in `cwd` (on `host`, or here) can have a worktree, and from which branches. */
  worktreeChoices: {
    request: z.object({ cwd: FolderPath, host: HostName.optional() }),
    response: WorktreeChoices,
  },
  /** How every worktree Byre made stands (removed ones too, while a conversation of theirs is listed). */
  worktrees: { request: Empty, response: z.object({ worktrees: z.array(WorktreeStatus) }) },
  /** A worktree conversation's status, with the merge and pull request drafted from the conversation. */
  worktreeDraft: { request: ConversationRef, response: WorktreeDraft },
  /**
   * Merges the worktree's branch into its base, or squashes it onto the base. With `commitUncommitted`,
   * what is not committed in the worktree is first committed to its branch with the same message. Refused
   * (WorktreeRefused, saying why) when the base's checkout has local changes; a second merge in the same
   * repository waits for the first.
   */
  mergeWorktree: {
    request: ConversationRef.extend({
      squash: z.boolean(),
      message: z.string().trim().min(1).max(20_000),
      commitUncommitted: z.boolean(),
    }),
    response: MergeOutcome,
  },
  /** Pushes the branch, then `gh pr create` against the base; what gh said, and the pull request's address. */
  createPullRequest: {
    request: ConversationRef.extend({
      title: z.string().trim().min(1).max(256),
      body: z.string().max(60_000),
    }),
    response: z.object({ url: z.string().nullable(), output: z.string() }),
  },
  /** Opens the worktree's folder in the system's file manager, or a terminal there. */
  openWorktreeFolder: {
    request: ConversationRef.extend({ in: z.enum(['files', 'terminal']) }),
    response: Empty,
  },
  /**
   * Ends the conversation's CLI and removes its worktree, uncommitted work and all, and its branch only with
   * `deleteBranch`. The conversation stays in the library (read-only; Resume makes the worktree again from
   * its branch, if kept).
   */
  removeWorktree: {
    request: ConversationRef.extend({ deleteBranch: z.boolean() }),
    response: z.object({ sessionId: z.string() }),
  },
  /** A failed setup command: run it again, or go on without it (the first message is sent). */
  setupAction: {
    request: ConversationRef.extend({ action: z.enum(['retry', 'skip']) }),
    response: Empty,
  },
  /** The setup commands of Settings ("Run in each new worktree"), by repository. */
  worktreeSetups: {
    request: Empty,
    response: z.object({
      setups: z.array(
        z.object({
          repository: z.string(),
          command: SetupCommand,
          /** The host the repository is on; absent for this computer. */
          host: z.string().optional(),
        }),
      ),
    }),
  },
  /**
   * Sets a repository's setup command (empty removes it); `repository` may be any folder in it, on `host`
   * when given (asked there, over ssh).
   */
  setWorktreeSetup: {
    request: z.object({ repository: FolderPath, command: SetupCommand, host: HostName.optional() }),
    response: z.object({ repository: z.string(), command: SetupCommand, host: z.string().optional() }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
