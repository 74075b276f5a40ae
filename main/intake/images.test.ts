import { describe, it, expect, beforeAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { IMAGE_LIMITS, apiMaxSideFor, maxLongSideFor, type RefusalReason } from '../../shared/images';
import type { ImageMediaType } from '../../shared/protocol';
import { ImageRefused, checkOutgoingImage, prepareImage, type PreparedImage } from './images';

const DEFAULT = { maxLongSide: IMAGE_LIMITS.defaultMaxLongSide };

const solid = (width: number, height: number, background = '#f00') =>
  sharp({ create: { width, height, channels: 3, background } });

/** Random pixels: incompressible, so the encoded file is about as large as the raw one. */
const noise = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });

/** An animated GIF of `frames` frames of `width`×`height`, each a different solid colour. */
async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const strip = Buffer.alloc(width * height * frames * 3);
  for (let frame = 0; frame < frames; frame += 1) {
    for (let pixel = 0; pixel < width * height; pixel += 1) {
      strip[(frame * width * height + pixel) * 3 + (frame % 3)] = 255;
    }
  }
  return sharp(strip, { raw: { width, height: height * frames, channels: 3, pageHeight: height } })
    .gif({ loop: 0, delay: Array.from({ length: frames }, () => 100) })
    .toBuffer();
}

/**
 * A valid 1-bit greyscale PNG of `side`×`side` zero pixels: a few tens of kB on disk, `side`² pixels decoded.
 * Built by hand, since encoding it through sharp would take seconds.
 */
function pngBomb(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const rows = Buffer.alloc((Math.ceil(side / 8) + 1) * side); // filter byte 0 and zero pixels on every row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

async function refusal(promise: Promise<unknown>): Promise<{ reason: RefusalReason; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImageRefused);
    const refused = error as ImageRefused;
    return { reason: refused.refusal.reason, message: refused.message };
  }
  throw new Error('expected the image to be refused');
}

async function decoded(image: PreparedImage) {
  const bytes = Buffer.from(image.data, 'base64');
  const metadata = await sharp(bytes, { animated: true }).metadata();
  // Decodes whole, not just the header.
  await sharp(bytes, { animated: true }).raw().toBuffer();
  return { bytes, metadata };
}

describe('prepareImage: small images pass unchanged', () => {
  const cases: [ImageMediaType, () => Promise<Buffer>][] = [
    ['image/png', () => solid(40, 30).png().toBuffer()],
    ['image/jpeg', () => solid(40, 30).jpeg().toBuffer()],
    ['image/gif', () => solid(40, 30).gif().toBuffer()],
    ['image/webp', () => solid(40, 30).webp().toBuffer()],
  ];

  it.each(cases)('%s', async (mediaType, make) => {
    const input = await make();
    const image = await prepareImage('picture', input, DEFAULT);
    expect(image).toEqual({
      name: 'picture',
      mediaType,
      data: input.toString('base64'),
      width: 40,
      height: 30,
      originalWidth: 40,
      originalHeight: 30,
      resized: false,
    });
  });

  it('judges the type by content, not by the name', async () => {
    const input = await solid(10, 10).jpeg().toBuffer();
    const image = await prepareImage('really-a-jpeg.png', input, DEFAULT);
    expect(image.mediaType).toBe('image/jpeg');
    expect(image.name).toBe('really-a-jpeg.png');
  });
});

describe('prepareImage: refusals', () => {
  it('refuses a text file named photo.png as not an image', async () => {
    const { reason, message } = await refusal(
      prepareImage('photo.png', Buffer.from('just some notes\n'), DEFAULT),
    );
    expect(reason).toBe('not_an_image');
    expect(message).toContain('photo.png');
  });

  it('refuses an empty file as not an image', async () => {
    expect((await refusal(prepareImage('empty.png', Buffer.alloc(0), DEFAULT))).reason).toBe('not_an_image');
  });

  it('refuses a PNG cut in half as unreadable', async () => {
    const whole = await noise(200, 200).png().toBuffer();
    const { reason, message } = await refusal(
      prepareImage('cut.png', whole.subarray(0, whole.length >> 1), DEFAULT),
    );
    expect(reason).toBe('unreadable');
    expect(message).toContain('cut.png');
  });

  it('refuses a JPEG cut short as unreadable', async () => {
    const whole = await noise(200, 200).jpeg().toBuffer();
    expect(
      (await refusal(prepareImage('cut.jpg', whole.subarray(0, whole.length >> 1), DEFAULT))).reason,
    ).toBe('unreadable');
  });

  it('refuses a PNG header followed by garbage as unreadable', async () => {
    const input = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      randomBytes(4096),
    ]);
    expect((await refusal(prepareImage('garbage.png', input, DEFAULT))).reason).toBe('unreadable');
  });

  it('refuses a decompression bomb (over 400 megapixels) without decoding it', async () => {
    const bomb = pngBomb(21000);
    expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(21000);
    const started = Date.now();
    const { message } = await refusal(prepareImage('bomb.png', bomb, DEFAULT));
    expect(message).toContain('bomb.png');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses a decompression bomb as too large, not as damaged', async () => {
    expect((await refusal(prepareImage('bomb.png', pngBomb(21000), DEFAULT))).reason).toBe('too_large');
  });

  it('refuses a WebP header followed by garbage as unreadable', async () => {
    const input = Buffer.concat([Buffer.from('RIFF\x00\x10\x00\x00WEBP', 'latin1'), randomBytes(4096)]);
    expect((await refusal(prepareImage('garbage.webp', input, DEFAULT))).reason).toBe('unreadable');
  });
});

describe('prepareImage: scaling', () => {
  it('scales a 6000×4000 JPEG to a long side of 1568', async () => {
    const input = await solid(6000, 4000, '#36a').jpeg().toBuffer();
    const image = await prepareImage('big.jpg', input, DEFAULT);
    expect(image).toMatchObject({
      mediaType: 'image/jpeg',
      width: 1568,
      height: 1045,
      originalWidth: 6000,
      originalHeight: 4000,
      resized: true,
    });
    expect(image.data.length).toBeLessThanOrEqual(IMAGE_LIMITS.maxBase64Length);
    const { metadata } = await decoded(image);
    expect(metadata.format).toBe('jpeg');
    expect([metadata.width, metadata.height]).toEqual([1568, 1045]);
  });

  it('scales a 4000×6000 (portrait) PNG to 1045×1568', async () => {
    const input = await solid(4000, 6000, '#3a6').png().toBuffer();
    const image = await prepareImage('tall.png', input, DEFAULT);
    expect(image).toMatchObject({ mediaType: 'image/png', width: 1045, height: 1568, resized: true });
    const { metadata } = await decoded(image);
    expect([metadata.width, metadata.height]).toEqual([1045, 1568]);
  });

  it('honours a smaller maxLongSide', async () => {
    const input = await solid(400, 200).webp().toBuffer();
    const image = await prepareImage('small.webp', input, { maxLongSide: 100 });
    expect(image).toMatchObject({ mediaType: 'image/webp', width: 100, height: 50, resized: true });
    const { metadata } = await decoded(image);
    expect([metadata.width, metadata.height]).toEqual([100, 50]);
  });

  it('brings a huge noisy PNG under 5 MiB of base64, still decodable', async () => {
    const input = await noise(3000, 3000).png({ compressionLevel: 1 }).toBuffer();
    expect(input.toString('base64').length).toBeGreaterThan(IMAGE_LIMITS.maxBase64Length);
    const image = await prepareImage('noise.png', input, { maxLongSide: 8000 });
    expect(image.resized).toBe(true);
    expect(image.data.length).toBeLessThanOrEqual(IMAGE_LIMITS.maxBase64Length);
    expect(image.originalWidth).toBe(3000);
    expect(image.originalHeight).toBe(3000);
    const { bytes, metadata } = await decoded(image);
    expect(metadata.format).toBe(image.mediaType.slice('image/'.length));
    expect([metadata.width, metadata.height]).toEqual([image.width, image.height]);
    expect(image.width).toBe(image.height);
    expect(image.width).toBeLessThanOrEqual(3000);
    // The image the renderer sends back passes the outgoing check.
    await expect(
      checkOutgoingImage({ mediaType: image.mediaType, data: bytes.toString('base64') }, 1),
    ).resolves.toBeUndefined();
  }, 20_000);
});

describe('prepareImage: EXIF orientation', () => {
  it('reports a rotated (orientation 6) JPEG as the viewer sees it', async () => {
    const input = await solid(40, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect((await sharp(input).metadata()).orientation).toBe(6);
    const image = await prepareImage('rotated.jpg', input, DEFAULT);
    expect(image).toMatchObject({
      width: 20,
      height: 40,
      originalWidth: 20,
      originalHeight: 40,
      resized: false,
    });
    expect(image.data).toBe(input.toString('base64'));
  });

  it('scales a rotated JPEG upright: the stored pixels are turned, not stretched', async () => {
    const input = await solid(4000, 2000).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const image = await prepareImage('rotated-big.jpg', input, DEFAULT);
    expect(image).toMatchObject({
      width: 784,
      height: 1568,
      originalWidth: 2000,
      originalHeight: 4000,
      resized: true,
    });
    const { metadata } = await decoded(image);
    // Rotated into the pixels, so a viewer that ignores EXIF sees the same.
    expect([metadata.width, metadata.height]).toEqual([784, 1568]);
    expect(metadata.orientation ?? 1).toBe(1);
  });
});

describe('prepareImage: animated GIFs', () => {
  it('sends an animated GIF that fits the API byte-identical', async () => {
    const input = await animatedGif(32, 16, 3);
    expect((await sharp(input, { animated: true }).metadata()).pages).toBe(3);
    const image = await prepareImage('wave.gif', input, DEFAULT);
    expect(image).toEqual({
      name: 'wave.gif',
      mediaType: 'image/gif',
      data: input.toString('base64'),
      width: 32,
      height: 16,
      originalWidth: 32,
      originalHeight: 16,
      resized: false,
    });
  });

  it('sends an animated GIF larger than maxLongSide as it is, when the API takes it', async () => {
    const input = await animatedGif(200, 100, 2);
    const image = await prepareImage('wide.gif', input, { maxLongSide: 50 });
    expect(image.resized).toBe(false);
    expect(image.data).toBe(input.toString('base64'));
    expect([image.width, image.height]).toEqual([200, 100]);
  });

  it('scales an animated GIF wider than 8000 frame by frame, keeping it animated', async () => {
    const input = await animatedGif(8001, 4, 2);
    const image = await prepareImage('banner.gif', input, DEFAULT);
    expect(image).toMatchObject({
      mediaType: 'image/gif',
      width: 1568,
      height: 1,
      originalWidth: 8001,
      originalHeight: 4,
      resized: true,
    });
    const { metadata } = await decoded(image);
    expect(metadata).toMatchObject({ format: 'gif', width: 1568, pages: 2, pageHeight: 1 });
  });

  it('prepares an animation so that a turn of more than 20 images can send it', async () => {
    const input = await animatedGif(2500, 10, 2);
    const image = await prepareImage('many.gif', input, {
      maxLongSide: maxLongSideFor(21),
      apiMaxSide: apiMaxSideFor(21),
    });
    await expect(checkOutgoingImage(image, 21)).resolves.toBeUndefined();
  });
});

describe('checkOutgoingImage', () => {
  let png: string;
  beforeAll(async () => {
    png = (await solid(10, 10).png().toBuffer()).toString('base64');
  });

  it('accepts a small image of the stated type', async () => {
    await expect(checkOutgoingImage({ mediaType: 'image/png', data: png }, 1)).resolves.toBeUndefined();
  });

  it('rejects a media type that does not match the bytes', async () => {
    const { reason } = await refusal(checkOutgoingImage({ mediaType: 'image/jpeg', data: png }, 1));
    expect(reason).toBe('not_an_image');
  });

  it('rejects bytes that are not an image at all', async () => {
    const data = Buffer.from('not an image').toString('base64');
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data }, 1))).reason).toBe(
      'not_an_image',
    );
  });

  it('rejects an image whose base64 is over 5 MiB', async () => {
    const bytes = Buffer.concat([
      Buffer.from(png, 'base64'),
      Buffer.alloc((IMAGE_LIMITS.maxBase64Length / 4) * 3),
    ]);
    const data = bytes.toString('base64');
    expect(data.length).toBeGreaterThan(IMAGE_LIMITS.maxBase64Length);
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data }, 1))).reason).toBe('too_large');
  });

  it('rejects a side longer than 8000', async () => {
    const data = (await solid(8001, 1).png().toBuffer()).toString('base64');
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data }, 1))).reason).toBe('too_large');
    const ok = (await solid(8000, 1).png().toBuffer()).toString('base64');
    await expect(checkOutgoingImage({ mediaType: 'image/png', data: ok }, 1)).resolves.toBeUndefined();
  });

  it('rejects 2,500 px sides with more than 20 images in the turn, not with 20', async () => {
    const data = (await solid(2500, 2500).png().toBuffer()).toString('base64');
    await expect(checkOutgoingImage({ mediaType: 'image/png', data }, 20)).resolves.toBeUndefined();
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data }, 21))).reason).toBe(
      'too_large',
    );
    const tall = (await solid(10, 2500).png().toBuffer()).toString('base64');
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data: tall }, 21))).reason).toBe(
      'too_large',
    );
    const fits = (await solid(2000, 2000).png().toBuffer()).toString('base64');
    await expect(checkOutgoingImage({ mediaType: 'image/png', data: fits }, 21)).resolves.toBeUndefined();
  });

  it('measures an animated GIF by its frame height', async () => {
    // 30 frames of 100×100: 3000 px tall as a strip, 100 px per frame.
    const data = (await animatedGif(100, 100, 30)).toString('base64');
    await expect(checkOutgoingImage({ mediaType: 'image/gif', data }, 21)).resolves.toBeUndefined();
  });

  it('rejects damaged bytes of the stated type as unreadable', async () => {
    const data = Buffer.concat([Buffer.from(png, 'base64').subarray(0, 8), randomBytes(64)]).toString(
      'base64',
    );
    expect((await refusal(checkOutgoingImage({ mediaType: 'image/png', data }, 1))).reason).toBe(
      'unreadable',
    );
  });
});
