// In the page's head, before any script: the first screen the host drew into the page is styled at once.
import './styles.css';
import { couldNotLoad } from './load-failed';

/**
 * The window's first code, and nothing else: where the host drew the library's first screen into the page
 * (shared/first-screen.ts), it is painted before any of the app's code is read (a module runs before the
 * page's first paint when it is there in time, and the app's start is a few score milliseconds of it on a
 * slow machine); without one, the app starts at once.
 */
const start = () =>
  import('./boot').catch((error: unknown) => {
    const root = document.getElementById('root');
    if (root) couldNotLoad(root, error);
  });

/** Once: after the next paint, or at the latest after a while (a window not shown yet gets no frames). */
function afterFirstPaint(then: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    then();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, PAINT_WAIT_MS);
}

/** How long the app's start waits for the first screen's paint at most. */
const PAINT_WAIT_MS = 300;

if (document.querySelector('.app-first-screen') && document.visibilityState === 'visible') {
  afterFirstPaint(() => void start());
} else void start();
