/**
 * The reducer's part for the CLI's rarer lines: hooks, the compact marker, local command output, denials,
 * refusals and the CLI's notices (shared/protocol-kinds.md says what becomes of each kind, and why). Kept
 * out of reduce.ts, which handles the lines every turn carries; it calls in here for the rest.
 */
import type { CliMessage, SystemMessage } from '../protocol';
import type { CliItem, CompactMarker, PermissionDenial } from './cli-items';
import type { StateDraft } from './draft';

/** The synthetic user line that carries a compaction's summary, just after its boundary. */
const COMPACT_SUMMARY = /^This session is being continued from a previous conversation/;
/** What /compact itself prints once done; the marker says it already. */
const COMPACTED = /^<local-command-stdout>\s*Compacted\s*<\/local-command-stdout>$/;
/** A terminal key hint the CLI appends to a notification ("· ctrl+o to see"); Byre has no such key. */
const KEY_HINT = /\s*·\s*(ctrl|cmd|alt|shift|esc)\+?\S*\b.*$/i;
/** Notifications something else in the chat already shows: a blocked Stop is the "Done when" card's. */
const FOLDED_NOTIFICATIONS: ReadonlySet<string> = new Set(['stop-hook-error']);

const DECIDERS: Record<string, string> = {
  rule: 'a permission rule',
  // A Bash command is checked against the rules command by command (cli: a deny rule on `rm`).
  subcommandResults: 'a permission rule',
  mode: 'the permission mode',
  classifier: 'the auto-mode classifier',
  hook: 'a hook',
  asyncAgent: 'a background agent, which cannot ask',
};

/** Applies a system line reduce.ts leaves to this file. */
export function applySystemLine(d: StateDraft, line: SystemMessage): void {
  switch (line.subtype) {
    case 'hook_started':
    case 'hook_progress':
    case 'hook_response':
      applyHook(d, line);
      return;
    case 'compact_boundary': {
      const meta = line.compact_metadata;
      const marker: CompactMarker = {
        kind: 'compact',
        trigger: meta?.trigger ?? null,
        preTokens: meta?.pre_tokens ?? null,
        postTokens: meta?.post_tokens ?? null,
        summary: null,
      };
      addItem(d, `k:${line.uuid}`, marker);
      return;
    }
    case 'status':
      if (line.compact_result === 'failed') {
        addLineNotice(d, 'error', `Compacting failed${line.compact_error ? `: ${line.compact_error}` : '.'}`);
      }
      return;
    case 'local_command_output':
      addItem(d, `o:${line.uuid}`, { kind: 'command_output', command: lastCommand(d), text: line.content });
      return;
    case 'permission_denied': {
      const denial: PermissionDenial = {
        by: DECIDERS[line.decision_reason_type ?? ''] ?? line.decision_reason_type ?? 'Claude Code',
        reason: line.decision_reason ?? null,
        message: line.message,
      };
      const tool = d.state.tools[line.tool_use_id];
      if (tool) d.setTool({ ...tool, denied: denial });
      else addLineNotice(d, 'info', `${line.tool_name} was denied by ${denial.by}: ${line.message}`);
      return;
    }
    case 'model_refusal_fallback': {
      const why = refusalWhy(line.api_refusal_category, line.api_refusal_explanation);
      addLineNotice(
        d,
        'info',
        `${line.original_model} declined to answer${why}; ${line.fallback_model} answered instead.`,
      );
      // A session fallback keeps the fallback model for the turns after; a local one was one reply only.
      if (line.scope !== 'local') d.set({ model: line.fallback_model });
      return;
    }
    case 'model_refusal_no_fallback': {
      const why = refusalWhy(line.api_refusal_category, line.api_refusal_explanation);
      addLineNotice(d, 'error', line.content.trim() || `${line.original_model} declined to answer${why}.`);
      return;
    }
    case 'mirror_error':
      addLineNotice(
        d,
        'error',
        `Claude Code could not copy part of this conversation to its store: ${line.error}`,
      );
      return;
    case 'informational':
      // 'info' lines are for the CLI's transcript view only; the protocol inspector has them.
      if (line.level === 'info') return;
      addLineNotice(d, line.level === 'warning' ? 'error' : 'info', line.content);
      return;
    case 'notification': {
      if (FOLDED_NOTIFICATIONS.has(line.key)) return;
      const text = line.text.replace(KEY_HINT, '').trim();
      if (text) addLineNotice(d, 'info', text);
      return;
    }
    case 'files_persisted':
      for (const failed of line.failed) {
        addLineNotice(d, 'error', `Claude Code could not upload ${failed.filename}: ${failed.error}`);
      }
      return;
    case 'memory_recall':
      if (line.memories.length > 0) {
        addLineNotice(
          d,
          'info',
          `Recalled from memory: ${line.memories.map((memory) => memory.path).join(', ')}`,
        );
      }
      return;
    case 'worker_shutting_down':
      addLineNotice(d, 'info', `Claude Code is shutting down (${line.reason.replaceAll('_', ' ')}).`);
      return;
    case 'plugin_install':
      if (line.status === 'installed' && line.name)
        addLineNotice(d, 'info', `Plugin ${line.name} installed.`);
      if (line.status === 'failed') {
        addLineNotice(
          d,
          'error',
          `A plugin${line.name ? ` (${line.name})` : ''} could not be installed${line.error ? `: ${line.error}` : '.'}`,
        );
      }
      return;
    default:
      // init, tasks, thinking_tokens and api_retry are reduce.ts's; session_state_changed,
      // elicitation_complete and control_request_progress change nothing shown (protocol-kinds.md).
      return;
  }
}

/** Applies a top-level line reduce.ts leaves to this file (those of protocol-events.ts; control lines never come). */
export function applyEventLine(d: StateDraft, line: CliMessage): void {
  switch (line.type) {
    case 'conversation_reset':
      addLineNotice(
        d,
        'info',
        line.trigger === 'clear' || line.trigger === undefined
          ? 'Conversation cleared: Claude starts again from here, without what came before.'
          : `Conversation started afresh (${line.trigger.replaceAll('_', ' ')}): Claude does not see what came before.`,
      );
      return;
    case 'active_goal':
      addLineNotice(
        d,
        'info',
        line.value === null
          ? 'Goal cleared.'
          : `Goal not met yet (round ${line.value.iterations}): ${line.value.condition}`,
      );
      return;
    default:
      // tool_use_summary: each call has its own card already. keep_alive never reaches here.
      return;
  }
}

/**
 * A user line that belongs to the compact marker just before it: the summary Claude goes on from, or
 * /compact's own "Compacted". True when it was folded into the marker (and is not shown on its own).
 */
export function foldIntoCompactMarker(d: StateDraft, text: string): boolean {
  const lastId = d.state.order[d.state.order.length - 1] ?? '';
  const last = d.state.messages[lastId];
  if (last?.role !== 'cli' || last.item.kind !== 'compact') return false;
  if (COMPACTED.test(text.trim())) return true;
  if (!COMPACT_SUMMARY.test(text)) return false;
  d.setMessage({ ...last, item: { ...last.item, summary: text } });
  return true;
}

function applyHook(
  d: StateDraft,
  line: Extract<SystemMessage, { subtype: 'hook_started' | 'hook_progress' | 'hook_response' }>,
): void {
  const hookId = line.hook_id ?? line.uuid;
  const id = `h:${hookId}`;
  const before = d.state.messages[id];
  const run = before?.role === 'cli' && before.item.kind === 'hook' ? before.item : undefined;
  const output = line.subtype === 'hook_started' ? '' : hookOutput(line);
  addItem(d, id, {
    kind: 'hook',
    hookId,
    name: line.hook_name ?? run?.name ?? 'hook',
    event: line.hook_event ?? run?.event ?? '',
    outcome: line.subtype === 'hook_response' ? (line.outcome ?? 'done') : (run?.outcome ?? 'running'),
    exitCode: line.subtype === 'hook_response' ? (line.exit_code ?? null) : (run?.exitCode ?? null),
    output: output || run?.output || '',
  });
}

function hookOutput(line: { output?: string; stdout?: string; stderr?: string }): string {
  if (line.output) return line.output;
  return [line.stdout, line.stderr].filter(Boolean).join('');
}

/** Sets an item, appending it to the conversation the first time. */
function addItem(d: StateDraft, id: string, item: CliItem): void {
  const known = !!d.state.messages[id];
  d.setMessage({ role: 'cli', id, author: 'Claude Code', item });
  if (!known) d.append(id, null);
}

/** The slash command of the user's last message, if it was one ("/voice"). */
function lastCommand(d: StateDraft): string | null {
  const order = d.state.order;
  for (let index = order.length - 1; index >= 0; index--) {
    const message = d.state.messages[order[index] ?? ''];
    if (message?.role !== 'user') continue;
    const command = /^\/\S+/.exec(message.text.trim());
    return command ? command[0] : null;
  }
  return null;
}

function refusalWhy(category: string | null | undefined, explanation: string | null | undefined): string {
  const facts = [category, explanation].filter((fact): fact is string => !!fact);
  return facts.length > 0 ? ` (${facts.join(': ')})` : '';
}

/** A notice, numbered as reduce.ts numbers its own. */
function addLineNotice(d: StateDraft, tone: 'info' | 'error', text: string): void {
  const id = `n:${d.state.localIds}`;
  d.setMessage({ role: 'notice', id, author: 'Byre', tone, text });
  d.append(id, null);
  d.set({ localIds: d.state.localIds + 1 });
}
