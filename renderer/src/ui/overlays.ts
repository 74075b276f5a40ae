import { create } from 'zustand';

/**
 * The window's modal views that any part of the app may open: the command palette, the shortcuts sheet and
 * the settings screen. One at a time; opening one closes another.
 */
export type Overlay = 'palette' | 'shortcuts' | 'settings';

export const useOverlay = create<{
  open: Overlay | null;
  show(overlay: Overlay): void;
  close(): void;
}>((set) => ({
  open: null,
  show: (overlay) => set({ open: overlay }),
  close: () => set({ open: null }),
}));

export const MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** "Ctrl+K" or "⌘K", as the platform writes its command key. */
export function commandKey(key: string): string {
  return MAC ? `⌘${key}` : `Ctrl+${key}`;
}

/**
 * Every keyboard shortcut, in the order the sheet lists them; the palette shows the same keys beside its
 * actions. Where a key is the platform's command key, `commandKey` writes it.
 */
export function shortcutList(): { group: string; keys: string; what: string }[] {
  return [
    { group: 'Anywhere', keys: commandKey('K'), what: 'Open the command palette' },
    { group: 'Anywhere', keys: commandKey('/'), what: 'Show these shortcuts' },
    { group: 'Anywhere', keys: commandKey(','), what: 'Open settings' },
    { group: 'Anywhere', keys: commandKey('B'), what: 'Show or hide the conversation list' },
    { group: 'Anywhere', keys: commandKey('Shift+U'), what: 'Show or hide usage' },
    { group: 'Tabs', keys: commandKey('N'), what: 'New conversation' },
    { group: 'Tabs', keys: commandKey('W'), what: 'Close the conversation (asks first if that loses work)' },
    { group: 'Tabs', keys: `${commandKey('1')} … ${commandKey('9')}`, what: 'Go to tab 1 … 8, or the last' },
    { group: 'Tabs', keys: 'Ctrl+Tab, Ctrl+Shift+Tab', what: 'Next tab, previous tab' },
    { group: 'Tabs', keys: '← →, Enter', what: 'In the tab list: move among tabs, open one' },
    { group: 'Conversation', keys: commandKey('F'), what: 'Find in the conversation' },
    { group: 'Conversation', keys: 'Escape', what: 'Stop the reply' },
    { group: 'Composer', keys: 'Enter', what: 'Send' },
    { group: 'Composer', keys: 'Shift+Enter', what: 'New line' },
    { group: 'Composer', keys: '↑', what: 'In an empty message: bring back the last one sent' },
    { group: 'Composer', keys: '/', what: 'At the start: slash commands' },
    { group: 'Composer', keys: '@', what: 'Mention a file of the folder' },
    { group: 'Composer', keys: '↑ ↓, Enter or Tab, Escape', what: 'In a menu: move, choose, close' },
  ];
}

/** Closing a tab asks first when it would lose work; the tab bar owns that question. */
let askToCloseTab: ((tabId: string) => void) | null = null;

export function handleCloseTabRequests(handler: (tabId: string) => void): () => void {
  askToCloseTab = handler;
  return () => {
    if (askToCloseTab === handler) askToCloseTab = null;
  };
}

export function requestCloseTab(tabId: string): void {
  askToCloseTab?.(tabId);
}
