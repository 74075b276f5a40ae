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

export { folderName } from '../../../shared/library-groups';

/**
 * What a running turn is doing, as either lane tells it: the tool it uses now and on what ("Bash: npm
 * test"); null when no turn runs or it has used no tool yet.
 */
export function workingOn(conversation: Tab['conversation']): string | null {
  const tool = conversation.currentTool;
  if (!tool || conversation.status !== 'running') return null;
  return tool.detail ? `${tool.name}: ${tool.detail}` : tool.name;
}

/** How a conversation open in a tab stands, for a list that shows it: what the tab strip's marks say. */
export type Activity = 'running' | 'waiting' | 'done' | 'failed';

export function conversationActivity(conversation: Tab['conversation']): Activity | null {
  // Either lane says when Claude waits for the person (a Terminal conversation only through its hooks).
  if (
    conversation.activity?.state === 'needs_you' ||
    conversation.permissionRequests.length + conversation.elicitations.length > 0
  )
    return 'waiting';
  if (conversation.status === 'running' || conversation.status === 'starting') return 'running';
  if (conversation.exitError) return 'failed';
  const last = conversation.lastResultId ? conversation.messages[conversation.lastResultId] : undefined;
  if (last?.role === 'result') return last.ok ? 'done' : 'failed';
  // A Terminal conversation has no result lines: its Stop hook says the turn is done.
  if (conversation.activity?.state === 'done') return 'done';
  return null;
}
