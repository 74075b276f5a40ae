import type { InvokeChannel, InvokeRequest, InvokeResponse } from '../shared/ipc';
import type { Backend } from './backend';

/** For tests: runs one IPC request through the backend as a window would, throwing its error if it fails. */
export async function invokeOk<C extends InvokeChannel>(
  backend: Backend,
  channel: C,
  request: InvokeRequest<C>,
): Promise<InvokeResponse<C>> {
  const result = await backend.invoke(channel, request);
  if (!result.ok) throw new Error(`${channel}: ${result.error.name}: ${result.error.message}`);
  return result.value as InvokeResponse<C>;
}
