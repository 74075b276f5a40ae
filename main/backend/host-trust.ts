import { posix } from 'node:path';
import { hostFolderKey } from '../data/host-folders';
import { folderSettingsOf, MAX_SETTINGS_BYTES, settingsFilesOf, type HostFolder } from '../data/trust';
import type { RemoteHosts } from '../remote/hosts';

/**
 * A folder on another host as the trust gate judges it: its settings files read there over ssh (the folder's
 * own, and every `.mcp.json` above it, as the CLI there reads them), with trust kept for that host's folder.
 */
export function hostFolder(remote: RemoteHosts, host: string, folder: string): HostFolder {
  return {
    host,
    folder,
    read: async () => {
      const files = settingsFilesOf(folder, posix);
      const read = await remote.readFiles(
        host,
        files.map((file) => file.path),
        MAX_SETTINGS_BYTES,
      );
      return folderSettingsOf(
        folder,
        hostFolderKey(host, folder),
        (path) => read.get(path) ?? { kind: 'unreadable', reason: 'the host did not say' },
        posix,
      );
    },
  };
}
