import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Gate, imageBlocks, type ScriptedReply } from '../../e2e/fake-model/server';
import { processesWithHome } from '../../e2e/fixtures/cli-env';
import type { ConversationEvent, ConversationSnapshot } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * An open conversation crosses to a window that opens later (a reload, a second window) as its last
 * screenful and a cursor, and the rest page by page, against the real CLI and the fake model. Pages here
 * hold 4 messages, so a few turns make several.
 */

let harness: BackendHarness;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true, pageLimits: { minMessages: 4 } });
});
afterEach(() => harness.dispose());

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const results = (id: string) =>
  harness.eventsOf(id).filter((event) => event.kind === 'message' && event.message.type === 'result').length;
const prompts = (events: readonly ConversationEvent[]) =>
  events.flatMap((event) => (event.kind === 'prompt' ? [event.text] : []));
/** What a window that was open all along got, but for the stream deltas (the complete lines follow them). */
const shown = (events: readonly ConversationEvent[]) =>
  events.filter((event) => !(event.kind === 'message' && event.message.type === 'stream_event'));

async function talk(conversation: ConversationSnapshot, text: string): Promise<void> {
  const before = results(conversation.conversationId);
  await harness.invoke('send', { conversationId: conversation.conversationId, text });
  await harness.when(() => results(conversation.conversationId) > before);
}

describe('an open conversation, windowed', () => {
  it('gives a window its last screenful, then every earlier page in order, each from a turn start', async () => {
    const turns = ['one', 'two', 'three', 'four', 'five', 'six'];
    harness.world.fake.enqueue(...turns.map((turn) => say(`Answer ${turn}.`)));
    const conversation = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const id = conversation.conversationId;
    for (const turn of turns) await talk(conversation, `turn ${turn}`);

    const { conversations } = await harness.invoke('listConversations', {});
    expect(conversations).toHaveLength(1);
    const window = conversations[0];
    if (!window) throw new Error('no conversation listed');
    expect(window.snapshot.conversationId).toBe(id);
    expect(window.before).not.toBeNull();
    // The last two turns (a prompt and a reply each) fill a page of four messages.
    expect(prompts(window.events)).toEqual(['turn five', 'turn six']);

    const pages = [window.events];
    for (let before = window.before; before !== null;) {
      const page = await harness.invoke('conversationBefore', { conversationId: id, before });
      expect(page.events[0]?.kind).toBe('prompt');
      pages.unshift(page.events);
      before = page.before;
    }
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(prompts(pages.flat())).toEqual(turns.map((turn) => `turn ${turn}`));
    // Before the first prompt: the CLI's init lines, on the first page.
    expect(pages.flat()).toEqual(shown(harness.eventsOf(id)));
  });

  it('gives a window opened after a crash the reply as far as it had streamed', async () => {
    const words = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');
    harness.world.fake.enqueue({
      blocks: [{ type: 'text', text: words }],
      hold: { after: 3, until: new Gate() },
    });
    const conversation = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const id = conversation.conversationId;
    await harness.invoke('send', { conversationId: id, text: 'tell me thirty words' });
    const streamedText = (events: readonly ConversationEvent[]) =>
      events
        .flatMap((event) =>
          event.kind === 'message' &&
          event.message.type === 'stream_event' &&
          event.message.event.type === 'content_block_delta' &&
          event.message.event.delta.type === 'text_delta'
            ? [event.message.event.delta.text]
            : [],
        )
        .join('');
    await harness.when(() => streamedText(harness.eventsOf(id)).includes('word2'));
    const [pid] = processesWithHome(harness.world.home, '--input-format');
    process.kill(pid!, 'SIGKILL');
    await harness.when(() => harness.eventsOf(id).some((event) => event.kind === 'exit'));

    const { conversations } = await harness.invoke('listConversations', {});
    const window = conversations.find((c) => c.snapshot.conversationId === id)!;
    // The deltas stand in main's log now, before the exit, merged into one.
    const events = [...window.prelude, ...window.events];
    expect(streamedText(events)).toBe(streamedText(harness.eventsOf(id)));
    const exitAt = events.findIndex((event) => event.kind === 'exit');
    const deltaAt = events.findIndex(
      (event) => event.kind === 'message' && event.message.type === 'stream_event',
    );
    expect(deltaAt).toBeGreaterThan(-1);
    expect(deltaAt).toBeLessThan(exitAt);
  });

  it('keeps a conversation’s unsent draft for the next window, its images by reference', async () => {
    const noise = await sharp(randomBytes(80 * 60 * 3), { raw: { width: 80, height: 60, channels: 3 } })
      .png()
      .toBuffer();
    const prepared = await harness.invoke('prepareImage', {
      name: 'noise.png',
      data: noise.toString('base64'),
      imagesInTurn: 1,
    });
    if (!prepared.ok) throw new Error(prepared.message);
    expect(prepared.ref).toMatch(/^ref:[0-9a-f]{64}$/);
    const conversation = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const id = conversation.conversationId;
    const draftOf = async () =>
      (await harness.invoke('listConversations', {})).conversations.find(
        (c) => c.snapshot.conversationId === id,
      )?.draft;
    expect(await draftOf()).toEqual({ text: '', images: [] });
    await harness.invoke('setDraft', {
      conversationId: id,
      draft: { text: 'half a thought', images: [{ ...prepared.image, data: prepared.ref }] },
    });
    expect(await draftOf()).toEqual({
      text: 'half a thought',
      images: [{ ...prepared.image, data: prepared.ref }],
    });
    // A window that sends the bytes themselves gets them kept by reference too.
    await harness.invoke('setDraft', {
      conversationId: id,
      draft: { text: 'again', images: [prepared.image] },
    });
    expect(await draftOf()).toEqual({ text: 'again', images: [{ ...prepared.image, data: prepared.ref }] });
    // A reference to an image main never held is left out, not kept for a thumbnail that cannot load.
    await harness.invoke('setDraft', {
      conversationId: id,
      draft: { text: 'forged', images: [{ ...prepared.image, data: `ref:${'0'.repeat(64)}` }] },
    });
    expect(await draftOf()).toEqual({ text: 'forged', images: [] });
    await expect(
      harness.invoke('setDraft', { conversationId: 'nobody', draft: { text: 'x', images: [] } }),
    ).rejects.toThrow();
  });

  it('sends an image by reference, and takes the reference back when the message is sent again', async () => {
    const noise = await sharp(randomBytes(120 * 90 * 3), { raw: { width: 120, height: 90, channels: 3 } })
      .png()
      .toBuffer();
    const data = noise.toString('base64');
    harness.world.fake.enqueue(say('A picture.'), say('The same picture.'));
    const conversation = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const id = conversation.conversationId;
    const before = results(id);
    await harness.invoke('send', {
      conversationId: id,
      text: 'look',
      images: [{ mediaType: 'image/png', data }],
    });
    await harness.when(() => results(id) > before);
    // Every window got a reference, not the bytes.
    const shown = harness.eventsOf(id).find((event) => event.kind === 'prompt');
    const ref = shown?.kind === 'prompt' ? shown.images?.[0]?.data : undefined;
    expect(ref).toMatch(/^ref:[0-9a-f]{64}$/);
    expect(JSON.stringify(harness.eventsOf(id))).not.toContain(data.slice(0, 200));
    const { conversations } = await harness.invoke('listConversations', {});
    expect(JSON.stringify(conversations)).not.toContain(data.slice(0, 200));

    // Sent again (as a rewind does), the model gets the bytes themselves.
    await harness.invoke('send', {
      conversationId: id,
      text: 'again',
      images: [{ mediaType: 'image/png', data: ref ?? '' }],
    });
    await harness.when(() => results(id) > before + 1);
    expect(imageBlocks(harness.world.fake.messageRequests().at(-1)!)).toEqual([
      { media_type: 'image/png', data },
    ]);
    await expect(
      harness.invoke('send', {
        conversationId: id,
        text: 'gone',
        images: [{ mediaType: 'image/png', data: `ref:${'0'.repeat(64)}` }],
      }),
    ).rejects.toThrow(/ImageGone: An image of this message is no longer available/);
  });

  it('refuses a cursor it never gave, and forgets the history when the conversation closes', async () => {
    harness.world.fake.enqueue(say('Hello.'));
    const conversation = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    await talk(conversation, 'hi');
    await expect(
      harness.invoke('conversationBefore', { conversationId: conversation.conversationId, before: '999' }),
    ).rejects.toThrow(/reopen the conversation/);
    const open = join(harness.dataDir, 'open', String(process.pid));
    expect(readdirSync(open)).toEqual([`${conversation.conversationId}.jsonl`]);
    await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
    expect(readdirSync(open)).toEqual([]);
  });
});
