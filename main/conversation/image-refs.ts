import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_REF_PREFIX, type ConversationEvent } from '../../shared/ipc';
import { ImageMediaType } from '../../shared/protocol';
import { isRecord } from '../library/rules/json';

/**
 * Images travel to a window by reference, never inline in bulk: before an event leaves main, each image in
 * it (a prompt's, a user line's, a tool result's) is written once to a folder of its own, named by its hash,
 * and its base64 is replaced with `ref:<sha256>`. The page loads it from there: `/images/<sha256>` under the
 * browser host, `byre-image://` under Electron. An event without images is passed on as it is.
 *
 * The folder is bounded by bytes: past the budget, the images least recently written or read are deleted.
 * Nothing is lost by that: a page that asks for one again gets "not found" and says the image is no longer
 * available, reopening the conversation writes it again from its transcript, and a message sent again with
 * it asks for it to be attached again (ImageGone).
 */

/** Inline images up to this size stay inline: a reference would cost more than it saves. */
const INLINE_MAX_CHARS = 2_048;
/** What the folder holds at most: many conversations' worth of screenshots, not every one ever seen. */
export const IMAGES_MAX_BYTES = 256 * 1024 * 1024;

export interface StoredImage {
  mediaType: ImageMediaType;
  bytes: Buffer;
}

interface Kept {
  mediaType: ImageMediaType;
  bytes: number;
}

export class ImageRefs {
  /** Each image written, by hash, least recently used first. */
  private readonly known = new Map<string, Kept>();
  private keptBytes = 0;
  private ready = false;

  constructor(
    private readonly dir: string,
    private readonly maxBytes = IMAGES_MAX_BYTES,
  ) {
    // Images of an earlier run are found again from the conversations when they are opened.
    rmSync(dir, { recursive: true, force: true });
  }

  /** The events with their images by reference (the same array and objects where there are none). */
  events(events: readonly ConversationEvent[]): ConversationEvent[] {
    let out: ConversationEvent[] | undefined;
    for (let index = 0; index < events.length; index++) {
      const event = events[index] as ConversationEvent;
      const replaced = this.event(event);
      if (replaced !== event) {
        out ??= events.slice();
        out[index] = replaced;
      }
    }
    return out ?? (events as ConversationEvent[]);
  }

  event(event: ConversationEvent): ConversationEvent {
    if (event.kind === 'prompt') {
      if (!event.images?.length) return event;
      return { ...event, images: event.images.map((image) => ({ ...image, data: this.put(image) })) };
    }
    if (event.kind !== 'message' || event.message.type !== 'user') return event;
    const content = event.message.message.content;
    if (typeof content === 'string' || !content.some(holdsImage)) return event;
    const blocks = content.map((block) => this.block(block));
    return {
      ...event,
      message: { ...event.message, message: { ...event.message.message, content: blocks } },
    };
  }

  /** An image's base64, read back if it is a reference; undefined for a reference to nothing. */
  resolve(image: {
    mediaType: ImageMediaType;
    data: string;
  }): { mediaType: ImageMediaType; data: string } | undefined {
    if (!image.data.startsWith(IMAGE_REF_PREFIX)) return image;
    const stored = this.read(image.data.slice(IMAGE_REF_PREFIX.length));
    return stored && { mediaType: image.mediaType, data: stored.bytes.toString('base64') };
  }

  /** An image written earlier, by its hash; undefined if there is none. */
  read(hash: string): StoredImage | undefined {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const kept = this.known.get(hash);
    if (!kept) return undefined;
    this.touch(hash, kept);
    try {
      return { mediaType: kept.mediaType, bytes: readFileSync(join(this.dir, hash)) };
    } catch {
      return undefined;
    }
  }

  private block<T>(block: T): T {
    if (!isRecord(block)) return block;
    if (block.type === 'image') return this.imageBlock(block) as T;
    if (block.type === 'tool_result' && Array.isArray(block.content) && block.content.some(holdsImage)) {
      return { ...block, content: block.content.map((inner: unknown) => this.imageBlock(inner)) };
    }
    return block;
  }

  private imageBlock(block: unknown): unknown {
    if (!isRecord(block) || block.type !== 'image' || !isRecord(block.source)) return block;
    const { source } = block;
    const mediaType = ImageMediaType.safeParse(source.media_type);
    if (source.type !== 'base64' || typeof source.data !== 'string' || !mediaType.success) return block;
    return {
      ...block,
      source: { ...source, data: this.put({ mediaType: mediaType.data, data: source.data }) },
    };
  }

  /**
   * Keeps an image (once) for a window to name later: its reference, or its base64 if small. A reference
   * to nothing main holds gives undefined: a window cannot make main vouch for an image it never saw.
   */
  keep(image: { mediaType: ImageMediaType; data: string }): string | undefined {
    if (image.data.startsWith(IMAGE_REF_PREFIX)) {
      const hash = image.data.slice(IMAGE_REF_PREFIX.length);
      const kept = this.known.get(hash);
      if (!kept) return undefined;
      this.touch(hash, kept);
      return image.data;
    }
    return this.put(image);
  }

  /** Writes the image (once) and returns its reference; a small or unreadable one stays inline. */
  private put(image: { mediaType: ImageMediaType; data: string }): string {
    if (image.data.length <= INLINE_MAX_CHARS || image.data.startsWith(IMAGE_REF_PREFIX)) return image.data;
    const hash = createHash('sha256').update(image.data).digest('hex');
    const known = this.known.get(hash);
    if (known) {
      this.touch(hash, known);
      return `${IMAGE_REF_PREFIX}${hash}`;
    }
    const bytes = Buffer.from(image.data, 'base64');
    try {
      if (!this.ready) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        this.ready = true;
      }
      writeFileSync(join(this.dir, hash), bytes, { mode: 0o600 });
    } catch {
      // It goes inline, as before: the page still shows it.
      return image.data;
    }
    this.known.set(hash, { mediaType: image.mediaType, bytes: bytes.length });
    this.keptBytes += bytes.length;
    this.evict(hash);
    return `${IMAGE_REF_PREFIX}${hash}`;
  }

  /** Marks an image as just used: the last to be deleted. */
  private touch(hash: string, kept: Kept): void {
    this.known.delete(hash);
    this.known.set(hash, kept);
  }

  /** Deletes the least recently used images until the folder is within its budget; never `newest`. */
  private evict(newest: string): void {
    for (const [hash, kept] of this.known) {
      if (this.keptBytes <= this.maxBytes || hash === newest) return;
      this.known.delete(hash);
      this.keptBytes -= kept.bytes;
      try {
        rmSync(join(this.dir, hash), { force: true });
      } catch {
        // Left on disk, forgotten: the folder is emptied at the next start.
      }
    }
  }
}

function holdsImage(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'image') return true;
  return block.type === 'tool_result' && Array.isArray(block.content) && block.content.some(holdsImage);
}
