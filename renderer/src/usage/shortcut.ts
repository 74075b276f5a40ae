import { useEffect } from 'react';
import { useStore } from '../state/store';

/** Ctrl/Cmd+Shift+U anywhere opens the view, or closes it again. */
export function useUsageShortcut(command: (event: KeyboardEvent) => boolean): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!command(event) || !event.shiftKey || event.altKey || event.code !== 'KeyU' || event.repeat) return;
      event.preventDefault();
      useStore.getState().toggleUsage();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [command]);
}
