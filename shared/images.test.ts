import { describe, it, expect, beforeAll } from 'vitest';
import sharp from 'sharp';
import {
  IMAGE_LIMITS,
  base64Length,
  fitWithin,
  maxLongSideFor,
  refusalMessage,
  sniffImageType,
  type RefusalReason,
} from './images';
import type { ImageMediaType } from './protocol';

const bytes = (...values: number[]) => Uint8Array.from(values);
const ascii = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

describe('sniffImageType', () => {
  const encoded: Partial<Record<ImageMediaType, Buffer>> = {};

  beforeAll(async () => {
    const base = () => sharp({ create: { width: 4, height: 3, channels: 3, background: '#f00' } });
    encoded['image/png'] = await base().png().toBuffer();
    encoded['image/jpeg'] = await base().jpeg().toBuffer();
    encoded['image/gif'] = await base().gif().toBuffer();
    encoded['image/webp'] = await base().webp().toBuffer();
  });

  it.each(['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const)(
    'recognises %s from bytes sharp encoded',
    (type) => {
      const buffer = encoded[type]!;
      expect(sniffImageType(buffer)).toBe(type);
      // A plain Uint8Array view of the same bytes, as the renderer would hold it.
      expect(sniffImageType(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))).toBe(type);
    },
  );

  it('recognises both GIF versions', () => {
    expect(sniffImageType(ascii('GIF87a\x01\x00\x01\x00'))).toBe('image/gif');
    expect(sniffImageType(ascii('GIF89a\x01\x00\x01\x00'))).toBe('image/gif');
  });

  it('rejects a text file', () => {
    expect(sniffImageType(ascii('Hello, this is not an image at all.\n'))).toBeNull();
  });

  it('rejects an empty buffer', () => {
    expect(sniffImageType(new Uint8Array(0))).toBeNull();
  });

  it('rejects truncated signatures', () => {
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a))).toBeNull(); // PNG, 7 of 8
    expect(sniffImageType(bytes(0x89))).toBeNull();
    expect(sniffImageType(bytes(0xff, 0xd8))).toBeNull(); // JPEG, 2 of 3
    expect(sniffImageType(ascii('GIF8'))).toBeNull();
    expect(sniffImageType(ascii('GIF89'))).toBeNull();
    expect(sniffImageType(ascii('RIFF'))).toBeNull();
    expect(sniffImageType(ascii('RIFF\x10\x00\x00\x00WEB'))).toBeNull();
  });

  it('rejects a PNG signature with one byte wrong', () => {
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x00, 0, 0))).toBeNull();
  });

  it('rejects a RIFF file that is not WEBP', () => {
    expect(sniffImageType(ascii('RIFF\x24\x00\x00\x00WAVEfmt '))).toBeNull();
    expect(sniffImageType(ascii('RIFF\x24\x00\x00\x00AVI LIST'))).toBeNull();
  });

  it('rejects "GIF88a" and other unknown GIF versions', () => {
    expect(sniffImageType(ascii('GIF88a\x01\x00\x01\x00'))).toBeNull();
    expect(sniffImageType(ascii('GIF89b\x01\x00\x01\x00'))).toBeNull();
  });

  it('looks only at the content, not at a signature elsewhere in the file', () => {
    expect(sniffImageType(ascii('x\x89PNG\r\n\x1a\n'))).toBeNull();
  });
});

describe('fitWithin', () => {
  it('scales a landscape image so its width is the long side', () => {
    expect(fitWithin(4000, 2000, 1000)).toEqual({ width: 1000, height: 500 });
  });

  it('scales a portrait image so its height is the long side', () => {
    expect(fitWithin(2000, 4000, 1000)).toEqual({ width: 500, height: 1000 });
  });

  it('scales a square image on both sides', () => {
    expect(fitWithin(3000, 3000, 1568)).toEqual({ width: 1568, height: 1568 });
  });

  it('returns null for an image exactly at the limit or under it', () => {
    expect(fitWithin(1568, 1568, 1568)).toBeNull();
    expect(fitWithin(1568, 10, 1568)).toBeNull();
    expect(fitWithin(10, 1568, 1568)).toBeNull();
    expect(fitWithin(1, 1, 1568)).toBeNull();
  });

  it('scales an image one pixel over the limit', () => {
    expect(fitWithin(1569, 1569, 1568)).toEqual({ width: 1568, height: 1568 });
  });

  it('keeps at least one pixel on the short side for extreme aspect ratios', () => {
    expect(fitWithin(10000, 1, 1568)).toEqual({ width: 1568, height: 1 });
    expect(fitWithin(1, 10000, 1568)).toEqual({ width: 1, height: 1568 });
    expect(fitWithin(100000, 3, 1000)).toEqual({ width: 1000, height: 1 });
  });

  it('rounds the short side to the nearest pixel', () => {
    // 6000×4000 at 1568: 4000 × 0.26133… = 1045.33 → 1045
    expect(fitWithin(6000, 4000, 1568)).toEqual({ width: 1568, height: 1045 });
    expect(fitWithin(4000, 6000, 1568)).toEqual({ width: 1045, height: 1568 });
    // 300×201 at 100: 67 exactly; 300×202 at 100: 67.33 → 67; 300×203 at 100: 67.67 → 68
    expect(fitWithin(300, 201, 100)).toEqual({ width: 100, height: 67 });
    expect(fitWithin(300, 202, 100)).toEqual({ width: 100, height: 67 });
    expect(fitWithin(300, 203, 100)).toEqual({ width: 100, height: 68 });
    // Half-pixel: 1000×15 at 100 → 1.5 → 2
    expect(fitWithin(1000, 15, 100)).toEqual({ width: 100, height: 2 });
  });

  it('never produces a side longer than the limit, whatever the rounding', () => {
    for (const [width, height] of [
      [1569, 1568],
      [8001, 7999],
      [12345, 6789],
      [3, 10007],
    ] as const) {
      const fitted = fitWithin(width, height, 1568)!;
      expect(Math.max(fitted.width, fitted.height)).toBe(1568);
      expect(Math.min(fitted.width, fitted.height)).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('maxLongSideFor', () => {
  it('uses the preferred size for up to 20 images', () => {
    expect(maxLongSideFor(1)).toBe(IMAGE_LIMITS.defaultMaxLongSide);
    expect(maxLongSideFor(1, 1568)).toBe(1568);
    expect(maxLongSideFor(20, 4000)).toBe(4000);
    expect(maxLongSideFor(20, 8000)).toBe(8000);
  });

  it('clamps a preferred size above 8000 to the API limit', () => {
    expect(maxLongSideFor(1, 8001)).toBe(8000);
    expect(maxLongSideFor(20, 100000)).toBe(IMAGE_LIMITS.maxSide);
  });

  it('allows at most 2000 with more than 20 images', () => {
    expect(maxLongSideFor(21, 8000)).toBe(2000);
    expect(maxLongSideFor(21, 2500)).toBe(2000);
    expect(maxLongSideFor(100, 100000)).toBe(IMAGE_LIMITS.manyImagesMaxSide);
    expect(maxLongSideFor(21, 1568)).toBe(1568);
    expect(maxLongSideFor(21)).toBe(1568);
  });

  it('floors a fractional preference and never goes below one pixel', () => {
    expect(maxLongSideFor(1, 1000.9)).toBe(1000);
    expect(maxLongSideFor(1, 0)).toBe(1);
    expect(maxLongSideFor(1, -5)).toBe(1);
  });
});

describe('base64Length', () => {
  it('matches the length of the real base64 text', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 100, 1001, 65536]) {
      expect(base64Length(n)).toBe(Buffer.alloc(n).toString('base64').length);
    }
  });

  it('marks the largest byte count the API takes', () => {
    const maxBytes = (IMAGE_LIMITS.maxBase64Length / 4) * 3;
    expect(base64Length(maxBytes)).toBe(IMAGE_LIMITS.maxBase64Length);
    expect(base64Length(maxBytes + 1)).toBeGreaterThan(IMAGE_LIMITS.maxBase64Length);
  });
});

describe('refusalMessage', () => {
  const reasons: Record<RefusalReason, RegExp> = {
    not_an_image: /not a PNG, JPEG, GIF or WebP/,
    unreadable: /could not be read|damaged/,
    too_many: /at most 100 images/,
    too_large: /too large/,
    turn_too_large: /can total at most 24 MB/,
  };

  it.each(Object.keys(reasons) as RefusalReason[])('names the file and the reason for %s', (reason) => {
    const message = refusalMessage({ name: 'holiday photo (2).png', reason });
    expect(message.startsWith('holiday photo (2).png ')).toBe(true);
    expect(message).toMatch(reasons[reason]);
  });

  it('gives each reason a different message', () => {
    const messages = (Object.keys(reasons) as RefusalReason[]).map((reason) =>
      refusalMessage({ name: 'a.png', reason }),
    );
    expect(new Set(messages).size).toBe(messages.length);
  });
});
