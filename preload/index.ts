import { contextBridge, ipcRenderer } from 'electron';
import { invokeChannelNames, ipcChannel, type ByreApi, type EventChannel } from '../shared/ipc';

/**
 * Exposes exactly the contract's API as window.byre: named functions and event subscriptions. Listeners
 * get the payload, never the IPC event; there is no raw ipcRenderer, no sendSync and no process.env.
 */
const api: Record<string, unknown> = { host: 'electron' };
for (const name of invokeChannelNames) {
  api[name] = (request: unknown) => ipcRenderer.invoke(ipcChannel(name), request);
}
api.on = (channel: EventChannel, listener: (payload: unknown) => void) => {
  const wrapped = (_event: unknown, payload: unknown) => listener(payload);
  ipcRenderer.on(ipcChannel(channel), wrapped);
  return () => {
    ipcRenderer.removeListener(ipcChannel(channel), wrapped);
  };
};

contextBridge.exposeInMainWorld('byre', api as ByreApi);
