// Errors cross IPC as plain {name, message}, never a stack trace: the one place any error is made so.
import type { IpcError } from '../../shared/ipc';
import { CliNotFound } from '../claude';
import { TrustNeeded } from '../data/trust';

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
  if (error instanceof TrustNeeded) return { name: error.name, message: error.message, folder: error.folder };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
