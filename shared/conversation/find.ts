/**
 * Find in conversation: every occurrence of a query in what the reader sees written, in order, reaching
 * every message (not only those the virtualized list has rendered). Pure; the find slice keeps the query
 * and the current match.
 */
import { cliItemText } from './cli-items';
import type { ChatMessage, ConversationState } from './state';

/** One occurrence of the find query: in which message, and which occurrence within it. */
export interface FindMatch {
  messageId: string;
  occurrence: number;
}

/** The text of a message as find searches it: what the reader sees written, not tool internals. */
export function messageText(message: ChatMessage | undefined): string {
  switch (message?.role) {
    case 'user':
      return message.text;
    case 'assistant':
      return message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
    case 'notice':
      return message.text;
    case 'check':
      return `${message.check.command}\n${message.check.summary}\n${message.check.output}`;
    case 'setup':
      return `${message.setup.command}\n${message.setup.summary}\n${message.setup.output}`;
    case 'result':
      return message.errorText ?? '';
    case 'cli':
      return cliItemText(message.item);
    default:
      return '';
  }
}

const matchCache = new WeakMap<ConversationState, { query: string; matches: FindMatch[] }>();

/**
 * Every occurrence of `query` (case-insensitive) in the conversation, in order; it reaches every message,
 * not only those the virtualized list has rendered.
 */
export function findMatches(conversation: ConversationState, query: string): FindMatch[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const cached = matchCache.get(conversation);
  if (cached?.query === needle) return cached.matches;
  const matches: FindMatch[] = [];
  for (const messageId of conversation.order) {
    const text = messageText(conversation.messages[messageId]).toLowerCase();
    let occurrence = 0;
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      matches.push({ messageId, occurrence: occurrence++ });
    }
  }
  matchCache.set(conversation, { query: needle, matches });
  return matches;
}

/** Where the current match is among the matches; -1 when it is gone (or there is none). */
export function currentMatchIndex(matches: readonly FindMatch[], current: FindMatch | null): number {
  if (!current) return -1;
  return matches.findIndex(
    (match) => match.messageId === current.messageId && match.occurrence === current.occurrence,
  );
}

/**
 * What the find bar looks for when a search hit opens a message: the whole query where the message has it
 * as written, else the longest of its words that the message has (search matches words in any order).
 */
export function findQueryFor(conversation: ConversationState, messageId: string, query: string): string {
  const text = messageText(conversation.messages[messageId]).toLowerCase();
  if (text.includes(query.toLowerCase())) return query;
  const words = query
    .split(/\s+/)
    .filter((word) => word && text.includes(word.toLowerCase()))
    .sort((a, b) => b.length - a.length);
  return words[0] ?? query;
}
