/** Never a blank window: what failed to load, and what to do, in the page's root. */
export function couldNotLoad(root: HTMLElement, error: unknown): void {
  const panel = document.createElement('div');
  panel.className = 'state-panel';
  panel.setAttribute('role', 'alert');
  const title = document.createElement('h2');
  title.textContent = 'Byre could not load its window';
  const detail = document.createElement('p');
  detail.textContent = `${error instanceof Error ? error.message : String(error)} Reload the window to try again.`;
  panel.append(title, detail);
  root.replaceChildren(panel);
}
