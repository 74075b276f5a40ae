import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  lastUserText,
  toolResults,
  type RecordedRequest,
  type ScriptedReply,
} from '../../e2e/fake-model/server';
import type { CheckRun, ConversationEvent, ConversationSnapshot } from '../../shared/ipc';
import { CHECK_LINE } from '../../shared/saved-session';
import { processAlive } from '../../e2e/fixtures/cli-env';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * "Done when" through the backend the UI talks to, against the real CLI and the fake model: Byre's Stop hook
 * runs the conversation's check each time Claude stops, and a failing check keeps Claude going with the
 * failure in front of it, until it passes, the rounds run out, or the user stops it.
 */

let harness: BackendHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function open(settings: Record<string, unknown> = {}): Promise<BackendHarness> {
  harness = await openBackend({ dontAsk: true, settings });
  return harness;
}

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

type CheckEvent = Extract<ConversationEvent, { kind: 'check' }>;

function checksOf(h: BackendHarness, conversation: ConversationSnapshot): CheckRun[] {
  return h
    .eventsOf(conversation.conversationId)
    .filter((event): event is CheckEvent => event.kind === 'check')
    .map((event) => event.check);
}

const finishedChecks = (h: BackendHarness, conversation: ConversationSnapshot) =>
  checksOf(h, conversation).filter((check) => check.status !== 'running');

const resultCount = (h: BackendHarness, conversation: ConversationSnapshot) =>
  h
    .eventsOf(conversation.conversationId)
    .filter((event) => event.kind === 'message' && event.message.type === 'result').length;

/** Every text the request carries, however the CLI wrapped it (a system reminder, a tool result). */
const requestText = (request: RecordedRequest) => JSON.stringify(request.body);

async function startWithCheck(h: BackendHarness, command: string): Promise<ConversationSnapshot> {
  const conversation = await h.invoke('startConversation', { cwd: h.world.cwd });
  const set = await h.invoke('setDoneWhen', {
    conversationId: conversation.conversationId,
    command,
    folderDefault: false,
  });
  expect(set.command).toBe(command);
  return conversation;
}

describe('"Done when"', () => {
  it('keeps Claude going with the failure until the check passes, then lets the turn end', async () => {
    const h = await open();
    const { fake } = h.world;
    fake.enqueue(
      say('I think it is done.'),
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: join(h.world.cwd, 'done.txt'), content: 'yes\n' },
          },
        ],
      },
      say('Now done.txt exists.'),
    );
    const conversation = await startWithCheck(h, 'test -f done.txt');
    await h.invoke('send', { conversationId: conversation.conversationId, text: 'make done.txt' });
    await h.when(() => resultCount(h, conversation) === 1);

    // The model was asked three times: the prompt; the failed check's reason; the Write's result.
    const requests = fake.messageRequests();
    expect(requests).toHaveLength(3);
    expect(lastUserText(requests[0] as RecordedRequest)).toContain('make done.txt');
    const second = requestText(requests[1] as RecordedRequest);
    expect(second).toContain('Stop hook feedback');
    expect(second).toContain('The \\"Done when\\" check failed (round 1 of 5)');
    expect(second).toContain('Command: test -f done.txt');
    expect(second).toContain('Result: exit 1');
    expect(toolResults(requests[2] as RecordedRequest)).toHaveLength(1);
    expect(existsSync(join(h.world.cwd, 'done.txt'))).toBe(true);

    // Two runs of the check, each a running card then its end: failed, then passed on the CLI's second stop.
    const checks = checksOf(h, conversation);
    expect(checks.map((check) => [check.round, check.status, check.stopHookActive])).toEqual([
      [1, 'running', false],
      [1, 'failed', false],
      [2, 'running', true],
      [2, 'passed', true],
    ]);
    expect(checks[1]).toMatchObject({ summary: 'exit 1', command: 'test -f done.txt', gaveUp: false });
    expect(checks[3]).toMatchObject({ summary: 'exit 0', gaveUp: false });

    // The transcript keeps each finished run as a Byre line.
    const dir = join(h.dataDir, 'transcripts');
    const lines = readdirSync(dir).flatMap((file) =>
      readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean),
    );
    const kept = lines
      .map((line) => JSON.parse(line) as { dir: string; msg: { type?: string; check?: CheckRun } })
      .filter((line) => line.dir === 'byre' && line.msg.type === CHECK_LINE)
      .map((line) => line.msg.check?.status);
    expect(kept).toEqual(['failed', 'passed']);
    // The loop's end is a notification (shown if no window has the focus).
    expect(h.notifications).toContainEqual({
      conversationId: conversation.conversationId,
      title: 'Done: the check passed',
      message: 'test -f done.txt passed on round 2.',
    });
  });

  it('lets Claude stop after the last round allowed, and says so', async () => {
    const h = await open({ checkMaxRounds: 2 });
    const { fake } = h.world;
    fake.enqueue(say('First try.'), say('Second try.'));
    const conversation = await startWithCheck(h, 'echo still broken; exit 2');
    await h.invoke('send', { conversationId: conversation.conversationId, text: 'fix it' });
    await h.when(() => resultCount(h, conversation) === 1);

    expect(fake.messageRequests()).toHaveLength(2);
    expect(requestText(fake.messageRequests()[1] as RecordedRequest)).toContain('still broken');
    expect(finishedChecks(h, conversation).map((check) => [check.round, check.status, check.gaveUp])).toEqual(
      [
        [1, 'failed', false],
        [2, 'failed', true],
      ],
    );
    const warnings = h
      .eventsOf(conversation.conversationId)
      .flatMap((event) => (event.kind === 'warning' ? [event.message] : []));
    expect(warnings.some((message) => message.includes('after 2 rounds'))).toBe(true);
  });

  it('runs no check when the command is empty', async () => {
    const h = await open();
    h.world.fake.enqueue(say('Done.'));
    const conversation = await startWithCheck(h, '');
    await h.invoke('send', { conversationId: conversation.conversationId, text: 'hello' });
    await h.when(() => resultCount(h, conversation) === 1);
    expect(checksOf(h, conversation)).toEqual([]);
    expect(h.world.fake.messageRequests()).toHaveLength(1);
  });

  it('kills a running check when the user stops Claude, and the turn ends', async () => {
    const h = await open();
    h.world.fake.enqueue(say('Checking now.'));
    const pidFile = join(h.world.cwd, 'check.pid');
    const conversation = await startWithCheck(h, `echo $$ > ${pidFile}; exec sleep 300`);
    await h.invoke('send', { conversationId: conversation.conversationId, text: 'go' });
    await h.when(() => checksOf(h, conversation).some((check) => check.status === 'running'));
    const pid = await h.when(() => {
      try {
        const text = readFileSync(pidFile, 'utf8').trim();
        return text ? Number(text) : undefined;
      } catch {
        return undefined;
      }
    });
    expect(processAlive(pid)).toBe(true);

    await h.invoke('interrupt', { conversationId: conversation.conversationId });
    const stopped = await h.when(() =>
      finishedChecks(h, conversation).find((check) => check.status === 'stopped'),
    );
    expect(stopped.summary).toBe('stopped');
    // The process is gone (no event says so: looked at again every 20 ms).
    while (processAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    await h.when(() => resultCount(h, conversation) === 1);
    expect(h.world.fake.messageRequests()).toHaveLength(1);
  });

  it('new conversations in a folder start with its default', async () => {
    const h = await open();
    const first = await h.invoke('startConversation', { cwd: h.world.cwd });
    await h.invoke('setDoneWhen', {
      conversationId: first.conversationId,
      command: 'npm test',
      folderDefault: true,
    });
    const second = await h.invoke('startConversation', { cwd: h.world.cwd });
    const doneWhen = await h.when(() =>
      h.eventsOf(second.conversationId).find((event) => event.kind === 'done_when'),
    );
    expect(doneWhen).toEqual({ kind: 'done_when', command: 'npm test' });
    const settings = JSON.parse(readFileSync(join(h.dataDir, 'settings.json'), 'utf8')) as {
      doneWhenByFolder: Record<string, string>;
    };
    expect(settings.doneWhenByFolder[second.cwd]).toBe('npm test');
  });
});
