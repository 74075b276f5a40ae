/**
 * Why a conversation's Changes are off, in words the panel can show: git not installed, the snapshots'
 * bounds passed (SnapshotsOff says which), Byre's snapshot store not writable, or git's own complaint.
 */
import { GitFailed } from '../machines/git';
import { SnapshotsOff } from './snapshots';

export function offReason(error: unknown, store: string): string {
  if (error instanceof GitFailed && error.code === 'ENOENT') {
    return 'Changes are off: git is not installed (or not on the PATH), and snapshots are taken with git.';
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return `Changes are off: Byre cannot write its snapshots in ${store}.`;
  }
  // It says in words which bound was passed, or what is missing.
  if (error instanceof SnapshotsOff) return error.message;
  if (error instanceof GitFailed) return `Changes are off: ${error.message}`;
  return `Changes are off: ${error instanceof Error ? error.message : String(error)}`;
}
