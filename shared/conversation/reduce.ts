/**
 * The conversation reducer: protocol events in, what the chat shows out. Pure (no DOM, no Node), so the
 * live chat and a saved transcript are rendered by the same code from the same events.
 *
 * State is immutable between batches, and what a batch costs grows with what it changed, not with the
 * conversation: messages, tool calls and the other records by id are persistent records (shared/persistent-
 * record.ts), so a delta to a streaming reply copies that message and the short path to it, and every other
 * message object, the order and the tool calls stay as they were.
 */
import type { CheckRun, ConversationEvent, TurnImage } from '../ipc';
import { recordValues, withEntry } from '../persistent-record';
import { IMAGE_MEDIA_TYPES } from '../media-types';
import type {
  ImageMediaType,
  AssistantMessage,
  CliMessage,
  ContentBlock,
  ResultMessage,
  StreamEventMessage,
  UserMessage,
} from '../protocol';
import { StateDraft } from './draft';
import { outcomeOf, withdrawnNotice } from './questions';
import { applyStatusLine, noteTaskResult } from './status-lines';
import { reduceElicitation } from './elicitations';
import { applyEventLine, applySystemLine, foldIntoCompactMarker } from './system-lines';
import {
  taskRunning,
  type AssistantChatMessage,
  type ChatMessage,
  type ConversationState,
  type Part,
  type PromptStatus,
  type TaskInfo,
} from './state';
import { writtenOver } from './write-result';

const MAX_BAD_LINE_NOTICES = 3;
const RETRY_OVER: ReadonlySet<CliMessage['type']> = new Set(['stream_event', 'assistant', 'result']);
const INTERRUPTED = /^\[Request interrupted by user/;
const INTERRUPTED_NOTICE = 'Interrupted.';
const STOPPED_TOOL = /doesn't want to proceed with this tool use|was stopped while running/;
const LOCAL_COMMAND_OUTPUT = /^<local-command-stdout>([\s\S]*)<\/local-command-stdout>$/;

/** Applies a batch of events. Returns the same object when nothing changed. */
export function applyEvents(
  state: ConversationState,
  events: readonly ConversationEvent[],
): ConversationState {
  if (events.length === 0) return state;
  const draft = new StateDraft(state);
  for (const event of events) applyEvent(draft, event);
  return draft.finish();
}

function applyEvent(d: StateDraft, event: ConversationEvent): void {
  switch (event.kind) {
    case 'message':
      applyMessage(d, event.message);
      return;
    case 'prompt': {
      const id = userId(event.uuid);
      d.setMessage({
        role: 'user',
        id,
        author: 'You',
        text: event.text,
        images: event.images ?? [],
        uuid: event.uuid,
        status: 'sending',
        parentToolUseId: null,
      });
      d.append(id, null);
      // Sent while a turn runs, it waits in the queue: its turn starts later than this.
      if (event.at !== undefined && d.state.status !== 'running') {
        d.set({ lineAt: { ...d.state.lineAt, '': event.at } });
      }
      d.set({ pending: [...d.state.pending, event.uuid], status: 'running' });
      d.set({ promptSuggestion: null });
      return;
    }
    case 'prompt_cancelled':
      setPromptStatus(d, event.uuid, 'cancelled');
      settlePrompt(d, event.uuid);
      return;
    case 'title':
      d.set({ title: event.title });
      return;
    case 'model':
      d.set({ model: event.model });
      return;
    case 'notify':
      addNotice(d, 'info', event.title ? `${event.title}: ${event.message}` : event.message);
      return;
    case 'warning':
      addNotice(d, 'error', event.message);
      return;
    case 'bad_line':
      d.set({ badLines: d.state.badLines + 1 });
      // Say so, without flooding the conversation if a CLI keeps writing lines this app cannot read.
      if (d.state.badLines <= MAX_BAD_LINE_NOTICES) {
        addNotice(
          d,
          'error',
          `Byre skipped a line from Claude Code that it could not read: ${event.problem}`,
        );
      }
      return;
    case 'exit':
      endStreams(d);
      stopRunningCheck(d);
      for (const tool of recordValues(d.state.tools)) {
        // Background tasks end with the process that ran them.
        const task = tool.task && taskRunning(tool.task) ? { ...tool.task, status: 'stopped' } : tool.task;
        if (tool.status === 'running' || task !== tool.task) {
          d.setTool({ ...tool, status: tool.status === 'running' ? 'interrupted' : tool.status, task });
        }
      }
      // The prompt Claude had begun to answer (the first waiting: prompts run in order) was not cancelled:
      // its answer stops where the exit cut it. The ones after it never ran.
      d.state.pending.forEach((uuid, index) => {
        if (index === 0 && answeredInPart(d, uuid)) return;
        setPromptStatus(d, uuid, 'cancelled');
      });
      // Nobody is left to answer: the exit banner says so. A process that comes next counts its cost from 0.
      d.set({
        status: 'exited',
        exitError: event.error ?? null,
        pending: [],
        permissionRequests: [],
        elicitations: [],
        processCostUsd: 0,
        retry: null,
        currentTool: null,
      });
      return;
    case 'resumed':
      d.set({
        status: 'idle',
        exitError: null,
        processCostUsd: 0,
        retry: null,
        sessionId: event.snapshot.sessionId,
        cwd: event.snapshot.cwd,
        claudeCodeVersion: event.snapshot.claudeCodeVersion ?? d.state.claudeCodeVersion,
        models: event.snapshot.models,
        model: event.snapshot.model ?? d.state.model,
        permissionMode: event.snapshot.permissionMode,
        folderSettingsOff: event.snapshot.folderSettingsOff ?? false,
        lane: event.snapshot.lane ?? 'stream',
        activity: null,
        host: event.snapshot.host ?? null,
        commitIdentity: event.snapshot.commitIdentity ?? null,
        commands: event.snapshot.commands ?? d.state.commands,
        worktree: event.snapshot.worktree ?? null,
      });
      return;
    case 'permission_request': {
      const { kind: _kind, ...request } = event;
      const waiting = d.state.permissionRequests;
      // The same request again (a window that reloaded while it waited) replaces itself.
      const known = waiting.some((candidate) => candidate.requestId === request.requestId);
      d.set({
        permissionRequests: known
          ? waiting.map((candidate) => (candidate.requestId === request.requestId ? request : candidate))
          : [...waiting, request],
      });
      // A Write waiting for its answer: its card diffs against the file as it is, until the CLI says.
      const tool = request.toolUseId === null ? undefined : d.state.tools[request.toolUseId];
      if (tool && request.fileBefore !== undefined && tool.originalFile === undefined && !tool.result) {
        d.setTool({ ...tool, originalFile: request.fileBefore });
      }
      return;
    }
    case 'permission_resolved': {
      const request = d.state.permissionRequests.find((candidate) => candidate.requestId === event.requestId);
      if (!request) return;
      d.set({
        permissionRequests: d.state.permissionRequests.filter((candidate) => candidate !== request),
      });
      // Answered requests show in their tool call's result; one that was withdrawn would vanish unexplained.
      if (event.outcome === 'cancelled') {
        addNotice(d, 'info', withdrawnNotice(request, event.reason));
      }
      return;
    }
    case 'elicitation_request':
    case 'elicitation_resolved':
      reduceElicitation(d, event, (text) => addNotice(d, 'info', text));
      return;
    case 'permission_mode':
      d.set({ permissionMode: event.mode });
      return;
    case 'done_when':
      d.set({ doneWhen: event.command });
      return;
    case 'check': {
      const id = checkId(event.check.id);
      const known = !!d.state.messages[id];
      d.setMessage({ role: 'check', id, author: 'Byre', check: event.check });
      if (!known) d.append(id, null);
      d.set({ lastCheck: event.check });
      return;
    }
    case 'check_status':
      d.set({ lastCheck: event.check });
      return;
    case 'activity':
      // A Terminal conversation's turn, told by its hooks: busy while Claude works or waits on the person.
      d.set({
        activity: { state: event.state, what: event.what },
        ...(d.state.status === 'exited' ? {} : { status: event.state === 'done' ? 'idle' : 'running' }),
        ...(event.state === 'done' ? { currentTool: null } : {}),
      });
      return;
    case 'tool':
      if (d.state.status !== 'exited') d.set({ currentTool: { name: event.name, detail: event.detail } });
      return;
    case 'setup': {
      const id = `s:${event.run.id}`;
      const known = !!d.state.messages[id];
      d.setMessage({ role: 'setup', id, author: 'Byre', setup: event.run });
      if (!known) d.append(id, null);
      d.set({ setup: event.run });
      return;
    }
  }
}

function applyMessage(d: StateDraft, message: CliMessage): void {
  // A reply that streams, or a turn that ends, is past any retry.
  if (d.state.retry && RETRY_OVER.has(message.type)) d.set({ retry: null });
  switch (message.type) {
    case 'stream_event':
      applyStreamEvent(d, message);
      return;
    case 'assistant':
      applyAssistant(d, message);
      return;
    case 'user':
      applyUser(d, message);
      return;
    case 'result':
      applyResult(d, message);
      return;
    case 'rate_limit_event':
    case 'prompt_suggestion':
    case 'auth_status':
      applyStatusLine(d, message, (tone, text) => addNotice(d, tone, text));
      return;
    case 'tool_progress': {
      const id = message.parent_tool_use_id;
      const tool = id ? d.state.tools[id] : undefined;
      if (tool) d.setTool({ ...tool, elapsedSeconds: message.elapsed_time_seconds });
      return;
    }
    case 'command_lifecycle':
      if (message.state === 'queued') setPromptStatus(d, message.command_uuid, 'queued', ['sending']);
      if (message.state === 'started') setPromptStatus(d, message.command_uuid, 'sent');
      if (message.state === 'cancelled') {
        const before = d.state.messages[userId(message.command_uuid)];
        setPromptStatus(d, message.command_uuid, 'cancelled', ['sending', 'queued']);
        // Cancelled before it ran: no result will answer it.
        if (before?.role === 'user' && before.status !== 'sent') settlePrompt(d, message.command_uuid);
      }
      return;
    case 'system':
      switch (message.subtype) {
        case 'init':
          d.set({ model: message.model, sessionId: message.session_id, cwd: message.cwd, status: 'running' });
          addCommandNames(d, message.slash_commands ?? []);
          return;
        case 'task_started': {
          if (!message.tool_use_id) return;
          const tool = d.state.tools[message.tool_use_id];
          d.setEntry('taskTools', message.task_id, message.tool_use_id);
          if (!tool) return;
          d.setTool({
            ...tool,
            task: {
              taskId: message.task_id,
              status: 'running',
              description: message.description,
              taskType: message.task_type ?? null,
              subagentType: message.subagent_type ?? null,
              backgrounded: message.is_backgrounded ?? false,
              lastToolName: null,
              progress: null,
              summary: null,
            },
          });
          return;
        }
        case 'task_progress':
          updateTask(d, message.task_id, (task) => ({
            ...task,
            progress: message.description ?? task.progress,
            lastToolName: message.last_tool_name ?? task.lastToolName,
          }));
          return;
        case 'task_updated': {
          // A foreground task moved to the background says so here.
          const backgrounded = message.patch.is_backgrounded;
          updateTask(d, message.task_id, (task) => ({
            ...task,
            status: message.patch.status ?? task.status,
            backgrounded: typeof backgrounded === 'boolean' ? backgrounded : task.backgrounded,
          }));
          return;
        }
        case 'task_notification':
          updateTask(d, message.task_id, (task) => ({
            ...task,
            status: message.status,
            summary: message.summary ?? task.summary,
          }));
          return;
        case 'api_retry':
          d.set({
            retry: {
              id: message.uuid,
              attempt: message.attempt,
              maxRetries: message.max_retries,
              delayMs: message.retry_delay_ms,
              error: message.error ?? null,
              httpStatus: message.error_status ?? null,
            },
          });
          return;
        case 'session_writes_lost':
        case 'commands_changed':
          applyStatusLine(d, message, (tone, text) => addNotice(d, tone, text));
          return;
        default:
          applySystemLine(d, message);
          return;
      }
    default:
      applyEventLine(d, message);
      return;
  }
}

function applyStreamEvent(d: StateDraft, line: StreamEventMessage): void {
  const key = line.parent_tool_use_id ?? '';
  const event = line.event;
  switch (event.type) {
    case 'message_start': {
      const id = assistantId(event.message.id);
      if (!d.state.messages[id]) {
        d.setMessage(newAssistant(d, id, line.parent_tool_use_id));
        d.append(id, line.parent_tool_use_id);
      }
      d.set({ streams: { ...d.state.streams, [key]: { messageId: id, partAt: {} } } });
      return;
    }
    case 'content_block_start': {
      const stream = d.state.streams[key];
      const message = stream && d.state.messages[stream.messageId];
      if (!stream || message?.role !== 'assistant') return;
      const block = event.content_block;
      const part = partFor(d, block, null, stream.messageId);
      d.setMessage({ ...message, parts: [...message.parts, part], streaming: true });
      d.set({
        streams: {
          ...d.state.streams,
          [key]: { ...stream, partAt: { ...stream.partAt, [event.index]: message.parts.length } },
        },
      });
      return;
    }
    case 'content_block_delta': {
      const stream = d.state.streams[key];
      const message = stream && d.state.messages[stream.messageId];
      const at = stream?.partAt[event.index];
      if (!stream || message?.role !== 'assistant' || at === undefined) return;
      const part = message.parts[at];
      const delta = event.delta;
      if (part?.kind === 'text' && delta.type === 'text_delta') {
        d.setMessage(withPart(message, at, { kind: 'text', text: part.text + delta.text }));
      } else if (part?.kind === 'thinking' && delta.type === 'thinking_delta') {
        d.setMessage(withPart(message, at, { kind: 'thinking', text: part.text + delta.thinking }));
      } else if (part?.kind === 'tool' && delta.type === 'input_json_delta') {
        const tool = d.state.tools[part.toolUseId];
        if (tool) d.setTool({ ...tool, partialInput: tool.partialInput + delta.partial_json });
      }
      return;
    }
    case 'message_stop': {
      const stream = d.state.streams[key];
      const message = stream && d.state.messages[stream.messageId];
      if (message?.role === 'assistant') d.setMessage({ ...message, streaming: false });
      const { [key]: _closed, ...rest } = d.state.streams;
      d.set({ streams: rest });
      return;
    }
    default:
      return;
  }
}

function applyAssistant(d: StateDraft, line: AssistantMessage): void {
  const id = assistantId(line.message.id);
  let message = d.state.messages[id];
  if (message?.role !== 'assistant') {
    message = newAssistant(d, id, line.parent_tool_use_id, line.subagent_type);
    d.append(id, line.parent_tool_use_id);
  }
  const key = line.parent_tool_use_id ?? '';
  const stream = d.state.streams[key];
  const partAt = stream?.messageId === id ? stream.partAt : {};
  let parts = message.parts;
  let seen = d.state.blocksSeen[line.message.id] ?? 0;
  const timestamp = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  // The thread's line before this one: a thinking block's line comes when the thinking ends, so the time
  // between them is how long the model thought (with the request's own wait).
  const before = d.state.lineAt[key];
  for (const block of line.message.content) {
    // The CLI sends one line per content block, in order: the n-th line is block n.
    const at = partAt[seen];
    let part = partFor(d, block, Number.isNaN(timestamp) ? null : timestamp, id);
    // The main thread's todo list is its latest TodoWrite's (a subagent's list is its own).
    if (block.type === 'tool_use' && block.name === 'TodoWrite' && !line.parent_tool_use_id) {
      d.set({ todoToolId: block.id });
    }
    if (part.kind === 'thinking' && before !== undefined && timestamp >= before) {
      part = { ...part, seconds: (timestamp - before) / 1000 };
    }
    if (at !== undefined && at < parts.length) {
      parts = parts.map((existing, index) => (index === at ? part : existing));
    } else {
      parts = [...parts, part];
    }
    seen += 1;
  }
  d.setEntry('blocksSeen', line.message.id, seen);
  if (!Number.isNaN(timestamp)) d.set({ lineAt: { ...d.state.lineAt, [key]: timestamp } });
  d.setMessage({
    ...message,
    parts,
    uuid: line.uuid,
    aborted: line.aborted ?? message.aborted,
    model: line.message.model,
    error: line.error ?? message.error,
    streaming: line.aborted ? false : message.streaming,
  });
}

function applyUser(d: StateDraft, line: UserMessage): void {
  const content = line.message.content;
  const parent = line.parent_tool_use_id ?? null;
  const timestamp = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  if (!Number.isNaN(timestamp)) d.set({ lineAt: { ...d.state.lineAt, [parent ?? '']: timestamp } });
  if (typeof content === 'string') {
    addUserText(d, line, content, parent);
    return;
  }
  const texts: string[] = [];
  const images: TurnImage[] = [];
  for (const block of content) {
    if (block.type === 'tool_result') {
      const tool = d.state.tools[block.tool_use_id];
      if (!tool) continue;
      const result = flattenToolResult(block.content);
      // A tool stopped by an interrupt answers with an error; it was stopped, not broken.
      const interrupted = tool.task?.status === 'stopped' || STOPPED_TOOL.test(result.text);
      d.setTool({
        ...tool,
        status: block.is_error ? (interrupted ? 'interrupted' : 'error') : 'done',
        result: {
          text: result.text,
          isError: block.is_error ?? false,
          images: result.images,
          ...outcomeOf(tool.name, line.tool_use_result),
        },
        originalFile: writtenOver(tool, line.tool_use_result) ?? tool.originalFile,
      });
      noteTaskResult(d, tool, line, result.text, block.is_error ?? false);
    } else if (block.type === 'text') {
      texts.push(block.text);
    } else if (block.type === 'image' && block.source.type === 'base64') {
      const mediaType = block.source.media_type;
      if (isImageMediaType(mediaType)) images.push({ mediaType, data: block.source.data });
    }
  }
  if (texts.length > 0 || images.length > 0) addUserText(d, line, texts.join('\n'), parent, images);
}

function addUserText(
  d: StateDraft,
  line: UserMessage,
  text: string,
  parent: string | null,
  images: TurnImage[] = [],
): void {
  // Our own prompts are already shown (from the 'prompt' event); replays of them add nothing.
  if (line.uuid && d.state.messages[userId(line.uuid)]) return;
  if (INTERRUPTED.test(text)) {
    addNotice(d, 'info', INTERRUPTED_NOTICE);
    return;
  }
  if (foldIntoCompactMarker(d, text)) return;
  const local = LOCAL_COMMAND_OUTPUT.exec(text);
  if (local) {
    // What a control command such as set_model reports, e.g. "Set model to claude-sonnet-4-5".
    addNotice(d, 'info', (local[1] ?? '').trim());
    return;
  }
  if (line.isSynthetic) {
    // What a failed "Done when" check told Claude: its card, just before, shows it already.
    if (STOP_HOOK_FEEDBACK.test(text) && lastCheckFailed(d)) return;
    addNotice(d, 'info', text);
    return;
  }
  const id = line.uuid ? userId(line.uuid) : `u:local:${d.state.localIds}`;
  if (!line.uuid) d.set({ localIds: d.state.localIds + 1 });
  d.setMessage({
    role: 'user',
    id,
    // Inside a subagent, the user turn is the prompt Claude wrote for it.
    author: parent ? 'Claude' : 'You',
    text,
    images,
    uuid: line.uuid ?? null,
    status: 'sent',
    parentToolUseId: parent,
  });
  d.append(id, parent);
}

function applyResult(d: StateDraft, line: ResultMessage): void {
  const unsolicited = !!line.origin && line.origin.kind !== 'human';
  endStreams(d);
  if (line.subtype === 'error_during_execution') {
    for (const tool of recordValues(d.state.tools)) {
      if (tool.status === 'running' && !tool.task?.backgrounded)
        d.setTool({ ...tool, status: 'interrupted' });
    }
  }
  const id = `r:${line.uuid}`;
  const cost = turnCost(line.total_cost_usd, d.state.processCostUsd);
  const errorText = line.is_error ? resultErrorText(line) : null;
  // One marker for a turn: the result's. The CLI's "[Request interrupted by user]" note just before a
  // stopped turn's result, or a reply that only carries the API error the result reports, would say it twice.
  const last = d.state.messages[d.state.order[d.state.order.length - 1] ?? ''];
  if (errorText === 'Stopped.' && last?.role === 'notice' && last.text === INTERRUPTED_NOTICE) {
    d.dropLast(last.id);
  } else if (
    errorText &&
    last?.role === 'assistant' &&
    last.error !== null &&
    !last.streaming &&
    last.parts.every((part) => part.kind === 'text') &&
    last.parts
      .map((part) => (part.kind === 'text' ? part.text : ''))
      .join('')
      .trim() === errorText.trim()
  ) {
    d.dropLast(last.id);
  }
  d.setMessage({
    role: 'result',
    id,
    author: 'Claude',
    ok: !line.is_error,
    subtype: line.subtype,
    durationMs: line.duration_ms,
    costUsd: cost,
    processCostUsd: line.total_cost_usd,
    inputTokens: line.usage.input_tokens ?? 0,
    outputTokens: line.usage.output_tokens ?? 0,
    cacheReadTokens: line.usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: line.usage.cache_creation_input_tokens ?? 0,
    errorText,
    apiErrorStatus: line.api_error_status ?? null,
    unsolicited,
  });
  d.append(id, null);
  d.set({
    costUsd: d.state.costUsd + (cost ?? 0),
    processCostUsd: line.total_cost_usd,
    lastResultId: id,
  });
  if (!unsolicited) {
    const [first, ...rest] = d.state.pending;
    if (first) setPromptStatus(d, first, 'sent');
    d.set({ pending: rest });
  }
  d.set({ status: d.state.pending.length > 0 ? 'running' : 'idle' });
}

/**
 * A turn's cost from the process's running totals. A total lower than the one before means a new process
 * (whose total started again from 0) answered: the total is then all this turn's.
 */
function turnCost(total: number, before: number | null): number | null {
  if (before === null) return null;
  return total >= before ? total - before : total;
}

/**
 * Joins a part of a conversation reduced on its own (a page of a saved one) after the part before it: the
 * later part's first turn, whose cost was not known alone, costs its total less where the earlier part left
 * off. Returns the later part's messages and totals as they are once joined.
 */
export function joinCosts(
  earlier: ConversationState,
  later: ConversationState,
): Pick<ConversationState, 'messages' | 'costUsd' | 'processCostUsd'> {
  const joined = {
    messages: later.messages,
    costUsd: earlier.costUsd + later.costUsd,
    processCostUsd: later.processCostUsd ?? earlier.processCostUsd,
  };
  const firstId = later.order.find((id) => later.messages[id]?.role === 'result');
  const first = firstId ? later.messages[firstId] : undefined;
  if (first?.role !== 'result' || first.costUsd !== null) return joined;
  const cost = turnCost(first.processCostUsd, earlier.processCostUsd);
  if (cost === null) return joined;
  return {
    ...joined,
    messages: withEntry<ChatMessage>(later.messages, first.id, { ...first, costUsd: cost }),
    costUsd: joined.costUsd + cost,
  };
}

function resultErrorText(line: ResultMessage): string {
  if (line.subtype === 'error_during_execution' && line.terminal_reason?.startsWith('aborted')) {
    return 'Stopped.';
  }
  if (line.result) return line.result;
  const errors = (line.errors ?? []).filter((error) => !error.startsWith('[ede_diagnostic]'));
  return errors.join('\n') || `The turn ended with ${line.subtype.replaceAll('_', ' ')}.`;
}

function partFor(d: StateDraft, block: ContentBlock, startedAt: number | null, messageId: string): Part {
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text };
    case 'thinking':
      return { kind: 'thinking', text: block.thinking };
    case 'redacted_thinking':
      return { kind: 'thinking', text: '' };
    case 'tool_use': {
      const existing = d.state.tools[block.id];
      d.setTool({
        id: block.id,
        messageId,
        name: block.name,
        input: block.input,
        partialInput: existing?.partialInput ?? '',
        status: existing?.status ?? 'running',
        result: existing?.result ?? null,
        startedAt: existing?.startedAt ?? startedAt,
        elapsedSeconds: existing?.elapsedSeconds ?? null,
        task: existing?.task ?? null,
        children: existing?.children ?? [],
        ...(existing?.denied ? { denied: existing.denied } : {}),
      });
      return { kind: 'tool', toolUseId: block.id };
    }
    case 'unknown_block':
      return { kind: 'other', label: block.original_type };
    default:
      return { kind: 'other', label: block.type };
  }
}

function newAssistant(
  d: StateDraft,
  id: string,
  parent: string | null,
  subagentType?: string,
): AssistantChatMessage {
  const tool = parent ? d.state.tools[parent] : undefined;
  const author = parent
    ? (subagentType ?? tool?.task?.subagentType ?? stringInput(tool?.input.subagent_type) ?? 'Subagent')
    : 'Claude';
  return {
    role: 'assistant',
    id,
    author,
    parts: [],
    streaming: false,
    aborted: false,
    uuid: null,
    parentToolUseId: parent,
    model: null,
    error: null,
  };
}

function stringInput(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function flattenToolResult(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  let images = 0;
  const texts: string[] = [];
  for (const block of content as { type?: unknown; text?: unknown }[]) {
    if (block.type === 'image') images += 1;
    else if (typeof block.text === 'string') texts.push(block.text);
  }
  return { text: texts.join('\n'), images };
}

function withPart(message: AssistantChatMessage, at: number, part: Part): AssistantChatMessage {
  const parts = message.parts.slice();
  parts[at] = part;
  return { ...message, parts, streaming: true };
}

/**
 * Whether Claude had begun on the first waiting prompt `uuid`: the CLI said it started, or a reply of
 * Claude's comes after it (prompts queued meanwhile are shown before the rest of that reply, and none of
 * them has started).
 */
function answeredInPart(d: StateDraft, uuid: string): boolean {
  const prompt = d.state.messages[userId(uuid)];
  if (prompt?.role === 'user' && prompt.status === 'sent') return true;
  const order = d.state.order;
  const at = order.indexOf(userId(uuid));
  if (at === -1) return false;
  for (let index = at + 1; index < order.length; index++) {
    if (d.state.messages[order[index] ?? '']?.role === 'assistant') return true;
  }
  return false;
}

/** Names a turn's init lists that the start did not (a command file added meanwhile), without descriptions. */
function addCommandNames(d: StateDraft, names: readonly string[]): void {
  const known = new Set(d.state.commands.map((command) => command.name));
  const added = names
    .map((name) => name.replace(/^\//, ''))
    .filter((name) => name && name.length <= 200 && !known.has(name) && known.add(name));
  if (added.length === 0) return;
  d.set({
    commands: [...d.state.commands, ...added.map((name) => ({ name, description: '', argumentHint: '' }))],
  });
}

function setPromptStatus(d: StateDraft, uuid: string, status: PromptStatus, onlyFrom?: PromptStatus[]): void {
  const message = d.state.messages[userId(uuid)];
  if (message?.role !== 'user' || message.status === status) return;
  if (onlyFrom && !onlyFrom.includes(message.status)) return;
  if (message.status === 'cancelled') return;
  d.setMessage({ ...message, status });
}

function settlePrompt(d: StateDraft, uuid: string): void {
  const pending = d.state.pending.filter((candidate) => candidate !== uuid);
  d.set({
    pending,
    status: pending.length > 0 ? d.state.status : d.state.status === 'running' ? 'idle' : d.state.status,
  });
}

function updateTask(d: StateDraft, taskId: string, update: (task: TaskInfo) => TaskInfo): void {
  const toolId = d.state.taskTools[taskId];
  const tool = toolId ? d.state.tools[toolId] : undefined;
  if (tool?.task) d.setTool({ ...tool, task: update(tool.task) });
}

function endStreams(d: StateDraft): void {
  for (const stream of Object.values(d.state.streams)) {
    const message = d.state.messages[stream.messageId];
    if (message?.role === 'assistant' && message.streaming) d.setMessage({ ...message, streaming: false });
  }
  if (Object.keys(d.state.streams).length > 0) d.set({ streams: {} });
}

function addNotice(d: StateDraft, tone: 'info' | 'error', text: string): void {
  const id = `n:${d.state.localIds}`;
  d.setMessage({ role: 'notice', id, author: 'Byre', tone, text });
  d.append(id, null);
  d.set({ localIds: d.state.localIds + 1 });
}

const userId = (uuid: string): string => `u:${uuid}`;
const checkId = (id: string): string => `c:${id}`;

/** The CLI's synthetic user line carrying a Stop hook's reason. */
const STOP_HOOK_FEEDBACK = /^Stop hook feedback:/;

/** A check still running when the CLI exited ends with it (Byre kills it; its end may never be heard). */
function stopRunningCheck(d: StateDraft): void {
  const check = d.state.lastCheck;
  if (check?.status !== 'running') return;
  const stopped: CheckRun = { ...check, status: 'stopped', summary: 'stopped: Claude Code exited' };
  const id = checkId(check.id);
  if (d.state.messages[id]) d.setMessage({ role: 'check', id, author: 'Byre', check: stopped });
  d.set({ lastCheck: stopped });
}

function lastCheckFailed(d: StateDraft): boolean {
  const order = d.state.order;
  for (let index = order.length - 1; index >= 0; index--) {
    const message = d.state.messages[order[index] ?? ''];
    if (message?.role === 'check') return message.check.status === 'failed';
    if (message?.role !== 'notice') return false;
  }
  return false;
}
const assistantId = (apiMessageId: string): string => `a:${apiMessageId}`;

function isImageMediaType(value: unknown): value is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly unknown[]).includes(value);
}
