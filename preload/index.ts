import { contextBridge } from 'electron';

/** Exposes exactly the app's API to the renderer; nothing of Node or raw IPC. */
contextBridge.exposeInMainWorld('byre', {
  host: 'electron',
});
