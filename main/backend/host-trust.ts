import { posix } from 'node:path';
import { hostFolderKey } from '../data/host-folders';
import {
  FolderReading,
  MAX_FOLDER_BYTES,
  MAX_SETTINGS_BYTES,
  type FileText,
  type Listing,
} from '../data/folder-content';
import type { HostFolder } from '../data/trust';
import type { RemoteHosts } from '../remote/hosts';

/** Rounds of reading a host's folder: a listing, what it names, what those import, to the imports' depth. */
const MAX_ROUNDS = 8;

/**
 * A folder on another host as the trust gate judges it: what it carries read there over ssh (its settings,
 * every `.mcp.json` above it, its agents, skills, commands, output styles, CLAUDE.md and imports, and the
 * scripts its hooks name, as the CLI there reads them), a round trip per round, with trust kept for that
 * host's folder.
 */
export function hostFolder(remote: RemoteHosts, host: string, folder: string): HostFolder {
  return {
    host,
    folder,
    read: async () => {
      const reading = new FolderReading(folder, posix);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const { read, list } = reading.next();
        if (read.length === 0 && list.length === 0) break;
        const [texts, listings] = await Promise.all([
          read.length > 0
            ? remote.readFiles(host, read, MAX_SETTINGS_BYTES, {
                left: reading.budget(),
                total: MAX_FOLDER_BYTES,
              })
            : new Map<string, FileText>(),
          list.length > 0 ? remote.listFiles(host, list) : new Map<string, Listing>(),
        ]);
        reading.add(
          new Map(
            read.map((path) => [
              path,
              texts.get(path) ?? { kind: 'unreadable', reason: 'the host did not say' },
            ]),
          ),
          listings,
        );
      }
      return reading.result(hostFolderKey(host, folder));
    },
  };
}
