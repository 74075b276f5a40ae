import { join } from 'node:path';
import { app, BrowserWindow, session, shell } from 'electron';
import { killAllCliProcesses } from './claude';

/**
 * The Electron host. The window is locked down per Electron's security checklist: sandboxed renderer,
 * context isolation, no node integration, no navigation away from the app, no new windows, no permissions.
 */

const rendererDir = join(import.meta.dirname, '../renderer');

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 420,
    title: 'Byre',
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  window.once('ready-to-show', () => window.show());
  void window.loadFile(join(rendererDir, 'index.html'));
  return window;
}

function isAppUrl(url: string): boolean {
  return url.startsWith(`file://${rendererDir}`);
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    // Links open in the system browser, and only http(s) ones; the app never opens a window for them.
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
});

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', () => {
  killAllCliProcesses();
});
