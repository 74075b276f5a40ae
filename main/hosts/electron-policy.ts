import { resolveStaticPath } from './static-files';

/**
 * The Electron host's security decisions, kept apart from Electron so that they are unit-tested where no
 * Electron binary exists (main/hosts/index.ts only wires them in): where the app is served from, which frame may
 * call main, which permissions and navigations are allowed, the CSP, and what a crashing renderer gets.
 */

/** The app is served from `app://byre/`, a standard, secure scheme of its own, never from file://. */
export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://byre`;
export const APP_INDEX = `${APP_ORIGIN}/index.html`;
/** The page shown instead of the app when its renderer keeps crashing (served by the same handler). */
export const CRASH_PAGE = `${APP_ORIGIN}/crashed.html`;

/**
 * The CSP the Electron host sends with the app's page, on top of the one in index.html (a page obeys both).
 * index.html must let the browser host's page reach its socket; under Electron the page reaches main only
 * through IPC, so it may connect nowhere.
 */
export const ELECTRON_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: byre-image:",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const withoutFragment = (url: string | undefined): string | undefined => url?.split('#')[0];

/**
 * The file under `rendererDir` that an app:// URL names, or null: another host, a path out of the folder
 * (`..`, encoded or not), or a URL that does not parse. `/` is the index.
 */
export function appFileFor(url: string, rendererDir: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== 'byre') return null;
  return resolveStaticPath(rendererDir, parsed.pathname.slice(1));
}

/** Only the app's own page, at the top of its window, may call main. */
export function isAppFrame(pageUrl: string, frameUrl: string | undefined, hasParent: boolean): boolean {
  return !hasParent && withoutFragment(frameUrl) === APP_INDEX && withoutFragment(pageUrl) === APP_INDEX;
}

/** What the app's page may do: notify, and put text on the clipboard (Copy); never read it. */
const PAGE_PERMISSIONS: ReadonlySet<string> = new Set(['notifications', 'clipboard-sanitized-write']);

/** Only what the page needs (PAGE_PERMISSIONS), and only for the app's own page. */
export function permissionAllowed(permission: string, pageUrl: string | undefined): boolean {
  return PAGE_PERMISSIONS.has(permission) && withoutFragment(pageUrl) === APP_INDEX;
}

/** A window may go to the app's page (a reload, "Try again" on the crash page) and nowhere else. */
export function navigationAllowed(url: string): boolean {
  return withoutFragment(url) === APP_INDEX;
}

/** What to do when the renderer has crashed: load the app again after a while, or stop and say so. */
export type CrashAnswer = { action: 'reload'; delayMs: number } | { action: 'give-up'; crashes: number };

/**
 * A renderer that crashed (out of memory, say) is loaded again, at once the first time and then after
 * longer waits; one that crashes more than `limit` times in `windowMs` gets the crash page rather than a
 * reload loop. The conversations live in main and go on meanwhile.
 */
export class RendererCrashes {
  private times: number[] = [];

  constructor(
    private readonly limit = 3,
    private readonly windowMs = 60_000,
    private readonly delaysMs: readonly number[] = [0, 1_000, 4_000],
  ) {}

  next(now: number): CrashAnswer {
    this.times = this.times.filter((time) => now - time < this.windowMs);
    this.times.push(now);
    const count = this.times.length;
    if (count > this.limit) return { action: 'give-up', crashes: count };
    return { action: 'reload', delayMs: this.delaysMs[Math.min(count, this.delaysMs.length) - 1] ?? 0 };
  }

  /** The user chose to try again: start counting afresh. */
  reset(): void {
    this.times = [];
  }
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The crash page: what happened, that nothing is lost, and a way back. No script: it needs none. */
export function crashPage(crashes: number, reason: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Byre</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: center; min-height: 100vh;
    color: #1f2328; background: #f6f8fa; }
  @media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } a { color: #58a6ff; } }
  main { max-width: 34rem; padding: 2rem; }
</style>
</head>
<body>
<main role="alert">
<h1>Byre's window stopped working</h1>
<p>It stopped ${crashes} times in a minute (${escapeHtml(reason)}), so Byre did not load it again on its own.</p>
<p>Your conversations are still running in Byre, and nothing in them is lost.</p>
<p><a href="${APP_INDEX}">Try again</a></p>
</main>
</body>
</html>
`;
}
