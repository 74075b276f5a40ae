/**
 * What the chat shows of one conversation, as the reducer keeps it: its messages, tool calls, tasks,
 * permission requests and status, and the state a conversation starts from. Types only, and the start.
 */
import type {
  Lane,
  CheckRun,
  CommitIdentity,
  ConversationEvent,
  ConversationSnapshot,
  IpcError,
  PermissionModeChoice,
  SetupRun,
  SlashCommand,
  TurnImage,
} from '../ipc';
import type { ModelInfo, RateLimitInfo } from '../protocol';
import type { TaskItem } from '../tasks';
import type { CliChatMessage, PermissionDenial } from './cli-items';

export type Part =
  | { kind: 'text'; text: string }
  /** `seconds`: how long the model thought, once its line has come (from the lines' timestamps). */
  | { kind: 'thinking'; text: string; seconds?: number }
  | { kind: 'tool'; toolUseId: string }
  | { kind: 'other'; label: string };

export type PromptStatus = 'sending' | 'queued' | 'sent' | 'cancelled';

export interface UserChatMessage {
  role: 'user';
  id: string;
  author: string;
  text: string;
  /** Images the message carried, in order (shown before its text). */
  images: TurnImage[];
  /** The uuid the CLI stores the message under, for rewinding. */
  uuid: string | null;
  status: PromptStatus;
  parentToolUseId: string | null;
}

export interface AssistantChatMessage {
  role: 'assistant';
  id: string;
  author: string;
  parts: Part[];
  streaming: boolean;
  aborted: boolean;
  /** The uuid of the last line of this message, for rewinding. */
  uuid: string | null;
  parentToolUseId: string | null;
  model: string | null;
  /** An API error the CLI reported in place of a reply (e.g. authentication_failed). */
  error: string | null;
}

export interface ResultChatMessage {
  role: 'result';
  id: string;
  author: string;
  ok: boolean;
  subtype: string;
  durationMs: number;
  /**
   * What this turn cost: the CLI process's running total less its total at the turn before. Null when the
   * turn before is not known (a saved page read on its own).
   */
  costUsd: number | null;
  /** The CLI process's running total at this turn (`total_cost_usd`), from which the turn's cost comes. */
  processCostUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The CLI's message when the turn failed. */
  errorText: string | null;
  apiErrorStatus: number | null;
  /** The CLI started this turn by itself (e.g. a background agent finished). */
  unsolicited: boolean;
}

export interface NoticeChatMessage {
  role: 'notice';
  id: string;
  author: string;
  tone: 'info' | 'error';
  text: string;
}

/** A run of the conversation's "Done when" check, as its card: updated in place as it runs and ends. */
export interface CheckChatMessage {
  role: 'check';
  id: string;
  author: string;
  check: CheckRun;
}

/** A run of a new worktree's setup command, before the first turn, as its card: updated in place. */
export interface SetupChatMessage {
  role: 'setup';
  id: string;
  author: string;
  setup: SetupRun;
}

export type ChatMessage =
  | SetupChatMessage
  | UserChatMessage
  | AssistantChatMessage
  | ResultChatMessage
  | NoticeChatMessage
  | CheckChatMessage
  | CliChatMessage;

export interface TaskInfo {
  taskId: string;
  status: string;
  description: string;
  taskType: string | null;
  subagentType: string | null;
  backgrounded: boolean;
  lastToolName: string | null;
  /** What the task is doing now, from task_progress; the description stays what it was asked to do. */
  progress: string | null;
  summary: string | null;
}

/** Task statuses after which a task is over; until one of them comes, it runs (or waits, or is paused). */
const TASK_ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'killed', 'stopped']);

export function taskRunning(task: TaskInfo): boolean {
  return !TASK_ENDED.has(task.status);
}

export type ToolStatus = 'running' | 'done' | 'error' | 'interrupted';

/** What the result of a question or plan call adds to its text (sdk-tools.d.ts `AskUserQuestionOutput`, `ExitPlanModeOutput`). */
export interface InteractionOutcome {
  /** The answers by question text, as the CLI took them. */
  answers?: Record<string, string>;
  /** Where the CLI kept the approved plan (`~/.claude/plans/<slug>.md`). */
  planFile?: string;
}

export interface ToolCall {
  id: string;
  /** The assistant message whose content holds the call. */
  messageId: string;
  name: string;
  input: Record<string, unknown>;
  /** The input as it streams in, before the complete tool_use arrives. */
  partialInput: string;
  status: ToolStatus;
  result: { text: string; isError: boolean; images: number; outcome?: InteractionOutcome } | null;
  /** From the assistant line's timestamp, when the CLI gave one (ms since epoch). */
  startedAt: number | null;
  elapsedSeconds: number | null;
  task: TaskInfo | null;
  /** Messages of the subagent this call started, in order. */
  children: string[];
  /** For a Write over an existing file, what the file held before (write-result.ts). */
  originalFile?: string;
  /** The CLI denied the call by itself (a rule, the mode): by what, and why. */
  denied?: PermissionDenial;
}

export type ConversationStatus = 'starting' | 'idle' | 'running' | 'exited';

/** The API failed and the CLI waits to try again (`system/api_retry`). */
export interface ApiRetry {
  /** The retry line's uuid: each attempt is a new one. */
  id: string;
  attempt: number;
  maxRetries: number;
  delayMs: number;
  /** A short word for the error, e.g. "overloaded". */
  error: string | null;
  httpStatus: number | null;
}

/** Claude asks before it uses a tool, and waits for the answer. */
export type PermissionRequest = Omit<Extract<ConversationEvent, { kind: 'permission_request' }>, 'kind'>;

/** An MCP server asks the user something, and waits for the answer. */
export type ElicitationRequest = Omit<Extract<ConversationEvent, { kind: 'elicitation_request' }>, 'kind'>;

export interface ConversationState {
  sessionId: string | null;
  cwd: string | null;
  title: string | null;
  model: string | null;
  models: ModelInfo[];
  claudeCodeVersion: string | null;
  /** How much Claude may do without asking. */
  permissionMode: PermissionModeChoice;
  /** Its CLI runs without the folder's own settings: the folder is not trusted (main/trust.ts). */
  folderSettingsOff: boolean;
  /** The host it runs on over ssh, as the user named it; null: this computer. */
  host: string | null;
  /** Who the commits Claude makes are by, as its process was launched; null: git's own setting. */
  commitIdentity: CommitIdentity | null;
  /** The slash commands the CLI offers: those it reported at start, then any new name a turn's init lists. */
  commands: SlashCommand[];
  /** The "Done when" check run each time Claude stops (empty: none). */
  doneWhen: string;
  /** The latest run of that check, for the header. */
  lastCheck: CheckRun | null;
  /** The latest run of a new worktree's setup command: messages wait while it runs or after it failed. */
  setup: SetupRun | null;
  /** The git worktree it runs in, from its snapshot (the header's branch and Worktree menu); null: none. */
  worktree: NonNullable<ConversationSnapshot['worktree']> | null;
  /** Permission requests waiting for an answer, in the order they came. */
  permissionRequests: PermissionRequest[];
  /** MCP servers' questions waiting for an answer, in the order they came. */
  elicitations: ElicitationRequest[];
  status: ConversationStatus;
  /** Set when the CLI exited without being asked to. */
  exitError: IpcError | null;
  /** What the turns have cost together, across every CLI process the conversation has had. */
  costUsd: number;
  /**
   * The running CLI process's total cost at its last result (0 before its first); null when it is not known
   * (a saved page read on its own, whose first turn may follow others of the same process).
   */
  processCostUsd: number | null;
  /** The last finished turn (its result message's id). */
  lastResultId: string | null;
  /** Set while the CLI waits to retry a failed API request; cleared once the reply streams or the turn ends. */
  retry: ApiRetry | null;
  /**
   * By id. This, `tools`, `blocksSeen` and `taskTools` are persistent records (shared/persistent-record.ts):
   * they read like plain objects and cannot be written to; a plain object put in their place works too.
   */
  messages: Record<string, ChatMessage>;
  /** Top-level messages, in order; a subagent's messages live in its tool call's children. */
  order: string[];
  tools: Record<string, ToolCall>;
  /** Prompts sent and not yet answered, oldest first. */
  pending: string[];
  /** Open streamed replies, by parent tool use id ('' for the main thread). */
  streams: Record<string, OpenStream>;
  /** Assistant lines seen per API message id: the CLI sends one line per content block, in order. */
  blocksSeen: Record<string, number>;
  taskTools: Record<string, string>;
  /** The main thread's latest TodoWrite call: its list is the conversation's todo list. */
  todoToolId: string | null;
  /** Per thread (a subagent's tool use id; '' for the main one), the timestamp of its last line. */
  lineAt: Record<string, number>;
  badLines: number;
  localIds: number;
  /** The latest rate limit the CLI reported, every field as it came (subscriptions only). */
  rateLimit: RateLimitInfo | null;
  /** The CLI's guess at the next prompt, shown in the empty composer until the next turn starts. */
  promptSuggestion: string | null;
  /** How logging in goes, from the CLI's auth_status line. */
  authStatus: { isAuthenticating: boolean; output: string[]; error: string | null } | null;
  /** The main thread's task list, from its TaskCreate/TaskUpdate/TaskList calls. */
  taskList: readonly TaskItem[];
  /** How it talks to Claude Code: Stream (its events are all here) or Terminal (its screen is the CLI's own). */
  lane: Lane;
  /** Where the turn stands, as every lane tells it: a Terminal conversation's tab and badge read this. */
  activity: { state: 'working' | 'needs_you' | 'done'; what: string | null } | null;
  /** The tool the running turn uses now (its last), as every lane tells it; null between turns. */
  currentTool: { name: string; detail: string | null } | null;
}

interface OpenStream {
  messageId: string;
  /** Content block index → index in the message's parts. */
  partAt: Record<number, number>;
}

export function initialConversation(snapshot?: Partial<ConversationSnapshot>): ConversationState {
  return {
    sessionId: snapshot?.sessionId ?? null,
    cwd: snapshot?.cwd ?? null,
    title: null,
    model: snapshot?.model ?? null,
    models: snapshot?.models ?? [],
    claudeCodeVersion: snapshot?.claudeCodeVersion ?? null,
    setup: null,
    worktree: snapshot?.worktree ?? null,
    permissionMode: snapshot?.permissionMode ?? 'default',
    folderSettingsOff: snapshot?.folderSettingsOff ?? false,
    host: snapshot?.host ?? null,
    commitIdentity: snapshot?.commitIdentity ?? null,
    commands: snapshot?.commands ?? [],
    doneWhen: '',
    lastCheck: null,
    permissionRequests: [],
    elicitations: [],
    status: snapshot ? 'idle' : 'starting',
    exitError: null,
    costUsd: 0,
    processCostUsd: 0,
    lastResultId: null,
    retry: null,
    messages: {},
    order: [],
    tools: {},
    pending: [],
    streams: {},
    blocksSeen: {},
    taskTools: {},
    lineAt: {},
    todoToolId: null,
    badLines: 0,
    localIds: 0,
    rateLimit: null,
    promptSuggestion: null,
    authStatus: null,
    taskList: [],
    lane: snapshot?.lane ?? 'stream',
    activity: null,
    currentTool: null,
  };
}
