/**
 * Changes: what a conversation changed in its folder, step by step, shell commands included (DESIGN.md,
 * "Changes and snapshots"). Main keeps a snapshot of the working tree at the conversation's start, when a
 * prompt is sent, and at the end of every turn; a step is what lies between two snapshots: a turn, what
 * changed outside the conversation between turns, a revert (and the undo of one).
 * Paths are relative to the snapshots' work tree (the repository's top level, or the folder), with `/`.
 */
import { z } from 'zod';
import { ConversationRef } from './refs';

/** What a path is: a file, a symbolic link (listed, never followed) or a submodule (listed, never entered). */
export const ChangedKind = z.enum(['file', 'symlink', 'submodule']);
export type ChangedKind = z.infer<typeof ChangedKind>;

/** Who changed a file in a step, where that can be told from the turn's tool calls. */
export const ChangeCause = z.object({
  /**
   * The tool: "Write", "Edit", "MultiEdit", "NotebookEdit" (they name the file), or "Bash" (the turn ran a
   * command; which of them changed the file cannot be told). Null: no tool call of the turn names the file
   * and it ran no command (a change by hand, or by something outside the conversation).
   */
  tool: z.string().max(200).nullable(),
  /** Bash's command, cut to 2,000 characters. */
  command: z.string().max(2_000).nullable(),
});
export type ChangeCause = z.infer<typeof ChangeCause>;

/** One step of a conversation's changes. Numbers count from 1 in the order the steps happened. */
export const ChangeStep = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('turn'),
    step: z.number().int().positive(),
    /** The turn's number among the conversation's turns, from 1 ("turn 3"). */
    turn: z.number().int().positive(),
    /** The prompt's first words (at most 80 characters). */
    prompt: z.string().max(200),
    /** The prompt's user message, for Rewind; null when not known. */
    uuid: z.string().nullable(),
    /** When it ended (ms since the epoch). */
    at: z.number(),
    /** How many files it changed. */
    files: z.number().int().nonnegative(),
  }),
  z.object({
    kind: z.literal('revert'),
    step: z.number().int().positive(),
    /** What the files went back to, in words: "the conversation's start", "the start of turn 3". */
    to: z.string().max(200),
    paths: z.array(z.string()),
    at: z.number(),
    files: z.number().int().nonnegative(),
    /** Whether a later step undid it. */
    undone: z.boolean(),
  }),
  /**
   * What changed in the folder between two turns, by hand or by another program: seen when the next prompt
   * was sent, so that the turn's own changes are only its own.
   */
  z.object({
    kind: z.literal('outside'),
    step: z.number().int().positive(),
    at: z.number(),
    files: z.number().int().nonnegative(),
  }),
  z.object({
    kind: z.literal('undo'),
    step: z.number().int().positive(),
    /** The revert step it undid. */
    undoes: z.number().int().positive(),
    paths: z.array(z.string()),
    at: z.number(),
    files: z.number().int().nonnegative(),
  }),
]);
export type ChangeStep = z.infer<typeof ChangeStep>;

/** One file that differs between the two ends of what the panel shows. */
export const ChangedFile = z.object({
  path: z.string(),
  /** Where a renamed file was. */
  from: z.string().nullable(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  kind: ChangedKind,
  /** Lines added and removed; null for a binary file, a symlink or a submodule. */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  /** The steps that changed it, oldest first, each with what did it. */
  steps: z.array(z.object({ step: z.number().int().positive(), causes: z.array(ChangeCause) })),
  /**
   * Changed on disk since the conversation's last snapshot, by something other than its turns (by hand,
   * say): a revert asks before it overwrites that.
   */
  changedSince: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** Whether snapshots are being taken for a conversation, and why not. */
export const ChangesState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('on') }),
  /** The first snapshot is still being taken. */
  z.object({ kind: z.literal('starting') }),
  /** Off for this conversation, with the reason in words (too many files, git missing, …). */
  z.object({ kind: z.literal('off'), reason: z.string() }),
]);
export type ChangesState = z.infer<typeof ChangesState>;

/** What the Changes panel shows: the files that differ between the conversation's start (or a step's) and now. */
export const ChangesView = z.object({
  state: ChangesState,
  /** The folder the paths are relative to (a repository's top level, or the conversation's folder). */
  root: z.string(),
  inRepository: z.boolean(),
  /** A repository in the middle of something, in words: "a rebase", "a merge", … ; null when not. */
  repositoryState: z.string().nullable(),
  steps: z.array(ChangeStep),
  /** The step shown, or null for everything since the conversation's start. */
  step: z.number().int().positive().nullable(),
  files: z.array(ChangedFile),
  /**
   * What the user should know about what is not counted, each said once: files .gitignore leaves out,
   * files that could not be read (named), a bound reached.
   */
  notes: z.array(z.string()),
  /**
   * Set for a conversation in a worktree: its base, which `scope: 'base'` compares with (the branch, and the
   * commit where the worktree's branch parted from it). `scope` says which of the two this view is.
   */
  base: z.object({ branch: z.string(), commit: z.string() }).nullable().optional(),
  scope: z.enum(['conversation', 'base']).optional(),
});
export type ChangesView = z.infer<typeof ChangesView>;

/** One hunk of a text diff, as `git diff` writes it. */
export const DiffHunk = z.object({
  oldStart: z.number().int().nonnegative(),
  oldLines: z.number().int().nonnegative(),
  newStart: z.number().int().nonnegative(),
  newLines: z.number().int().nonnegative(),
  /** The text after the second `@@` (a function's name, often). */
  header: z.string(),
  /** Each line with its mark first: ' ' kept, '+' added, '-' removed, '\\' "No newline at end of file". */
  lines: z.array(z.string()),
});
export type DiffHunk = z.infer<typeof DiffHunk>;

/** One file's diff between the two ends the panel shows. */
export const FileDiff = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    path: z.string(),
    hunks: z.array(DiffHunk),
    /** Set when the diff was cut (a huge file): what was left out, in words. */
    cut: z.string().nullable(),
  }),
  /** Sizes in bytes; null where the file does not exist at that end. */
  z.object({
    kind: z.literal('binary'),
    path: z.string(),
    before: z.number().nullable(),
    after: z.number().nullable(),
  }),
  /** The link's target at each end; never followed. */
  z.object({
    kind: z.literal('symlink'),
    path: z.string(),
    before: z.string().nullable(),
    after: z.string().nullable(),
  }),
  /** The commit the submodule points at, at each end; never entered. */
  z.object({
    kind: z.literal('submodule'),
    path: z.string(),
    before: z.string().nullable(),
    after: z.string().nullable(),
  }),
]);
export type FileDiff = z.infer<typeof FileDiff>;

/** What a revert restores. */
export const RevertTarget = z.discriminatedUnion('kind', [
  /** One file, to the conversation's start (`step` null) or to the start of the step picked. */
  z.object({
    kind: z.literal('file'),
    path: z.string().min(1).max(4096),
    step: z.number().int().positive().nullable(),
  }),
  /** Every file a step changed, to that step's start. */
  z.object({ kind: z.literal('step'), step: z.number().int().positive() }),
  /** Undoes a revert step: its files go back to how they were just before it. */
  z.object({ kind: z.literal('undo'), step: z.number().int().positive() }),
]);
export type RevertTarget = z.infer<typeof RevertTarget>;

/** What a revert would do, asked before it is done. */
export const RevertPreview = z.object({
  /** In words: "the conversation's start", "the start of turn 3", "just before revert 5". */
  to: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      /** What happens to it: written back, deleted (it did not exist then), or made again. */
      action: z.enum(['restore', 'delete', 'create']),
      /**
       * Changed outside the conversation (by hand, say) since the snapshot it goes back to, or since the
       * last one: the revert would overwrite that.
       */
      changedSince: z.boolean(),
    }),
  ),
});
export type RevertPreview = z.infer<typeof RevertPreview>;

/**
 * What the panel compares: the conversation's own changes (from its start, or a step), or, in a worktree,
 * everything its branch holds against its base, committed and uncommitted (`step` is then ignored).
 */
export const ChangesScope = z.enum(['conversation', 'base']).default('conversation');

export const changesChannels = {
  /**
   * The conversation's Changes: its steps, and the files that differ between its start and now (the working
   * tree as it is), or, with `step`, what that step changed (between its two snapshots).
   */
  changes: {
    request: ConversationRef.extend({ step: z.number().int().positive().nullable(), scope: ChangesScope }),
    response: ChangesView,
  },
  /** One file's diff, between the same two ends as `changes` with the same `step`. */
  changesDiff: {
    request: ConversationRef.extend({
      step: z.number().int().positive().nullable(),
      scope: ChangesScope,
      path: z.string().min(1).max(4096),
    }),
    response: FileDiff,
  },
  /** What a revert would change, before anything is done. */
  previewRevert: {
    request: ConversationRef.extend({ target: RevertTarget }),
    response: RevertPreview,
  },
  /**
   * Reverts, as a step of its own (which `undo` can take back). A file changed since the last snapshot is
   * left as it is unless `overwriteChanged`; those left are named in `kept`. `step` is null when nothing
   * was left to revert (every file was kept).
   */
  revert: {
    request: ConversationRef.extend({ target: RevertTarget, overwriteChanged: z.boolean() }),
    response: z.object({ step: ChangeStep.nullable(), kept: z.array(z.string()) }),
  },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
