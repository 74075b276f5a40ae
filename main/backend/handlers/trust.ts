import { hostFolder } from '../host-trust';
import type { HandlersOf, Parts } from '../parts';

/** Trusting a folder's own settings: what they would do, the user's decision, and the folders trusted. */
export function trustHandlers({
  trust,
  open,
  remote,
}: Parts): HandlersOf<
  'folderTrust' | 'decideTrust' | 'trustedFolders' | 'forgetTrust' | 'useFolderSettings'
> {
  return {
    folderTrust: async ({ cwd, host }) => {
      if (!host) return trust.view(cwd);
      // A folder on a host: its files there, its trust kept for that host's folder.
      const settings = await hostFolder(remote, host, cwd).read();
      return { ...trust.viewOf(settings), folder: cwd, host };
    },
    decideTrust: async ({ folder, host, digest, trust: trusted }) => {
      if (host) trust.decideFor(await hostFolder(remote, host, folder).read(), digest, trusted);
      else trust.decide(folder, digest, trusted);
      return {};
    },
    trustedFolders: async () => ({ folders: trust.list() }),
    forgetTrust: async ({ folder }) => {
      trust.forget(folder);
      return {};
    },
    useFolderSettings: async ({ conversationId }) => open.get(conversationId).useFolderSettings(),
  };
}
