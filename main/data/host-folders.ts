/**
 * A folder on another host, as a key of what Byre keeps by folder (a folder's default "Done when", its
 * trust): never a path of this computer, so a folder of the same path here is another folder.
 */
export function hostFolderKey(host: string, folder: string): string {
  return `ssh://${encodeURIComponent(host)}${folder}`;
}
