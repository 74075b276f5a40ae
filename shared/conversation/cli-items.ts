/**
 * What the chat shows of the CLI's own lines that are neither a reply nor a notice: a hook's run, the
 * marker where the conversation was compacted, and a local slash command's output. One chat message role
 * ('cli') carries them all, so the views that go through every role add one case, not one per kind.
 */

/** One run of a hook from the settings, from its hook_started line to its hook_response. */
export interface HookRun {
  kind: 'hook';
  hookId: string;
  /** As the CLI names it, e.g. "PreToolUse:Bash". */
  name: string;
  /** The hook event, e.g. "PreToolUse". */
  event: string;
  /** 'running' until its response; then the CLI's outcome: 'success', 'error' or 'cancelled'. */
  outcome: string;
  exitCode: number | null;
  /** What it wrote, stdout and stderr as they came (hook_progress lines, then the response's whole). */
  output: string;
}

/** Where the conversation was compacted: what came before is a summary from here on. */
export interface CompactMarker {
  kind: 'compact';
  /** 'manual' (/compact) or 'auto' (the context was full). */
  trigger: string | null;
  preTokens: number | null;
  postTokens: number | null;
  /** The summary Claude goes on from, once its line has come. */
  summary: string | null;
}

/** What a local slash command printed, under the command the user typed. */
export interface CommandOutput {
  kind: 'command_output';
  /** The command it answers, e.g. "/voice", when the user's message just before was one. */
  command: string | null;
  text: string;
}

export type CliItem = HookRun | CompactMarker | CommandOutput;

export interface CliChatMessage {
  role: 'cli';
  id: string;
  author: string;
  item: CliItem;
}

/** What find and the export read of an item: what the reader sees written. */
export function cliItemText(item: CliItem): string {
  switch (item.kind) {
    case 'hook':
      return `${item.name} hook: ${item.outcome}\n${item.output}`;
    case 'compact':
      return compactLabel(item);
    case 'command_output':
      return item.text;
  }
}

/** "Conversation compacted (auto · 162k → 9k tokens)", with what the line carried. */
export function compactLabel(marker: CompactMarker): string {
  const counts =
    marker.preTokens !== null && marker.postTokens !== null
      ? `${tokens(marker.preTokens)} → ${tokens(marker.postTokens)} tokens`
      : marker.preTokens !== null
        ? `${tokens(marker.preTokens)} tokens before`
        : null;
  const facts = [marker.trigger, counts].filter((fact) => fact !== null);
  return facts.length > 0 ? `Conversation compacted (${facts.join(' · ')})` : 'Conversation compacted';
}

function tokens(count: number): string {
  if (count < 1_000) return String(count);
  // 2.5k, not 3k: a small count rounded to thousands says little.
  if (count < 10_000) return `${(count / 1_000).toFixed(1).replace(/\.0$/, '')}k`;
  if (count < 1_000_000) return `${Math.round(count / 1_000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** Why the CLI denied a tool call by itself (`system/permission_denied`), shown at the call. */
export interface PermissionDenial {
  /** What decided, in words: "a deny rule", "the permission mode", … */
  by: string;
  /** The deciding part's own reason, when it gave one. */
  reason: string | null;
  /** What Claude was told. */
  message: string;
}
