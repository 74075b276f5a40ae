import type { ByreApi } from '../../shared/ipc';

declare global {
  interface Window {
    /** The IPC contract: from the Electron preload, or from the bridge client in a plain browser. */
    byre: ByreApi;
  }
}

export {};
