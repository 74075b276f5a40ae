/**
 * The CLI's answer to `rewind_files` in the contract's terms, and its refusals in words a person
 * understands (from what the pinned CLI, 2.1.332, says).
 */
import type { FileRewind } from '../../shared/ipc';
import type { RewindFilesResponse } from '../../shared/protocol';

/** The CLI's answer to rewind_files, in the contract's terms. */
export function fileRewind(answer: RewindFilesResponse): FileRewind {
  return {
    canRewind: answer.canRewind,
    filesChanged: answer.filesChanged ?? [],
    insertions: answer.insertions ?? 0,
    deletions: answer.deletions ?? 0,
    fileChanges: null,
    byCommand: [],
    reason: answer.canRewind ? null : rewindRefusal(answer.error),
  };
}

/** Why files cannot be restored, in words a person understands, from the CLI's own (2.1.332) error. */
function rewindRefusal(error: string | undefined): string {
  if (error === 'No file checkpoint found for this message.') {
    return 'Claude Code kept no copy of the files for this message, so there is nothing to restore. It keeps copies only of changes made with its file tools (Write, Edit, NotebookEdit), not of changes made through Bash, and only for messages it has on record.';
  }
  if (error === 'File rewinding is not enabled.') {
    return 'Claude Code was not keeping copies of files in this conversation, so there is nothing to restore.';
  }
  const failed = error?.match(/^Failed to rewind: (.*)$/s);
  if (failed) return `Restoring the files failed: ${failed[1]}`;
  return error ? `Claude Code cannot restore the files: ${error}` : 'Claude Code cannot restore the files.';
}
