import { randomUUID } from 'node:crypto';
import type { ConversationEvent } from '../shared/ipc';
import type { PermissionResult } from '../shared/protocol';
import type { CanUseTool } from './claude';
import { isRecord } from './library/json';

/**
 * The permission requests of one conversation (`can_use_tool`): each becomes a `permission_request` event
 * and waits, without blocking the others, until the user answers it, the CLI cancels it
 * (`control_cancel_request`), the user stops the turn, or the process ends.
 */

type CanUseToolRequest = Parameters<CanUseTool>[0];

export type PermissionAnswer =
  { behavior: 'allow'; remember: boolean } | { behavior: 'deny'; message: string };

interface Waiting {
  request: CanUseToolRequest;
  resolve(result: PermissionResult): void;
}

/** What Claude is told when the user denies without saying why. */
const DENIED = 'The user denied this tool use.';

export class Permissions {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly emit: (event: ConversationEvent) => void) {}

  /** The session's permission handler. */
  readonly canUseTool: CanUseTool = (request, signal) =>
    new Promise<PermissionResult>((resolve) => {
      const requestId = randomUUID();
      this.waiting.set(requestId, { request, resolve });
      signal.addEventListener(
        'abort',
        () => this.end(requestId, 'cancelled', 'Claude stopped waiting for an answer.', deny(DENIED)),
        { once: true },
      );
      this.emit({
        kind: 'permission_request',
        requestId,
        toolName: request.tool_name,
        displayName: request.display_name ?? request.tool_name,
        input: request.input,
        toolUseId: request.tool_use_id ?? null,
        description: request.description ?? null,
        blockedPath: request.blocked_path ?? null,
        remember: describeSuggestions(rememberable(request.permission_suggestions)),
      });
    });

  /** Answers a request still waiting; false if it is not (answered, cancelled or stopped already). */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return false;
    if (answer.behavior === 'deny') {
      return this.end(requestId, 'denied', null, deny(answer.message.trim() || DENIED));
    }
    const suggestions = rememberable(waiting.request.permission_suggestions);
    return this.end(requestId, 'allowed', null, {
      behavior: 'allow',
      updatedInput: waiting.request.input,
      ...(answer.remember && suggestions.length > 0 ? { updatedPermissions: suggestions } : {}),
    });
  }

  /** Denies every request still waiting (the user stopped the turn, or the process is gone). */
  denyAll(reason: string): void {
    for (const requestId of [...this.waiting.keys()]) this.end(requestId, 'cancelled', reason, deny(reason));
  }

  get pending(): number {
    return this.waiting.size;
  }

  private end(
    requestId: string,
    outcome: 'allowed' | 'denied' | 'cancelled',
    reason: string | null,
    result: PermissionResult,
  ): boolean {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return false;
    this.waiting.delete(requestId);
    waiting.resolve(result);
    this.emit({ kind: 'permission_resolved', requestId, outcome, reason });
    return true;
  }
}

/**
 * The suggestions "Always allow" keeps: rules and folders. A suggested change of mode is left out: the mode
 * is the user's to pick (the picker in the header), and what the header says must stay true.
 */
function rememberable(suggestions: readonly unknown[] | undefined): unknown[] {
  return (suggestions ?? []).filter((suggestion) => !isRecord(suggestion) || suggestion.type !== 'setMode');
}

function deny(message: string): PermissionResult {
  return { behavior: 'deny', message };
}

/** Where a rule is kept, in words (the CLI's settings destinations). */
const DESTINATIONS: Record<string, string> = {
  localSettings: 'in this project',
  projectSettings: "in this project's shared settings",
  userSettings: 'in every project',
  session: 'for this conversation',
  cliArg: 'for this conversation',
};

const MODE_NAMES: Record<string, string> = {
  default: 'Ask before acting',
  acceptEdits: 'Accept edits',
  plan: 'Plan only',
  bypassPermissions: "Don't ask",
};

/**
 * What "Always allow" would remember, in words, from the CLI's `permission_suggestions`: e.g.
 * "Bash(touch allowed.txt) in this project". Null when there is nothing to remember.
 */
export function describeSuggestions(suggestions: readonly unknown[] | undefined): string | null {
  const parts = (suggestions ?? []).flatMap((suggestion) => {
    if (!isRecord(suggestion)) return [];
    const where =
      typeof suggestion.destination === 'string' ? DESTINATIONS[suggestion.destination] : undefined;
    const place = where ? ` ${where}` : '';
    switch (suggestion.type) {
      case 'addRules':
      case 'replaceRules': {
        if (suggestion.behavior !== undefined && suggestion.behavior !== 'allow') return [];
        const rules = Array.isArray(suggestion.rules) ? suggestion.rules.filter(isRecord) : [];
        const named = rules.flatMap((rule) =>
          typeof rule.toolName !== 'string'
            ? []
            : [
                typeof rule.ruleContent === 'string'
                  ? `${rule.toolName}(${rule.ruleContent})`
                  : rule.toolName,
              ],
        );
        return named.length > 0 ? [`${named.join(', ')}${place}`] : [];
      }
      case 'addDirectories': {
        const directories = Array.isArray(suggestion.directories)
          ? suggestion.directories.filter((directory): directory is string => typeof directory === 'string')
          : [];
        return directories.length > 0 ? [`access to ${directories.join(', ')}${place}`] : [];
      }
      case 'setMode':
        return typeof suggestion.mode === 'string'
          ? [`the mode "${MODE_NAMES[suggestion.mode] ?? suggestion.mode}"${place}`]
          : [];
      default:
        return [];
    }
  });
  return parts.length > 0 ? parts.join('; ') : null;
}
