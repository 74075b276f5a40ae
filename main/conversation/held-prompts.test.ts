import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import { HeldPrompts } from './held-prompts';

/**
 * Prompts held for the snapshot before their turn: sent after it, in the order they were sent; one
 * cancelled or stopped while it waits is never sent; one meant for a process that was replaced says so.
 */

function harness() {
  const events: ConversationEvent[] = [];
  const sent: string[] = [];
  const held = new HeldPrompts((event) => events.push(event));
  let release: () => void = () => undefined;
  const snapshot = new Promise<void>((resolve) => (release = resolve));
  const prompt = (uuid: string) => ({ uuid, send: () => sent.push(uuid) });
  return { events, sent, held, release, before: () => snapshot, prompt };
}

/** Lets the chain run to its end. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('HeldPrompts', () => {
  it('sends after the snapshot, in order, the ones behind the first waiting too', async () => {
    const { sent, held, release, before, prompt } = harness();
    held.hold(prompt('a'), before, () => true);
    expect(held.any).toBe(true);
    held.hold(prompt('b'), null, () => true);
    await settle();
    expect(sent).toEqual([]);
    release();
    await settle();
    expect(sent).toEqual(['a', 'b']);
    expect(held.any).toBe(false);
  });

  it('never sends one cancelled or stopped while it waits, and shows it cancelled', async () => {
    const { events, sent, held, release, before, prompt } = harness();
    held.hold(prompt('a'), before, () => true);
    held.hold(prompt('b'), null, () => true);
    held.hold(prompt('c'), null, () => true);
    expect(held.cancel('b')).toBe(true);
    expect(held.cancel('b')).toBe(false);
    release();
    await settle();
    expect(sent).toEqual(['a', 'c']);
    expect(events).toEqual([{ kind: 'prompt_cancelled', uuid: 'b' }]);

    const next = harness();
    next.held.hold(next.prompt('d'), next.before, () => true);
    next.held.dropAll();
    next.release();
    await settle();
    expect(next.sent).toEqual([]);
    expect(next.events).toEqual([{ kind: 'prompt_cancelled', uuid: 'd' }]);
  });

  it('says the message was not sent when its process was replaced meanwhile', async () => {
    const { events, sent, held, release, before, prompt } = harness();
    held.hold(prompt('a'), before, () => false);
    release();
    await settle();
    expect(sent).toEqual([]);
    expect(events).toEqual([
      { kind: 'prompt_cancelled', uuid: 'a' },
      { kind: 'warning', message: 'The message was not sent: Claude Code was restarted meanwhile.' },
    ]);
  });

  it('holds every prompt behind a shut gate, however many, and sends them in order once it opens', async () => {
    const { sent, held, release, before, prompt } = harness();
    let open: () => void = () => undefined;
    held.gate(new Promise<void>((resolve) => (open = resolve)));
    expect(held.any).toBe(true);
    held.hold(prompt('a'), before, () => true);
    held.hold(prompt('b'), null, () => true);
    release();
    await settle();
    expect(sent).toEqual([]);
    open();
    await settle();
    expect(sent).toEqual(['a', 'b']);
    expect(held.any).toBe(false);
  });

  it('still waits for the snapshot after the gate opens, for the prompt that starts the turn', async () => {
    const { sent, held, release, before, prompt } = harness();
    let open: () => void = () => undefined;
    held.gate(new Promise<void>((resolve) => (open = resolve)));
    held.hold(prompt('a'), before, () => true);
    open();
    await settle();
    expect(sent).toEqual([]);
    release();
    await settle();
    expect(sent).toEqual(['a']);
  });
});
