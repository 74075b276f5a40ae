/**
 * What a file holds before Claude's Write replaces it, read while the Write waits for the user's answer, so
 * its card shows the real change instead of every line as new. Only a text file of a size a card can show:
 * anything else (no file yet, a folder, a binary, a huge file, no access) is null, and the card shows the
 * content as added, which is true for a new file and says nothing false for the rest.
 */
import { open } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

/** Larger files are not shown as a diff in a card anyway. */
export const FILE_BEFORE_LIMIT = 512 * 1024;

export async function fileBefore(toolName: string, input: Record<string, unknown>): Promise<string | null> {
  const path = input.file_path;
  if (toolName !== 'Write' || typeof path !== 'string' || !isAbsolute(path)) return null;
  let handle;
  try {
    handle = await open(path, 'r');
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > FILE_BEFORE_LIMIT) return null;
    const text = (await handle.readFile()).toString('utf8');
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}
