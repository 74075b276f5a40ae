/**
 * The CLI's rarer stdout lines: the system subtypes and top-level kinds beyond the conversation's own
 * (hooks, slash command output, refusals, notices, housekeeping), one zod schema each, after the Agent
 * SDK's `sdk.d.ts`. They live apart from protocol.ts, which joins them into its unions, so that file stays
 * about the lines every turn carries. What the app does with each kind is in protocol-kinds.md.
 *
 * Loose objects, as in protocol.ts: only the keys the app relies on are checked, so a newer CLI that adds
 * keys, or drops one the app does not read, still decodes. Enum-like fields are plain strings for the same
 * reason: a new value is news, not damage.
 */
import { z } from 'zod';

const system = { type: z.literal('system'), session_id: z.string(), uuid: z.string() };
const topLevel = { session_id: z.string(), uuid: z.string() };

/** A hook from the settings wrote output while it ran (with `--include-hook-events`). */
export const SystemHookProgress = z.looseObject({
  ...system,
  subtype: z.literal('hook_progress'),
  hook_id: z.string().optional(),
  hook_name: z.string().optional(),
  hook_event: z.string().optional(),
  output: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
});

/** What a local slash command printed (e.g. /voice, /usage): shown under the command as its output. */
export const SystemLocalCommandOutput = z.looseObject({
  ...system,
  subtype: z.literal('local_command_output'),
  content: z.string(),
});

/** A tool call the CLI denied by itself, with no question asked: a deny rule, the mode, a classifier. */
export const SystemPermissionDenied = z.looseObject({
  ...system,
  subtype: z.literal('permission_denied'),
  tool_name: z.string(),
  tool_use_id: z.string(),
  /** What decided: 'rule', 'mode', 'classifier', 'asyncAgent', … */
  decision_reason_type: z.string().optional(),
  /** The deciding part's own words, when it gave any. */
  decision_reason: z.string().optional(),
  /** What the model was told in the tool result. */
  message: z.string(),
});

/** The model refused and the turn was answered by a fallback model instead. */
export const SystemModelRefusalFallback = z.looseObject({
  ...system,
  subtype: z.literal('model_refusal_fallback'),
  original_model: z.string(),
  fallback_model: z.string(),
  /** 'retry', 'revert' or 'sticky'. */
  direction: z.string().optional(),
  /** 'session': the conversation's model is now the fallback; 'local': only that one reply. */
  scope: z.string().optional(),
  api_refusal_category: z.string().nullable().optional(),
  api_refusal_explanation: z.string().nullable().optional(),
  content: z.string(),
});

/** The model refused and no fallback model could answer. */
export const SystemModelRefusalNoFallback = z.looseObject({
  ...system,
  subtype: z.literal('model_refusal_no_fallback'),
  original_model: z.string(),
  api_refusal_category: z.string().nullable().optional(),
  api_refusal_explanation: z.string().nullable().optional(),
  content: z.string(),
});

/** A batch of the transcript could not be written to the session store's mirror; it was dropped. */
export const SystemMirrorError = z.looseObject({
  ...system,
  subtype: z.literal('mirror_error'),
  error: z.string(),
});

/** A line of the CLI's own for the reader, at a level: info (transcript only), notice, suggestion, warning. */
export const SystemInformational = z.looseObject({
  ...system,
  subtype: z.literal('informational'),
  content: z.string(),
  level: z.string(),
  tool_use_id: z.string().optional(),
  prevent_continuation: z.boolean().optional(),
});

/** Files uploaded to the Files API for a remote session: which made it, which failed. */
export const SystemFilesPersisted = z.looseObject({
  ...system,
  subtype: z.literal('files_persisted'),
  files: z.array(z.looseObject({ filename: z.string() })),
  failed: z.array(z.looseObject({ filename: z.string(), error: z.string() })),
});

/** Memories the CLI brought into the turn ("Recalled from memory"). */
export const SystemMemoryRecall = z.looseObject({
  ...system,
  subtype: z.literal('memory_recall'),
  /** 'select' (whole files) or 'synthesize' (one paragraph distilled from many). */
  mode: z.string(),
  memories: z.array(z.looseObject({ path: z.string(), scope: z.string().optional() })),
});

/** The session went idle, running, or waits on the user ('requires_action'). */
export const SystemSessionStateChanged = z.looseObject({
  ...system,
  subtype: z.literal('session_state_changed'),
  state: z.string(),
});

/** A remote-control worker is going away, and why ('host_exit', …). */
export const SystemWorkerShuttingDown = z.looseObject({
  ...system,
  subtype: z.literal('worker_shutting_down'),
  reason: z.string(),
});

/** An MCP server says a URL-mode elicitation (a page the user was sent to) is done. */
export const SystemElicitationComplete = z.looseObject({
  ...system,
  subtype: z.literal('elicitation_complete'),
  mcp_server_name: z.string(),
  elicitation_id: z.string(),
});

/** Headless plugin installation: started, installed (a marketplace), failed, completed. */
export const SystemPluginInstall = z.looseObject({
  ...system,
  subtype: z.literal('plugin_install'),
  status: z.string(),
  name: z.string().optional(),
  error: z.string().optional(),
});

/** Progress of a long control request the host sent (today only side_question, which Byre does not send). */
export const SystemControlRequestProgress = z.looseObject({
  ...system,
  subtype: z.literal('control_request_progress'),
  request_id: z.string(),
  status: z.string(),
});

/** A one-line summary of the tool calls before it (`preceding_tool_use_ids`). */
export const ToolUseSummaryMessage = z.looseObject({
  type: z.literal('tool_use_summary'),
  summary: z.string(),
  preceding_tool_use_ids: z.array(z.string()),
  ...topLevel,
});
export type ToolUseSummaryMessage = z.infer<typeof ToolUseSummaryMessage>;

/** The conversation was discarded (/clear, leaving plan mode with a clear, …) and goes on as a new one. */
export const ConversationResetMessage = z.looseObject({
  type: z.literal('conversation_reset'),
  new_conversation_id: z.string(),
  /** 'clear', 'plan_mode_exit', 'fresh_session', 'onboarding'. */
  trigger: z.string().optional(),
  ...topLevel,
});
export type ConversationResetMessage = z.infer<typeof ConversationResetMessage>;

/** The CLI's heartbeat; it carries nothing, and a receiver must ignore it. */
export const KeepAliveMessage = z.looseObject({ type: z.literal('keep_alive') });
export type KeepAliveMessage = z.infer<typeof KeepAliveMessage>;

/** A /goal's Stop hook reported the goal met (value null: cleared) or not yet met. */
export const ActiveGoalMessage = z.looseObject({
  type: z.literal('active_goal'),
  value: z.looseObject({ condition: z.string(), iterations: z.number() }).nullable(),
  ...topLevel,
});
export type ActiveGoalMessage = z.infer<typeof ActiveGoalMessage>;

/** The system subtypes of this file, for protocol.ts's SystemMessage union. */
export const eventSystemSubtypes = [
  SystemHookProgress,
  SystemLocalCommandOutput,
  SystemPermissionDenied,
  SystemModelRefusalFallback,
  SystemModelRefusalNoFallback,
  SystemMirrorError,
  SystemInformational,
  SystemFilesPersisted,
  SystemMemoryRecall,
  SystemSessionStateChanged,
  SystemWorkerShuttingDown,
  SystemElicitationComplete,
  SystemPluginInstall,
  SystemControlRequestProgress,
] as const;

/** The top-level kinds of this file, by line `type`, for protocol.ts's decoder. */
export const eventLineSchemas = {
  tool_use_summary: ToolUseSummaryMessage,
  conversation_reset: ConversationResetMessage,
  keep_alive: KeepAliveMessage,
  active_goal: ActiveGoalMessage,
};
export type EventLineMessage =
  ToolUseSummaryMessage | ConversationResetMessage | KeepAliveMessage | ActiveGoalMessage;
