import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { ImageRefs } from './image-refs';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-image-refs-'));
  dir = join(root, 'images');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Base64 of `bytes` bytes: big enough to go by reference from 1,600 on. */
const base64 = (bytes: number, fill = 7) => Buffer.alloc(bytes, fill).toString('base64');
const REF = /^ref:[0-9a-f]{64}$/;

const userLine = (content: unknown[]): ConversationEvent => ({
  kind: 'message',
  message: {
    type: 'user',
    uuid: '00000000-0000-4000-8000-000000000001',
    session_id: 's',
    parent_tool_use_id: null,
    message: { role: 'user', content },
  } as unknown as CliMessage,
});

describe('ImageRefs', () => {
  it("puts a prompt's big images by reference, written once, and leaves small ones inline", () => {
    const refs = new ImageRefs(dir);
    const big = base64(30_000);
    const small = base64(100);
    const prompt: ConversationEvent = {
      kind: 'prompt',
      uuid: '00000000-0000-4000-8000-000000000002',
      text: 'look',
      images: [
        { mediaType: 'image/png', data: big },
        { mediaType: 'image/gif', data: small },
      ],
    };
    const [out] = refs.events([prompt]);
    if (out?.kind !== 'prompt') throw new Error('not a prompt');
    const [first, second] = out.images ?? [];
    expect(first?.data).toMatch(REF);
    expect(second).toEqual({ mediaType: 'image/gif', data: small });
    // The event given is not changed: the log keeps it whole.
    expect(prompt.images?.[0]?.data).toBe(big);
    const stored = refs.read(first?.data.slice(4) ?? '');
    expect(stored?.mediaType).toBe('image/png');
    expect(stored?.bytes.equals(Buffer.from(big, 'base64'))).toBe(true);
    // The same image again is the same file.
    refs.events([prompt, prompt]);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(statSync(join(dir, readdirSync(dir)[0] ?? '')).mode & 0o777).toBe(0o600);
  });

  it('puts the images of user lines and tool results by reference, and passes other events as they are', () => {
    const refs = new ImageRefs(dir);
    const image = (fill: number) => ({
      type: 'image',
      source: { type: 'base64', media_type: 'image/jpeg', data: base64(20_000, fill) },
    });
    const plain: ConversationEvent = { kind: 'title', title: 'x' };
    const text = userLine([{ type: 'text', text: 'hi' }]);
    const withImages = userLine([
      image(1),
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'shot' }, image(2)] },
    ]);
    const events = [plain, text];
    expect(refs.events(events)).toBe(events);
    const [out] = refs.events([withImages]);
    const content = JSON.parse(JSON.stringify(out)).message.message.content;
    expect(content[0].source.data).toMatch(REF);
    expect(content[1].content[0]).toEqual({ type: 'text', text: 'shot' });
    expect(content[1].content[1].source.data).toMatch(REF);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('refuses names that are not a hash it wrote, and starts each run empty', () => {
    const refs = new ImageRefs(dir);
    refs.events([
      userLine([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64(9_000) } }]),
    ]);
    expect(refs.read('../secret')).toBeUndefined();
    expect(refs.read('0'.repeat(64))).toBeUndefined();
    expect(existsSync(dir)).toBe(true);
    new ImageRefs(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps the folder within its budget by deleting the least recently used images, which then read as gone', () => {
    const refs = new ImageRefs(dir, 70_000);
    const put = (fill: number) => {
      const [out] = refs.events([
        {
          kind: 'prompt',
          uuid: '00000000-0000-4000-8000-000000000003',
          text: 'look',
          images: [{ mediaType: 'image/png', data: base64(30_000, fill) }],
        },
      ]);
      if (out?.kind !== 'prompt') throw new Error('not a prompt');
      return (out.images?.[0]?.data ?? '').slice('ref:'.length);
    };
    const first = put(1);
    const second = put(2);
    // Read again (a window showed it): now the second is the least recently used.
    expect(refs.read(first)?.bytes.length).toBe(30_000);
    const third = put(3);
    expect(refs.read(second)).toBeUndefined();
    expect(existsSync(join(dir, second))).toBe(false);
    expect(refs.resolve({ mediaType: 'image/png', data: `ref:${second}` })).toBeUndefined();
    expect(refs.read(first)?.bytes.length).toBe(30_000);
    expect(refs.read(third)?.bytes.length).toBe(30_000);
    expect(readdirSync(dir).sort()).toEqual([first, third].sort());
  });
});
