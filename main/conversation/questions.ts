import {
  AskUserQuestionInput,
  type Interaction,
  type PlanAnswer,
  type PlanApprovalMode,
  type QuestionsAnswer,
} from '../../shared/ipc';
import type { PermissionResult } from '../../shared/protocol';

/**
 * Questions and plans from Claude: AskUserQuestion and ExitPlanMode come as `can_use_tool` with
 * `requires_user_interaction` (cli-facts 17), and what the user answers is the tool's result, not a
 * permission. This says which requests they are and turns the user's answer into what the CLI wants back.
 * The waiting itself (one request per card, cancelled, stopped, ended with the process) is Permissions'.
 */

/** The CLI capability that lets an answer say a question went unanswered (sdk.d.ts, system/init). */
export const UNANSWERED_CAPABILITY = 'ask_user_question_unanswered_v1';

/** What Claude is told when the user skips its questions and the CLI cannot be told so in `annotations`. */
export const SKIPPED = 'The user skipped these questions.';
/** The answer text of a question skipped, for the model (which does not read `annotations`). */
const SKIPPED_ONE = 'The user skipped this question.';

interface InteractionRequest {
  tool_name: string;
  input: Record<string, unknown>;
  requires_user_interaction?: boolean | undefined;
}

/**
 * The card a request needs when it is a question or a plan; null for a permission. Questions the app
 * cannot read are left to the permission card, which shows them as they came rather than lose them.
 */
export function interactionOf(
  request: InteractionRequest,
  approveMode: PlanApprovalMode,
): Interaction | null {
  if (request.requires_user_interaction !== true) return null;
  if (request.tool_name === 'ExitPlanMode') return { kind: 'plan', approveMode };
  if (request.tool_name === 'AskUserQuestion') {
    const parsed = AskUserQuestionInput.safeParse(request.input);
    return parsed.success ? { kind: 'questions', questions: parsed.data.questions } : null;
  }
  return null;
}

/**
 * The CLI's answer to AskUserQuestion: allow with the input and its `answers` by question text (cli-facts
 * 17). A skip says so per question in `annotations` where the CLI advertises it, and is a deny elsewhere.
 */
export function questionsResult(
  input: Record<string, unknown>,
  answer: QuestionsAnswer,
  canSayUnanswered: boolean,
): PermissionResult {
  const questions = AskUserQuestionInput.safeParse(input);
  const texts = questions.success ? questions.data.questions.map((question) => question.question) : [];
  if (answer.behavior === 'skip') {
    if (!canSayUnanswered || texts.length === 0) return { behavior: 'deny', message: SKIPPED };
    return {
      behavior: 'allow',
      updatedInput: {
        ...input,
        answers: Object.fromEntries(texts.map((text) => [text, SKIPPED_ONE])),
        annotations: Object.fromEntries(texts.map((text) => [text, { unanswered: 'skipped' }])),
      },
    };
  }
  // Only the questions asked, and only those with an answer: an empty one was not answered.
  const answers = Object.fromEntries(
    texts.flatMap((text) => {
      const given = Object.hasOwn(answer.answers, text) ? answer.answers[text]?.trim() : undefined;
      return given ? [[text, given]] : [];
    }),
  );
  return { behavior: 'allow', updatedInput: { ...input, answers } };
}

/** What Claude is told when the user keeps planning without saying what to change. */
export const KEEP_PLANNING = 'The user wants to keep planning.';

/** The CLI's answer to ExitPlanMode: allow to approve, or a deny whose text reaches Claude as the result. */
export function planResult(input: Record<string, unknown>, answer: PlanAnswer): PermissionResult {
  if (answer.behavior === 'approve') return { behavior: 'allow', updatedInput: input };
  return { behavior: 'deny', message: answer.message.trim() || KEEP_PLANNING };
}
