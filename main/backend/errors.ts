import type { IpcError } from '../../shared/ipc';
import { CliNotFound } from '../claude';
import { TrustNeeded } from '../data/trust';
import { RemoteProblem } from '../remote/run';

/**
 * The backend's errors, which the renderer tells apart by name, and the one place any error becomes what
 * crosses IPC. The rooms below throw their own (the driver's, the library's, a conversation's); they cross
 * the same way, through `toIpcError`.
 */

/** Errors cross IPC as plain {name, message}: never a stack trace. */
export function toIpcError(error: unknown): IpcError {
  if (error instanceof CliNotFound) {
    return {
      name: error.name,
      message: error.message,
      looked: [...error.looked],
      ...(error.explanation ? { explanation: error.explanation } : {}),
    };
  }
  if (error instanceof TrustNeeded) {
    return {
      name: error.name,
      message: error.message,
      folder: error.folder,
      ...(error.host ? { host: error.host } : {}),
    };
  }
  if (error instanceof RemoteProblem && error.hostKey) {
    return { name: error.name, message: error.message, hostKey: error.hostKey };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export class NoSuchConversation extends Error {
  override readonly name = 'NoSuchConversation';
}

export class NotSupported extends Error {
  override readonly name = 'NotSupported';
}

export class InvalidSetting extends Error {
  override readonly name = 'InvalidSetting';
}

export class NotAFolder extends Error {
  override readonly name = 'NotAFolder';
}

export class NoSuchSession extends Error {
  override readonly name = 'NoSuchSession';
}

/** A fork point that is not an entry of the saved session. */
export class UnknownMessage extends Error {
  override readonly name = 'UnknownMessage';
}

/** A message sent again names an image by reference that main no longer holds (it was restarted). */
export class ImageGone extends Error {
  override readonly name = 'ImageGone';
}

/** Why the CLI's copy is missing: cleaned up after cleanupPeriodDays, or perhaps never written. */
const WHY_GONE = {
  cleanedUp:
    'Claude Code no longer has its copy of this conversation (it deletes them after cleanupPeriodDays)',
  maybeNeverSaved:
    'Claude Code has no saved copy of this conversation (nothing was saved in it yet, or it was deleted after cleanupPeriodDays)',
} as const;

/** What the missing copy takes with it, and what the user can still do. */
const WHAT_IS_LOST = {
  branches: ', and the branches made inside it went with it. The conversation itself can still be opened.',
  files: ', and its copies of the files went with it, so nothing can be restored.',
  fork: ', so it cannot be forked. You can still continue it in a new conversation.',
  resume: ', so it cannot be resumed. You can continue it in a new conversation instead.',
} as const;

/** The CLI cleaned up its session file: `--resume` has nothing to read. */
export class CliCopyGone extends Error {
  override readonly name = 'CliCopyGone';
  constructor(lost: keyof typeof WHAT_IS_LOST, why: keyof typeof WHY_GONE = 'cleanedUp') {
    super(`${WHY_GONE[why]}${WHAT_IS_LOST[lost]}`);
  }
}

/** "Send when the limit resets" for a conversation whose limit is not reached, or whose reset time is not known. */
export class NoLimitReached extends Error {
  override readonly name = 'NoLimitReached';
}
