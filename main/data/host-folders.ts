/**
 * A folder on another host, as a key of what Byre keeps by folder (a folder's default "Done when", its
 * trust): never a path of this computer, so a folder of the same path here is another folder.
 */
export function hostFolderKey(host: string, folder: string): string {
  return `ssh://${encodeURIComponent(host)}${folder}`;
}

/** The host and folder of a key hostFolderKey made; null for a key that is a folder of this computer. */
export function fromHostFolderKey(key: string): { host: string; folder: string } | null {
  const match = /^ssh:\/\/([^/]+)(\/.*)$/.exec(key);
  if (!match?.[1] || !match[2]) return null;
  try {
    return { host: decodeURIComponent(match[1]), folder: match[2] };
  } catch {
    return null;
  }
}
