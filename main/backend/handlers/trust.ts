import type { HandlersOf, Parts } from '../parts';

/** Trusting a folder's own settings: what they would do, the user's decision, and the folders trusted. */
export function trustHandlers({
  trust,
  open,
}: Parts): HandlersOf<
  'folderTrust' | 'decideTrust' | 'trustedFolders' | 'forgetTrust' | 'useFolderSettings'
> {
  return {
    folderTrust: async ({ cwd }) => trust.view(cwd),
    decideTrust: async ({ folder, digest, trust: trusted }) => {
      trust.decide(folder, digest, trusted);
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
