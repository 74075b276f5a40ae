/**
 * Questions and plans from Claude in the conversation state: what an AskUserQuestion or ExitPlanMode call
 * asked and how it was answered, read from the call's input and the CLI's `tool_use_result` (which a saved
 * conversation has too), so the call shows it after the card has gone. Pure.
 */
import { z } from 'zod';
import { AskUserQuestionInput, type Question } from '../ipc/questions';
import type { InteractionOutcome, PermissionRequest, ToolCall } from './state';

/** Tools whose calls are a question or a plan for the user, shown by cards of their own. */
export const INTERACTIVE_TOOLS = new Set(['AskUserQuestion', 'ExitPlanMode', 'EnterPlanMode']);

const QuestionOutput = z.looseObject({ answers: z.record(z.string(), z.string()) });
const PlanOutput = z.looseObject({ filePath: z.string().min(1) });

/** The outcome a tool result carries for a question or plan call; undefined for any other call. */
export function interactionOutcome(toolName: string, toolUseResult: unknown): InteractionOutcome | undefined {
  if (toolName === 'AskUserQuestion') {
    const output = QuestionOutput.safeParse(toolUseResult);
    return output.success ? { answers: output.data.answers } : undefined;
  }
  if (toolName === 'ExitPlanMode') {
    const output = PlanOutput.safeParse(toolUseResult);
    return output.success ? { planFile: output.data.filePath } : undefined;
  }
  return undefined;
}

/** The outcome as a field of the call's result, absent when there is none. */
export function outcomeOf(toolName: string, toolUseResult: unknown): { outcome?: InteractionOutcome } {
  const outcome = interactionOutcome(toolName, toolUseResult);
  return outcome ? { outcome } : {};
}

/**
 * The CLI session file's `toolUseResult` worth keeping for a saved conversation: only a question's or a
 * plan's (a file read's would be the file again). Undefined for the rest.
 */
export function keptToolUseResult(toolUseResult: unknown): unknown {
  return QuestionOutput.safeParse(toolUseResult).success ||
    (PlanOutput.safeParse(toolUseResult).success && 'plan' in (toolUseResult as object))
    ? toolUseResult
    : undefined;
}

/** The questions an AskUserQuestion call asks, or none if its input is not what the tool takes. */
export function questionsOf(tool: ToolCall): Question[] {
  const parsed = AskUserQuestionInput.safeParse(tool.input);
  return parsed.success ? parsed.data.questions : [];
}

/** The plan of an ExitPlanMode call: its input's `plan` (the request to approve it has an empty input). */
export function planOf(tool: ToolCall | undefined): string | null {
  const plan = tool?.input.plan;
  return typeof plan === 'string' && plan.trim() ? plan : null;
}

/** The notice a withdrawn request leaves: a question or a plan is not called a permission. */
export function withdrawnNotice(request: PermissionRequest, reason: string | null): string {
  const why = reason ?? 'Claude stopped waiting for an answer.';
  switch (request.interaction?.kind) {
    case 'questions':
      return `Question from Claude withdrawn: ${why}`;
    case 'plan':
      return `Plan from Claude withdrawn: ${why}`;
    default:
      return `Permission request for ${request.displayName} withdrawn: ${why}`;
  }
}
