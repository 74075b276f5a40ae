import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { conversationRoom, usageRoom } from './rooms';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { firstScreenCome } from './state/first-screen';
import { useStore } from './state/store';

/**
 * The rooms the first screen did not need, fetched and made ready while the window is idle: the
 * conversation's (the Markdown pipeline's first render warmed up, or the first reply would pay for compiling
 * it, tens of ms in the frame it appears in) and the Usage view's.
 */
function warmUp(): void {
  void conversationRoom.preload().catch(() => undefined);
  void usageRoom.preload().catch(() => undefined);
  void import('./chat/Markdown').then(({ warmUpMarkdown }) => warmUpMarkdown()).catch(() => undefined);
}

/** The app, drawn into the page's root element (main.tsx loads this once its own first requests are out). */
export function mount(root: HTMLElement): void {
  // The first screen's rows, when they came while the app's code was read, are in its first render.
  const rows = firstScreenCome();
  if (rows) useStore.setState({ libraryRows: rows });
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary what="the app">
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
  // After the first screen, while nothing else runs: an idle moment before the library's rows have come
  // is only the wait for them, and the warm-up (a good 100 ms on a busy machine) would hold them up.
  const idle = window.requestIdleCallback ?? ((work: () => void) => window.setTimeout(work, 500));
  const firstScreen = (state: ReturnType<typeof useStore.getState>) =>
    state.libraryLoaded || state.libraryError !== null;
  if (firstScreen(useStore.getState())) idle(warmUp);
  else {
    const stop = useStore.subscribe((state) => {
      if (!firstScreen(state)) return;
      stop();
      idle(warmUp);
    });
  }
}
