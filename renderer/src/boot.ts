import { installBridgeClient } from './host/bridge-client';
import { askFirstScreen } from './state/first-screen';
import { couldNotLoad } from './load-failed';
import { applyRememberedTheme } from './ui/theme';

/**
 * The app's start, kept small: it connects (in a plain browser, over the bridge: in Electron the preload has
 * set window.byre) and takes the library's first screen of rows (from the page, or asked for), and only then
 * loads the app, so that the host answers while the app's code is being read.
 */
installBridgeClient();
applyRememberedTheme();
askFirstScreen();

const root = document.getElementById('root');
if (root) {
  import('./root').then(
    ({ mount }) => mount(root),
    (error: unknown) => couldNotLoad(root, error),
  );
}
