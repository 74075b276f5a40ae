import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorld, type CliWorld } from '../../e2e/fixtures/cli-env';
import {
  Gate,
  imageBlocks,
  isSubagentRequest,
  lastUserText,
  type RecordedRequest,
} from '../../e2e/fake-model/server';
import type { AssistantMessage, ResultMessage, UserMessage } from '../../shared/protocol';
import { CliExited, CliNotFound, TurnCancelled } from './errors';
import { locateCli } from './locate';
import type { BadLine } from './decode';
import { Session, type SessionEvent, type SessionOptions } from './session';

/** These tests run the real claude CLI (the pinned devDependency) against the scripted fake model. */

let world: CliWorld;
const sessions: Session[] = [];

beforeEach(async () => {
  world = await createCliWorld();
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close({ graceMs: 500, termMs: 500 })));
  await world.dispose();
});

async function open(name: string, options: Partial<SessionOptions> = {}): Promise<Session> {
  const session = await Session.start({
    cwd: world.cwd,
    env: world.env,
    transcript: world.transcriptPath(name),
    ...options,
  });
  sessions.push(session);
  return session;
}

/** Records every event, and waits for the first one that matches. */
function watch(session: Session) {
  const seen: SessionEvent[] = [];
  const waiters: { match: (event: SessionEvent) => boolean; resolve: (event: SessionEvent) => void }[] = [];
  session.on((event) => {
    seen.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  return {
    seen,
    messages: () => seen.flatMap((event) => (event.kind === 'message' ? [event.message] : [])),
    results: () =>
      seen.flatMap((event) =>
        event.kind === 'message' && event.message.type === 'result'
          ? [{ result: event.message, settles: event.settles }]
          : [],
      ),
    /** Resolves once `count` events match in all. */
    async count(match: (event: SessionEvent) => boolean, count: number): Promise<void> {
      while (seen.filter(match).length < count) {
        await new Promise<SessionEvent>((resolve) => waiters.push({ match, resolve }));
      }
    },
    next(match: (event: SessionEvent) => boolean): Promise<SessionEvent> {
      const already = seen.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const isTextDelta = (event: SessionEvent): boolean =>
  event.kind === 'message' &&
  event.message.type === 'stream_event' &&
  event.message.event.type === 'content_block_delta' &&
  event.message.event.delta.type === 'text_delta';

/** Role and flattened text of each message the model received in one request. */
function history(request: RecordedRequest): { role: string; text: string }[] {
  const body = request.body as {
    messages: { role: string; content: string | { type: string; text?: string }[] }[];
  };
  return body.messages.map((message) => ({
    role: message.role,
    text:
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => block.text ?? `[${block.type}]`).join(''),
  }));
}

/** The CLI's word that it queued the prompt with this uuid behind the running turn. */
const queuedEvent =
  (uuid: string) =>
  (event: SessionEvent): boolean =>
    event.kind === 'message' &&
    event.message.type === 'command_lifecycle' &&
    event.message.command_uuid === uuid &&
    event.message.state === 'queued';

async function until(condition: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const words = (count: number): string =>
  Array.from({ length: count }, (_, index) => `word${index}`).join(' ');

describe('the claude driver against the real CLI', () => {
  it('runs two turns in one process, the second queued while the first streams, each settled on its own result', async () => {
    const firstAnswer = new Gate();
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: 'The first answer.' }], hold: { after: 1, until: firstAnswer } },
      { blocks: [{ type: 'text', text: 'The second answer.' }] },
    );
    const session = await open('two-turns');
    const events = watch(session);
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.info.models.length).toBeGreaterThan(0);

    const first = session.send('turn one');
    await events.next(isTextDelta);
    const second = session.send('turn two');
    await events.next(queuedEvent(second.uuid));
    firstAnswer.release();
    const [r1, r2] = await Promise.all([first.result, second.result]);

    expect(r1.subtype).toBe('success');
    expect(r1.result).toBe('The first answer.');
    expect(r2.result).toBe('The second answer.');
    expect(r1.session_id).toBe(session.id);
    expect(events.results().map((entry) => entry.settles)).toEqual([first.uuid, second.uuid]);
    // The model saw the first exchange when answering the second.
    const requests = world.fake.messageRequests();
    const last = history(requests[requests.length - 1]!);
    expect(last.filter((m) => m.role !== 'system').map((m) => m.text.trim())).toEqual([
      'turn one',
      'The first answer.',
      'turn two',
    ]);
    // Our uuids were adopted: the session file stores the prompts under them.
    const file = readFileSync(world.sessionFile(session.id), 'utf8');
    expect(file).toContain(`"uuid":"${first.uuid}"`);
    expect(file).toContain(`"uuid":"${second.uuid}"`);
  });

  it('sends an image turn whose bytes reach the model', async () => {
    // A real 2x2 PNG.
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'A tiny image.' }] });
    const transcript = world.transcriptPath('image-turn');
    const session = await open('image-turn', { transcript });
    const turn = session.send([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'text', text: 'What is in this image?' },
    ]);
    expect((await turn.result).result).toBe('A tiny image.');
    const request = world.fake.messageRequests()[0]!;
    expect(imageBlocks(request)).toEqual([{ media_type: 'image/png', data: png }]);
    expect(lastUserText(request)).toContain('What is in this image?');
    // The transcript keeps the image itself, not a placeholder.
    const sent = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { dir: string; msg: { type: string; message?: { content: unknown } } },
      )
      .find((line) => line.dir === 'send' && line.msg.type === 'user');
    expect(sent?.msg.message?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'text', text: 'What is in this image?' },
    ]);
  });

  it('interrupts a reply mid-stream, keeps the partial answer, and takes another turn', async () => {
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: words(40) }], hold: { after: 3, until: new Gate() } },
      { blocks: [{ type: 'text', text: 'Still here.' }] },
    );
    const session = await open('interrupt');
    const events = watch(session);
    const turn = session.send('tell me a long story');
    await events.count(isTextDelta, 3);
    const answer = await session.interrupt();
    expect(answer.still_queued).toEqual([]);

    const result = await turn.result;
    expect(result.subtype).toBe('error_during_execution');
    expect(result.is_error).toBe(true);
    const streamed = world.fake.messageRequests()[0]!;
    // The fake hears the CLI hang up in its own time, which may come after the result on a busy machine.
    await world.fake.waitForFinished(streamed);
    expect(streamed.closedEarly).toBe(true);
    expect(streamed.deltasSent).toBe(3);
    const partial = events
      .messages()
      .find(
        (message): message is AssistantMessage => message.type === 'assistant' && message.aborted === true,
      );
    expect(partial?.message.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^word0 word1 word2/),
    });
    // The CLI's own line stands for the partial reply: Byre writes no second one into the transcript.
    const transcript = readFileSync(world.transcriptPath('interrupt'), 'utf8');
    expect(transcript).toContain('"aborted":true');
    expect(transcript).not.toContain('"dir":"byre"');

    const again = await session.send('are you still there?').result;
    expect(again.subtype).toBe('success');
    expect(again.result).toBe('Still here.');
    const followUp = history(world.fake.messageRequests()[1]!);
    expect(followUp.some((m) => m.role === 'assistant' && m.text.startsWith('word0 word1'))).toBe(true);
  });

  it('settles every turn when an interrupt races the end of its reply, and goes on taking turns', async () => {
    const session = await open('interrupt-race');
    const events = watch(session);
    const isLine = (type: string, streamType?: string) => (event: SessionEvent) =>
      event.kind === 'message' &&
      event.message.type === type &&
      (streamType === undefined ||
        (event.message.type === 'stream_event' && event.message.event.type === streamType));
    // The interrupt goes out as the reply starts, as its text streams, as it completes, and as the turn ends.
    const points = [
      isLine('stream_event', 'message_start'),
      isTextDelta,
      isLine('assistant'),
      isLine('result'),
    ];
    const outcomes: string[] = [];
    for (const [index, point] of points.entries()) {
      world.fake.enqueue({ blocks: [{ type: 'text', text: `Reply ${index}.` }] });
      const seen = events.seen.filter(point).length;
      const turn = session.send(`turn ${index}`);
      await events.count(point, seen + 1);
      const interrupted = session.interrupt().then(
        () => 'answered',
        (error: Error) => `refused: ${error.name}`,
      );
      const result = await turn.result;
      expect(['success', 'error_during_execution']).toContain(result.subtype);
      outcomes.push(`${result.subtype} / ${await interrupted}`);
    }
    // Whatever each race's outcome, the session takes the next turn as if nothing had happened.
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Still here.' }] });
    expect((await session.send('still there?').result).result).toBe('Still here.');
    expect(outcomes).toHaveLength(4);
    expect(events.seen.some((event) => event.kind === 'exit')).toBe(false);
  });

  it('switches the model with set_model, answering the CLI probe, and uses it for the next turn', async () => {
    const session = await open('set-model');
    const events = watch(session);
    await session.send('hello').result;
    const answer = await session.setModel('claude-sonnet-4-5');
    expect(answer.model).toBe('claude-sonnet-4-5');
    const probe = world.fake.requests.find(
      (request) => !request.stream && request.model === 'claude-sonnet-4-5',
    );
    expect(probe).toBeDefined();

    await session.send('and now?').result;
    const requests = world.fake.messageRequests();
    expect(requests[0]!.model).not.toBe('claude-sonnet-4-5');
    expect(requests[requests.length - 1]!.model).toBe('claude-sonnet-4-5');
    const inits = events.messages().filter((m) => m.type === 'system' && m.subtype === 'init');
    expect(inits.map((m) => (m.type === 'system' && m.subtype === 'init' ? m.model : ''))).toEqual([
      requests[0]!.model,
      'claude-sonnet-4-5',
    ]);
  });

  it('launches with the model the user chose', async () => {
    const session = await open('chosen-model', { model: 'claude-sonnet-4-5' });
    await session.send('hello').result;
    expect(world.fake.messageRequests()[0]!.model).toBe('claude-sonnet-4-5');
  });

  it('runs a Bash tool call and delivers its result to the app and the model', async () => {
    world.fake.enqueue(
      {
        blocks: [
          { type: 'text', text: 'Running it.' },
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'echo hello-from-bash', description: 'say hello' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'It printed hello.' }] },
    );
    const session = await open('bash-tool');
    const events = watch(session);
    const result = await session.send('run echo').result;
    expect(result.result).toBe('It printed hello.');
    expect(result.num_turns).toBe(2);

    const toolUse = events
      .messages()
      .flatMap((m) => (m.type === 'assistant' ? m.message.content : []))
      .find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'Bash', input: { command: 'echo hello-from-bash' } });
    const toolResult = events
      .messages()
      .filter((m): m is UserMessage => m.type === 'user')
      .flatMap((m) => (typeof m.message.content === 'string' ? [] : m.message.content))
      .find((block) => block.type === 'tool_result');
    expect(toolResult).toMatchObject({ content: 'hello-from-bash', is_error: false });
    const followUp = world.fake.messageRequests()[1]!;
    expect(JSON.stringify((followUp.body as { messages: unknown[] }).messages.at(-1))).toContain(
      'hello-from-bash',
    );
  });

  it('keeps the agent going when a Stop hook blocks once', async () => {
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: 'First stop attempt.' }] },
      { blocks: [{ type: 'text', text: 'Second, after the hook.' }] },
    );
    const inputs: Record<string, unknown>[] = [];
    const session = await open('stop-hook', {
      hooks: {
        Stop: [
          {
            callback: (input) => {
              inputs.push(input);
              return inputs.length === 1 ? { decision: 'block', reason: 'keep going: check the tests' } : {};
            },
          },
        ],
      },
    });
    const events = watch(session);
    const result = await session.send('do the work').result;
    expect(result.subtype).toBe('success');
    expect(result.result).toBe('Second, after the hook.');
    expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
    expect(inputs[0]).toMatchObject({
      hook_event_name: 'Stop',
      last_assistant_message: 'First stop attempt.',
    });
    expect(events.results()).toHaveLength(1);
    const second = world.fake.messageRequests()[1]!;
    expect(JSON.stringify(second.body)).toContain('keep going: check the tests');
  });

  it('lets the model call a byre tool on the first turn', async () => {
    world.fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'mcp__byre__set_title', input: { title: 'Parser bug hunt' } }] },
      { blocks: [{ type: 'text', text: 'Titled.' }] },
    );
    const session = await open('byre-tool');
    const events = watch(session);
    const result = await session.send('help me find the parser bug').result;
    expect(result.result).toBe('Titled.');

    const first = world.fake.messageRequests()[0]!;
    const tools = (first.body as { tools: { name: string; input_schema?: { properties?: object } }[] }).tools;
    const setTitle = tools.find((tool) => tool.name === 'mcp__byre__set_title');
    expect(setTitle?.input_schema?.properties).toHaveProperty('title');
    expect(tools.some((tool) => tool.name === 'mcp__byre__notify')).toBe(true);
    expect(events.seen).toContainEqual({ kind: 'title', title: 'Parser bug hunt' });
    const followUp = JSON.stringify(world.fake.messageRequests()[1]!.body);
    expect(followUp).toContain('Title set to \\"Parser bug hunt\\"');
  });

  it('rewinds to an assistant message into a fork, leaving the original session file byte-identical', async () => {
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: 'A1 answer.' }] },
      { blocks: [{ type: 'text', text: 'A2 answer.' }] },
      { blocks: [{ type: 'text', text: 'B answer.' }] },
    );
    const original = await open('rewind-original');
    const events = watch(original);
    await original.send('A turn 1').result;
    await original.send('A turn 2').result;
    const firstAnswer = events
      .messages()
      .find((m): m is AssistantMessage => m.type === 'assistant' && JSON.stringify(m).includes('A1 answer.'));
    expect(firstAnswer).toBeDefined();
    await original.close();
    const originalFile = world.sessionFile(original.id);
    const before = createHash('sha256').update(readFileSync(originalFile)).digest('hex');

    const forkId = randomUUID();
    const fork = await open('rewind-fork', {
      resume: original.id,
      resumeSessionAt: firstAnswer!.uuid,
      forkSession: true,
      sessionId: forkId,
    });
    expect(fork.id).toBe(forkId);
    const result = await fork.send('B new turn').result;
    expect(result.session_id).toBe(forkId);
    expect(result.result).toBe('B answer.');

    const seen = history(world.fake.messageRequests()[2]!).filter((m) => m.role !== 'system');
    expect(seen.map((m) => m.text.trim())).toEqual(['A turn 1', 'A1 answer.', 'B new turn']);
    expect(createHash('sha256').update(readFileSync(originalFile)).digest('hex')).toBe(before);
    expect(readFileSync(world.sessionFile(forkId), 'utf8')).toContain(firstAnswer!.uuid);
  });

  it('reports the result of a turn the CLI starts by itself when a background subagent finishes', async () => {
    world.fake.when(isSubagentRequest, {
      blocks: [{ type: 'text', text: 'Subagent report: all files counted.' }],
    });
    world.fake.when((request) => lastUserText(request).includes('task-notification'), {
      blocks: [{ type: 'text', text: 'The background count is done.' }],
    });
    world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Agent',
            input: {
              description: 'count files',
              prompt: 'Count the files.',
              subagent_type: 'general-purpose',
            },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'Started a background count.' }] },
    );
    const session = await open('background-agent');
    const events = watch(session);
    const turn = session.send('count the files in the background');
    expect((await turn.result).result).toBe('Started a background count.');

    const unsolicited = (await events.next(
      (event) => event.kind === 'message' && event.message.type === 'result' && event.settles === undefined,
    )) as { kind: 'message'; message: ResultMessage };
    expect(unsolicited.message.result).toBe('The background count is done.');
    expect(events.results().map((entry) => entry.settles)).toEqual([turn.uuid, undefined]);
    const started = events.messages().find((m) => m.type === 'system' && m.subtype === 'task_started');
    expect(started).toMatchObject({ task_type: 'local_agent', is_backgrounded: true });
    expect(session.pendingTurns).toEqual([]);
  });

  it('asks the permission handler before a tool runs when not bypassing permissions', async () => {
    world.fake.enqueue(
      {
        blocks: [
          { type: 'tool_use', name: 'Bash', input: { command: 'touch denied.txt', description: 'deny me' } },
        ],
      },
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'touch allowed.txt', description: 'allow me' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'One of two.' }] },
    );
    const asked: string[] = [];
    const session = await open('permissions', {
      permissionMode: 'default',
      canUseTool: (request) => {
        const command = String(request.input.command);
        asked.push(`${request.tool_name}: ${command}`);
        return command.includes('denied')
          ? { behavior: 'deny', message: 'host says no' }
          : { behavior: 'allow', updatedInput: request.input };
      },
    });
    const result = await session.send('make two files').result;
    expect(result.result).toBe('One of two.');
    expect(asked).toEqual(['Bash: touch denied.txt', 'Bash: touch allowed.txt']);
    expect(existsSync(join(world.cwd, 'denied.txt'))).toBe(false);
    expect(existsSync(join(world.cwd, 'allowed.txt'))).toBe(true);
    expect(JSON.stringify(world.fake.messageRequests()[1]!.body)).toContain('host says no');
  });

  it('answers the other control requests: mcp_status, get_context_usage, set_permission_mode', async () => {
    const session = await open('control-methods');
    await session.send('hello').result;
    const status = await session.mcpStatus();
    expect(status.mcpServers).toContainEqual(expect.objectContaining({ name: 'byre', status: 'connected' }));
    const byre = status.mcpServers.find((server) => server.name === 'byre');
    expect(byre?.tools?.map((tool) => tool.name)).toEqual(expect.arrayContaining(['set_title', 'notify']));
    expect(Object.keys(await session.getContextUsage()).length).toBeGreaterThan(0);
    await session.setPermissionMode('acceptEdits');
    const events = watch(session);
    await session.send('again').result;
    const init = events.messages().find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init).toMatchObject({ permissionMode: 'acceptEdits' });
  });

  it('cancels a queued prompt before the model ever sees it', async () => {
    const firstAnswer = new Gate();
    world.fake.enqueue({
      blocks: [{ type: 'text', text: words(15) }],
      hold: { after: 1, until: firstAnswer },
    });
    const session = await open('cancel-queued');
    const events = watch(session);
    const first = session.send('a slow one');
    await events.next(isTextDelta);
    const queued = session.send('never mind this one');
    await events.next(queuedEvent(queued.uuid));
    expect(await session.cancelQueued(queued.uuid)).toBe(true);
    await expect(queued.result).rejects.toBeInstanceOf(TurnCancelled);
    firstAnswer.release();
    expect((await first.result).subtype).toBe('success');
    expect(
      world.fake.messageRequests().some((request) => JSON.stringify(request.body).includes('never mind')),
    ).toBe(false);
  });

  it('reports a non-JSON stdout line to onBadLine and carries on', async () => {
    const wrapper = join(world.home, 'claude-noisy');
    const real = locateCli({ env: { PATH: '' } });
    writeFileSync(wrapper, `#!/bin/sh\necho 'this line is not json'\nexec "${real}" "$@"\n`);
    chmodSync(wrapper, 0o755);
    const bad: BadLine[] = [];
    const session = await open('bad-line', { cliPath: wrapper, onBadLine: (line) => bad.push(line) });
    expect((await session.send('hello').result).subtype).toBe('success');
    expect(bad).toContainEqual(expect.objectContaining({ text: 'this line is not json' }));
  });

  it('still ends a turn on a result line that fails its schema (as from a newer CLI)', async () => {
    const wrapper = join(world.home, 'claude-newer');
    const real = locateCli({ env: { PATH: '' } });
    // Drop a field from every result line, as a future CLI might.
    writeFileSync(wrapper, `#!/bin/sh\n"${real}" "$@" | sed -u 's/"total_cost_usd":[0-9.e-]*,//'\n`);
    chmodSync(wrapper, 0o755);
    const bad: BadLine[] = [];
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Answered anyway.' }] });
    const session = await open('newer-result', { cliPath: wrapper, onBadLine: (line) => bad.push(line) });
    const result = await session.send('hello').result;
    expect(result.result).toBe('Answered anyway.');
    expect(result.total_cost_usd).toBe(0);
    expect(bad.some((line) => line.problem.startsWith('result line does not match its schema'))).toBe(true);
  });

  it('turns a CLI killed mid-turn into CliExited, and the session can be resumed', async () => {
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: words(50) }], hold: { after: 3, until: new Gate() } },
      { blocks: [{ type: 'text', text: 'Back again.' }] },
    );
    const session = await open('killed');
    const events = watch(session);
    const turn = session.send('remember the number 42');
    await events.count(isTextDelta, 3);
    // Kill only once the CLI has saved the prompt; a process killed before that has nothing to resume.
    await until(
      () =>
        existsSync(world.sessionFile(session.id)) &&
        readFileSync(world.sessionFile(session.id), 'utf8').includes(turn.uuid),
    );
    process.kill(session.pid!, 'SIGKILL');

    const error = await turn.result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliExited);
    expect((error as CliExited).signal).toBe('SIGKILL');
    const exit = await events.next((event) => event.kind === 'exit');
    expect(exit).toMatchObject({ kind: 'exit', error: expect.any(CliExited) });
    await expect(session.interrupt()).rejects.toBeInstanceOf(CliExited);
    // The reply so far is in the transcript, as the assistant line it never got, marked unfinished.
    const cut = readFileSync(world.transcriptPath('killed'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { dir: string; msg: AssistantMessage })
      .filter((line) => line.dir === 'byre');
    expect(cut).toHaveLength(1);
    expect(cut[0]!.msg).toMatchObject({ type: 'assistant', aborted: true, session_id: session.id });
    const text = cut[0]!.msg.message.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('');
    expect(text).toMatch(/^word0 word1 word2/);
    expect(text).not.toContain('word3');

    const resumed = await open('killed-resumed', session.resumeOptions());
    expect(resumed.id).toBe(session.id);
    expect((await resumed.send('what was the number?').result).result).toBe('Back again.');
    const seen = history(world.fake.messageRequests().at(-1)!);
    expect(seen.some((m) => m.role === 'user' && m.text.includes('remember the number 42'))).toBe(true);
  });

  it('finishes the running turn after stdin EOF, then the CLI exits cleanly', async () => {
    const rest = new Gate();
    world.fake.enqueue({ blocks: [{ type: 'text', text: words(8) }], hold: { after: 1, until: rest } });
    const session = await open('eof');
    const events = watch(session);
    const turn = session.send('finish even if I hang up');
    await events.next(isTextDelta);
    session.endInput();
    rest.release();
    expect((await turn.result).result).toBe(words(8));
    const exit = await session.exited;
    expect(exit.code).toBe(0);
    expect(events.seen.at(-1)).toMatchObject({ kind: 'exit' });
    expect(events.seen.at(-1)).not.toHaveProperty('error');
  });

  it('throws CliNotFound, listing every place looked, when there is no CLI', async () => {
    const empty = join(world.home, 'empty');
    mkdirSync(empty);
    const attempt = Session.start({
      cwd: world.cwd,
      env: { ...world.env, PATH: empty },
      cliPath: join(empty, 'claude'),
    });
    await expect(attempt).rejects.toBeInstanceOf(CliNotFound);
    let error: CliNotFound | undefined;
    try {
      locateCli({ env: { PATH: empty }, home: world.home, resolveFrom: join(empty, 'x.js') });
    } catch (caught) {
      error = caught as CliNotFound;
    }
    expect(error).toBeInstanceOf(CliNotFound);
    expect(error!.looked).toContain(join(empty, 'claude'));
    expect(error!.looked).toContain(join(world.home, '.local', 'bin', 'claude'));
    expect(error!.looked).toContain(join(world.home, '.claude', 'local', 'claude'));
    expect(error!.message).toContain(join(world.home, '.local', 'bin', 'claude'));
  });

  it('redacts the account email everywhere in the transcript and leaves stream events out', async () => {
    const email = 'alice.liddell@example.com';
    writeFileSync(
      join(world.home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        oauthAccount: {
          emailAddress: email,
          accountUuid: 'acct-1',
          organizationUuid: 'org-1',
          organizationName: 'Org',
        },
      }),
    );
    mkdirSync(join(world.home, '.claude'), { recursive: true });
    writeFileSync(
      join(world.home, '.claude', '.credentials.json'),
      JSON.stringify({
        claudeAiOauth: {
          accessToken: 'sk-ant-oat01-fake',
          refreshToken: 'sk-ant-ort01-fake',
          expiresAt: 4_102_444_800_000,
          scopes: ['user:inference', 'user:profile'],
          subscriptionType: 'max',
        },
      }),
    );
    const env = { ...world.env };
    delete env.ANTHROPIC_API_KEY;
    world.fake.enqueue({ blocks: [{ type: 'text', text: `You are signed in as ${email}.` }] });
    const transcript = world.transcriptPath('redaction');
    const session = await open('redaction', { env, transcript });
    expect(session.info.account?.email).toBe(email);
    await session.send(`Which account is ${email}?`).result;
    await session.close();

    const text = readFileSync(transcript, 'utf8');
    expect(text).not.toContain(email);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { dir: string; msg: { type: string } });
    expect(lines.filter((line) => line.dir === 'send').map((line) => line.msg.type)).toContain('user');
    expect(lines.some((line) => line.msg.type === 'stream_event')).toBe(false);
    const mentions = lines.filter((line) => JSON.stringify(line).includes('[redacted]'));
    // The initialize response, our prompt, and the model's answer and result all named the email.
    expect(mentions.map((line) => line.msg.type)).toEqual(
      expect.arrayContaining(['control_response', 'user', 'assistant', 'result']),
    );
    expect(existsSync(transcript)).toBe(true);
  });
});
