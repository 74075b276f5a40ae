/**
 * Questions and plans from Claude: what main tells the renderer about an AskUserQuestion or ExitPlanMode
 * call that waits on the user, and the answers it takes back. These come as `can_use_tool` with
 * `requires_user_interaction` (cli-facts 17) but are not permissions: the answer is the tool's result.
 */
import { z } from 'zod';

/** One choice of a question, as the tool's input has it (sdk-tools.d.ts `AskUserQuestionInput`). */
export const QuestionOption = z.object({
  label: z.string(),
  description: z.string().default(''),
  /** Shown while the option has the focus: a mockup, a snippet. */
  preview: z.string().optional(),
});
export type QuestionOption = z.infer<typeof QuestionOption>;

export const Question = z.object({
  /** The question's text: also its key in the answers. */
  question: z.string().min(1),
  /** A very short label, shown as a chip. */
  header: z.string().default(''),
  options: z.array(QuestionOption),
  multiSelect: z.boolean().default(false),
});
export type Question = z.infer<typeof Question>;

/** The AskUserQuestion input's questions, as the CLI sends them. */
export const AskUserQuestionInput = z.looseObject({ questions: z.array(Question).min(1) });

/** The modes an approved plan can go on in. */
export const PlanApprovalMode = z.enum(['default', 'acceptEdits']);
export type PlanApprovalMode = z.infer<typeof PlanApprovalMode>;

/** What a waiting request is, when it is not a permission: a form of questions, or a plan to approve. */
export const Interaction = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('questions'), questions: z.array(Question).min(1) }),
  /** The plan itself is the tool call's input (`plan`), which the conversation already has. */
  z.object({ kind: z.literal('plan'), approveMode: PlanApprovalMode }),
]);
export type Interaction = z.infer<typeof Interaction>;

/** The user's answers to a question card. */
export const QuestionsAnswer = z.discriminatedUnion('behavior', [
  /** By question text: a label, labels joined with ", ", or the "Other" text. */
  z.object({
    behavior: z.literal('answer'),
    answers: z.record(z.string().max(10_000), z.string().max(10_000)),
  }),
  z.object({ behavior: z.literal('skip') }),
]);
export type QuestionsAnswer = z.infer<typeof QuestionsAnswer>;

/** The user's answer to a plan card. */
export const PlanAnswer = z.discriminatedUnion('behavior', [
  z.object({ behavior: z.literal('approve'), mode: PlanApprovalMode }),
  /** `message`: what to change, for Claude. */
  z.object({ behavior: z.literal('keep_planning'), message: z.string().max(10_000) }),
]);
export type PlanAnswer = z.infer<typeof PlanAnswer>;
