import type { Theme } from '../../../shared/ipc';

/**
 * The theme chosen in settings, on the root element (`data-theme`; none: the system's). It is remembered in
 * the page's storage too, so the next start draws its first screen in it before main has answered.
 */
const KEY = 'byre.theme';

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Storage may be off; the theme still applies once main has said it.
  }
}

export function applyRememberedTheme(): void {
  let theme: string | null;
  try {
    theme = localStorage.getItem(KEY);
  } catch {
    return;
  }
  if (theme === 'light' || theme === 'dark' || theme === 'system') applyTheme(theme);
}
