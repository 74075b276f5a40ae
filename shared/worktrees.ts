/**
 * Where worktrees live: `<repository>/.claude/worktrees/<name>`, as Byre makes them and as the CLI's
 * `--worktree` does (cli-facts 15). Pure, for both sides: main finds a conversation's repository by it, and
 * the sidebar groups a repository's worktree conversations (Byre's, and the CLI's made in a terminal) under it.
 */

/** The folder under a repository's top level that holds its worktrees, with `/`. */
export const WORKTREES_DIR = '.claude/worktrees';

export interface WorktreeLayout {
  /** The repository's top level (the main checkout), with the separators the path had. */
  repository: string;
  /** The worktree's name: the folder's name under WORKTREES_DIR. */
  name: string;
}

/**
 * The repository and name of a folder that sits where worktrees go, or null. Only the folder itself counts,
 * not one inside it: `<repo>/.claude/worktrees/x/src` is not a worktree's top level.
 */
export function worktreeLayout(folder: string | null | undefined): WorktreeLayout | null {
  if (!folder) return null;
  const match = /^(.+)[\\/]\.claude[\\/]worktrees[\\/]([^\\/]+)[\\/]?$/.exec(folder);
  if (!match?.[1] || !match[2]) return null;
  return { repository: match[1], name: match[2] };
}

/**
 * What the renderer keeps a worktree's status under: its folder, and the host it is on (a folder of the same
 * path on another computer is another worktree).
 */
export function worktreeStatusKey(path: string, host?: string | null): string {
  return host ? `${host}\u0000${path}` : path;
}
