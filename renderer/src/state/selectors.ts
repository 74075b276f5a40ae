/**
 * Selectors: what components and slices read off the store's state, named once. Pure functions of the
 * state (or of a tab), importing only the store's types and shared/.
 */
import type { Store, Tab } from './types';

/** The tab a conversation open in main belongs to: its own, or the tab it is a branch of. */
export function tabOfConversation(state: Store, conversationId: string): Tab | undefined {
  return (
    state.tabs[conversationId] ??
    Object.values(state.tabs).find((tab) =>
      tab.branches?.some((branch) => branch.conversationId === conversationId),
    )
  );
}

/** The conversation id a tab's actions (send, stop …) go to: its shown branch's, or its own. */
export function liveConversationId(tab: Tab): string | null {
  if (tab.branches && tab.branch) {
    const current = tab.branches.find((branch) => branch.key === tab.branch);
    return current?.conversationId ?? null;
  }
  return tab.saved ? null : tab.id;
}

export function folderName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
