import { randomUUID } from 'node:crypto';
import type {
  ConversationEvent,
  Interaction,
  PlanAnswer,
  PlanApprovalMode,
  QuestionsAnswer,
} from '../../shared/ipc';
import type { PermissionResult } from '../../shared/protocol';
import type { CanUseTool } from '../lanes/stream';
import { isRecord } from '../library/rules/json';
import { fileBefore } from './file-before';
import { UNANSWERED_CAPABILITY, interactionOf, planResult, questionsResult } from './questions';

/**
 * The permission requests of one conversation (`can_use_tool`): each becomes a `permission_request` event
 * and waits, without blocking the others, until the user answers it, the CLI cancels it
 * (`control_cancel_request`), the user stops the turn, or the process ends. Questions and plans from Claude
 * (questions.ts) wait the same way, with an `interaction` that gives them cards and answers of their own.
 */

type CanUseToolRequest = Parameters<CanUseTool>[0];

export type PermissionAnswer =
  { behavior: 'allow'; remember: boolean } | { behavior: 'deny'; message: string };

interface Waiting {
  request: CanUseToolRequest;
  interaction: Interaction | null;
  resolve(result: PermissionResult): void;
}

/** What questions and plans need to know of the conversation. */
export interface InteractionContext {
  /** The CLI's `capabilities`, as its last system/init listed them. */
  capabilities(): readonly string[];
  /** The mode the plan card offers first: the one chosen last time. */
  approveMode(): PlanApprovalMode;
}

const NO_CONTEXT: InteractionContext = { capabilities: () => [], approveMode: () => 'default' };

/** What Claude is told when the user denies without saying why. */
const DENIED = 'The user denied this tool use.';

export class Permissions {
  private readonly waiting = new Map<string, Waiting>();
  /** How often everything waiting was denied, and why the last time: for requests not yet waiting then. */
  private denials = 0;
  private lastDenial = DENIED;

  constructor(
    private readonly emit: (event: ConversationEvent) => void,
    /** What "Always allow" told the CLI to keep, as it was sent (the trust gate expects it on disk next). */
    private readonly remembered: (suggestions: readonly unknown[]) => void = () => undefined,
    private readonly context: InteractionContext = NO_CONTEXT,
  ) {}

  /** The session's permission handler. */
  readonly canUseTool: CanUseTool = (request, signal) => {
    if (request.tool_name !== 'Write') return this.ask(request, signal, null);
    // A Stop, or the process ending, while the file is read denies this request too, as it would a waiting one.
    const denials = this.denials;
    return fileBefore(request.tool_name, request.input).then((before) =>
      this.denials === denials ? this.ask(request, signal, before) : deny(this.lastDenial),
    );
  };

  private ask(
    request: CanUseToolRequest,
    signal: AbortSignal,
    before: string | null,
  ): Promise<PermissionResult> {
    // Claude may have stopped waiting while the file was read.
    if (signal.aborted) return Promise.resolve(deny(DENIED));
    return new Promise<PermissionResult>((resolve) => {
      const requestId = randomUUID();
      const interaction = interactionOf(request, this.context.approveMode());
      this.waiting.set(requestId, { request, interaction, resolve });
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
        ...(interaction ? { interaction } : {}),
        ...(before !== null ? { fileBefore: before } : {}),
      });
    });
  }

  /** Answers a request still waiting; false if it is not (answered, cancelled or stopped already). */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const waiting = this.waiting.get(requestId);
    if (!waiting) return false;
    if (answer.behavior === 'deny') {
      return this.end(requestId, 'denied', null, deny(answer.message.trim() || DENIED));
    }
    const suggestions = rememberable(waiting.request.permission_suggestions);
    if (answer.remember && suggestions.length > 0) this.remembered(suggestions);
    return this.end(requestId, 'allowed', null, {
      behavior: 'allow',
      updatedInput: waiting.request.input,
      ...(answer.remember && suggestions.length > 0 ? { updatedPermissions: suggestions } : {}),
    });
  }

  /** Answers (or skips) questions still waiting; false if they are not, or the request is no question. */
  answerQuestions(requestId: string, answer: QuestionsAnswer): boolean {
    const waiting = this.waiting.get(requestId);
    if (waiting?.interaction?.kind !== 'questions') return false;
    const canSayUnanswered = this.context.capabilities().includes(UNANSWERED_CAPABILITY);
    const result = questionsResult(waiting.request.input, answer, canSayUnanswered);
    return this.end(requestId, result.behavior === 'allow' ? 'allowed' : 'denied', null, result);
  }

  /** Approves a plan still waiting, or keeps planning; false if it is not waiting, or is no plan. */
  answerPlan(requestId: string, answer: PlanAnswer): boolean {
    const waiting = this.waiting.get(requestId);
    if (waiting?.interaction?.kind !== 'plan') return false;
    const result = planResult(waiting.request.input, answer);
    return this.end(requestId, result.behavior === 'allow' ? 'allowed' : 'denied', null, result);
  }

  /** Denies every request still waiting (the user stopped the turn, or the process is gone). */
  denyAll(reason: string): void {
    this.denials++;
    this.lastDenial = reason;
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
 * The suggestions "Always allow" keeps: those it can say in words (rules to allow, folders to reach), whole.
 * Anything else is left out rather than applied unseen: a change of mode (the mode is the user's to pick, in
 * the header, and what the header says must stay true), rules or folders to remove, rules that replace
 * those kept, rules to deny or ask, a place Byre cannot name, a shape it does not know.
 */
function rememberable(suggestions: readonly unknown[] | undefined): unknown[] {
  return (suggestions ?? []).filter(
    (suggestion) => isRecord(suggestion) && suggestion.type !== 'setMode' && described(suggestion) !== null,
  );
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
    const words = described(suggestion);
    return words === null ? [] : [words];
  });
  return parts.length > 0 ? parts.join('; ') : null;
}

/** One suggested change in words, all of it, or null when some of it cannot be said. */
function described(suggestion: unknown): string | null {
  if (!isRecord(suggestion) || typeof suggestion.destination !== 'string') return null;
  const where = named(DESTINATIONS, suggestion.destination);
  if (where === null) return null;
  switch (suggestion.type) {
    case 'addRules': {
      if (suggestion.behavior !== undefined && suggestion.behavior !== 'allow') return null;
      const rules = Array.isArray(suggestion.rules) ? suggestion.rules : [];
      const named = rules.map((rule) =>
        !isRecord(rule) || typeof rule.toolName !== 'string'
          ? null
          : rule.ruleContent === undefined
            ? rule.toolName
            : typeof rule.ruleContent === 'string'
              ? `${rule.toolName}(${rule.ruleContent})`
              : null,
      );
      if (named.length === 0 || named.includes(null)) return null;
      return `${named.join(', ')} ${where}`;
    }
    case 'addDirectories': {
      const directories = Array.isArray(suggestion.directories) ? suggestion.directories : [];
      if (directories.length === 0 || !directories.every((directory) => typeof directory === 'string')) {
        return null;
      }
      return `access to ${directories.join(', ')} ${where}`;
    }
    case 'setMode':
      return typeof suggestion.mode === 'string'
        ? `the mode "${named(MODE_NAMES, suggestion.mode) ?? suggestion.mode}" ${where}`
        : null;
    default:
      return null;
  }
}

/** A name from one of the tables above; null for a key it lacks (`toString` included). */
function named(names: Record<string, string>, key: string): string | null {
  return Object.hasOwn(names, key) ? (names[key] ?? null) : null;
}
