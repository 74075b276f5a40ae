import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import type { PermissionResult } from '../../shared/protocol';
import { Permissions } from './permissions';
import { interactionOf, planResult, questionsResult, SKIPPED, UNANSWERED_CAPABILITY } from './questions';

const QUESTIONS = [
  {
    question: 'Which database should we use?',
    header: 'Database',
    options: [
      { label: 'SQLite', description: 'One file' },
      { label: 'Postgres', description: 'A server', preview: 'docker run postgres' },
    ],
    multiSelect: false,
  },
  {
    question: 'Which features do you want?',
    header: 'Features',
    options: [
      { label: 'Search', description: 'Full text' },
      { label: 'Export', description: 'CSV' },
    ],
    multiSelect: true,
  },
];
const INPUT = { questions: QUESTIONS };

describe('interactionOf', () => {
  it('makes a question form of AskUserQuestion and a plan of ExitPlanMode, when the CLI says the user must answer', () => {
    expect(
      interactionOf(
        { tool_name: 'AskUserQuestion', input: INPUT, requires_user_interaction: true },
        'default',
      ),
    ).toEqual({ kind: 'questions', questions: QUESTIONS });
    expect(
      interactionOf({ tool_name: 'ExitPlanMode', input: {}, requires_user_interaction: true }, 'acceptEdits'),
    ).toEqual({ kind: 'plan', approveMode: 'acceptEdits' });
  });

  it('leaves other requests, and questions it cannot read, to the permission card', () => {
    expect(interactionOf({ tool_name: 'AskUserQuestion', input: INPUT }, 'default')).toBeNull();
    expect(
      interactionOf(
        { tool_name: 'Bash', input: { command: 'ls' }, requires_user_interaction: true },
        'default',
      ),
    ).toBeNull();
    expect(
      interactionOf(
        { tool_name: 'AskUserQuestion', input: { questions: 'which?' }, requires_user_interaction: true },
        'default',
      ),
    ).toBeNull();
  });
});

describe('questionsResult', () => {
  it('allows with the answers by question text, only for the questions asked and answered', () => {
    expect(
      questionsResult(
        INPUT,
        {
          behavior: 'answer',
          answers: {
            'Which database should we use?': ' SQLite ',
            'Which features do you want?': '',
            'Not asked?': 'x',
          },
        },
        true,
      ),
    ).toEqual({
      behavior: 'allow',
      updatedInput: { questions: QUESTIONS, answers: { 'Which database should we use?': 'SQLite' } },
    });
  });

  it('skips with annotations where the CLI can take them, and denies where it cannot', () => {
    expect(questionsResult(INPUT, { behavior: 'skip' }, true)).toEqual({
      behavior: 'allow',
      updatedInput: {
        questions: QUESTIONS,
        answers: {
          'Which database should we use?': 'The user skipped this question.',
          'Which features do you want?': 'The user skipped this question.',
        },
        annotations: {
          'Which database should we use?': { unanswered: 'skipped' },
          'Which features do you want?': { unanswered: 'skipped' },
        },
      },
    });
    expect(questionsResult(INPUT, { behavior: 'skip' }, false)).toEqual({
      behavior: 'deny',
      message: SKIPPED,
    });
  });
});

describe('planResult', () => {
  it('allows to approve, and denies with what to change to keep planning', () => {
    expect(planResult({}, { behavior: 'approve', mode: 'acceptEdits' })).toEqual({
      behavior: 'allow',
      updatedInput: {},
    });
    expect(planResult({}, { behavior: 'keep_planning', message: ' Add step C ' })).toEqual({
      behavior: 'deny',
      message: 'Add step C',
    });
    expect(planResult({}, { behavior: 'keep_planning', message: '' })).toMatchObject({ behavior: 'deny' });
  });
});

describe('Permissions with questions and plans', () => {
  function setup(capabilities: string[] = []) {
    const events: ConversationEvent[] = [];
    const permissions = new Permissions(
      (event) => events.push(event),
      () => undefined,
      { capabilities: () => capabilities, approveMode: () => 'acceptEdits' },
    );
    const ask = (toolName: string, input: Record<string, unknown>) => {
      const controller = new AbortController();
      const result = permissions.canUseTool(
        {
          subtype: 'can_use_tool',
          tool_name: toolName,
          input,
          tool_use_id: `toolu_${events.length}`,
          requires_user_interaction: true,
        },
        controller.signal,
      ) as Promise<PermissionResult>;
      const request = events.at(-1);
      if (request?.kind !== 'permission_request') throw new Error('no request');
      return { result, requestId: request.requestId, request, abort: () => controller.abort() };
    };
    return { events, permissions, ask };
  }

  it('sends each card its own answer, and refuses the other kind', async () => {
    const { events, permissions, ask } = setup([UNANSWERED_CAPABILITY]);
    const questions = ask('AskUserQuestion', INPUT);
    const plan = ask('ExitPlanMode', {});
    expect(questions.request.interaction).toEqual({ kind: 'questions', questions: QUESTIONS });
    expect(plan.request.interaction).toEqual({ kind: 'plan', approveMode: 'acceptEdits' });
    expect(permissions.answerPlan(questions.requestId, { behavior: 'approve', mode: 'default' })).toBe(false);
    expect(permissions.answerQuestions(plan.requestId, { behavior: 'skip' })).toBe(false);

    expect(permissions.answerQuestions(questions.requestId, { behavior: 'skip' })).toBe(true);
    expect(await questions.result).toMatchObject({
      behavior: 'allow',
      updatedInput: { annotations: { 'Which database should we use?': { unanswered: 'skipped' } } },
    });
    expect(permissions.answerPlan(plan.requestId, { behavior: 'keep_planning', message: 'Add C' })).toBe(
      true,
    );
    expect(await plan.result).toEqual({ behavior: 'deny', message: 'Add C' });
    expect(events.filter((event) => event.kind === 'permission_resolved')).toEqual([
      { kind: 'permission_resolved', requestId: questions.requestId, outcome: 'allowed', reason: null },
      { kind: 'permission_resolved', requestId: plan.requestId, outcome: 'denied', reason: null },
    ]);
    // Answered once only.
    expect(permissions.answerQuestions(questions.requestId, { behavior: 'skip' })).toBe(false);
  });

  it('a skip is a deny for a CLI that cannot be told a question went unanswered', async () => {
    const { permissions, ask } = setup();
    const questions = ask('AskUserQuestion', INPUT);
    permissions.answerQuestions(questions.requestId, { behavior: 'skip' });
    expect(await questions.result).toEqual({ behavior: 'deny', message: SKIPPED });
  });

  it('cancelled by the CLI, and denied when the turn stops, like a permission', async () => {
    const { events, permissions, ask } = setup();
    const cancelled = ask('AskUserQuestion', INPUT);
    const stopped = ask('ExitPlanMode', {});
    cancelled.abort();
    expect(await cancelled.result).toMatchObject({ behavior: 'deny' });
    permissions.denyAll('The user stopped Claude before answering.');
    expect(await stopped.result).toEqual({
      behavior: 'deny',
      message: 'The user stopped Claude before answering.',
    });
    expect(events.filter((event) => event.kind === 'permission_resolved')).toMatchObject([
      { requestId: cancelled.requestId, outcome: 'cancelled' },
      { requestId: stopped.requestId, outcome: 'cancelled' },
    ]);
    expect(permissions.answerPlan(stopped.requestId, { behavior: 'approve', mode: 'default' })).toBe(false);
  });
});
