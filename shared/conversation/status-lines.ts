/**
 * What the reducer does with the lines about the account and the session rather than the chat: the latest
 * rate limit, the suggested next prompt, how logging in goes, session writes the CLI lost, and a new slash
 * command list. Kept apart from reduce.ts, which calls `applyStatusLine` for these kinds, so that file stays
 * about messages and tool calls. The task tools' list is here too: it is built from tool results.
 */
import { afterTaskCreate, afterTaskList, afterTaskUpdate } from '../tasks';
import type {
  AuthStatusMessage,
  PromptSuggestionMessage,
  RateLimitEvent,
  SystemCommandsChanged,
  SystemSessionWritesLost,
  UserMessage,
} from '../protocol';
import type { StateDraft } from './draft';
import type { ToolCall } from './state';

export type StatusLine =
  | RateLimitEvent
  | PromptSuggestionMessage
  | AuthStatusMessage
  | SystemSessionWritesLost
  | SystemCommandsChanged;

const WRITE_PROBLEMS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

export function applyStatusLine(
  d: StateDraft,
  line: StatusLine,
  addNotice: (tone: 'info' | 'error', text: string) => void,
): void {
  switch (line.type) {
    case 'rate_limit_event':
      d.set({ rateLimit: line.rate_limit_info });
      return;
    case 'prompt_suggestion': {
      const suggestion = line.suggestion.trim();
      d.set({ promptSuggestion: suggestion || null });
      return;
    }
    case 'auth_status':
      d.set({
        authStatus: {
          isAuthenticating: line.isAuthenticating,
          output: line.output,
          error: line.error ?? null,
        },
      });
      return;
    case 'system':
      if (line.subtype === 'session_writes_lost') {
        const why = WRITE_PROBLEMS[line.error_code] ?? line.error_code;
        const what = line.lost.includes('transcript')
          ? 'Claude Code could not save this conversation to its session file'
          : 'Claude Code could not save its settings (~/.claude.json)';
        const kept = line.lost.includes('transcript')
          ? ': the library and Resume may miss part of it. Byre’s own record of it, shown here, is complete.'
          : '.';
        addNotice('error', `${what} (${why})${kept}`);
        return;
      }
      d.set({
        // The list replaces the old one (sdk.d.ts), trimmed to what the IPC schema takes.
        commands: dedupeCommands(line.commands),
      });
      return;
  }
}

function dedupeCommands(commands: SystemCommandsChanged['commands']) {
  const seen = new Set<string>();
  return commands.flatMap((command) => {
    const name = command.name.replace(/^\//, '');
    if (!name || name.length > 200 || seen.has(name)) return [];
    seen.add(name);
    return [
      {
        name,
        description: (command.description ?? '').slice(0, 2_000),
        argumentHint: (command.argumentHint ?? '').slice(0, 200),
      },
    ];
  });
}

/** A main-thread task tool's result changes the conversation's task list (a subagent's list is its own). */
export function noteTaskResult(
  d: StateDraft,
  tool: ToolCall,
  line: UserMessage,
  text: string,
  isError: boolean,
): void {
  // A failed call changed nothing; TaskUpdate says so in its result too.
  const result = line.tool_use_result;
  const failed =
    isError || (typeof result === 'object' && result !== null && 'success' in result && !result.success);
  if (line.parent_tool_use_id || failed) return;
  const list = d.state.taskList;
  const next =
    tool.name === 'TaskCreate'
      ? afterTaskCreate(list, tool.input, line.tool_use_result, text)
      : tool.name === 'TaskUpdate'
        ? afterTaskUpdate(list, tool.input)
        : tool.name === 'TaskList'
          ? afterTaskList(list, line.tool_use_result)
          : list;
  if (next !== list) d.set({ taskList: next });
}
