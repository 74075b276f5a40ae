/**
 * The page's one way to main: `call` turns window.byre's results into values or thrown errors (the preload's
 * under Electron, the bridge client's in a browser). Only the store's slices call it.
 */
import { errorFromIpc, type IpcResult } from '../../../shared/ipc/errors';
import type { InvokeChannel, InvokeRequest, InvokeResponse } from '../../../shared/ipc';

/** Calls main through window.byre; a failed call throws an Error whose name says what kind it was. */
export async function call<C extends InvokeChannel>(
  channel: C,
  request: InvokeRequest<C>,
): Promise<InvokeResponse<C>> {
  const invoke = window.byre[channel] as unknown as (
    request: InvokeRequest<C>,
  ) => Promise<IpcResult<InvokeResponse<C>>>;
  const result = await invoke(request);
  if (!result.ok) throw errorFromIpc(result.error);
  return result.value;
}

/** The page runs in Electron's window (not a plain browser over the bridge): main opens links, picks folders. */
export function inElectron(): boolean {
  return window.byre.host === 'electron';
}
