/**
 * The conversation's room: its state (state.ts), the pure reducer that turns protocol events into it
 * (reduce.ts), and what views ask of it (selectors.ts). Importers use this file, so each part can move
 * within the room without their imports changing. Paging a long conversation (paging.ts) and finding text in
 * it (find.ts) are the renderer's alone and are imported from their own files.
 */
export {
  taskRunning,
  initialConversation,
  type ApiRetry,
  type AssistantChatMessage,
  type ChatMessage,
  type CheckChatMessage,
  type ConversationState,
  type ConversationStatus,
  type InteractionOutcome,
  type ElicitationRequest,
  type NoticeChatMessage,
  type Part,
  type PermissionRequest,
  type PromptStatus,
  type ResultChatMessage,
  type TaskInfo,
  type ToolCall,
  type ToolStatus,
  type UserChatMessage,
} from './state';
export { applyEvents, joinCosts } from './reduce';
export { INTERACTIVE_TOOLS, keptToolUseResult, planOf, questionsOf } from './questions';
export {
  cliItemText,
  compactLabel,
  type CliChatMessage,
  type CliItem,
  type CommandOutput,
  type CompactMarker,
  type HookRun,
  type PermissionDenial,
} from './cli-items';
export {
  backgroundTasks,
  isTaskCall,
  permissionPlaces,
  type PermissionPlace,
  type TaskCall,
} from './selectors';
export type { AssistantMessage, ResultMessage, UserMessage } from '../protocol';
