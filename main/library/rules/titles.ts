/**
 * The title rules: which name a past conversation goes by in the library. Pure; no Node, no I/O.
 *
 * First found wins: the user's own rename, then the last title Byre's set_title tool was given, the CLI's
 * `custom-title` (the user's /rename there), its `ai-title`, a `summary` whose leaf is a message of this
 * session, and last the first real prompt. The prompt rules follow the Agent SDK's session reader.
 */

import { MATCH_END, MATCH_START } from '../../../shared/library';
import { isRecord } from './json';

export const UNTITLED = 'Untitled conversation';

/** A prompt used as a title is cut to this many characters (the SDK's limit). */
export const PROMPT_TITLE_CHARS = 200;

export interface TitleSources {
  rename?: string | null;
  setTitle?: string | null;
  customTitle?: string | null;
  aiTitle?: string | null;
  summary?: string | null;
  firstPrompt?: string | null;
  /** The name of a slash command, when every early prompt was one (the SDK's fallback). */
  commandFallback?: string | null;
}

export function chooseTitle(sources: TitleSources): string {
  const candidates = [
    sources.rename,
    sources.setTitle,
    sources.customTitle,
    sources.aiTitle,
    sources.summary,
    sources.firstPrompt,
    sources.commandFallback,
  ];
  for (const candidate of candidates) {
    const title = cleanTitle(candidate);
    if (title) return title;
  }
  return UNTITLED;
}

/** A title as given, on one line, or null when it says nothing. */
export function cleanTitle(title: string | null | undefined): string | null {
  if (typeof title !== 'string') return null;
  const oneLine = withoutMarkers(title).replace(/\s+/g, ' ').trim();
  return oneLine ? cutTo(oneLine, PROMPT_TITLE_CHARS) : null;
}

/** Search snippets mark matches with these two control characters; text of our own never holds them. */
export function withoutMarkers(text: string): string {
  return text.replaceAll(MATCH_START, '').replaceAll(MATCH_END, '');
}

/** What a user entry offers as a title: a prompt, or only the name of a command it ran. */
export interface PromptOffer {
  prompt?: string;
  command?: string;
}

/** Tags the CLI wraps around things the user did not type as a prompt (command output, reminders…). */
const NOT_A_PROMPT = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/;
const COMMAND_NAME = /<command-name>(.*?)<\/command-name>/;
const BASH_INPUT = /<bash-input>([\s\S]*?)<\/bash-input>/;
/** Pasted text the CLI folded into a placeholder; its body is what the user gave. */
const PASTED = /<pasted_content id="[0-9a-f]{4}">\n([\s\S]*?)\n<\/pasted_content id="[0-9a-f]{4}">/g;

/**
 * The title a user entry's content offers, by the SDK's rules: tool results, meta lines and compact
 * summaries offer nothing; command wrappers offer only their command's name; a `! cmd` bash input is kept;
 * other tagged text (command output, reminders) and interruption markers are skipped.
 */
export function promptOffer(entry: {
  isMeta?: unknown;
  isCompactSummary?: unknown;
  content: unknown;
}): PromptOffer {
  if (entry.isMeta === true || entry.isCompactSummary === true) return {};
  const texts: string[] = [];
  if (typeof entry.content === 'string') {
    texts.push(entry.content);
  } else if (Array.isArray(entry.content)) {
    for (const block of entry.content) {
      if (!isRecord(block)) continue;
      if (block.type === 'tool_result') return {};
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    }
  }
  let command: string | undefined;
  for (const raw of texts) {
    const text = raw.replace(PASTED, '$1').replaceAll('\n', ' ').trim();
    if (!text) continue;
    const named = COMMAND_NAME.exec(text);
    if (named?.[1] !== undefined) {
      command ??= named[1];
      continue;
    }
    const bash = BASH_INPUT.exec(text);
    if (bash?.[1] !== undefined) return { prompt: `! ${bash[1].trim()}`, ...(command ? { command } : {}) };
    if (NOT_A_PROMPT.test(text)) continue;
    return { prompt: cutTo(text, PROMPT_TITLE_CHARS), ...(command ? { command } : {}) };
  }
  return command ? { command } : {};
}

/** Cuts to `max` characters (never inside a surrogate pair), marking the cut with an ellipsis. */
export function cutTo(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end).trim()}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
