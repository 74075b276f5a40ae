/**
 * How a failure crosses IPC: a plain object with a name, never a stack trace. The names are main's error
 * kinds (and the hosts' own refusals), listed once here so the renderer and the tests can switch on them.
 */
import { z } from 'zod';

/**
 * Every error name main or a host sends that the renderer can tell apart. The error classes live in main
 * (each sets one of these names); an error of any other kind crosses as its own name, or `Error`.
 */
export const IpcErrorName = z.enum([
  // The contract and its hosts
  'UnknownChannel',
  'InvalidRequest',
  'Forbidden',
  'BadFrame',
  'UnsendableReply',
  'ReplyTooLarge',
  'Disconnected',
  // The CLI and its process
  'CliNotFound',
  'CliExited',
  'CliCopyGone',
  'ControlRequestFailed',
  'ControlRequestTimeout',
  'InvalidOutgoingMessage',
  'SessionClosed',
  'TurnCancelled',
  // Other hosts, over ssh: the problem's kind is in its message
  'RemoteProblem',
  // Conversations and folders
  'NoSuchConversation',
  'Busy',
  'NotRunning',
  'NotAFolder',
  'NotSupported',
  'InvalidSetting',
  'TrustNeeded',
  'UnknownMessage',
  'ImageRefused',
  'ImageNotTaken',
  'ImageGone',
  // The library
  'NoSuchSession',
  'UnknownBranch',
  'BranchTooLarge',
  'ExportTooLarge',
  'IndexUnavailable',
  'LibraryUnavailable',
  'LibraryFailure',
  'OtherLayout',
  'SearchSuperseded',
  // Changes
  'SnapshotsOff',
  'NoSuchStep',
  // Worktrees
  'WorktreeRefused',
  // Limits
  'NoLimitReached',
  // Anything else
  'Error',
]);
export type IpcErrorName = z.infer<typeof IpcErrorName>;

/** An error as it crosses IPC: a plain object, never a stack trace. */
export const IpcError = z.object({
  /** One of IpcErrorName; a string, so that an error of a kind nobody listed still crosses whole. */
  name: z.string(),
  message: z.string(),
  /** For CliNotFound: every place looked. */
  looked: z.array(z.string()).optional(),
  /** For CliNotFound: why the path the user chose (BYRE_CLAUDE_PATH) is not the CLI. */
  explanation: z.string().optional(),
  /** For TrustNeeded: the folder whose settings wait for the user's answer. */
  folder: z.string().optional(),
  /** For TrustNeeded: the host that folder is on, when it is not this computer. */
  host: z.string().optional(),
  /** For RemoteProblem, a host key not known: the host and its keys' fingerprints, to check and accept. */
  hostKey: z.object({ host: z.string(), fingerprints: z.array(z.string()) }).optional(),
});
export type IpcError = z.infer<typeof IpcError>;

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** Rebuilds an Error from its IPC form so callers can tell kinds apart by name. */
export function errorFromIpc(error: IpcError): Error & IpcError {
  return Object.assign(new Error(error.message), error);
}
