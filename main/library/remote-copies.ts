import { join } from 'node:path';

/**
 * Where the library keeps its copies of other hosts' sessions (DESIGN.md, "Remote hosts"): each host's
 * `~/.claude/projects`, copied file by file into `<data>/remote/<host>/projects` and indexed like this
 * computer's, so that a host that is off still shows its conversations, and none is lost when the host
 * cleans up. The host's folder is its name as the user gave it, percent-encoded: nothing in it is a path.
 */

export function remoteCopiesDir(dataDir: string): string {
  return join(dataDir, 'remote');
}

/** The copy of `host`'s projects folder. */
export function hostProjectsCopy(dataDir: string, host: string): string {
  return join(remoteCopiesDir(dataDir), folderName(host), 'projects');
}

/** A host's name as a folder's: percent-encoded, and a leading dot too, so that `.` or `..` is no path. */
function folderName(host: string): string {
  return encodeURIComponent(host).replace(/^\./, '%2E');
}

/** The host a folder of remoteCopiesDir() is the copy of; null for a name that is not one it made. */
export function hostOfCopyFolder(name: string): string | null {
  try {
    const host = decodeURIComponent(name);
    return host.length > 0 && folderName(host) === name ? host : null;
  } catch {
    return null;
  }
}
