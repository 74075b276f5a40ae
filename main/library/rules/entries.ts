/**
 * What one line of a session file says, for the library: facts about the session (its id, folder, branch,
 * when it was active, its title sources, how many messages) gathered line by line into `FileFacts`, and the
 * text of each message to index. Two kinds of file: the CLI's own session files, and Byre's transcripts of
 * each CLI run (`{"dir","msg"}` lines of stream-json). Pure; no Node, no I/O.
 */
import { z } from 'zod';
import { isRecord, list, record, text, timestamp, type JsonRecord } from './json';
import { cleanTitle, cutTo, promptOffer, withoutMarkers } from './titles';
import { BYRE_LINE, HOST_LINE } from '../../../shared/saved-session';
import { UsageState } from './usage';

export type FileKind = 'cli' | 'transcript';

export const Summary = z.object({
  leafUuid: z.string(),
  summary: z.string(),
  /** The leaf is known to be a message of this session (checked against a sample of it). */
  verified: z.boolean().optional(),
});
export type Summary = z.infer<typeof Summary>;

/** What a file says about its session, as far as it has been read. Kept as JSON in the index. */
export const FileFacts = z.object({
  sessionId: z.string().nullable(),
  cwd: z.string().nullable(),
  gitBranch: z.string().nullable(),
  /** The host Byre ran it on over ssh (its transcript says), as the user named it; null: this computer. */
  host: z.string().nullable().optional(),
  firstActive: z.number().nullable(),
  lastActive: z.number().nullable(),
  firstPrompt: z.string().nullable(),
  commandFallback: z.string().nullable(),
  setTitle: z.string().nullable(),
  customTitle: z.string().nullable(),
  aiTitle: z.string().nullable(),
  summaries: z.array(Summary),
  /** User prompts and assistant messages of the main thread. */
  messages: z.number().int().nonnegative(),
  /** The CLI writes one entry per content block; they share the API message's id. */
  lastAssistantId: z.string().nullable(),
  /**
   * The last `forkedFrom` of a main-thread entry: the CLI's `/branch` copies the parent's entries into the
   * new session's file, each marked with the parent session and its own uuid.
   */
  forkedFrom: z.object({ sessionId: z.string(), messageUuid: z.string() }).nullable(),
  /** The uuid of the main thread's latest entry (of any kind), to notice a prompt that goes on from elsewhere. */
  chainLeaf: z.string().nullable(),
  /**
   * Prompts that go on from an entry other than the latest: the CLI rewound in place, and the chain it left
   * ends in a leaf of its own (a read-only branch). Counted by the full read only.
   */
  rewinds: z.number().int().nonnegative(),
  /** What the usage read left open (usage.ts); absent until the file's first usage. */
  usage: UsageState.optional(),
});
export type FileFacts = z.infer<typeof FileFacts>;

/** A message's searchable text, in the two parts that are indexed differently. */
export interface MessageText {
  /** What was said: text blocks, and each tool call's name and input. */
  text: string | null;
  /** What the tools answered. */
  output: string | null;
}

/** A message of the main thread: its uuid (to open the conversation there) and its text to index. */
export interface MessageRead extends MessageText {
  uuid: string | null;
  /** When it was written, as far as the file says (its own timestamp, else the latest before it). */
  time: number | null;
}

type Read = Omit<MessageRead, 'time'>;

export function emptyFacts(sessionId: string | null = null): FileFacts {
  return {
    sessionId,
    cwd: null,
    gitBranch: null,
    host: null,
    firstActive: null,
    lastActive: null,
    firstPrompt: null,
    commandFallback: null,
    setTitle: null,
    customTitle: null,
    aiTitle: null,
    summaries: [],
    messages: 0,
    lastAssistantId: null,
    forkedFrom: null,
    chainLeaf: null,
    rewinds: 0,
  };
}

/** Only the latest few summaries can matter for the title. */
const KEPT_SUMMARIES = 8;
/** Indexed text per message, per tool input and per tool output. */
export const MESSAGE_TEXT_CHARS = 32 * 1024;
export const TOOL_INPUT_CHARS = 2 * 1024;
export const TOOL_OUTPUT_CHARS = 4 * 1024;

/** Byre's own MCP tool that names a conversation, as the model calls it. */
const SET_TITLE_TOOL = 'mcp__byre__set_title';

export function readEntry(kind: FileKind, value: unknown, facts: FileFacts): MessageRead | null {
  const read = kind === 'cli' ? readCliEntry(value, facts) : readTranscriptLine(value, facts);
  return read && { ...read, time: facts.lastActive };
}

/** The first line of a subagent's file says so; such files are not conversations of their own. */
export function isSidechainStart(kind: FileKind, value: unknown): boolean {
  return kind === 'cli' && isRecord(value) && value.isSidechain === true;
}

function readCliEntry(value: unknown, facts: FileFacts): Read | null {
  const entry = record(value);
  if (!entry) return null;
  const latest = facts.chainLeaf;
  noteChain(facts, entry);
  facts.cwd ??= text(entry.cwd);
  facts.gitBranch = text(entry.gitBranch) ?? facts.gitBranch;
  noteTime(facts, timestamp(entry.timestamp));
  switch (entry.type) {
    case 'custom-title':
      facts.customTitle = cleanTitle(text(entry.customTitle)) ?? facts.customTitle;
      return null;
    case 'ai-title':
      facts.aiTitle = cleanTitle(text(entry.aiTitle) ?? text(entry.title)) ?? facts.aiTitle;
      return null;
    case 'summary':
      noteSummary(facts, text(entry.leafUuid), text(entry.summary));
      return null;
    case 'relocated':
      facts.cwd = text(entry.relocatedCwd) ?? facts.cwd;
      return null;
    case 'user':
    case 'assistant': {
      if (entry.isSidechain === true) return null;
      facts.forkedFrom = readForkedFrom(entry.forkedFrom) ?? facts.forkedFrom;
      const message = record(entry.message);
      const read = { uuid: text(entry.uuid), ...NO_TEXT };
      if (!message) return read;
      if (entry.type === 'assistant') return { ...read, ...readAssistant(facts, message) };
      const before = facts.messages;
      const user = readUser(facts, message.content, entry);
      if (facts.messages > before && latest !== null && chainParent(entry) !== latest) facts.rewinds += 1;
      return { ...read, ...user };
    }
    default:
      return null;
  }
}

/**
 * The entry a main-thread entry goes on from. A compact boundary starts a chain anew (no `parentUuid`) but
 * names the entry it logically follows.
 */
export function chainParent(entry: JsonRecord): string | null {
  return text(entry.parentUuid) ?? text(entry.logicalParentUuid);
}

/** Progress lines hang off the chain without becoming part of it: the next entry goes on from before them. */
function noteChain(facts: FileFacts, entry: JsonRecord): void {
  if (entry.isSidechain === true || entry.type === 'progress') return;
  facts.chainLeaf = text(entry.uuid) ?? facts.chainLeaf;
}

export function readForkedFrom(value: unknown): FileFacts['forkedFrom'] {
  const from = record(value);
  const sessionId = text(from?.sessionId);
  const messageUuid = text(from?.messageUuid);
  return sessionId && messageUuid ? { sessionId, messageUuid } : null;
}

function readTranscriptLine(value: unknown, facts: FileFacts): Read | null {
  const line = record(value);
  const msg = record(line?.msg);
  if (!line || !msg) return null;
  if (line.dir === 'send') {
    if (msg.type !== 'user') return null;
    const message = record(msg.message);
    const read = { uuid: text(msg.uuid), ...NO_TEXT };
    return message ? { ...read, ...readUser(facts, message.content, msg) } : read;
  }
  if (line.dir === BYRE_LINE && msg.type === HOST_LINE) {
    facts.host ??= text(msg.host);
    return null;
  }
  // Byre's own lines are replies the CLI cut off, recorded as far as they had streamed.
  if (line.dir !== 'recv' && !(line.dir === BYRE_LINE && msg.type === 'assistant')) return null;
  facts.sessionId ??= text(msg.session_id);
  noteTime(facts, timestamp(msg.timestamp));
  // A subagent's messages come with the tool call that started it; they are not the main thread.
  const mainThread = msg.parent_tool_use_id === null || msg.parent_tool_use_id === undefined;
  switch (msg.type) {
    case 'system':
      if (msg.subtype === 'init') facts.cwd ??= text(msg.cwd);
      return null;
    case 'assistant': {
      const message = record(msg.message);
      if (!mainThread || !message) return null;
      return { uuid: text(msg.uuid), ...readAssistant(facts, message) };
    }
    case 'user': {
      const message = record(msg.message);
      // Tool results (and replays of what was sent, which the send line already counted).
      if (!mainThread || !message) return null;
      return { uuid: text(msg.uuid), ...contentText(message.content) };
    }
    case 'control_request':
      facts.setTitle = setTitleRequest(record(msg.request)) ?? facts.setTitle;
      return null;
    default:
      return null;
  }
}

function readUser(facts: FileFacts, content: unknown, entry: JsonRecord): MessageText {
  const offer = promptOffer({ isMeta: entry.isMeta, isCompactSummary: entry.isCompactSummary, content });
  facts.firstPrompt ??= offer.prompt ?? null;
  facts.commandFallback ??= offer.command ?? null;
  if (entry.isMeta === true || entry.isCompactSummary === true) return NO_TEXT;
  if (!isToolResults(content)) facts.messages += 1;
  return contentText(content);
}

function readAssistant(facts: FileFacts, message: JsonRecord): MessageText {
  const id = text(message.id);
  if (id === null || id !== facts.lastAssistantId) facts.messages += 1;
  facts.lastAssistantId = id;
  for (const block of list(message.content)) {
    const tool = record(block);
    if (tool?.type === 'tool_use' && tool.name === SET_TITLE_TOOL) {
      facts.setTitle = cleanTitle(text(record(tool.input)?.title)) ?? facts.setTitle;
    }
  }
  return contentText(message.content);
}

/** Byre's MCP server being asked to run set_title: the title it was given. */
function setTitleRequest(request: JsonRecord | null): string | null {
  if (request?.subtype !== 'mcp_message' || request.server_name !== 'byre') return null;
  const message = record(request.message);
  const params = record(message?.params);
  if (message?.method !== 'tools/call' || params?.name !== 'set_title') return null;
  return cleanTitle(text(record(params.arguments)?.title));
}

function noteTime(facts: FileFacts, ms: number | null): void {
  if (ms === null) return;
  facts.firstActive ??= ms;
  facts.lastActive = Math.max(facts.lastActive ?? ms, ms);
}

function noteSummary(facts: FileFacts, leafUuid: string | null, summary: string | null): void {
  const clean = cleanTitle(summary);
  if (!leafUuid || !clean) return;
  facts.summaries = [...facts.summaries, { leafUuid, summary: clean }].slice(-KEPT_SUMMARIES);
}

function isToolResults(content: unknown): boolean {
  return Array.isArray(content) && content.some((block) => record(block)?.type === 'tool_result');
}

const NO_TEXT: MessageText = { text: null, output: null };

/**
 * The searchable text of a message: its text blocks and each tool call's name and input (as JSON, cut), then
 * apart from them each tool result's text (cut). Images and documents are never indexed, nor is thinking.
 */
export function contentText(content: unknown): MessageText {
  if (typeof content === 'string') {
    return { text: content ? withoutMarkers(cutTo(content, MESSAGE_TEXT_CHARS)) : null, output: null };
  }
  const parts: string[] = [];
  const outputs: string[] = [];
  for (const item of list(content)) {
    const block = record(item);
    if (!block) continue;
    if (block.type === 'text') {
      const said = text(block.text);
      if (said) parts.push(said);
    } else if (block.type === 'tool_use') {
      const input = block.input === undefined ? '' : JSON.stringify(block.input);
      parts.push(`${text(block.name) ?? 'tool'} ${cutTo(input, TOOL_INPUT_CHARS)}`);
    } else if (block.type === 'tool_result') {
      const output = toolOutput(block.content);
      if (output) outputs.push(cutTo(output, TOOL_OUTPUT_CHARS));
    }
  }
  return { text: joinedText(parts), output: joinedText(outputs) };
}

function joinedText(parts: string[]): string | null {
  const joined = parts.join('\n');
  return joined ? withoutMarkers(cutTo(joined, MESSAGE_TEXT_CHARS)) : null;
}

function toolOutput(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((item) => {
      const block = record(item);
      return block?.type === 'text' ? (text(block.text) ?? '') : '';
    })
    .filter(Boolean)
    .join('\n');
}
