import { realpathSync } from 'node:fs';
import { extname, join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, protocol, session, shell } from 'electron';
import { invokeChannelNames, ipcChannel, type EventPayload } from '../../shared/ipc';
import { resolveDataDir } from '../data/settings';
import {
  electronUserArgs,
  initialCwdFromArgs,
  initialLaneFromArgs,
  secondLaunchFolder,
  type SecondLaunch,
} from './args';
import { Backend } from '../backend/backend';
import { saveDialogOptions, writeExport } from './export-save';
import { openTerminalWithSystem } from './open-folder';
import { skipWorkingFolderLookups } from '../disk/programs';
import { appPageWith, contentTypeFor, FIRST_SCREEN_WAIT_MS, isAppPage, readStaticFile } from './static-files';
import {
  APP_INDEX,
  APP_SCHEME,
  appFileFor,
  CRASH_PAGE,
  crashPage,
  ELECTRON_CSP,
  isAppFrame,
  navigationAllowed,
  permissionAllowed,
  RendererCrashes,
} from './electron-policy';

/**
 * The Electron host. The window is locked down per Electron's security checklist: the app is served from
 * app://byre (never file://), a sandboxed renderer, context isolation, no node integration, a strict CSP
 * (index.html's, and a stricter one sent with it), no navigation away from the app, no new windows, no
 * permission but notifications for its own page. Every IPC call must come from the app's own top-level
 * frame. The decisions themselves are in electron-policy.ts, tested without Electron.
 */

// Its real path: a file is served only if its own real path is inside it (no link out of the folder).
const rendererDir = realpathSync(join(import.meta.dirname, '../renderer'));
const IMAGE_SCHEME = 'byre-image';

// Before the app is ready: app:// behaves as a web origin ('self' in the CSP, fetch of its own modules).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

// Arguments after `--` from `npm start -- <dir>`, or after the app path when run as `electron . <dir>`.
const initialCwd = initialCwdFromArgs(electronUserArgs(process.argv, app.isPackaged));

// Chromium keeps its single-instance lock in userData: with a data folder of its own (BYRE_DATA_DIR, as the
// tests give each app) Byre is single per that folder, and never hands a launch to the everyday Byre.
if (process.env.BYRE_DATA_DIR) app.setPath('userData', join(process.env.BYRE_DATA_DIR, 'electron'));
// One Byre per data folder: a second launch hands its folder to the first ('second-instance' below) and
// goes at once, before anything of it opens the data folder.
const launch: SecondLaunch = { folder: initialCwd };
if (!app.requestSingleInstanceLock(launch)) process.exit(0);

// No program Byre or the CLI starts by name is taken from the working folder (Windows looks there first).
skipWorkingFolderLookups(process.env);
const backend = new Backend({
  host: 'electron',
  version: app.getVersion(),
  dataDir: resolveDataDir(process.env, app.getPath('userData')),
  initialCwd,
  // The lane flag is an option, which electronUserArgs leaves out with Chromium's.
  initialLane: initialLaneFromArgs(process.argv),
  env: process.env,
  libraryWorker: join(import.meta.dirname, 'library-worker.js'),
  rewindDiffWorker: join(import.meta.dirname, 'rewind-diff-worker.js'),
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
  openFolder: async (path) => {
    const problem = await shell.openPath(path);
    if (problem) throw new Error(`Could not open ${path}: ${problem}`);
  },
  openTerminal: (path) => openTerminalWithSystem(path),
  deliverExport: async (files) => {
    const focused = BrowserWindow.getFocusedWindow();
    const options = saveDialogOptions(files, app.getPath('downloads'));
    const chosen = focused
      ? await dialog.showSaveDialog(focused, options)
      : await dialog.showSaveDialog(options);
    return chosen.canceled || !chosen.filePath ? { way: 'cancelled' } : writeExport(files, chosen.filePath);
  },
});

/** The last crash that gave up, for the crash page. */
let gaveUp: { crashes: number; reason: string } = { crashes: 0, reason: 'unknown' };

/** The app's files from app://byre/, the index with the Electron CSP; the crash page; nothing else. */
async function serveApp(request: Request): Promise<Response> {
  if (request.url === CRASH_PAGE) {
    return new Response(crashPage(gaveUp.crashes, gaveUp.reason), {
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
    });
  }
  const file = appFileFor(request.url, rendererDir);
  const body = file && (await readStaticFile(rendererDir, file));
  if (!file || !body) return new Response('Not found.', { status: 404 });
  const headers: Record<string, string> = {
    'Content-Type': contentTypeFor(file),
    'X-Content-Type-Options': 'nosniff',
  };
  if (extname(file) === '.html') headers['Content-Security-Policy'] = ELECTRON_CSP;
  if (isAppPage(rendererDir, file)) {
    const page = appPageWith(body.toString('utf8'), await backend.firstScreen(FIRST_SCREEN_WAIT_MS));
    return new Response(page, { headers });
  }
  return new Response(new Uint8Array(body), { headers });
}

function registerIpc(): void {
  for (const name of invokeChannelNames) {
    ipcMain.handle(ipcChannel(name), async (event, payload: unknown) => {
      // Only the app's own top-level frame may call in; anything else is refused before parsing.
      const frame = event.senderFrame;
      if (!isAppFrame(event.sender.getURL(), frame?.url, !!frame?.parent)) {
        return {
          ok: false,
          error: { name: 'Forbidden', message: 'IPC from an unexpected frame was refused.' },
        };
      }
      return backend.invoke(name, payload);
    });
  }
  backend.on((channel, payload) => {
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
      // macOS checks spelling with the system's own checker; elsewhere Chromium would download Hunspell
      // dictionaries from Google's servers, which Byre does not do behind the user's back.
      spellcheck: process.platform === 'darwin',
    },
  });
  window.once('ready-to-show', () => window.show());
  // A renderer that crashed (out of memory, say) would leave a white window: load the app again, after a
  // while if it keeps crashing, and show the crash page rather than loop. The conversations live in main.
  const crashes = new RendererCrashes();
  window.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit' || window.isDestroyed()) return;
    const answer = crashes.next(Date.now());
    if (answer.action === 'give-up') {
      gaveUp = { crashes: answer.crashes, reason: details.reason };
      void window.loadURL(CRASH_PAGE);
      return;
    }
    setTimeout(() => {
      if (!window.isDestroyed()) void window.loadURL(APP_INDEX);
    }, answer.delayMs);
  });
  // "Try again" on the crash page: the count starts afresh.
  window.webContents.on('will-navigate', (_event, url) => {
    if (window.webContents.getURL() === CRASH_PAGE && navigationAllowed(url)) crashes.reset();
  });
  void window.loadURL(APP_INDEX);
  return window;
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!navigationAllowed(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!navigationAllowed(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // The app never opens a window. Links open in the system browser only when clicked (openLink).
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

void app.whenReady().then(() => {
  // Only notifications (a permission request or a finished turn while the window is in the background), and
  // only for the app's own page.
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permissionAllowed(permission, contents.getURL())),
  );
  session.defaultSession.setPermissionCheckHandler((contents, permission) =>
    permissionAllowed(permission, contents?.getURL()),
  );
  protocol.handle(APP_SCHEME, serveApp);
  // Images a window was sent by reference (main/conversation/image-refs.ts): byre-image://image/<sha256>.
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

app.on('second-instance', (_event, argv, workingDirectory, additionalData) => {
  // Before ready, the window this launch would focus is about to open anyway.
  if (!app.isReady()) return;
  const folder = secondLaunchFolder({ argv, workingDirectory, additionalData }, app.isPackaged);
  const open = BrowserWindow.getAllWindows()[0];
  const window = open ?? createWindow();
  if (window.isMinimized()) window.restore();
  window.focus();
  if (!folder) return;
  const payload: EventPayload<'secondLaunch'> = { folder };
  const send = () => window.webContents.send(ipcChannel('secondLaunch'), payload);
  // A window made just now (macOS keeps the app without one) listens once its page has loaded.
  if (open) send();
  else window.webContents.once('did-finish-load', send);
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
