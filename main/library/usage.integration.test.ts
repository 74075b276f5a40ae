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
});
