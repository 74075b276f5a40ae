import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_INDEX,
  appFileFor,
  CRASH_PAGE,
  crashPage,
  ELECTRON_CSP,
  isAppFrame,
  navigationAllowed,
  permissionAllowed,
  RendererCrashes,
} from './electron-policy';

/** The Electron host's security decisions, checked without Electron (main/hosts/index.ts wires them in). */

const DIR = '/opt/byre/renderer';

describe('the app:// protocol', () => {
  it('serves files from the renderer folder, the index for /', () => {
    expect(appFileFor('app://byre/', DIR)).toBe(`${DIR}/index.html`);
    expect(appFileFor(APP_INDEX, DIR)).toBe(`${DIR}/index.html`);
    expect(appFileFor('app://byre/assets/index-abc.js?v=1#x', DIR)).toBe(`${DIR}/assets/index-abc.js`);
    expect(appFileFor('app://byre/assets/a%20b.css', DIR)).toBe(`${DIR}/assets/a b.css`);
  });

  it('refuses anything out of the folder, another host or scheme, and URLs that do not parse', () => {
    // A URL's own dot segments are resolved by the URL itself, inside the folder.
    expect(appFileFor('app://byre/../index.html', DIR)).toBe(`${DIR}/index.html`);
    for (const url of [
      'app://byre/assets/%2e%2e%2f%2e%2e%2fsecrets.txt',
      'app://byre/assets/..%2F..%2F..%2Fetc%2Fpasswd',
      'app://byre/%00index.html',
      'app://byre/%E0%A4%A',
      'app://other/index.html',
      'file:///opt/byre/renderer/index.html',
      'https://byre/index.html',
      'not a url',
    ]) {
      expect(appFileFor(url, DIR), url).toBeNull();
    }
  });
});

describe('who may call main, ask for permissions, and navigate', () => {
  it('takes IPC only from the app’s own page at the top of its window', () => {
    expect(isAppFrame(APP_INDEX, APP_INDEX, false)).toBe(true);
    expect(isAppFrame(`${APP_INDEX}#token`, `${APP_INDEX}#x`, false)).toBe(true);
    // A frame inside the page, even one showing the app; another page; the crash page; file://.
    expect(isAppFrame(APP_INDEX, APP_INDEX, true)).toBe(false);
    expect(isAppFrame(APP_INDEX, 'https://example.com/', false)).toBe(false);
    expect(isAppFrame('https://example.com/', APP_INDEX, false)).toBe(false);
    expect(isAppFrame(CRASH_PAGE, CRASH_PAGE, false)).toBe(false);
    expect(
      isAppFrame('file:///opt/byre/renderer/index.html', 'file:///opt/byre/renderer/index.html', false),
    ).toBe(false);
    expect(isAppFrame(APP_INDEX, undefined, false)).toBe(false);
  });

  it('grants notifications and clipboard writes to the app’s page, and nothing else to anyone', () => {
    expect(permissionAllowed('notifications', APP_INDEX)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', APP_INDEX)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen']) {
      expect(permissionAllowed(permission, APP_INDEX), permission).toBe(false);
    }
    expect(permissionAllowed('notifications', 'https://example.com/')).toBe(false);
    expect(permissionAllowed('notifications', CRASH_PAGE)).toBe(false);
    expect(permissionAllowed('notifications', undefined)).toBe(false);
  });

  it('lets a window go to the app’s page only', () => {
    expect(navigationAllowed(APP_INDEX)).toBe(true);
    expect(navigationAllowed(`${APP_INDEX}#again`)).toBe(true);
    for (const url of ['https://example.com/', 'app://byre/other.html', 'file:///etc/passwd', CRASH_PAGE]) {
      expect(navigationAllowed(url), url).toBe(false);
    }
  });
});

describe('the Electron CSP', () => {
  const directives = (csp: string) =>
    new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );

  it('lets the page connect nowhere, and is no looser than index.html’s anywhere else', () => {
    const electron = directives(ELECTRON_CSP);
    expect(electron.get('connect-src')).toEqual(["'none'"]);
    const html = readFileSync(join(import.meta.dirname, '../../renderer/index.html'), 'utf8');
    const meta = directives(html.match(/http-equiv="Content-Security-Policy"\s+content="([^"]+)"/)![1]!);
    for (const [name, values] of meta) {
      if (name === 'connect-src') continue;
      expect(electron.get(name), name).toEqual(values);
    }
    expect(electron.get('frame-ancestors')).toEqual(["'none'"]);
  });
});

describe('a renderer that keeps crashing', () => {
  it('is loaded again at once, then after longer waits, then gets the crash page', () => {
    const crashes = new RendererCrashes(3, 60_000, [0, 1_000, 4_000]);
    expect(crashes.next(0)).toEqual({ action: 'reload', delayMs: 0 });
    expect(crashes.next(5_000)).toEqual({ action: 'reload', delayMs: 1_000 });
    expect(crashes.next(10_000)).toEqual({ action: 'reload', delayMs: 4_000 });
    expect(crashes.next(20_000)).toEqual({ action: 'give-up', crashes: 4 });
  });

  it('counts only the crashes of the last minute, and starts afresh when the user tries again', () => {
    const crashes = new RendererCrashes(3, 60_000, [0, 1_000, 4_000]);
    crashes.next(0);
    crashes.next(1_000);
    crashes.next(2_000);
    expect(crashes.next(70_000)).toEqual({ action: 'reload', delayMs: 0 });
    crashes.next(71_000);
    crashes.next(72_000);
    crashes.reset();
    expect(crashes.next(73_000)).toEqual({ action: 'reload', delayMs: 0 });
  });

  it('says what happened, that nothing is lost, and links back to the app, with no script', () => {
    const page = crashPage(4, 'oom <b>');
    expect(page).toContain('stopped 4 times in a minute (oom &#60;b&#62;)');
    expect(page).toContain('nothing in them is lost');
    expect(page).toContain(`<a href="${APP_INDEX}">Try again</a>`);
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain("default-src 'none'");
  });
});

describe('the packaged app', () => {
  it('is built with the fuses that keep it from being run as something else', () => {
    const config = readFileSync(join(import.meta.dirname, '../../electron-builder.yml'), 'utf8');
    const fuses = Object.fromEntries(
      [...config.matchAll(/^ {2}(\w+): (true|false)$/gm)].map(([, name, value]) => [name, value === 'true']),
    );
    expect(fuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });
});
