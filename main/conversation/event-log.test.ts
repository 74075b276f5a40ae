import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRun } from '../../shared/__fixtures__/check-run';
import type { ConversationEvent } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { EventLog, type EventLogLimits } from './event-log';

let dir: string;
const logs: EventLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-event-log-'));
});
afterEach(() => {
  for (const log of logs.splice(0)) log.close();
  rmSync(dir, { recursive: true, force: true });
});

function openLog(limits: Partial<EventLogLimits> = {}, path = join(dir, 'open', 'c1.jsonl')): EventLog {
  const log = new EventLog(path, limits);
  logs.push(log);
  return log;
}

let ids = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;
const prompt = (text: string): ConversationEvent => ({ kind: 'prompt', uuid: uuid(), text });
const reply = (text: string): ConversationEvent => ({
  kind: 'message',
  message: {
    type: 'assistant',
    uuid: uuid(),
    session_id: 's1',
    parent_tool_use_id: null,
    message: { id: `msg_${ids}`, role: 'assistant', content: [{ type: 'text', text }] },
  } as unknown as CliMessage,
});
const result = (): ConversationEvent => ({
  kind: 'message',
  message: { type: 'result', subtype: 'success', uuid: uuid() } as unknown as CliMessage,
});

/** `turns` turns of a prompt, `replies` replies and a result. */
function talk(log: EventLog, turns: number, replies = 1, text = 'x'): ConversationEvent[] {
  const all: ConversationEvent[] = [];
  for (let turn = 0; turn < turns; turn++) {
    all.push(prompt(`turn ${turn}`));
    for (let index = 0; index < replies; index++) all.push(reply(`${text} ${turn}.${index}`));
    all.push(result());
  }
  for (const event of all) log.append(event);
  return all;
}

/** Every page from the window back to the start, oldest first. */
function allPages(log: EventLog): ConversationEvent[][] {
  const window = log.window();
  const pages = [window.events];
  let before = window.before;
  while (before !== null) {
    const page = log.pageBefore(before);
    pages.unshift(page.events);
    before = page.before;
  }
  return pages;
}

describe('EventLog', () => {
  it('gives a short conversation whole, with nothing before it', () => {
    const log = openLog();
    const events = talk(log, 3);
    expect(log.window()).toEqual({ prelude: [], events, before: null });
  });

  it('gives a long conversation as its last screenful, and the rest page by page, each from a turn start', () => {
    const log = openLog({ minMessages: 60 });
    const events = talk(log, 200);
    const window = log.window();
    expect(window.before).not.toBeNull();
    expect(window.events[0]?.kind).toBe('prompt');
    // 60 messages at least: 30 turns of a prompt and a reply.
    expect(window.events.length).toBe(30 * 3);
    expect(window.events).toEqual(events.slice(-90));
    const pages = allPages(log);
    expect(pages.flat()).toEqual(events);
    for (const page of pages) expect(page[0]?.kind).toBe('prompt');
  });

  it('reads back from its file what it no longer holds in memory', () => {
    const path = join(dir, 'open', 'c1.jsonl');
    const log = openLog({ memoryBytes: 2_000, minMessages: 10 }, path);
    const events = talk(log, 300, 2, 'ü'.repeat(40));
    expect(allPages(log).flat()).toEqual(events);
    log.flush();
    expect(statSync(path).size).toBeGreaterThan(20_000);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'open')).mode & 0o777).toBe(0o700);
  });

  it('cuts a turn too long for one page at a reply, no page much over the limit', () => {
    const log = openLog({ minMessages: 1_000, softBytes: 10_000, hardBytes: 20_000, memoryBytes: 5_000 });
    const events = talk(log, 2, 200, 'y'.repeat(500));
    const pages = allPages(log);
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flat()).toEqual(events);
    for (const page of pages.slice(1)) {
      expect(['prompt', 'message']).toContain(page[0]?.kind);
      expect(JSON.stringify(page).length).toBeLessThan(21_000);
    }
  });

  it('opens a long turn with about a page, not all it could hold', () => {
    const log = openLog({ minMessages: 1_000, softBytes: 10_000, hardBytes: 40_000, memoryBytes: 5_000 });
    const events = talk(log, 1, 400, 'y'.repeat(500));
    const { events: window } = log.window();
    const bytes = JSON.stringify(window).length;
    expect(bytes).toBeGreaterThanOrEqual(10_000);
    expect(bytes).toBeLessThan(12_000);
    expect(window).toEqual(events.slice(events.length - window.length));
  });

  it('carries what the conversation is as a whole into a window that starts after it', () => {
    const log = openLog({ minMessages: 4 });
    const title: ConversationEvent = { kind: 'title', title: 'Fixing the build' };
    const model: ConversationEvent = { kind: 'model', model: 'claude-opus' };
    const asked: ConversationEvent = {
      kind: 'permission_request',
      requestId: 'r1',
      toolName: 'Bash',
      displayName: 'Bash',
      input: { command: 'ls' },
      toolUseId: null,
      description: null,
      blockedPath: null,
      remember: null,
    };
    const answered = { ...asked, requestId: 'r2' };
    log.append(title);
    log.append({ kind: 'model', model: 'claude-old' });
    log.append(model);
    log.append(asked);
    log.append(answered);
    log.append({ kind: 'permission_resolved', requestId: 'r2', outcome: 'allowed', reason: null });
    log.append({ kind: 'exit', error: { name: 'CliExited', message: 'gone' } });
    const resumed: ConversationEvent = {
      kind: 'resumed',
      snapshot: {
        conversationId: 'c1',
        sessionId: 's1',
        cwd: '/tmp',
        model: null,
        models: [],
        claudeCodeVersion: null,
        permissionMode: 'default',
      },
    };
    log.append(resumed);
    const doneWhen: ConversationEvent = { kind: 'done_when', command: 'npm test' };
    log.append(doneWhen);
    const check = checkRun();
    log.append({ kind: 'check', check });
    const events = talk(log, 20);
    const window = log.window();
    expect(window.before).not.toBeNull();
    // The last check's result without its card, which stays where it was.
    expect(window.prelude).toEqual([title, model, asked, resumed, doneWhen, { kind: 'check_status', check }]);
    expect(window.events).toEqual(events.slice(-6));
    // Earlier pages are history as it was: nothing is repeated.
    expect(allPages(log).flat()).toHaveLength(10 + events.length);
  });

  it('never begins a page at a prompt queued while a turn ran', () => {
    const log = openLog({ minMessages: 2 });
    const first = prompt('first');
    const queued = prompt('queued');
    const events = [
      first,
      reply('a'),
      queued,
      result(),
      reply('b'),
      result(),
      prompt('last'),
      reply('c'),
      result(),
    ];
    for (const event of events) log.append(event);
    const pages = allPages(log);
    expect(pages.flat()).toEqual(events);
    for (const page of pages) expect(page[0]).not.toBe(queued);
  });

  it('cuts a long turn only where no tool call waits and a reply starts', () => {
    const log = openLog({ minMessages: 1_000, softBytes: 2_000, hardBytes: 4_000, memoryBytes: 1_000 });
    const big = 'z'.repeat(600);
    const line = (id: string, content: unknown[], parent: string | null = null): ConversationEvent => ({
      kind: 'message',
      message: {
        type: 'assistant',
        uuid: uuid(),
        session_id: 's1',
        parent_tool_use_id: parent,
        message: { id, role: 'assistant', content },
      } as unknown as CliMessage,
    });
    const toolResult = (id: string): ConversationEvent => ({
      kind: 'message',
      message: {
        type: 'user',
        uuid: uuid(),
        session_id: 's1',
        parent_tool_use_id: null,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: big }] },
      } as unknown as CliMessage,
    });
    const events: ConversationEvent[] = [prompt('go')];
    for (let call = 0; call < 20; call++) {
      // One reply of two lines (text, then the call), a subagent's reply inside the call, then its result.
      events.push(line(`m${call}`, [{ type: 'text', text: big }]));
      events.push(line(`m${call}`, [{ type: 'tool_use', id: `t${call}`, name: 'Task', input: {} }]));
      events.push(line(`sub${call}`, [{ type: 'text', text: big }], `t${call}`));
      events.push(toolResult(`t${call}`));
    }
    events.push(result());
    for (const event of events) log.append(event);
    const pages = allPages(log);
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.flat()).toEqual(events);
    for (const page of pages.slice(1)) {
      // Each begins with the first line of a top-level reply.
      const first = page[0];
      if (first?.kind !== 'message' || first.message.type !== 'assistant') throw new Error('not a reply');
      expect(first.message.parent_tool_use_id).toBeNull();
      expect(JSON.stringify(first.message.message.content)).toContain('"text"');
    }
  });

  it('cuts at the nearest reply even when none starts within the limit', () => {
    const log = openLog({ minMessages: 1_000, softBytes: 1_000, hardBytes: 2_000, memoryBytes: 1_000 });
    const events = talk(log, 1, 3, 'w'.repeat(5_000));
    const pages = allPages(log);
    // The prompt, then each reply on its own: none waits for a turn start 15 KB back.
    expect(pages.length).toBe(4);
    expect(pages.flat()).toEqual(events);
  });

  it('keeps everything in memory when its file cannot be made', () => {
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const log = openLog({ memoryBytes: 100, minMessages: 10 }, join(blocker, 'c1.jsonl'));
    const events = talk(log, 50);
    expect(allPages(log).flat()).toEqual(events);
  });

  it('refuses a cursor that is not one of its own', () => {
    const log = openLog();
    talk(log, 2);
    expect(() => log.pageBefore('99')).toThrow(/reopen the conversation/);
    expect(() => log.pageBefore('{"file":0}')).toThrow(/reopen the conversation/);
  });

  it('removes its file when closed', () => {
    const path = join(dir, 'open', 'c1.jsonl');
    const log = openLog({}, path);
    talk(log, 2);
    log.flush();
    expect(existsSync(path)).toBe(true);
    log.close();
    expect(existsSync(path)).toBe(false);
  });
});
