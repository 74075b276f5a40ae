import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Usage through the backend as the Usage view asks for it, after a real CLI turn against the fake model: the
 * turn's tokens as the model reported them, once, under the conversation's folder and its day.
 */

let harness: BackendHarness;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
});

afterEach(async () => {
  await harness.dispose();
});

describe('the usage report', () => {
  it("counts a turn's tokens once, under its folder, its day and its conversation", async () => {
    const { world } = harness;
    world.fake.enqueue({
      blocks: [
        { type: 'text', text: 'First part of the answer.' },
        { type: 'text', text: 'Second part, in a block of its own.' },
      ],
      usage: { input_tokens: 1234, output_tokens: 56 },
    });
    const snapshot = await harness.invoke('startConversation', { cwd: world.cwd });
    await harness.invoke('send', {
      conversationId: snapshot.conversationId,
      text: 'How much does this cost?',
    });
    await harness.when(() =>
      harness
        .eventsOf(snapshot.conversationId)
        .some((event) => event.kind === 'message' && event.message.type === 'result'),
    );
    // The index may read the file between its lines: a message's first block line carries its usage so far.
    const asked = { range: 'all' as const, folder: null, timeZone: 'UTC' };
    const report = await harness.when(async () => {
      const seen = await harness.invoke('usageReport', asked);
      return seen.totals.tokens.output >= 56 && seen;
    });
    // Two content blocks, one message: counted once.
    expect(report.totals.tokens).toMatchObject({ input: 1234, output: 56 });
    expect(report.totals.conversations).toBe(1);
    expect(report.folders).toEqual([expect.objectContaining({ folder: world.cwd, conversations: 1 })]);
    expect(report.totals.top.map((row) => row.sessionId)).toEqual([snapshot.sessionId]);
    const day = report.days[0]?.day;
    expect(report.days).toHaveLength(1);
    const { conversations } = await harness.invoke('usageDayConversations', {
      day: day!,
      folder: world.cwd,
      timeZone: 'UTC',
    });
    expect(conversations).toEqual([
      expect.objectContaining({
        sessionId: snapshot.sessionId,
        tokens: expect.objectContaining({ input: 1234 }),
      }),
    ]);
  });

  it("counts a subagent's transcript toward its session, and gives the row and the window its cost", async () => {
    const { world } = harness;
    const started = Date.now();
    world.fake.enqueue({
      blocks: [{ type: 'text', text: 'One.' }],
      usage: { input_tokens: 1000, output_tokens: 10 },
    });
    world.fake.enqueue({
      blocks: [{ type: 'text', text: 'Two.' }],
      usage: { input_tokens: 1000, output_tokens: 10 },
    });
    const snapshot = await harness.invoke('startConversation', { cwd: world.cwd });
    const id = snapshot.conversationId;
    const turnEnded = (count: number) =>
      harness.when(
        () =>
          harness.eventsOf(id).filter((event) => event.kind === 'message' && event.message.type === 'result')
            .length >= count,
      );
    await harness.invoke('send', { conversationId: id, text: 'Start.' });
    await turnEnded(1);
    // A subagent's transcript in the shape the CLI writes it, beside the session's file.
    const sessionId = snapshot.sessionId!;
    const folder = join(dirname(world.sessionFile(sessionId)), sessionId, 'subagents');
    mkdirSync(folder, { recursive: true });
    const line = {
      parentUuid: null,
      isSidechain: true,
      userType: 'external',
      cwd: world.cwd,
      sessionId,
      agentId: 'a1b2c3d4',
      type: 'assistant',
      uuid: '4b1f0c1e-2d3a-4f5b-8c6d-7e8f9a0b1c2d',
      timestamp: new Date().toISOString(),
      requestId: 'req_sub_1',
      message: {
        id: 'msg_sub_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5-20251001',
        content: [{ type: 'text', text: 'Looked around.' }],
        usage: { input_tokens: 5000, output_tokens: 500 },
      },
    };
    writeFileSync(join(folder, 'agent-a1b2c3d4.jsonl'), `${JSON.stringify(line)}\n${JSON.stringify(line)}\n`);
    // The session's file grows with the next turn, and its subagents are looked at with it.
    await harness.invoke('send', { conversationId: id, text: 'Go on.' });
    await turnEnded(2);
    const asked = { range: 'all' as const, folder: null, timeZone: 'UTC' };
    const report = await harness.when(async () => {
      const seen = await harness.invoke('usageReport', asked);
      return seen.totals.tokens.input >= 7000 && seen.totals.tokens.output >= 520 && seen;
    });
    // Two real turns of 1000 in and 10 out, and the subagent's one message, once.
    expect(report.totals.tokens).toMatchObject({ input: 7000, output: 520 });
    expect(report.totals.conversations).toBe(1);
    expect(report.models.map((model) => model.model)).toContain('claude-haiku-4-5-20251001');
    const { rows } = await harness.invoke('libraryList', {});
    expect(rows).toHaveLength(1);
    expect(rows[0]?.cost.usd).toBeGreaterThan(0);
    const window = await harness.invoke('windowUsage', { since: started });
    expect(window.total).toMatchObject({ input: 7000, output: 520 });
    expect(window.conversations).toEqual([
      expect.objectContaining({
        sessionId,
        folder: world.cwd,
        tokens: expect.objectContaining({ input: 7000 }),
      }),
    ]);
    const later = await harness.invoke('windowUsage', { since: Date.now() + 60_000 });
    expect(later.conversations).toEqual([]);
  });
});
