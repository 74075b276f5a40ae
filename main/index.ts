import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Notification,
  protocol,
  session,
  shell,
  type WebContents,
} from 'electron';
import { invokeChannelNames, ipcChannel } from '../shared/ipc';
import { resolveDataDir } from './app-data';
import { initialCwdFromArgs } from './args';
import { Backend } from './backend';

/**
 * The Electron host. The window is locked down per Electron's security checklist: sandboxed renderer,
 * context isolation, no node integration, a strict CSP (in index.html), no navigation away from the app,
 * no new windows, no permission but notifications for its own page. Every IPC call must come from the app's
 * own top-level frame.
 */

const rendererDir = join(import.meta.dirname, '../renderer');
const IMAGE_SCHEME = 'byre-image';
const rendererIndex = pathToFileURL(join(rendererDir, 'index.html')).href;

// Arguments after `--` from `npm start -- <dir>`, or after the app path when run as `electron . <dir>`.
const userArgs = process.argv.slice(app.isPackaged ? 1 : 2);

const backend = new Backend({
  host: 'electron',
  version: app.getVersion(),
  dataDir: resolveDataDir(process.env, app.getPath('userData')),
  initialCwd: initialCwdFromArgs(userArgs),
  env: process.env,
  libraryWorker: join(import.meta.dirname, 'library-worker.js'),
  pickFolder: async () => {
    const focused = BrowserWindow.getFocusedWindow();
    const options = {
      properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[],
    };
    const picked = focused
      ? await dialog.showOpenDialog(focused, options)
      : await dialog.showOpenDialog(options);
    return picked.canceled ? null : (picked.filePaths[0] ?? null);
  },
  // Reached only from a click on a link (the openLink channel), with the URL checked to be http(s).
  openExternal: (url) => shell.openExternal(url),
});

function isAppFrame(contents: WebContents, frameUrl: string | undefined): boolean {
  return (
    !!frameUrl &&
    frameUrl.split('#')[0] === rendererIndex &&
    contents.getURL().split('#')[0] === rendererIndex
  );
}

function registerIpc(): void {
  for (const name of invokeChannelNames) {
    ipcMain.handle(ipcChannel(name), async (event, payload: unknown) => {
      // Only the app's own top-level frame may call in; anything else is refused before parsing.
      if (event.senderFrame?.parent || !isAppFrame(event.sender, event.senderFrame?.url)) {
        return {
          ok: false,
          error: { name: 'Forbidden', message: 'IPC from an unexpected frame was refused.' },
        };
      }
      return backend.invoke(name, payload);
    });
  }
  backend.on((channel, payload) => {
    if (channel === 'notification' && 'title' in payload && !BrowserWindow.getFocusedWindow()) {
      new Notification({ title: payload.title, body: payload.message }).show();
    }
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(ipcChannel(channel), payload);
  });
}

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
      spellcheck: true,
    },
  });
  window.once('ready-to-show', () => window.show());
  // A renderer that crashed (out of memory, say) would leave a white window: load the app again. The
  // conversations live in main and go on.
  window.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason !== 'clean-exit' && !window.isDestroyed()) void window.loadURL(rendererIndex);
  });
  void window.loadURL(rendererIndex);
  return window;
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (url.split('#')[0] !== rendererIndex) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (url.split('#')[0] !== rendererIndex) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // The app never opens a window. Links open in the system browser only when clicked (openLink).
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

void app.whenReady().then(() => {
  // Only notifications (a permission request or a finished turn while the window is in the background), and
  // only for the app's own page.
  const ownPage = (url: string | undefined) => url?.split('#')[0] === rendererIndex;
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permission === 'notifications' && ownPage(contents.getURL())),
  );
  session.defaultSession.setPermissionCheckHandler(
    (contents, permission) => permission === 'notifications' && ownPage(contents?.getURL()),
  );
  // Images a window was sent by reference (main/image-refs.ts): byre-image://image/<sha256>.
  protocol.handle(IMAGE_SCHEME, (request) => {
    const image = backend.image(new URL(request.url).pathname.slice(1));
    return image
      ? new Response(new Uint8Array(image.bytes), { headers: { 'Content-Type': image.mediaType } })
      : new Response('Not found.', { status: 404 });
  });
  registerIpc();
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

let quitting = false;
app.on('before-quit', (event) => {
  if (quitting) return;
  // Give every CLI a bounded, clean shutdown before the app goes.
  event.preventDefault();
  quitting = true;
  const deadline = new Promise((resolve) => setTimeout(resolve, 3_000));
  void Promise.race([backend.dispose(), deadline]).finally(() => {
    backend.killAll();
    app.quit();
  });
});
