/**
 * What the views ask of a conversation's state that it does not keep: where each waiting permission card
 * goes, and which tasks run in the background. Each is worked out once per state, however many views ask.
 */
import { recordValues } from '../persistent-record';
import { taskRunning, type ConversationState, type TaskInfo, type ToolCall } from './state';

/** Where a waiting permission request is shown: at its tool call, inside any calls that hold it. */
export interface PermissionPlace {
  /** The top-level message holding the call, and its index in `order`. */
  messageId: string;
  row: number;
  /** The tool calls from the outermost (in that message) down to the request's own. */
  toolUseIds: string[];
}

const MAX_NESTING = 8;
const placesCache = new WeakMap<ConversationState, ReadonlyMap<string, PermissionPlace | null>>();

/**
 * Where each waiting request's card goes, by request id; null when its tool call is not shown in the
 * conversation (the card then goes at the end). Worked out once per state, however many views ask.
 */
export function permissionPlaces(state: ConversationState): ReadonlyMap<string, PermissionPlace | null> {
  let places = placesCache.get(state);
  if (!places) {
    places = new Map(
      state.permissionRequests.map((request) => [request.requestId, placeOf(state, request.toolUseId)]),
    );
    placesCache.set(state, places);
  }
  return places;
}

function placeOf(state: ConversationState, toolUseId: string | null): PermissionPlace | null {
  let tool = toolUseId ? state.tools[toolUseId] : undefined;
  const toolUseIds: string[] = [];
  for (let depth = 0; tool && depth < MAX_NESTING; depth += 1) {
    toolUseIds.unshift(tool.id);
    const message = state.messages[tool.messageId];
    if (message?.role !== 'assistant') return null;
    const parent = message.parentToolUseId ? state.tools[message.parentToolUseId] : undefined;
    if (parent?.children.includes(message.id)) {
      tool = parent;
      continue;
    }
    // A call waiting for an answer is nearly always near the end: look from there.
    const row = state.order.lastIndexOf(message.id);
    return row < 0 ? null : { messageId: message.id, row, toolUseIds };
  }
  return null;
}

/** A tool call that started a task (a subagent, a shell command). */
export type TaskCall = ToolCall & { task: TaskInfo };

export function isTaskCall(tool: ToolCall | undefined): tool is TaskCall {
  return tool?.task != null;
}

const NO_TASKS: readonly TaskCall[] = [];
const backgroundCache = new WeakMap<ConversationState, readonly TaskCall[]>();

/**
 * The calls whose task runs in the background now, in the order they started. Worked out once per state,
 * however many views ask.
 */
export function backgroundTasks(state: ConversationState): readonly TaskCall[] {
  let running = backgroundCache.get(state);
  if (!running) {
    const found = recordValues(state.taskTools).flatMap((toolUseId) => {
      const tool = state.tools[toolUseId];
      return isTaskCall(tool) && tool.task.backgrounded && taskRunning(tool.task) ? [tool] : [];
    });
    running = found.length > 0 ? found : NO_TASKS;
    backgroundCache.set(state, running);
  }
  return running;
}
