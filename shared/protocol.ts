/**
 * The claude CLI's stream-json protocol: one zod schema per line kind, types inferred from them.
 *
 * Shapes follow what the real CLI (2.1.332) was seen to send (../shared/reference/cli-facts.md). Objects
 * are loose: the CLI adds keys freely, and a newer CLI must not break the app. Only the keys the app
 * relies on are checked.
 *
 * This file has no Node or DOM imports; the driver, main and the renderer all use it.
 *
 * Every kind the CLI writes has a schema here or in protocol-events.ts, and a decision (shown how, folded
 * into what, or ignored why) in protocol-kinds.md beside it. A kind that is not listed is news from a newer
 * CLI: kept in the transcript for the protocol inspector, not reported as a line Byre could not read.
 */
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from './media-types';
import { eventLineSchemas, eventSystemSubtypes, type EventLineMessage } from './protocol-events';

export type JsonObject = { [key: string]: unknown };

const nullableString = z.string().nullable();

// ---------------------------------------------------------------------------------------------------
// Anthropic content blocks

export const Usage = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().nullable().optional(),
  cache_read_input_tokens: z.number().nullable().optional(),
});
export type Usage = z.infer<typeof Usage>;

export const ImageMediaType = z.enum(IMAGE_MEDIA_TYPES);
export type ImageMediaType = z.infer<typeof ImageMediaType>;

export const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ThinkingBlock = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});
export const RedactedThinkingBlock = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});
export const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
export const ImageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.union([
    z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
  ]),
});
const NestedBlock = z.union([TextBlock, ImageBlock, z.looseObject({ type: z.string() })]);
export const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(NestedBlock)]).optional(),
  is_error: z.boolean().optional(),
});

const knownBlockTypes = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
]);
/**
 * A block type the app does not know yet (server tools, documents, …): kept under its own name, not
 * rejected, so a newer CLI or API does not break the app.
 */
const OtherBlock = z
  .looseObject({ type: z.string() })
  .refine((block) => !knownBlockTypes.has(block.type), 'malformed content block')
  .transform((block) => {
    rewrittenBlocks.count++;
    return { type: 'unknown_block' as const, original_type: block.type, block };
  });

/**
 * How many blocks OtherBlock has rewritten so far. It is the schemas' only change to what they parse (the
 * incoming ones are loose objects), so a line decoded while the count stood still decoded to a copy of
 * its JSON, and the line's text is that copy's JSON.
 */
export const rewrittenBlocks = { count: 0 };
export type OtherBlock = z.infer<typeof OtherBlock>;

export const ContentBlock = z.union([
  z.discriminatedUnion('type', [
    TextBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ImageBlock,
  ]),
  OtherBlock,
]);
export type ContentBlock = z.infer<typeof ContentBlock>;
export type TextBlock = z.infer<typeof TextBlock>;
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

// ---------------------------------------------------------------------------------------------------
// Lines the host writes to the CLI's stdin

/** Blocks a host may put in a user turn: images first, then text (claude-protocol.md). */
export const OutgoingImageBlock = z.object({
  type: z.literal('image'),
  source: z.object({
    type: z.literal('base64'),
    media_type: ImageMediaType,
    data: z.base64().min(1),
  }),
});
export type OutgoingImageBlock = z.infer<typeof OutgoingImageBlock>;
export const OutgoingTextBlock = z.object({ type: z.literal('text'), text: z.string() });
export const OutgoingUserContent = z.union([
  z.string(),
  z.array(z.union([OutgoingImageBlock, OutgoingTextBlock])).min(1),
]);
export type OutgoingUserContent = z.infer<typeof OutgoingUserContent>;

export const OutgoingUserMessage = z.object({
  type: z.literal('user'),
  message: z.object({ role: z.literal('user'), content: OutgoingUserContent }),
  parent_tool_use_id: z.null(),
  session_id: z.string(),
  /** The CLI adopts this uuid for the message (cli-facts §1), so every prompt can be rewound to. */
  uuid: z.uuid(),
});
export type OutgoingUserMessage = z.infer<typeof OutgoingUserMessage>;

export const HookEvent = z.enum([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PermissionRequest',
]);
export type HookEvent = z.infer<typeof HookEvent>;

export const HookMatcherRegistration = z.object({
  matcher: z.string().nullable(),
  hookCallbackIds: z.array(z.string()).min(1),
  timeout: z.number().positive().optional(),
});

export const PermissionMode = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk']);
export type PermissionMode = z.infer<typeof PermissionMode>;

/** Control requests the host sends to the CLI, one schema per subtype. */
export const HostControlRequest = z.discriminatedUnion('subtype', [
  z.object({
    subtype: z.literal('initialize'),
    hooks: z.partialRecord(HookEvent, z.array(HookMatcherRegistration)),
    promptSuggestions: z.boolean().optional(),
  }),
  z.object({ subtype: z.literal('interrupt') }),
  z.object({ subtype: z.literal('set_model'), model: z.string().min(1).optional() }),
  z.object({ subtype: z.literal('set_permission_mode'), mode: PermissionMode }),
  z.object({ subtype: z.literal('mcp_status') }),
  z.object({ subtype: z.literal('mcp_toggle'), serverName: z.string().min(1), enabled: z.boolean() }),
  z.object({ subtype: z.literal('mcp_reconnect'), serverName: z.string().min(1) }),
  z.object({ subtype: z.literal('get_context_usage') }),
  z.object({
    subtype: z.literal('rewind_files'),
    user_message_id: z.string().min(1),
    dry_run: z.boolean().optional(),
  }),
  z.object({ subtype: z.literal('stop_task'), task_id: z.string().min(1) }),
  z.object({ subtype: z.literal('cancel_async_message'), message_uuid: z.string().min(1) }),
]);
export type HostControlRequest = z.infer<typeof HostControlRequest>;
export type HostControlSubtype = HostControlRequest['subtype'];

export const OutgoingControlRequest = z.object({
  type: z.literal('control_request'),
  request_id: z.string().min(1),
  request: HostControlRequest,
});

export const ControlResponseBody = z.discriminatedUnion('subtype', [
  z.looseObject({
    subtype: z.literal('success'),
    request_id: z.string(),
    response: z.record(z.string(), z.unknown()).optional(),
  }),
  z.looseObject({
    subtype: z.literal('error'),
    request_id: z.string(),
    error: z.string(),
    error_code: z.string().optional(),
  }),
]);
export type ControlResponseBody = z.infer<typeof ControlResponseBody>;

export const OutgoingControlResponse = z.object({
  type: z.literal('control_response'),
  response: ControlResponseBody,
});

/** Every line the host may write. Each is validated before it is written: one bad line kills the CLI. */
export const OutgoingLine = z.discriminatedUnion('type', [
  OutgoingUserMessage,
  OutgoingControlRequest,
  OutgoingControlResponse,
]);
export type OutgoingLine = z.infer<typeof OutgoingLine>;

// ---------------------------------------------------------------------------------------------------
// Lines the CLI writes to stdout

const lineBase = { session_id: z.string(), uuid: z.string() };

export const AssistantMessage = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string(),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(ContentBlock),
    stop_reason: nullableString.optional(),
    usage: Usage.optional(),
  }),
  parent_tool_use_id: nullableString,
  ...lineBase,
  aborted: z.boolean().optional(),
  error: z.string().optional(),
  agent_id: z.string().optional(),
  subagent_type: z.string().optional(),
  task_description: z.string().optional(),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

export const UserMessage = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(ContentBlock)]),
  }),
  parent_tool_use_id: nullableString.optional(),
  session_id: z.string(),
  uuid: z.string().optional(),
  isSynthetic: z.boolean().optional(),
  isReplay: z.boolean().optional(),
  tool_use_result: z.unknown().optional(),
  agent_id: z.string().optional(),
  subagent_type: z.string().optional(),
});
export type UserMessage = z.infer<typeof UserMessage>;

export const ResultMessage = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  stop_reason: nullableString.optional(),
  terminal_reason: z.string().optional(),
  num_turns: z.number(),
  duration_ms: z.number(),
  duration_api_ms: z.number().optional(),
  total_cost_usd: z.number(),
  usage: Usage,
  errors: z.array(z.string()).optional(),
  api_error_status: z.number().nullable().optional(),
  /** Present on turns the CLI started by itself, e.g. `{kind:"task-notification"}` after a background agent. */
  origin: z.looseObject({ kind: z.string() }).optional(),
  ...lineBase,
});
export type ResultMessage = z.infer<typeof ResultMessage>;

/**
 * A result line that failed its schema, read with defaults for the fields it lacks (a newer CLI may drop
 * one). A turn must end on its result even then; null when even that does not make sense of it.
 */
export function lenientResult(line: JsonObject, sessionId: string, uuid: string): ResultMessage | null {
  const defaults: JsonObject = {
    subtype: 'unknown',
    is_error: false,
    num_turns: 0,
    duration_ms: 0,
    total_cost_usd: 0,
    usage: {},
    session_id: sessionId,
    uuid,
  };
  const shape = ResultMessage.shape;
  const filled: JsonObject = { ...line };
  for (const [key, fallback] of Object.entries(defaults)) {
    const field = shape[key as keyof typeof shape];
    if (!field.safeParse(filled[key]).success) filled[key] = fallback;
  }
  const parsed = ResultMessage.safeParse(filled);
  return parsed.success ? parsed.data : null;
}

const StreamDelta = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta') }),
]);

/** The raw Messages API SSE events the CLI forwards with --include-partial-messages. */
export const StreamEventPayload = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: z.looseObject({ id: z.string() }) }),
  z.looseObject({ type: z.literal('content_block_start'), index: z.number(), content_block: ContentBlock }),
  z.looseObject({ type: z.literal('content_block_delta'), index: z.number(), delta: StreamDelta }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: nullableString.optional() }),
    usage: Usage.optional(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ message: z.string() }) }),
]);
export type StreamEventPayload = z.infer<typeof StreamEventPayload>;

export const StreamEventMessage = z.looseObject({
  type: z.literal('stream_event'),
  event: StreamEventPayload,
  parent_tool_use_id: nullableString,
  ...lineBase,
});
export type StreamEventMessage = z.infer<typeof StreamEventMessage>;

export const ToolProgressMessage = z.looseObject({
  type: z.literal('tool_progress'),
  /** Heartbeats carry `<id>-heartbeat-N` here; the tool call's real id is in parent_tool_use_id. */
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: nullableString,
  elapsed_time_seconds: z.number(),
  heartbeat: z.boolean().optional(),
  ...lineBase,
});
export type ToolProgressMessage = z.infer<typeof ToolProgressMessage>;

const systemBase = { type: z.literal('system'), ...lineBase };

export const SystemInit = z.looseObject({
  ...systemBase,
  subtype: z.literal('init'),
  cwd: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.looseObject({ name: z.string(), status: z.string() })),
  permissionMode: z.string(),
  claude_code_version: z.string(),
  slash_commands: z.array(z.string()).optional(),
  capabilities: z.array(z.string()).optional(),
});
export const SystemStatus = z.looseObject({
  ...systemBase,
  subtype: z.literal('status'),
  status: nullableString,
  /** The mode the CLI changed to by itself (e.g. a plan accepted). */
  permissionMode: z.string().optional(),
  /** After /compact: whether it worked, and why not. */
  compact_result: z.string().optional(),
  compact_error: z.string().optional(),
});
export const SystemTaskStarted = z.looseObject({
  ...systemBase,
  subtype: z.literal('task_started'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  description: z.string(),
  task_type: z.string().optional(),
  subagent_type: z.string().optional(),
  is_backgrounded: z.boolean().optional(),
  prompt: z.string().optional(),
});
export const SystemTaskProgress = z.looseObject({
  ...systemBase,
  subtype: z.literal('task_progress'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  description: z.string().optional(),
  last_tool_name: z.string().optional(),
  usage: z
    .looseObject({ total_tokens: z.number(), tool_uses: z.number(), duration_ms: z.number() })
    .optional(),
});
export const SystemTaskUpdated = z.looseObject({
  ...systemBase,
  subtype: z.literal('task_updated'),
  task_id: z.string(),
  patch: z.looseObject({ status: z.string().optional(), end_time: z.number().optional() }),
});
export const SystemTaskNotification = z.looseObject({
  ...systemBase,
  subtype: z.literal('task_notification'),
  task_id: z.string(),
  tool_use_id: z.string().optional(),
  status: z.string(),
  summary: z.string().optional(),
  output_file: z.string().optional(),
});
export const SystemNotification = z.looseObject({
  ...systemBase,
  subtype: z.literal('notification'),
  key: z.string(),
  text: z.string(),
  priority: z.string().optional(),
});
export const SystemBackgroundTasksChanged = z.looseObject({
  ...systemBase,
  subtype: z.literal('background_tasks_changed'),
  tasks: z.array(z.looseObject({ task_id: z.string() })),
});

/** While a thinking block streams: an estimate of its size so far. */
export const SystemThinkingTokens = z.looseObject({
  ...systemBase,
  subtype: z.literal('thinking_tokens'),
  estimated_tokens: z.number().optional(),
  estimated_tokens_delta: z.number().optional(),
});

/** The API failed and the CLI will try again (e.g. 529 overloaded): which attempt, and when. */
export const SystemApiRetry = z.looseObject({
  ...systemBase,
  subtype: z.literal('api_retry'),
  attempt: z.number().int().nonnegative(),
  max_retries: z.number().int().nonnegative(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable().optional(),
  /** A short word for the error, e.g. "overloaded". */
  error: z.string().optional(),
});
/** The conversation was compacted (/compact, or automatically): what came before is now a summary. */
export const SystemCompactBoundary = z.looseObject({
  ...systemBase,
  subtype: z.literal('compact_boundary'),
  compact_metadata: z
    .looseObject({
      trigger: z.string().optional(),
      pre_tokens: z.number().optional(),
      post_tokens: z.number().optional(),
    })
    .optional(),
});
/** A hook from the settings started, or answered (the CLI's own hooks, not the host's callbacks). */
export const SystemHookStarted = z.looseObject({
  ...systemBase,
  subtype: z.literal('hook_started'),
  hook_id: z.string().optional(),
  hook_name: z.string().optional(),
  hook_event: z.string().optional(),
});
export const SystemHookResponse = z.looseObject({
  ...systemBase,
  subtype: z.literal('hook_response'),
  hook_id: z.string().optional(),
  hook_name: z.string().optional(),
  hook_event: z.string().optional(),
  outcome: z.string().optional(),
  exit_code: z.number().int().nullable().optional(),
  output: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
});

// Lines about the account's limits and login, the session file and the command list.
// They come before the unions below, which name them.

const RateLimitStatus = z.enum(['allowed', 'allowed_warning', 'rejected']);
/**
 * A subscription's usage limit as the CLI last heard it from the API (sdk.d.ts `SDKRateLimitInfo`). Every
 * field the SDK lists is named, so the usage view can build on them; kinds and reasons stay open strings,
 * since a newer CLI adds some and an unknown one must still show.
 */
export const RateLimitInfo = z.looseObject({
  status: z.union([RateLimitStatus, z.string()]),
  /** Unix time in seconds. */
  resetsAt: z.number().optional(),
  rateLimitType: z.string().optional(),
  /** 0 to 1. */
  utilization: z.number().optional(),
  overageStatus: z.union([RateLimitStatus, z.string()]).optional(),
  overageResetsAt: z.number().optional(),
  overageDisabledReason: z.string().optional(),
  isUsingOverage: z.boolean().optional(),
  overageInUse: z.boolean().optional(),
  overageEnabled: z.boolean().optional(),
  surpassedThreshold: z.number().optional(),
  limitScope: z.string().optional(),
  errorCode: z.string().optional(),
  canUserPurchaseCredits: z.boolean().optional(),
  hasChargeableSavedPaymentMethod: z.boolean().optional(),
});
export type RateLimitInfo = z.infer<typeof RateLimitInfo>;
/** Sent when a limit's state changes; only to accounts logged in with a subscription (cli-facts 16). */
export const RateLimitEvent = z.looseObject({
  type: z.literal('rate_limit_event'),
  rate_limit_info: RateLimitInfo,
  ...lineBase,
});
export type RateLimitEvent = z.infer<typeof RateLimitEvent>;
/** A guess at the user's next prompt, after a turn's result, when initialize asked for them. */
export const PromptSuggestionMessage = z.looseObject({
  type: z.literal('prompt_suggestion'),
  suggestion: z.string(),
  ...lineBase,
});
export type PromptSuggestionMessage = z.infer<typeof PromptSuggestionMessage>;
/** How logging in goes: `output` is what the login flow printed, `error` why it failed. */
export const AuthStatusMessage = z.looseObject({
  type: z.literal('auth_status'),
  isAuthenticating: z.boolean(),
  output: z.array(z.string()),
  error: z.string().optional(),
  ...lineBase,
});
export type AuthStatusMessage = z.infer<typeof AuthStatusMessage>;
/** The CLI could not save part of the session (disk full, quota used up), as it exits. */
export const SystemSessionWritesLost = z.looseObject({
  ...systemBase,
  subtype: z.literal('session_writes_lost'),
  error_code: z.string(),
  lost: z.array(z.string()),
  transcript_session_ids: z.array(z.string()).optional(),
});
export type SystemSessionWritesLost = z.infer<typeof SystemSessionWritesLost>;
/** The whole slash-command list again, after it changed mid-session (skills found in a subfolder): it replaces the old. */
export const SystemCommandsChanged = z.looseObject({
  ...systemBase,
  subtype: z.literal('commands_changed'),
  commands: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      argumentHint: z.string().optional(),
    }),
  ),
});
export type SystemCommandsChanged = z.infer<typeof SystemCommandsChanged>;

export const SystemMessage = z.discriminatedUnion('subtype', [
  SystemInit,
  SystemStatus,
  SystemTaskStarted,
  SystemTaskProgress,
  SystemTaskUpdated,
  SystemTaskNotification,
  SystemNotification,
  SystemBackgroundTasksChanged,
  SystemThinkingTokens,
  SystemApiRetry,
  SystemCompactBoundary,
  SystemHookStarted,
  SystemHookResponse,
  SystemSessionWritesLost,
  SystemCommandsChanged,
  ...eventSystemSubtypes,
]);
export type SystemMessage = z.infer<typeof SystemMessage>;
export type SystemApiRetry = z.infer<typeof SystemApiRetry>;
/** The `system` subtypes this app knows; others are news to it, not damage. */
export const SYSTEM_SUBTYPES: ReadonlySet<string> = new Set(
  SystemMessage.options.map((option) => option.shape.subtype.value),
);
export type SystemInit = z.infer<typeof SystemInit>;
export type SystemTaskStarted = z.infer<typeof SystemTaskStarted>;
export type SystemTaskNotification = z.infer<typeof SystemTaskNotification>;

/** Emitted for prompts that carry a uuid: where each one is in the CLI's queue. */
export const CommandLifecycleMessage = z.looseObject({
  type: z.literal('command_lifecycle'),
  command_uuid: z.string(),
  state: z.enum(['queued', 'started', 'completed', 'cancelled']),
  ...lineBase,
});
export type CommandLifecycleMessage = z.infer<typeof CommandLifecycleMessage>;

/** Control requests the CLI sends to the host. */
export const CliControlRequestBody = z.discriminatedUnion('subtype', [
  z.looseObject({
    subtype: z.literal('hook_callback'),
    callback_id: z.string(),
    input: z.record(z.string(), z.unknown()),
    tool_use_id: z.string().nullable().optional(),
  }),
  z.looseObject({
    subtype: z.literal('mcp_message'),
    server_name: z.string(),
    message: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    subtype: z.literal('can_use_tool'),
    tool_name: z.string(),
    /** The name to show the user (cli-facts 12). */
    display_name: z.string().optional(),
    input: z.record(z.string(), z.unknown()),
    permission_suggestions: z.array(z.unknown()).optional(),
    blocked_path: z.string().optional(),
    tool_use_id: z.string().optional(),
    description: z.string().optional(),
    /** AskUserQuestion and ExitPlanMode: a question for the user, not a permission (cli-facts 17). */
    requires_user_interaction: z.boolean().optional(),
  }),
  /** An MCP server asks the user for something (its `elicitation/create`), passed on by the CLI. */
  z.looseObject({
    subtype: z.literal('elicitation'),
    mcp_server_name: z.string(),
    message: z.string(),
    /** "form": fill in `requested_schema`; "url": agree to open `url`. */
    mode: z.enum(['form', 'url']).optional(),
    url: z.string().optional(),
    elicitation_id: z.string().optional(),
    /** A flat JSON schema: an object whose properties are strings, numbers, booleans or choices. */
    requested_schema: z.record(z.string(), z.unknown()).optional(),
    /** The properties' names in the order the server listed them. */
    property_order: z.array(z.string()).optional(),
    title: z.string().optional(),
    display_name: z.string().optional(),
    description: z.string().optional(),
  }),
]);
export type CliControlRequestBody = z.infer<typeof CliControlRequestBody>;

export const ControlRequestMessage = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: CliControlRequestBody,
});
export type ControlRequestMessage = z.infer<typeof ControlRequestMessage>;

export const ControlResponseMessage = z.looseObject({
  type: z.literal('control_response'),
  response: ControlResponseBody,
});
export type ControlResponseMessage = z.infer<typeof ControlResponseMessage>;

export const ControlCancelRequestMessage = z.looseObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
});
export type ControlCancelRequestMessage = z.infer<typeof ControlCancelRequestMessage>;

export type CliMessage =
  | AssistantMessage
  | UserMessage
  | ResultMessage
  | StreamEventMessage
  | ToolProgressMessage
  | SystemMessage
  | CommandLifecycleMessage
  | ControlRequestMessage
  | ControlResponseMessage
  | ControlCancelRequestMessage
  | RateLimitEvent
  | PromptSuggestionMessage
  | AuthStatusMessage
  | EventLineMessage;

/** Schemas by line `type`; `system` lines are told apart by `subtype` inside SystemMessage. */
const lineSchemas = new Map<string, z.ZodType<CliMessage>>(
  Object.entries({
    assistant: AssistantMessage,
    user: UserMessage,
    result: ResultMessage,
    stream_event: StreamEventMessage,
    tool_progress: ToolProgressMessage,
    system: SystemMessage,
    command_lifecycle: CommandLifecycleMessage,
    control_request: ControlRequestMessage,
    control_response: ControlResponseMessage,
    control_cancel_request: ControlCancelRequestMessage,
    rate_limit_event: RateLimitEvent,
    prompt_suggestion: PromptSuggestionMessage,
    auth_status: AuthStatusMessage,
    ...eventLineSchemas,
  }),
);

export type DecodedLine =
  | { ok: true; message: CliMessage }
  /**
   * `unknownKind`: a line type, or a `system` subtype, this app does not know yet: news from a newer CLI,
   * not damage, so it is logged for the protocol inspector only.
   */
  | { ok: false; line: JsonObject; problem: string; unknownKind?: boolean };

/**
 * Types one parsed stdout object. A line of a kind this app does not know, or one that fails its
 * schema, comes back with the reason, so the caller can log or report it and still pass it on raw. Only a
 * line with no type, or a known kind that fails its schema, is damage.
 */
export function decodeCliMessage(line: JsonObject): DecodedLine {
  const type = line.type;
  const schema = typeof type === 'string' ? lineSchemas.get(type) : undefined;
  if (!schema) {
    const problem = `unknown line type ${JSON.stringify(type)}`;
    return typeof type === 'string'
      ? { ok: false, line, problem, unknownKind: true }
      : { ok: false, line, problem };
  }
  // Not String(): an object with its own non-function `toString` (valid JSON) makes that throw.
  const subtype = typeof line.subtype === 'string' ? line.subtype : JSON.stringify(line.subtype);
  if (type === 'system' && !SYSTEM_SUBTYPES.has(subtype ?? '')) {
    return {
      ok: false,
      line,
      problem: `system/${subtype} is a kind of line this app does not know`,
      unknownKind: true,
    };
  }
  const parsed = schema.safeParse(line);
  if (parsed.success) return { ok: true, message: parsed.data };
  const where = type === 'system' ? `system/${subtype}` : type;
  return {
    ok: false,
    line,
    problem: `${where} line does not match its schema: ${z.prettifyError(parsed.error)}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Control responses the CLI gives to the host's requests

export const ModelInfo = z.looseObject({
  value: z.string(),
  displayName: z.string(),
  description: z.string().optional(),
  resolvedModel: z.string().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export const InitializeResponse = z.looseObject({
  commands: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string().optional(),
        argumentHint: z.string().optional(),
      }),
    )
    .optional(),
  models: z.array(ModelInfo),
  account: z
    .looseObject({
      email: z.string().optional(),
      tokenSource: z.string().optional(),
      apiKeySource: z.string().optional(),
      apiProvider: z.string().optional(),
    })
    .optional(),
  pid: z.number().optional(),
  claude_code_version: z.string().optional(),
  current_permission_mode: z.string().optional(),
  hooks_applied: z.boolean().optional(),
});
export type InitializeResponse = z.infer<typeof InitializeResponse>;

export const InterruptResponse = z.looseObject({ still_queued: z.array(z.string()).optional() });
export const SetModelResponse = z.looseObject({ model: z.string().optional() });
export const McpStatusResponse = z.looseObject({
  mcpServers: z.array(
    z.looseObject({
      name: z.string(),
      status: z.string(),
      /** Why a server failed to connect. */
      error: z.string().optional(),
      tools: z.array(z.looseObject({ name: z.string() })).optional(),
    }),
  ),
});
export type McpStatusResponse = z.infer<typeof McpStatusResponse>;
/** get_context_usage: how full the context window is, by category (what /context shows). */
export const ContextUsageResponse = z.looseObject({
  categories: z.array(
    z.looseObject({
      name: z.string(),
      tokens: z.number().nonnegative(),
      /** "used", "deferred", "buffer" or "free", as the CLI sorts them. */
      kind: z.string().optional(),
    }),
  ),
  totalTokens: z.number().nonnegative(),
  maxTokens: z.number().positive(),
  percentage: z.number().optional(),
});
export type ContextUsageResponse = z.infer<typeof ContextUsageResponse>;
export const CancelAsyncMessageResponse = z.looseObject({
  cancelled: z.boolean(),
  message_uuid: z.string().optional(),
});
/**
 * rewind_files. A dry run answers what a restore would change; a restore answers `skippedLinks`. A message
 * with nothing to restore is still a success response, with `canRewind:false` and the reason in `error`.
 */
export const RewindFilesResponse = z.looseObject({
  canRewind: z.boolean(),
  error: z.string().optional(),
  /** Absolute paths. */
  filesChanged: z.array(z.string()).optional(),
  insertions: z.number().int().nonnegative().optional(),
  deletions: z.number().int().nonnegative().optional(),
  skippedLinks: z.number().int().nonnegative().optional(),
});
export type RewindFilesResponse = z.infer<typeof RewindFilesResponse>;
export const OpaqueResponse = z.record(z.string(), z.unknown());

/** The response schema for each host control request. */
export const hostControlResponses = {
  initialize: InitializeResponse,
  interrupt: InterruptResponse,
  set_model: SetModelResponse,
  set_permission_mode: OpaqueResponse,
  mcp_status: McpStatusResponse,
  mcp_toggle: OpaqueResponse,
  mcp_reconnect: OpaqueResponse,
  get_context_usage: ContextUsageResponse,
  rewind_files: RewindFilesResponse,
  stop_task: OpaqueResponse,
  cancel_async_message: CancelAsyncMessageResponse,
} satisfies Record<HostControlSubtype, z.ZodType>;
export type HostControlResponse<S extends HostControlSubtype> = z.infer<(typeof hostControlResponses)[S]>;

/** What a Stop (or any) hook callback answers. */
export const HookOutput = z.looseObject({
  continue: z.boolean().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z.record(z.string(), z.unknown()).optional(),
});
export type HookOutput = z.infer<typeof HookOutput>;

/** What the host answers to an elicitation: the user's answer, which the CLI passes on to the server. */
export const ElicitationResult = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('accept'),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);
export type ElicitationResult = z.infer<typeof ElicitationResult>;

/** What a permission handler answers to can_use_tool. */
export const PermissionResult = z.discriminatedUnion('behavior', [
  z.object({
    behavior: z.literal('allow'),
    updatedInput: z.record(z.string(), z.unknown()),
    /** Rules to keep from now on ("Always allow"): the request's `permission_suggestions`, as they came. */
    updatedPermissions: z.array(z.unknown()).optional(),
  }),
  z.object({ behavior: z.literal('deny'), message: z.string(), interrupt: z.boolean().optional() }),
]);
export type PermissionResult = z.infer<typeof PermissionResult>;
