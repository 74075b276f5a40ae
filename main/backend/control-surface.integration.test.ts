import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isSubagentRequest,
  lastUserText,
  toolResults,
  type RecordedRequest,
  type ScriptedReply,
} from '../../e2e/fake-model/server';
import type { CliWorld } from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, ConversationSnapshot, InvokeChannel, InvokeRequest } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * The control surface through the backend the UI talks to, against the real CLI and the fake model: asking
 * before acting (new conversations start in the CLI's `default` mode with `--permission-prompt-tool stdio`,
 * and each `can_use_tool` waits for the user's answer), retries, context usage, MCP servers and stopping
 * background work.
 */

type PermissionRequest = Extract<ConversationEvent, { kind: 'permission_request' }>;
type PermissionResolved = Extract<ConversationEvent, { kind: 'permission_resolved' }>;

let harness: BackendHarness;
let world: CliWorld;

beforeEach(async () => {
  // No settings file: the app's own default, which asks.
  harness = await openBackend({ dontAsk: false });
  world = harness.world;
});

afterEach(() => harness.dispose());

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);
const when = <T>(check: () => T | undefined | false) => harness.when(check);

const eventsOf = (conversation: ConversationSnapshot) => harness.eventsOf(conversation.conversationId);
const requestsOf = (conversation: ConversationSnapshot) =>
  eventsOf(conversation).filter((event): event is PermissionRequest => event.kind === 'permission_request');
const resolvedOf = (conversation: ConversationSnapshot) =>
  eventsOf(conversation).filter((event): event is PermissionResolved => event.kind === 'permission_resolved');
const results = (conversation: ConversationSnapshot) =>
  eventsOf(conversation).filter((event) => event.kind === 'message' && event.message.type === 'result')
    .length;

/** Waits for the conversation's n-th permission request (1-based). */
const nthRequest = (conversation: ConversationSnapshot, n: number) =>
  when(() => requestsOf(conversation)[n - 1]);

const bash = (command: string): ScriptedReply => ({
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: `run ${command}` } }],
});
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The first request to the model that matches (e.g. the one carrying a tool result). */
const requestAfterTool = (match: (request: RecordedRequest) => boolean) => world.fake.waitForRequest(match);

async function start(): Promise<ConversationSnapshot> {
  const conversation = await invoke('startConversation', { cwd: world.cwd });
  expect(conversation.permissionMode).toBe('default');
  return conversation;
}

describe('permission requests', () => {
  it('asks before a Bash command, shows what it will run, and runs it once allowed', async () => {
    world.fake.enqueue(bash('touch allowed.txt'), say('Made it.'));
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'make the file' });
    const request = await nthRequest(conversation, 1);
    expect(request).toMatchObject({
      toolName: 'Bash',
      displayName: 'Bash',
      input: { command: 'touch allowed.txt' },
      description: 'run touch allowed.txt',
    });
    expect(request.toolUseId).toMatch(/^toolu_/);
    expect(request.remember).toBe(
      `Bash(touch allowed.txt) in this project; access to ${world.cwd} for this conversation`,
    );
    // Nothing runs while it waits.
    expect(existsSync(join(world.cwd, 'allowed.txt'))).toBe(false);
    await expect(
      invoke('answerPermission', {
        conversationId: conversation.conversationId,
        requestId: request.requestId,
        answer: { behavior: 'allow', remember: false },
      }),
    ).resolves.toEqual({ answered: true });
    await when(() => results(conversation) === 1);
    expect(existsSync(join(world.cwd, 'allowed.txt'))).toBe(true);
    expect(resolvedOf(conversation)).toEqual([
      { kind: 'permission_resolved', requestId: request.requestId, outcome: 'allowed', reason: null },
    ]);
    // A second answer finds nothing waiting.
    await expect(
      invoke('answerPermission', {
        conversationId: conversation.conversationId,
        requestId: request.requestId,
        answer: { behavior: 'deny', message: '' },
      }),
    ).resolves.toEqual({ answered: false });
  });

  it('denies with a reason, which reaches the model as the tool result', async () => {
    world.fake.enqueue(bash('rm -rf build'), say('Understood, I left it.'));
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'clean up' });
    const request = await nthRequest(conversation, 1);
    await invoke('answerPermission', {
      conversationId: conversation.conversationId,
      requestId: request.requestId,
      answer: { behavior: 'deny', message: 'Keep the build folder; I need it.' },
    });
    const next = await requestAfterTool((r) => toolResults(r).length > 0);
    expect(toolResults(next)).toEqual([
      expect.objectContaining({
        is_error: true,
        content: expect.stringContaining('Keep the build folder; I need it.'),
      }),
    ]);
    await when(() => results(conversation) === 1);
    expect(resolvedOf(conversation)).toMatchObject([{ outcome: 'denied' }]);
  });

  it('always allows: the same command later runs without asking', async () => {
    world.fake.enqueue(bash('touch again.txt'), say('Once.'), bash('touch again.txt'), say('Twice.'));
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'first time' });
    const request = await nthRequest(conversation, 1);
    await invoke('answerPermission', {
      conversationId: conversation.conversationId,
      requestId: request.requestId,
      answer: { behavior: 'allow', remember: true },
    });
    await when(() => results(conversation) === 1);
    rmSync(join(world.cwd, 'again.txt'));
    await invoke('send', { conversationId: conversation.conversationId, text: 'second time' });
    await when(() => results(conversation) === 2);
    expect(requestsOf(conversation)).toHaveLength(1);
    expect(existsSync(join(world.cwd, 'again.txt'))).toBe(true);
  });

  it('lets two subagents ask at once, each answered on its own', async () => {
    // Each subagent runs one command named in its prompt, then reports.
    world.fake.when(isSubagentRequest, (request) =>
      toolResults(request).length > 0
        ? say('Subagent done.')
        : bash(`touch ${/make (\S+)/.exec(lastUserText(request))?.[1] ?? 'unknown.txt'}`),
    );
    world.fake.enqueue(
      {
        blocks: ['left.txt', 'right.txt'].map((file) => ({
          type: 'tool_use' as const,
          name: 'Agent',
          input: {
            description: `make ${file}`,
            prompt: `Please make ${file} now.`,
            subagent_type: 'general-purpose',
          },
        })),
      },
      say('Both subagents finished.'),
    );
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'make both files' });
    // Both wait together: neither blocks the other.
    const [first, second] = [await nthRequest(conversation, 1), await nthRequest(conversation, 2)];
    expect([first.input.command, second.input.command].sort()).toEqual(['touch left.txt', 'touch right.txt']);
    expect(resolvedOf(conversation)).toEqual([]);
    for (const request of [second, first]) {
      await invoke('answerPermission', {
        conversationId: conversation.conversationId,
        requestId: request.requestId,
        answer: { behavior: 'allow', remember: false },
      });
    }
    // Subagents may run in the background, after the turn that started them has ended.
    const made = () => ['left.txt', 'right.txt'].filter((file) => existsSync(join(world.cwd, file)));
    // The answers' events reach a window in the next batch, which may come after the files are there.
    await when(() => made().length === 2 && resolvedOf(conversation).length === 2);
    expect(resolvedOf(conversation).map((resolved) => resolved.outcome)).toEqual(['allowed', 'allowed']);
  });

  it('denies what is still waiting when the user stops the turn', async () => {
    world.fake.enqueue(bash('touch stopped.txt'), say('Stopped.'));
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'make it' });
    const request = await nthRequest(conversation, 1);
    await invoke('interrupt', { conversationId: conversation.conversationId });
    const resolved = await when(() => resolvedOf(conversation)[0]);
    expect(resolved).toMatchObject({ requestId: request.requestId, outcome: 'cancelled' });
    expect(resolved.reason).toMatch(/stopped/i);
    await when(() => results(conversation) === 1);
    expect(existsSync(join(world.cwd, 'stopped.txt'))).toBe(false);
  });

  it('writes without asking once the mode is "Accept edits"', async () => {
    const file = join(world.cwd, 'notes.md');
    world.fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: file, content: 'notes\n' } }] },
      say('Wrote the notes.'),
    );
    const conversation = await start();
    await expect(
      invoke('setPermissionMode', { conversationId: conversation.conversationId, mode: 'acceptEdits' }),
    ).resolves.toEqual({ mode: 'acceptEdits' });
    await when(() => eventsOf(conversation).some((event) => event.kind === 'permission_mode'));
    expect(eventsOf(conversation)).toContainEqual({ kind: 'permission_mode', mode: 'acceptEdits' });
    await invoke('send', { conversationId: conversation.conversationId, text: 'write the notes' });
    await when(() => results(conversation) === 1);
    expect(existsSync(file)).toBe(true);
    expect(requestsOf(conversation)).toEqual([]);
  });
});

describe('figures, servers and background work', () => {
  it('shows the retry as a known message, then the reply', async () => {
    world.fake.enqueue(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      say('Made it.'),
    );
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'hello' });
    await when(() => results(conversation) === 1);
    const messages = eventsOf(conversation).flatMap((event) =>
      event.kind === 'message' ? [event.message] : [],
    );
    const retry = messages.find((message) => message.type === 'system' && message.subtype === 'api_retry');
    expect(retry).toMatchObject({ attempt: 1, error_status: 529, error: 'overloaded' });
    expect(messages.findIndex((message) => message === retry)).toBeLessThan(
      messages.findIndex((message) => message.type === 'result'),
    );
    // Not reported as a line the app could not read.
    expect(eventsOf(conversation).filter((event) => event.kind === 'bad_line')).toEqual([]);
  });

  it('reports how full the context is, by category, and the MCP servers with their tools', async () => {
    world.fake.enqueue(say('Hi.'));
    const conversation = await start();
    await invoke('send', { conversationId: conversation.conversationId, text: 'hello' });
    await when(() => results(conversation) === 1);
    const usage = await invoke('contextUsage', { conversationId: conversation.conversationId });
    expect(usage.usedTokens).toBeGreaterThan(0);
    expect(usage.maxTokens).toBeGreaterThan(usage.usedTokens);
    expect(usage.categories.map((category) => category.name)).toContain('System prompt');
    expect(usage.categories.at(-1)).toMatchObject({ kind: 'free' });
    const { servers } = await invoke('mcpStatus', { conversationId: conversation.conversationId });
    expect(servers).toContainEqual({
      name: 'byre',
      status: 'connected',
      error: null,
      tools: expect.arrayContaining(['set_title', 'notify']),
      builtIn: true,
    });
  });

  it('stops a background shell command', async () => {
    world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'sleep 120', description: 'wait a long time', run_in_background: true },
          },
        ],
      },
      say('Started it in the background.'),
    );
    const conversation = await invoke('startConversation', {
      cwd: world.cwd,
      permissionMode: 'bypassPermissions',
    });
    await invoke('send', { conversationId: conversation.conversationId, text: 'wait in the background' });
    const started = await when(() =>
      eventsOf(conversation).find(
        (event) =>
          event.kind === 'message' &&
          event.message.type === 'system' &&
          event.message.subtype === 'task_started',
      ),
    );
    const taskId =
      started.kind === 'message' && started.message.type === 'system' && 'task_id' in started.message
        ? String(started.message.task_id)
        : '';
    await invoke('stopTask', { conversationId: conversation.conversationId, taskId });
    const ended = await when(() =>
      eventsOf(conversation).find(
        (event) =>
          event.kind === 'message' &&
          event.message.type === 'system' &&
          event.message.subtype === 'task_notification' &&
          event.message.task_id === taskId,
      ),
    );
    expect(ended).toMatchObject({ message: { status: expect.stringMatching(/stopped|killed|cancel/i) } });
  });
});
