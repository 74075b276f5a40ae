import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test, type ElectronApplication } from '@playwright/test';
import { createCliWorld, REPO_ROOT, type CliWorld } from '../fixtures/cli-env';

/**
 * The Electron suite: the core scenario and the security invariants, in a real Electron window. It runs
 * wherever the Electron binary is installed; where it is not (it cannot be fetched on machines without a
 * route to its release host), every test here is reported as skipped, with the reason.
 */

function electronBinary(): string | null {
  const dir = join(REPO_ROOT, 'node_modules', 'electron');
  try {
    const relative = readFileSync(join(dir, 'path.txt'), 'utf8').trim();
    const binary = join(dir, 'dist', relative);
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
test.skip(
  !binary,
  'Electron binary not installed (node_modules/electron/dist is missing and could not be fetched)',
);

let world: CliWorld;
let app: ElectronApplication;

test.beforeEach(async () => {
  world = await createCliWorld();
  app = await electron.launch({
    executablePath: binary ?? undefined,
    args: [join(REPO_ROOT, 'out', 'main', 'index.js'), world.cwd],
    env: { ...world.env, BYRE_DATA_DIR: mkdtempSync(join(tmpdir(), 'byre-electron-data-')) } as Record<
      string,
      string
    >,
  });
});

test.afterEach(async () => {
  await app?.close();
  await world?.dispose();
});

test('opens a conversation in the folder from the command line and streams a reply', async () => {
  world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello from the fake model.' }], deltaDelayMs: 30 });
  const page = await app.firstWindow();
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill('hello');
  await message.press('Enter');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByRole('article', { name: 'Claude' })).toContainText('Hello from the fake model.');
  await expect(page.locator('.cwd')).toHaveText(world.cwd);
});

test('runs with a sandboxed, isolated renderer that has no Node', async () => {
  const page = await app.firstWindow();
  const facts = await page.evaluate(() => ({
    require: typeof (globalThis as { require?: unknown }).require,
    process: typeof (globalThis as { process?: unknown }).process,
    ipcRenderer: typeof (globalThis as { ipcRenderer?: unknown }).ipcRenderer,
    byre: typeof window.byre.appInfo,
  }));
  // No Node in the page, and only the contract's API crosses the context bridge.
  expect(facts).toEqual({
    require: 'undefined',
    process: 'undefined',
    ipcRenderer: 'undefined',
    byre: 'function',
  });
});

test('refuses navigation away from the app and denies new windows', async () => {
  const page = await app.firstWindow();
  const before = page.url();
  await page.evaluate(() => {
    window.location.href = 'https://example.com/';
  });
  await page.waitForTimeout(500);
  expect(page.url()).toBe(before);
  await page.evaluate(() => window.open('https://example.com/', '_blank'));
  await page.waitForTimeout(500);
  expect(app.windows()).toHaveLength(1);
});

test('serves the app from app://, with a CSP that lets the page connect nowhere', async () => {
  const page = await app.firstWindow();
  expect(page.url()).toMatch(/^app:\/\/byre\/index\.html/);
  // Its own origin would answer a fetch; the CSP refuses it before it is made.
  const fetched = await page.evaluate(() =>
    fetch('app://byre/index.html').then(
      () => 'fetched',
      () => 'refused',
    ),
  );
  expect(fetched).toBe('refused');
  // Under Electron the page reaches main through IPC alone.
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
});

test('grants its own page notifications and clipboard writes, and nothing else', async () => {
  const page = await app.firstWindow();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  const states = await page.evaluate(async () => ({
    notifications: (await navigator.permissions.query({ name: 'notifications' })).state,
    // Copy: Electron asks its handler for 'clipboard-sanitized-write'.
    clipboardWrite: (await navigator.permissions.query({ name: 'clipboard-write' as PermissionName })).state,
    // Electron grants what no handler refuses: 'denied' is the handler's doing.
    geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
    midi: (await navigator.permissions.query({ name: 'midi' as PermissionName })).state,
  }));
  expect(states).toEqual({
    notifications: 'granted',
    clipboardWrite: 'granted',
    geolocation: 'denied',
    midi: 'denied',
  });
});
