/**
 * Paging a conversation: it is read a page at a time from its end (from main's log of it, or from its saved
 * files), each earlier page reduced on its own by the same reducer and put in front of what is loaded, with
 * the message each CLI line belongs to (a search hit names a line). Pure, so a saved conversation, a branch's
 * view and a live one opened in a later window page the same way.
 */
import { applyEvents, joinCosts } from './reduce';
import { initialConversation, type ConversationState } from './state';
import type { ConversationEvent, ConversationSnapshot } from '../ipc';
import { joinRecords } from '../persistent-record';

/** Where the part of a conversation above what is loaded is read from. */
export interface Paging {
  sessionId: string;
  /** Set for a conversation open in main: its pages come from there (`conversationBefore`), not from its files. */
  conversationId: string | null;
  /** Where the earlier page ends; null once the start is loaded. */
  before: string | null;
  loading: boolean;
  /** Why the last page could not be read; no page is fetched by itself until the user asks again. */
  error: string | null;
  /** The message each loaded CLI line belongs to, by the line's uuid: a search hit names a line. */
  anchors: Record<string, string>;
  /**
   * For a conversation resumed from the library: once main's pages reach the start of its log, reading
   * goes on in the saved file from here (the history before the resume).
   */
  thenSaved?: string | null;
}

/** Paging from a conversation's first page, read from its files or (`conversationId`) from main. */
export function firstPaging(
  sessionId: string,
  conversationId: string | null,
  before: string | null,
  anchors: Record<string, string>,
): Paging {
  return { sessionId, conversationId, before, loading: false, error: null, anchors };
}

/**
 * A conversation open in main, as a window that opens later gets it: its last screenful, and the cursor to
 * the pages before it.
 */
export function openWindow(
  snapshot: ConversationSnapshot,
  page: {
    prelude: readonly ConversationEvent[];
    events: readonly ConversationEvent[];
    before: string | null;
    seq: number;
    /** Resumed from the library: the saved page before the resume (see the listConversations contract). */
    savedBefore?: string | null;
  },
): { conversation: ConversationState; paging: Paging | null; eventsFrom: number } {
  const savedBefore = page.savedBefore ?? null;
  const atStart = page.before === null && savedBefore === null;
  const start = applyEvents(initialConversation(snapshot), page.prelude);
  // Its first turn's cost waits for the page before, as a saved page's does (a resume in the prelude
  // would otherwise say the process had spent nothing yet).
  const reduced = reducePage(atStart ? start : { ...start, processCostUsd: null }, page.events);
  let paging: Paging | null = null;
  if (page.before !== null) {
    paging = {
      ...firstPaging(snapshot.sessionId, snapshot.conversationId, page.before, reduced.anchors),
      thenSaved: savedBefore,
    };
  } else if (savedBefore !== null) {
    paging = firstPaging(snapshot.sessionId, null, savedBefore, reduced.anchors);
  }
  return { eventsFrom: page.seq, conversation: reduced.conversation, paging };
}

/**
 * Where reducing a saved conversation's page starts: nothing shown yet, and, when earlier lines come before
 * it, not knowing what its CLI process had spent before (its first turn's cost waits for the page before).
 */
export function savedStart(
  sessionId: string,
  page: { row: { cwd: string | null }; before: string | null },
): ConversationState {
  const start = initialConversation({ sessionId, cwd: page.row.cwd ?? '' });
  return page.before === null ? start : { ...start, processCostUsd: null };
}

/** One page reduced on its own, and the message each of its lines belongs to. */
export function reducePage(
  base: ConversationState,
  events: readonly ConversationEvent[],
): { conversation: ConversationState; anchors: Record<string, string> } {
  const conversation = applyEvents(base, events);
  const toolOwner = new Map<string, string>();
  for (const message of Object.values(conversation.messages)) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) if (part.kind === 'tool') toolOwner.set(part.toolUseId, message.id);
  }
  const anchors: Record<string, string> = {};
  for (const event of events) {
    if (event.kind === 'prompt') {
      anchors[event.uuid] = `u:${event.uuid}`;
      continue;
    }
    if (event.kind !== 'message') continue;
    const line = event.message;
    if (line.type === 'assistant' && line.uuid) {
      // The CLI writes one line per content block; they are one message.
      anchors[line.uuid] = `a:${line.message.id}`;
    } else if (line.type === 'user' && line.uuid) {
      const content = line.message.content;
      if (conversation.messages[`u:${line.uuid}`]) anchors[line.uuid] = `u:${line.uuid}`;
      else if (Array.isArray(content)) {
        // A tool's result: shown in the card of the reply that called the tool.
        for (const block of content) {
          const owner = block.type === 'tool_result' ? toolOwner.get(block.tool_use_id) : undefined;
          if (owner) anchors[line.uuid] = owner;
        }
      }
    }
  }
  return { conversation, anchors };
}

/**
 * An earlier page put in front of what is loaded. Pages are cut where a conversation can be reduced in
 * parts (a tool call keeps its result), so the page is reduced on its own rather than everything again.
 * `first`: nothing comes before this page.
 */
export function prependPage(
  later: ConversationState,
  events: readonly ConversationEvent[],
  first: boolean,
): { conversation: ConversationState; anchors: Record<string, string> } {
  // Local ids (notices) of the page start where the later part's end, so none collide.
  const start = { ...initialConversation(), localIds: later.localIds, processCostUsd: first ? 0 : null };
  const page = reducePage(start, events);
  const earlier = page.conversation;
  const costs = joinCosts(earlier, later);
  return {
    anchors: page.anchors,
    conversation: {
      ...later,
      ...costs,
      // Joined without copying either side: the later part's records are shared, not spread.
      messages: joinRecords(earlier.messages, costs.messages),
      lastResultId: later.lastResultId ?? earlier.lastResultId,
      order: [...earlier.order, ...later.order],
      tools: joinRecords(finishedTools(earlier).tools, later.tools),
      blocksSeen: joinRecords(earlier.blocksSeen, later.blocksSeen),
      taskTools: joinRecords(earlier.taskTools, later.taskTools),
      badLines: later.badLines + earlier.badLines,
      localIds: earlier.localIds,
    },
  };
}

/** Nothing runs in a saved conversation: a tool call whose result was never written did not finish. */
export function finishedTools(state: ConversationState): ConversationState {
  let tools = state.tools;
  for (const tool of Object.values(state.tools)) {
    if (tool.status !== 'running') continue;
    if (tools === state.tools) tools = { ...state.tools };
    tools[tool.id] = { ...tool, status: 'interrupted' };
  }
  return tools === state.tools ? state : { ...state, tools };
}

/** The last page of a saved conversation, settled, under the library's title for it. */
export function settled(state: ConversationState, title: string): ConversationState {
  return { ...finishedTools(state), title, status: 'idle', exitError: null, pending: [] };
}
