import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolResults, type RecordedRequest, type ScriptedReply } from '../../e2e/fake-model/server';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, ConversationSnapshot } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Questions and plans from Claude through the backend the UI talks to, against the real CLI and the fake
 * model: AskUserQuestion answered and skipped, and ExitPlanMode kept planning then approved, each asserted
 * where it matters, in the tool result the model gets next (cli-facts 17).
 */

type PermissionRequest = Extract<ConversationEvent, { kind: 'permission_request' }>;

let harness: BackendHarness;
let world: CliWorld;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: false });
  world = harness.world;
});

afterEach(() => harness.dispose());

const eventsOf = (conversation: ConversationSnapshot) => harness.eventsOf(conversation.conversationId);
const requestsOf = (conversation: ConversationSnapshot) =>
  eventsOf(conversation).filter((event): event is PermissionRequest => event.kind === 'permission_request');
const nthRequest = (conversation: ConversationSnapshot, n: number) =>
  harness.when(() => requestsOf(conversation)[n - 1]);
const results = (conversation: ConversationSnapshot) =>
  eventsOf(conversation).filter((event) => event.kind === 'message' && event.message.type === 'result')
    .length;
const nextToolResult = async (toolUseId: string) => {
  const request = await world.fake.waitForRequest((r: RecordedRequest) =>
    toolResults(r).some((result) => result.tool_use_id === toolUseId),
  );
  return toolResults(request).find((result) => result.tool_use_id === toolUseId);
};
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

const QUESTIONS = [
  {
    question: 'Which database should we use?',
    header: 'Database',
    options: [
      { label: 'SQLite', description: 'One file, no server' },
      { label: 'Postgres', description: 'A server', preview: 'docker run postgres' },
    ],
    multiSelect: false,
  },
  {
    question: 'Which features do you want?',
    header: 'Features',
    options: [
      { label: 'Search', description: 'Full text' },
      { label: 'Export', description: 'CSV and JSON' },
      { label: 'Sync', description: 'Across devices' },
    ],
    multiSelect: true,
  },
  {
    question: 'What should the app be called?',
    header: 'Name',
    options: [
      { label: 'Byre', description: 'A cowshed' },
      { label: 'Barn', description: 'A bigger shed' },
    ],
    multiSelect: false,
  },
];

const ask: ScriptedReply = {
  blocks: [{ type: 'tool_use', name: 'AskUserQuestion', input: { questions: QUESTIONS } }],
};

async function askedQuestions(): Promise<{ conversation: ConversationSnapshot; request: PermissionRequest }> {
  world.fake.enqueue(ask, say('Noted.'));
  const conversation = await harness.invoke('startConversation', { cwd: world.cwd });
  await harness.invoke('send', { conversationId: conversation.conversationId, text: 'plan the app' });
  const request = await nthRequest(conversation, 1);
  return { conversation, request };
}

describe('questions from Claude', () => {
  it('sends the answers: a label, labels joined, and the Other text', async () => {
    const { conversation, request } = await askedQuestions();
    expect(request).toMatchObject({
      toolName: 'AskUserQuestion',
      interaction: { kind: 'questions', questions: QUESTIONS },
    });
    await expect(
      harness.invoke('answerQuestions', {
        conversationId: conversation.conversationId,
        requestId: request.requestId,
        answer: {
          behavior: 'answer',
          answers: {
            'Which database should we use?': 'SQLite',
            'Which features do you want?': 'Search, Export',
            'What should the app be called?': 'Shieling',
          },
        },
      }),
    ).resolves.toEqual({ answered: true });
    const result = await nextToolResult(request.toolUseId ?? '');
    expect(result).toEqual({
      tool_use_id: request.toolUseId,
      is_error: false,
      content: expect.stringContaining(
        '"Which database should we use?"="SQLite", "Which features do you want?"="Search, Export", "What should the app be called?"="Shieling"',
      ),
    });
    await harness.when(() => results(conversation) === 1);
    // The call's result carries the answers, for the call to show them after the card has gone.
    const toolResultLine = eventsOf(conversation).find(
      (event) =>
        event.kind === 'message' &&
        event.message.type === 'user' &&
        JSON.stringify(event.message).includes('"tool_result"'),
    );
    expect(toolResultLine).toMatchObject({
      message: { tool_use_result: { answers: { 'Which database should we use?': 'SQLite' } } },
    });
  });

  it('skips: the model is told the questions went unanswered', async () => {
    const { conversation, request } = await askedQuestions();
    const init = eventsOf(conversation).find(
      (event) =>
        event.kind === 'message' && event.message.type === 'system' && event.message.subtype === 'init',
    );
    const capabilities =
      init?.kind === 'message' && init.message.type === 'system' && init.message.subtype === 'init'
        ? (init.message.capabilities ?? [])
        : [];
    await harness.invoke('answerQuestions', {
      conversationId: conversation.conversationId,
      requestId: request.requestId,
      answer: { behavior: 'skip' },
    });
    const result = await nextToolResult(request.toolUseId ?? '');
    // The pinned CLI can be told a question went unanswered (a CLI that cannot gets a deny: unit tests).
    expect(capabilities).toContain('ask_user_question_unanswered_v1');
    expect(result).toMatchObject({ is_error: false });
    expect(result?.content).toContain('"Which database should we use?"="The user skipped this question."');
    await harness.when(() => results(conversation) === 1);
  });
});

describe('plans from Claude', () => {
  it('keeps planning with what to change, then approves and goes on in the mode chosen', async () => {
    const exitPlan = (plan: string): ScriptedReply => ({
      blocks: [{ type: 'tool_use', name: 'ExitPlanMode', input: { plan } }],
    });
    world.fake.enqueue(
      exitPlan('1. Do A\n2. Do B'),
      exitPlan('1. Do A\n2. Do B\n3. Do C'),
      say('Going ahead.'),
      {
        blocks: [
          { type: 'tool_use', name: 'Write', input: { file_path: join(world.cwd, 'a.txt'), content: 'A\n' } },
        ],
      },
      say('Wrote it.'),
    );
    const conversation = await harness.invoke('startConversation', {
      cwd: world.cwd,
      permissionMode: 'plan',
    });
    expect(conversation.permissionMode).toBe('plan');
    await harness.invoke('send', { conversationId: conversation.conversationId, text: 'plan it' });

    const first = await nthRequest(conversation, 1);
    expect(first).toMatchObject({
      toolName: 'ExitPlanMode',
      interaction: { kind: 'plan', approveMode: 'default' },
    });
    await harness.invoke('answerPlan', {
      conversationId: conversation.conversationId,
      requestId: first.requestId,
      answer: { behavior: 'keep_planning', message: 'Add step C' },
    });
    expect(await nextToolResult(first.toolUseId ?? '')).toMatchObject({
      is_error: true,
      content: 'Add step C',
    });

    const second = await nthRequest(conversation, 2);
    // Still planning: nothing said otherwise.
    expect(eventsOf(conversation).some((event) => event.kind === 'permission_mode')).toBe(false);
    await expect(
      harness.invoke('answerPlan', {
        conversationId: conversation.conversationId,
        requestId: second.requestId,
        answer: { behavior: 'approve', mode: 'acceptEdits' },
      }),
    ).resolves.toEqual({ answered: true });
    expect(await nextToolResult(second.toolUseId ?? '')).toMatchObject({
      is_error: false,
      content: expect.stringContaining('User has approved'),
    });
    await harness.when(() => results(conversation) === 1);
    expect(eventsOf(conversation).filter((event) => event.kind === 'permission_mode')).toEqual([
      { kind: 'permission_mode', mode: 'acceptEdits' },
    ]);

    // The CLI is in that mode too: its next turn says so, and a file edit runs without asking.
    await harness.invoke('send', { conversationId: conversation.conversationId, text: 'write it' });
    await harness.when(() => results(conversation) === 2);
    const inits = eventsOf(conversation).flatMap((event) =>
      event.kind === 'message' && event.message.type === 'system' && event.message.subtype === 'init'
        ? [event.message.permissionMode]
        : [],
    );
    expect(inits.at(-1)).toBe('acceptEdits');
    expect(requestsOf(conversation)).toHaveLength(2);
    expect(existsSync(join(world.cwd, 'a.txt'))).toBe(true);
    // The choice is remembered for the next plan.
    expect(JSON.parse(readFileSync(join(harness.dataDir, 'settings.json'), 'utf8'))).toMatchObject({
      planApprovalMode: 'acceptEdits',
    });
  });
});
