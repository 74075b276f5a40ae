import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  applyEvents,
  cliItemText,
  initialConversation,
  type AssistantChatMessage,
  type ChatMessage,
  type ConversationState,
  type ToolCall,
  type UserChatMessage,
} from '../../shared/conversation';
import type { ImageMediaType } from '../../shared/protocol';
import { SavedSessionEvents, type SavedFormat } from '../../shared/saved-session';
import type { ExportFile } from '../../shared/library';
import { readLastPage, readPageBefore, sessionFiles, type SessionSource } from './read-session';

/**
 * A saved conversation as files a person can keep: Markdown to read, or the transcript as it is. Export is
 * the one place that reads a whole conversation; it streams the files and refuses one too large to hold.
 */

export interface MarkdownMeta {
  title: string;
  sessionId: string;
  cwd: string | null;
}

/** The export is built in memory; a session larger than this is refused rather than taking the host down. */
export const MAX_EXPORT_BYTES = 200 * 1024 * 1024;

export class ExportTooLarge extends Error {
  override readonly name = 'ExportTooLarge';

  constructor(readonly bytes: number) {
    super(
      `This conversation is too large to export (${megabytes(bytes)} MB; the limit is ${megabytes(MAX_EXPORT_BYTES)} MB).`,
    );
  }
}

/**
 * Markdown a person would read: a title heading, each message under **You** or **Claude** with its text as
 * it is (it is markdown already), each tool call on one line, thinking left out, and images as files of
 * their own, referenced from the Markdown.
 */
export async function exportMarkdown(source: SessionSource, meta: MarkdownMeta): Promise<ExportFile[]> {
  const files = await sessionFiles(source);
  await refuseTooLarge(files.paths);
  const state = await reduceWhole(files.format, files.paths);
  const base = fileBase(meta.title, meta.sessionId);
  const markdown = new MarkdownWriter(state, base, meta.cwd ?? state.cwd);
  const text = markdown.write(meta);
  return [
    { name: `${base}.md`, mediaType: 'text/markdown', encoding: 'utf8', data: text },
    ...markdown.images,
  ];
}

/**
 * The end of a conversation as Markdown, at least `minChars` of it where there is that much: read a page at a
 * time from the end, so a conversation of any size costs only what is kept. For carrying a conversation on.
 */
export async function recentMarkdown(
  source: SessionSource,
  meta: MarkdownMeta,
  minChars: number,
): Promise<{ markdown: string; complete: boolean }> {
  let page = await readLastPage(source);
  let events = page.events;
  for (;;) {
    const state = applyEvents(initialConversation(), events);
    const markdown = new MarkdownWriter(state, fileBase(meta.title, meta.sessionId), meta.cwd).write(meta);
    if (page.before === null || markdown.length >= minChars)
      return { markdown, complete: page.before === null };
    page = await readPageBefore(source, page.before);
    events = [...page.events, ...events];
  }
}

/** The transcript as it is: the CLI's file byte for byte when it exists, else Byre's transcripts joined. */
export async function exportJsonl(
  source: SessionSource,
  meta: { sessionId: string; title: string },
): Promise<ExportFile[]> {
  const files = await sessionFiles(source);
  await refuseTooLarge(files.paths);
  const parts: Buffer[] = [];
  for (const path of files.paths) {
    const bytes = await readIfThere(path);
    if (!bytes || bytes.length === 0) continue;
    // A transcript cut off mid-line must not run into the next one.
    const previous = parts[parts.length - 1];
    if (previous && previous[previous.length - 1] !== 0x0a) parts.push(Buffer.from('\n'));
    parts.push(bytes);
  }
  const bytes = Buffer.concat(parts);
  const text = utf8(bytes);
  return [
    {
      name: `${fileBase(meta.title, meta.sessionId)}.jsonl`,
      mediaType: 'application/x-ndjson',
      // Bytes that are not UTF-8 go out as they are, in base64, rather than mended.
      ...(text === null
        ? { encoding: 'base64' as const, data: bytes.toString('base64') }
        : { encoding: 'utf8' as const, data: text }),
    },
  ];
}

/** A file name from the title: letters, digits and dashes. */
export function fileBase(title: string, sessionId: string): string {
  const safe = title
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  if (safe.length > 0) return safe;
  const id = sessionId.replace(/[^A-Za-z0-9]+/g, '').slice(0, 8);
  return id ? `conversation-${id}` : 'conversation';
}

// ---------------------------------------------------------------------------------------------------
// Reading it all

/** Lines are reduced in batches: each batch copies the message map once, so batches are large. */
const BATCH_LINES = 10_000;

async function reduceWhole(format: SavedFormat, paths: readonly string[]): Promise<ConversationState> {
  const saved = new SavedSessionEvents(format);
  let state = initialConversation();
  let pending = 0;
  for (const path of paths) {
    if (!(await sizeOf(path))) continue;
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim().length === 0) continue;
      saved.line(line);
      pending += 1;
      if (pending >= BATCH_LINES) {
        state = applyEvents(state, saved.take());
        pending = 0;
      }
    }
    saved.endFile();
  }
  return applyEvents(state, saved.take());
}

async function refuseTooLarge(paths: readonly string[]): Promise<void> {
  let total = 0;
  for (const path of paths) total += (await sizeOf(path)) ?? 0;
  if (total > MAX_EXPORT_BYTES) throw new ExportTooLarge(total);
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function readIfThere(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8(bytes: Buffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(0);
}

// ---------------------------------------------------------------------------------------------------
// Markdown

const IMAGE_EXTENSIONS: Record<ImageMediaType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** What a tool call did, in a few words; the tool's own name when nothing better is known. */
const TOOL_VERBS: Record<string, { verb: string; input: string }> = {
  Bash: { verb: 'Ran `Bash`:', input: 'command' },
  Read: { verb: 'Read', input: 'file_path' },
  Edit: { verb: 'Edited', input: 'file_path' },
  MultiEdit: { verb: 'Edited', input: 'file_path' },
  Write: { verb: 'Wrote', input: 'file_path' },
  NotebookEdit: { verb: 'Edited', input: 'notebook_path' },
  Grep: { verb: 'Searched for', input: 'pattern' },
  Glob: { verb: 'Looked for files', input: 'pattern' },
  WebFetch: { verb: 'Fetched', input: 'url' },
  WebSearch: { verb: 'Searched the web for', input: 'query' },
  Task: { verb: 'Asked a subagent:', input: 'description' },
  Agent: { verb: 'Asked a subagent:', input: 'description' },
  mcp__byre__set_title: { verb: 'Set the title:', input: 'title' },
};
/** Tools whose output says only that they worked. */
const QUIET_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'mcp__byre__set_title']);
const MAX_INLINE = 160;

class MarkdownWriter {
  readonly images: ExportFile[] = [];
  private readonly blocks: string[] = [];
  /** Whose section the last message was in; a new heading only when it changes. */
  private author: string | null = null;

  constructor(
    private readonly state: ConversationState,
    private readonly base: string,
    private readonly cwd: string | null,
  ) {}

  write(meta: MarkdownMeta): string {
    this.blocks.push(`# ${meta.title.replace(/\s+/g, ' ').trim() || 'Conversation'}`);
    const facts = [`- Session: ${code(meta.sessionId)}`];
    if (this.cwd) facts.push(`- Folder: ${code(this.cwd)}`);
    this.blocks.push(facts.join('\n'));
    for (const id of this.state.order) {
      const message = this.state.messages[id];
      if (message) this.message(message);
    }
    return `${this.blocks.join('\n\n')}\n`;
  }

  private message(message: ChatMessage): void {
    switch (message.role) {
      case 'user':
        this.user(message);
        return;
      case 'assistant':
        this.assistant(message);
        return;
      case 'result':
        if (!message.ok && message.errorText) this.note(message.errorText);
        return;
      case 'notice':
        this.note(message.text);
        return;
      case 'cli':
        this.note(cliItemText(message.item));
        return;
    }
  }

  private user(message: UserChatMessage): void {
    this.section('You');
    for (const image of message.images) {
      const number = this.images.length + 1;
      const name = `${this.base}-image-${number}.${IMAGE_EXTENSIONS[image.mediaType]}`;
      this.images.push({ name, mediaType: image.mediaType, encoding: 'base64', data: image.data });
      this.blocks.push(`![image ${number}](${name})`);
    }
    if (message.text.trim().length > 0) this.blocks.push(message.text);
  }

  private assistant(message: AssistantChatMessage): void {
    const blocks: string[] = [];
    for (const part of message.parts) {
      if (part.kind === 'text' && part.text.trim().length > 0) blocks.push(part.text);
      if (part.kind === 'tool') {
        const tool = this.state.tools[part.toolUseId];
        if (tool) blocks.push(`> ${this.toolLine(tool)}`);
      }
    }
    if (message.error) blocks.push(`> ${oneLine(message.error)}`);
    if (blocks.length === 0) return;
    this.section(message.author);
    this.blocks.push(...blocks);
  }

  private note(text: string): void {
    this.blocks.push(`*${oneLine(text).replace(/\*/g, '\\*')}*`);
    this.author = null;
  }

  private section(author: string): void {
    if (author === this.author) return;
    this.blocks.push(`**${author}**`);
    this.author = author;
  }

  /** e.g. "Ran `Bash`: `echo hi` → 1 line of output". */
  private toolLine(tool: ToolCall): string {
    const known = TOOL_VERBS[tool.name];
    const value = known ? tool.input[known.input] : undefined;
    const subject = typeof value === 'string' && value.length > 0 ? code(this.relative(value)) : null;
    const what = known
      ? [known.verb, subject].filter(Boolean).join(' ')
      : [`Used ${code(tool.name)}`, firstStringInput(tool)].filter(Boolean).join(': ');
    const outcome = toolOutcome(tool);
    return outcome ? `${what} → ${outcome}` : what;
  }

  private relative(path: string): string {
    return this.cwd && path.startsWith(`${this.cwd}/`) ? path.slice(this.cwd.length + 1) : path;
  }
}

function toolOutcome(tool: ToolCall): string | null {
  switch (tool.status) {
    case 'running':
      return 'no result';
    case 'interrupted':
      return 'interrupted';
    case 'error':
      return `error: ${truncate(oneLine(tool.result?.text ?? '')) || 'no message'}`;
    case 'done': {
      if (QUIET_TOOLS.has(tool.name)) return null;
      const text = tool.result?.text.trimEnd() ?? '';
      const images = tool.result?.images ?? 0;
      const said: string[] = [];
      if (text.length > 0) said.push(count(text.split('\n').length, 'line') + ' of output');
      if (images > 0) said.push(count(images, 'image'));
      return said.length > 0 ? said.join(' and ') : 'no output';
    }
  }
}

function firstStringInput(tool: ToolCall): string | null {
  const value = Object.values(tool.input).find((item) => typeof item === 'string' && item.length > 0);
  return typeof value === 'string' ? code(value) : null;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncate(text: string): string {
  return text.length > MAX_INLINE ? `${text.slice(0, MAX_INLINE - 1)}…` : text;
}

/** Inline code that survives backticks in its content. */
function code(text: string): string {
  const content = truncate(oneLine(text));
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}
