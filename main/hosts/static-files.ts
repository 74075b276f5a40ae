import { realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { pageWithFirstScreen, type FirstScreen } from '../../shared/first-screen';

/**
 * The app's own files as both hosts serve them (the browser host at /app/, Electron at app://byre/):
 * a path kept inside the renderer folder, links out of it refused, and the content type by extension.
 */

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

/**
 * The file for a path below `/app/` (still percent-encoded), or null when it would leave `rootDir`. An empty
 * path is the app's index.html.
 */
export function resolveStaticPath(rootDir: string, encodedPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(encodedPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const root = resolve(rootDir);
  const file = resolve(root, decoded === '' ? 'index.html' : `.${sep}${decoded}`);
  return isInside(root, file) ? file : null;
}

function isInside(root: string, file: string): boolean {
  return file.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The file's bytes, or null when it is missing, not a regular file, or a link out of the folder. */
export async function readStaticFile(rootDir: string, file: string): Promise<Buffer | null> {
  try {
    if (!(await stat(file)).isFile() || !isInside(rootDir, realpathSync(file))) return null;
    return await readFile(file);
  } catch {
    return null;
  }
}

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** The app's page (its index.html), which a host serves with the first screen drawn in (shared/first-screen.ts). */
export function isAppPage(rootDir: string, file: string): boolean {
  return file === resolve(rootDir, 'index.html');
}

/**
 * How long a host holds the app's page back for the library's first screen. The library answers in a few
 * milliseconds once its index is open; on a start it is still opening, the page goes without, and the
 * app asks for the rows itself.
 */
export const FIRST_SCREEN_WAIT_MS = 150;

/**
 * The app's page (its index.html as built) with the first screen drawn in (shared/first-screen.ts); the page
 * as built if the drawing fails (a kept row the drawing cannot take): never no page at all.
 */
export function appPageWith(html: string, screen: FirstScreen | null): string {
  try {
    return pageWithFirstScreen(html, screen);
  } catch {
    return html;
  }
}
