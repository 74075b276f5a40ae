/**
 * Rewind's files, the CLI's checkpoints and Byre's snapshots together: the CLI restores what its file tools
 * changed (it kept copies), and the snapshot before the turn restores the rest, what shell commands changed
 * (cli-facts 13: the checkpoints miss Bash). The preview lists those as `byCommand`; the CLI refusing for
 * want of a checkpoint still leaves them to restore.
 */
import { join } from 'node:path';
import type { FileChange, FileRewind } from '../../shared/ipc';
import type { ConversationChanges, RewindPlan } from './conversation-changes';

/** Rewinds to just before prompt `uuid`; `cli` is the CLI's rewind_files (a dry run, or the restore). */
export async function rewindFiles(
  changes: ConversationChanges | null,
  uuid: string,
  dryRun: boolean,
  cli: (dryRun: boolean) => Promise<FileRewind>,
): Promise<FileRewind> {
  const preview = await cli(true);
  const plan = changes ? await changes.rewindPlan(uuid) : null;
  const byCommand = plan ? commandFiles(preview, plan) : [];
  const merged = withCommandFiles(preview, byCommand);
  if (dryRun || !merged.canRewind) return merged;
  const restoreByCli = async () => {
    if (!preview.canRewind) return;
    const restored = await cli(false);
    if (!restored.canRewind)
      throw new RewindFailed(restored.reason ?? 'Claude Code could not restore the files.');
  };
  try {
    if (changes && plan && byCommand.length > 0) {
      await changes.rewindRestore(
        plan,
        byCommand.map((file) => file.relative),
        restoreByCli,
      );
    } else await restoreByCli();
  } catch (error) {
    // Nothing was recorded as done: the snapshot's restore runs only after the CLI's worked.
    if (error instanceof RewindFailed) return { ...merged, canRewind: false, reason: error.message };
    throw error;
  }
  return merged;
}

class RewindFailed extends Error {}

interface CommandFile {
  relative: string;
  change: FileChange;
}

/** The files the snapshot restores: changed since the turn's start, by a step of it or after, that the CLI's preview does not list. */
function commandFiles(preview: FileRewind, plan: RewindPlan): CommandFile[] {
  const byCli = new Set(preview.filesChanged.map(plan.toWorkTree).filter((path) => path !== null));
  const files: CommandFile[] = [];
  for (const change of plan.changes) {
    for (const relative of change.from !== null ? [change.from, change.path] : [change.path]) {
      if (byCli.has(relative)) continue;
      // Going back: what the turn added, the rewind removes, and the other way round.
      const counts =
        relative === change.from
          ? { insertions: 0, deletions: 0 }
          : { insertions: change.removed ?? 0, deletions: change.added ?? 0 };
      files.push({ relative, change: { path: join(plan.workTree, relative), ...counts, byCommand: true } });
    }
  }
  return files;
}

/**
 * The CLI's preview with the command files added: in `filesChanged` and `byCommand`, in the totals, and
 * their own counts in `fileChanges` (the branch handler adds the CLI's files' counts, which it works out
 * from the session file).
 */
function withCommandFiles(preview: FileRewind, files: CommandFile[]): FileRewind {
  if (files.length === 0) return { ...preview, byCommand: [] };
  const changes = files.map((file) => file.change);
  return {
    canRewind: true,
    filesChanged: [
      ...(preview.canRewind ? preview.filesChanged : []),
      ...changes.map((change) => change.path),
    ],
    insertions: (preview.canRewind ? preview.insertions : 0) + sum(changes, 'insertions'),
    deletions: (preview.canRewind ? preview.deletions : 0) + sum(changes, 'deletions'),
    fileChanges: changes,
    byCommand: changes.map((change) => change.path),
    reason: null,
  };
}

function sum(changes: FileChange[], key: 'insertions' | 'deletions'): number {
  return changes.reduce((total, change) => total + change[key], 0);
}

/** The CLI's part of a merged preview: what the session file's per-file counts must add up to. */
export function cliPart(merged: FileRewind): FileRewind {
  const commands = (merged.fileChanges ?? []).filter((change) => change.byCommand);
  const byCommand = new Set(merged.byCommand);
  return {
    ...merged,
    filesChanged: merged.filesChanged.filter((path) => !byCommand.has(path)),
    insertions: merged.insertions - sum(commands, 'insertions'),
    deletions: merged.deletions - sum(commands, 'deletions'),
    fileChanges: null,
    byCommand: [],
  };
}
