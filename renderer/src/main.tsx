import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { installBridgeClient } from './host/bridge-client';
import { warmUpMarkdown } from './chat/Markdown';
import { applyRememberedTheme } from './ui/theme';

// In Electron the preload has set window.byre; in a plain browser it comes over the bridge.
installBridgeClient();
applyRememberedTheme();

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary what="the app">
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
  // After the first screen, while nothing else runs.
  const idle = window.requestIdleCallback ?? ((work: () => void) => window.setTimeout(work, 500));
  idle(() => warmUpMarkdown());
}
