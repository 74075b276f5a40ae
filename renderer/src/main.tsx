import { installBridgeClient } from './host/bridge-client';
import { askFirstScreen } from './state/first-screen';
import { applyRememberedTheme } from './ui/theme';

/**
 * The window's first code, kept small: it connects (in a plain browser, over the bridge: in Electron the
 * preload has set window.byre) and asks for the library's first screen of rows, and only then loads the app,
 * so that the host answers while the app's code is being read.
 */
installBridgeClient();
applyRememberedTheme();
askFirstScreen();

const root = document.getElementById('root');
if (root) {
  import('./root').then(
    ({ mount }) => mount(root),
    (error: unknown) => {
      // Never a blank window: say what failed.
      const panel = document.createElement('div');
      panel.className = 'state-panel';
      panel.setAttribute('role', 'alert');
      const title = document.createElement('h2');
      title.textContent = 'Byre could not load its window';
      const detail = document.createElement('p');
      detail.textContent = `${error instanceof Error ? error.message : String(error)} Reload the window to try again.`;
      panel.append(title, detail);
      root.replaceChildren(panel);
    },
  );
}
