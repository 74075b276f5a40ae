import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { gitIn } from '../changes/test-support/git';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText, toolResults, type ScriptedReply } from '../../e2e/fake-model/server';
import {
  processAlive,
  processesWithHome,
  REPO_ROOT,
  seedInteractiveCli,
  type CliWorld,
} from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, ConversationSnapshot, InvokeChannel, InvokeRequest } from '../../shared/ipc';
import { ONE_PIXEL_PNG } from '../test-support/images';
import { backendOver, invokeOk, openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * The Terminal lane through the backend the UI talks to: the real interactive CLI in a real PTY, against the
 * fake model (cli-facts 19). What the person types reaches the model as the interactive CLI's own request
 * (`(external, cli)`: billed to the plan), the reply is drawn in the terminal, and Byre follows the turn by
 * its hooks: Changes, "needs you", "done", "Done when", and closing ends everything.
 */

let harness: BackendHarness;
let world: CliWorld;
/** What each Terminal conversation drew, in order. */
const screens = new Map<string, string>();

const invoke = <C extends InvokeChannel>(channel: C, request: InvokeRequest<C>) =>
  harness.invoke(channel, request);
const when = <T>(check: () => T | undefined | false | Promise<T | undefined | false>) => harness.when(check);

beforeEach(async () => {
  harness = await openBackend({ dontAsk: false });
  world = harness.world;
  seedInteractiveCli(world.home, [world.cwd], world.env.ANTHROPIC_API_KEY ?? '');
  screens.clear();
  harness.backend.on((channel, payload) => {
    if (channel !== 'terminalOutput') return;
    const { conversationId, data } = payload as { conversationId: string; data: string };
    screens.set(conversationId, (screens.get(conversationId) ?? '') + data);
  });
});

afterEach(() => harness.dispose());

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const screenOf = (conversation: ConversationSnapshot) => screens.get(conversation.conversationId) ?? '';
/**
 * The screen's text as a person reads it: each escape sequence (a colour, a cursor move between words) taken
 * for a space, spaces folded.
 */
const plain = (text: string) =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]/g, ' ')
    .replace(/\s+/g, ' ');
const activities = (conversation: ConversationSnapshot) =>
  harness
    .eventsOf(conversation.conversationId)
    .filter((event): event is Extract<ConversationEvent, { kind: 'activity' }> => event.kind === 'activity');

/** Waits for a state no event announces (a process gone), looking again every 50 ms. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function startTerminal(): Promise<ConversationSnapshot> {
  const conversation = await invoke('startConversation', {
    cwd: world.cwd,
    lane: 'terminal',
    size: { cols: 100, rows: 30 },
  });
  expect(conversation.lane).toBe('terminal');
  // The CLI's prompt is up: it takes keys.
  await when(() => /for shortcuts|Try "|>\s*$/m.test(plain(screenOf(conversation))));
  return conversation;
}

/** Types a line as a person would: the characters, then Enter. */
async function type(conversation: ConversationSnapshot, text: string): Promise<void> {
  await invoke('terminalInput', { conversationId: conversation.conversationId, data: text });
  await invoke('terminalInput', { conversationId: conversation.conversationId, data: '\r' });
}

describe('the Terminal lane', () => {
  it('runs the interactive CLI: a typed turn reaches the model as the terminal (billed to the plan) and its reply is drawn', async () => {
    world.fake.enqueue(say('Hello from the plan lane.'));
    const conversation = await startTerminal();
    await type(conversation, 'hello there');
    const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('hello there'));
    expect(String(request.headers['user-agent'])).toMatch(/\(external, cli\)/);
    expect(String(request.headers['user-agent'])).not.toMatch(/sdk-cli/);
    await when(() => plain(screenOf(conversation)).includes('Hello from the plan lane.'));
    // The Stop hook said the turn ended.
    await when(() => activities(conversation).some((event) => event.state === 'done'));
    expect(activities(conversation).map((event) => event.state)).toContain('working');
    // One CLI per session: restoring files of a session open in this lane starts no Stream CLI beside it.
    const restore = await harness.backend.invoke('rewindFiles', {
      target: { sessionId: conversation.sessionId },
      userMessageUuid: '00000000-0000-4000-8000-000000000000',
      dryRun: true,
    });
    expect(restore).toMatchObject({ ok: false, error: { name: 'NotSupported' } });
  });

  it('keeps a tool turn in Changes, says "needs you" while a permission waits, and ends everything on close', async () => {
    world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'echo made > made.txt && sleep 300 &', description: 'make the file' },
          },
        ],
      },
      say('Made it.'),
    );
    const conversation = await startTerminal();
    await type(conversation, 'make the file');
    // Default mode: the CLI asks in the terminal, and Byre's tab says Claude waits for the person.
    const waiting = await when(() => activities(conversation).find((event) => event.state === 'needs_you'));
    expect(waiting.what).toMatch(/permission|Bash/i);
    // Its PreToolUse hook said which tool, on what, in the words a Stream conversation's tab reads too.
    expect(harness.eventsOf(conversation.conversationId)).toContainEqual({
      kind: 'tool',
      name: 'Bash',
      detail: 'echo made > made.txt && sleep 300 &',
    });
    expect(harness.notifications.some((n) => n.conversationId === conversation.conversationId)).toBe(true);
    // The person allows it, in the terminal: Enter on the first choice ("Yes").
    await invoke('terminalInput', { conversationId: conversation.conversationId, data: '\r' });
    await world.fake.waitForRequest((r) => toolResults(r).length > 0);
    await when(() => plain(screenOf(conversation)).includes('Made it.'));
    // The turn's snapshot lists the file the shell command made, with the command that made it.
    const view = await when(async () => {
      const changes = await invoke('changes', {
        conversationId: conversation.conversationId,
        step: null,
        scope: 'conversation',
      });
      // Listed once the turn's own snapshot has it (before that, only as changed since the last one).
      return changes.files.some((file) => file.path === 'made.txt' && file.steps.length > 0)
        ? changes
        : undefined;
    });
    const made = view.files.find((file) => file.path === 'made.txt');
    expect(made?.steps.at(-1)?.causes[0]).toMatchObject({ tool: 'Bash' });
    expect(view.steps.at(-1)).toMatchObject({ kind: 'turn', prompt: 'make the file' });

    // An image pasted into it is kept for its CLI in a folder of the person's alone, until it closes.
    const image = await invoke('terminalImage', {
      conversationId: conversation.conversationId,
      name: 'dot.png',
      data: ONE_PIXEL_PNG,
    });
    if (!image.ok) throw new Error(image.message);
    expect(statSync(dirname(image.path)).mode & 0o777).toBe(0o700);
    expect(statSync(image.path).mode & 0o777).toBe(0o600);
    expect(readFileSync(image.path).toString('base64')).toBe(ONE_PIXEL_PNG);

    const cliPids = processesWithHome(world.home);
    expect(cliPids.length).toBeGreaterThan(0);
    await invoke('closeConversation', { conversationId: conversation.conversationId });
    // The CLI and what it started (the backgrounded sleep) are gone, and so is the image kept for it.
    await until(() => processesWithHome(world.home).filter(processAlive).length === 0);
    expect(cliPids.filter(processAlive)).toEqual([]);
    expect(existsSync(dirname(image.path))).toBe(false);
  });
});

describe('"Done when" in the Terminal lane', () => {
  it('runs the check when Claude stops, and a failing one keeps Claude going until it passes', async () => {
    const done = join(world.cwd, 'done.txt');
    world.fake.enqueue(
      say('I think I am finished.'),
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: done, content: 'yes\n' } }] },
      say('Now it is really done.'),
    );
    const conversation = await invoke('startConversation', {
      cwd: world.cwd,
      lane: 'terminal',
      // File edits go ahead without asking: the turn needs no one at the keyboard but the first prompt.
      permissionMode: 'acceptEdits',
      size: { cols: 100, rows: 30 },
    });
    await when(() => /for shortcuts|accept edits/i.test(plain(screenOf(conversation))));
    await invoke('setDoneWhen', {
      conversationId: conversation.conversationId,
      command: 'test -f done.txt',
      folderDefault: false,
    });
    await type(conversation, 'finish the work');
    const checks = () =>
      harness
        .eventsOf(conversation.conversationId)
        .flatMap((event) =>
          event.kind === 'check' && event.check.status !== 'running' ? [event.check] : [],
        );
    await when(() => checks().some((check) => check.status === 'passed'));
    expect(checks().map((check) => check.status)).toEqual(['failed', 'passed']);
    expect(checks()[1]).toMatchObject({ round: 2, stopHookActive: true });
    // The failed check's command reached the model, which then made the file.
    const kept = world.fake
      .messageRequests()
      .find((r) => JSON.stringify(r.body).includes('test -f done.txt'));
    expect(kept).toBeDefined();
    expect(readFileSync(done, 'utf8')).toBe('yes\n');
    await when(() => activities(conversation).at(-1)?.state === 'done');
  });
});

describe('quitting Byre', () => {
  it('ends every Terminal conversation and what its CLI started', async () => {
    const quitting = backendOver(join(harness.dataDir, 'quitting'), world.env);
    let screen = '';
    quitting.on((channel, payload) => {
      if (channel === 'terminalOutput') screen += (payload as { data: string }).data;
    });
    await invokeOk(quitting, 'startConversation', {
      cwd: world.cwd,
      lane: 'terminal',
      size: { cols: 100, rows: 30 },
    });
    await until(() => /for shortcuts/.test(plain(screen)));
    const running = processesWithHome(world.home).filter(processAlive);
    expect(running.length).toBeGreaterThan(0);
    await quitting.dispose();
    await until(() => running.every((pid) => !processAlive(pid)));
  });
});

describe('lanes, carried on', () => {
  /** Polls `ask` until it answers (the library indexes the session file in its own time). */
  async function eventually<T>(ask: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await ask();
      } catch (error) {
        if (!/NoSuchSession|no longer in the library/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  it('resumes a Terminal conversation in the Terminal lane after a restart, with its history', async () => {
    world.fake.enqueue(say('Noted: pelican.'), say('It was pelican.'));
    const first = await startTerminal();
    await type(first, 'Remember the word pelican');
    await when(() => activities(first).some((event) => event.state === 'done'));
    await invoke('closeConversation', { conversationId: first.conversationId });

    const restarted = backendOver(harness.dataDir, world.env);
    const restartedScreens = new Map<string, string>();
    restarted.on((channel, payload) => {
      if (channel !== 'terminalOutput') return;
      const { conversationId, data } = payload as { conversationId: string; data: string };
      restartedScreens.set(conversationId, (restartedScreens.get(conversationId) ?? '') + data);
    });
    try {
      // Opened from the library, with no lane asked for: it goes on in the lane it ran in.
      const resumed = await eventually(() =>
        invokeOk(restarted, 'resumeSaved', { sessionId: first.sessionId, size: { cols: 100, rows: 30 } }),
      );
      expect(resumed).toMatchObject({ lane: 'terminal', sessionId: first.sessionId });
      await until(() => /for shortcuts/.test(plain(restartedScreens.get(resumed.conversationId) ?? '')));
      await invokeOk(restarted, 'terminalInput', {
        conversationId: resumed.conversationId,
        data: 'Which word?',
      });
      await invokeOk(restarted, 'terminalInput', { conversationId: resumed.conversationId, data: '\r' });
      const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('Which word?'));
      expect(String(request.headers['user-agent'])).toMatch(/\(external, cli\)/);
      // The same session: the model has its history.
      expect(JSON.stringify(request.body)).toContain('Remember the word pelican');
    } finally {
      await restarted.dispose();
    }
  });

  it('carries a Stream conversation on in the Terminal lane and back, the same session each time', async () => {
    world.fake.enqueue(
      { ...say('Noted: heron.'), usage: { input_tokens: 1000, output_tokens: 11 } },
      { ...say('Heron, in the terminal.'), usage: { input_tokens: 3000, output_tokens: 33 } },
      { ...say('Heron, streamed.'), usage: { input_tokens: 1000, output_tokens: 11 } },
    );
    const stream = await invoke('startConversation', { cwd: world.cwd, lane: 'stream' });
    expect(stream.lane ?? 'stream').toBe('stream');
    await invoke('send', { conversationId: stream.conversationId, text: 'Remember the word heron' });
    await when(() =>
      harness
        .eventsOf(stream.conversationId)
        .some((event) => event.kind === 'message' && event.message.type === 'result'),
    );
    const streamed = await world.fake.waitForRequest((r) => lastUserText(r).includes('heron'));
    expect(String(streamed.headers['user-agent'])).toMatch(/sdk-cli/);

    const { snapshot: terminal } = await invoke('switchLane', {
      conversationId: stream.conversationId,
      lane: 'terminal',
      size: { cols: 100, rows: 30 },
    });
    expect(terminal).toMatchObject({ lane: 'terminal', sessionId: stream.sessionId });
    await when(() => /for shortcuts/.test(plain(screenOf(terminal))));
    await type(terminal, 'And in the terminal?');
    const typed = await world.fake.waitForRequest((r) => lastUserText(r).includes('And in the terminal?'));
    expect(String(typed.headers['user-agent'])).toMatch(/\(external, cli\)/);
    expect(JSON.stringify(typed.body)).toContain('Remember the word heron');
    await when(() => activities(terminal).some((event) => event.state === 'done'));

    const back = await eventually(() =>
      invoke('switchLane', { conversationId: terminal.conversationId, lane: 'stream' }),
    );
    expect(back.snapshot).toMatchObject({ sessionId: stream.sessionId });
    expect(back.snapshot.lane ?? 'stream').toBe('stream');
    // Its history before the switch is there to page back through.
    expect(back.savedBefore).not.toBeNull();
    await invoke('send', { conversationId: back.snapshot.conversationId, text: 'And streamed again?' });
    const again = await world.fake.waitForRequest((r) => lastUserText(r).includes('streamed again'));
    expect(String(again.headers['user-agent'])).toMatch(/sdk-cli/);
    expect(JSON.stringify(again.body)).toContain('And in the terminal?');

    // The Usage view shows what each lane asked apart, from the session file the CLI wrote in both lanes.
    await when(() =>
      harness
        .eventsOf(back.snapshot.conversationId)
        .some((event) => event.kind === 'message' && event.message.type === 'result'),
    );
    const lanes = await when(async () => {
      const { lanes } = await invoke('usageReport', { range: 'all', folder: null, timeZone: 'UTC' });
      const output = (lane: string) => lanes.find((row) => row.lane === lane)?.tokens.output ?? 0;
      return output('terminal') >= 33 && output('stream') >= 22 && lanes;
    });
    expect(lanes.map((row) => [row.lane, row.conversations, row.tokens.input, row.tokens.output])).toEqual([
      ['terminal', 1, 3000, 33],
      ['stream', 1, 2000, 22],
    ]);
  });
});

describe('the Terminal lane in a new worktree', () => {
  it('runs the setup command first, then the CLI in the worktree with the first message as its prompt', async () => {
    writeFileSync(join(world.cwd, 'app.txt'), 'main\n');
    gitIn(world.cwd, 'init', '--quiet', '-b', 'main');
    gitIn(world.cwd, 'add', '-A');
    gitIn(world.cwd, 'commit', '--quiet', '-m', 'main');
    await invoke('setWorktreeSetup', { repository: world.cwd, command: 'echo ready > setup-ran.txt' });
    world.fake.enqueue(say('Working in the worktree.'));
    const conversation = await invoke('startConversation', {
      cwd: world.cwd,
      lane: 'terminal',
      worktree: { base: 'main', name: 'terminal-work' },
      firstMessage: 'hello from the worktree',
      size: { cols: 100, rows: 30 },
    });
    expect(conversation).toMatchObject({
      lane: 'terminal',
      worktree: { name: 'terminal-work', base: 'main' },
    });
    expect(conversation.cwd).not.toBe(world.cwd);
    // The setup ran in the worktree before the CLI started there.
    const setups = () =>
      harness
        .eventsOf(conversation.conversationId)
        .flatMap((event) => (event.kind === 'setup' ? [event.run.status] : []));
    await when(() => setups().includes('passed'));
    expect(readFileSync(join(conversation.cwd, 'setup-ran.txt'), 'utf8')).toBe('ready\n');
    // Its opening prompt reached the model from the interactive CLI, which runs in the worktree.
    const request = await world.fake.waitForRequest((r) =>
      lastUserText(r).includes('hello from the worktree'),
    );
    expect(String(request.headers['user-agent'])).toMatch(/\(external, cli\)/);
    expect(JSON.stringify(request.body)).toContain(conversation.cwd);
    await when(() => plain(screenOf(conversation)).includes('Working in the worktree.'));
    // The main checkout is as it was.
    expect(gitIn(world.cwd, 'status', '--porcelain=v1')).toBe('');
  });
});

describe("the terminal's flow control", () => {
  it('holds a flood of output back while the window that draws it is behind, and lets it go as it draws', async () => {
    const flood = backendOver(join(harness.dataDir, 'flood'), {
      ...world.env,
      BYRE_CLAUDE_PATH: join(REPO_ROOT, 'bench', 'pty-flood.mjs'),
      BENCH_FLOOD_BYTES: String(40_000_000),
    });
    let received = 0;
    let lastSeq = -1;
    let tail = '';
    let wake: () => void = () => undefined;
    flood.on((channel, payload) => {
      if (channel !== 'terminalOutput') return;
      const { data, seq } = payload as { data: string; seq: number };
      received += data.length;
      lastSeq = seq;
      tail = (tail + data).slice(-64);
      wake();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    try {
      const { conversationId } = await invokeOk(flood, 'startConversation', {
        cwd: world.cwd,
        lane: 'terminal',
        size: { cols: 120, rows: 30 },
      });
      await invokeOk(flood, 'terminalInput', { conversationId, data: '\r' });
      // A window that draws the first batch, then falls behind.
      while (lastSeq < 0) await next();
      await invokeOk(flood, 'terminalDrawn', { conversationId, seq: lastSeq });
      while (received < 4 * 1024 * 1024) await next();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // Held back: far less than the 40 MB the program writes at once (at most the limit, one batch, and
      // what the PTY itself holds), whatever the machine's speed.
      expect(received).toBeLessThan(6 * 1024 * 1024);
      expect(tail).not.toContain('flood-done-marker');
      // Drawing again, it all comes.
      while (!tail.includes('flood-done-marker')) {
        await invokeOk(flood, 'terminalDrawn', { conversationId, seq: lastSeq });
        await Promise.race([next(), new Promise((resolve) => setTimeout(resolve, 200))]);
      }
      expect(received).toBeGreaterThan(40_000_000);
    } finally {
      await flood.dispose();
    }
  });
});
