import sharp from 'sharp';
import {
  IMAGE_LIMITS,
  apiMaxSideFor,
  base64Length,
  fitWithin,
  refusalMessage,
  sniffImageType,
  type ImageRefusal,
} from '../../shared/images';
import type { ImageMediaType } from '../../shared/protocol';

/**
 * Image intake: recognise an image by its content, prove it decodes, and scale it down (with libvips,
 * through sharp) when the API would refuse it or it is larger than the model works at.
 */

export interface PreparedImage {
  name: string;
  mediaType: ImageMediaType;
  /** Base64 of the bytes that will be sent. */
  data: string;
  width: number;
  height: number;
  originalWidth: number;
  originalHeight: number;
  resized: boolean;
}

export class ImageRefused extends Error {
  override readonly name = 'ImageRefused';
  constructor(readonly refusal: ImageRefusal) {
    super(refusalMessage(refusal));
  }
}

const FORMATS: Record<string, ImageMediaType> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

type Metadata = Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;

/** Beyond this many pixels a file is refused rather than decoded (a decompression bomb). */
const MAX_INPUT_PIXELS = 150_000_000;

let queue: Promise<unknown> = Promise.resolve();

/** Prepares images one at a time: several large files dropped at once must not all be decoded at once. */
export function prepareImage(
  name: string,
  input: Buffer,
  options: { maxLongSide: number; apiMaxSide?: number },
): Promise<PreparedImage> {
  const next = queue.then(() => prepareNow(name, input, options));
  queue = next.catch(() => undefined);
  return next;
}

async function prepareNow(
  name: string,
  input: Buffer,
  options: { maxLongSide: number; /** The API's limit per side for this turn. */ apiMaxSide?: number },
): Promise<PreparedImage> {
  const apiMaxSide = options.apiMaxSide ?? IMAGE_LIMITS.maxSide;
  const sniffed = sniffImageType(input);
  if (!sniffed) throw new ImageRefused({ name, reason: 'not_an_image' });

  let metadata: Metadata;
  try {
    // The header alone first: an image too big to decode safely is refused as too large, not as damaged.
    metadata = await sharp(input, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRefused({ name, reason: 'unreadable' });
  }
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_INPUT_PIXELS) {
    throw new ImageRefused({ name, reason: 'too_large' });
  }
  try {
    // Decoding it whole is the only proof it is not damaged or cut short.
    // A shrinking pipeline reads every byte but holds only tiles, not the whole decoded image.
    await sharp(input, { animated: true, limitInputPixels: MAX_INPUT_PIXELS })
      .resize(64, 64, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch {
    throw new ImageRefused({ name, reason: 'unreadable' });
  }
  if (!metadata.format || FORMATS[metadata.format] !== sniffed || !metadata.width || !metadata.height) {
    throw new ImageRefused({ name, reason: 'unreadable' });
  }

  const animated = (metadata.pages ?? 1) > 1;
  // What the viewer sees: EXIF orientation applied, one frame's height for an animation.
  const oriented = metadata.autoOrient ?? { width: metadata.width, height: metadata.height };
  const width = oriented.width;
  const height = animated ? (metadata.pageHeight ?? metadata.height) : oriented.height;
  const fitsApi =
    Math.max(width, height) <= apiMaxSide && base64Length(input.length) <= IMAGE_LIMITS.maxBase64Length;
  const original = { name, originalWidth: width, originalHeight: height };

  // An animation that the API takes is sent as it is; scaling would cost its quality for nothing.
  const target = animated && fitsApi ? null : fitWithin(width, height, options.maxLongSide);
  if (!target && fitsApi) {
    return { ...original, mediaType: sniffed, data: input.toString('base64'), width, height, resized: false };
  }

  let size = target ?? { width, height };
  // Same format first; if that is still too large, JPEG (or WebP for animations), then smaller steps.
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const lossy = attempt > 0;
    const { data, mediaType } = await encode(input, size, sniffed, animated, lossy);
    if (base64Length(data.length) <= IMAGE_LIMITS.maxBase64Length) {
      return { ...original, mediaType, data: data.toString('base64'), ...size, resized: true };
    }
    if (lossy)
      size = {
        width: Math.max(1, Math.round(size.width * 0.8)),
        height: Math.max(1, Math.round(size.height * 0.8)),
      };
  }
  throw new ImageRefused({ name, reason: 'too_large' });
}

async function encode(
  input: Buffer,
  size: { width: number; height: number },
  type: ImageMediaType,
  animated: boolean,
  lossy: boolean,
): Promise<{ data: Buffer; mediaType: ImageMediaType }> {
  const image = sharp(input, { animated, limitInputPixels: MAX_INPUT_PIXELS })
    .autoOrient()
    .resize({ width: size.width, height: size.height, fit: 'fill' });
  if (animated) {
    return lossy
      ? { data: await image.webp({ quality: 75 }).toBuffer(), mediaType: 'image/webp' }
      : { data: await image.gif().toBuffer(), mediaType: 'image/gif' };
  }
  if (lossy) {
    // JPEG has no transparency: lay the image on white rather than black.
    return {
      data: await image.flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toBuffer(),
      mediaType: 'image/jpeg',
    };
  }
  switch (type) {
    case 'image/png':
      return { data: await image.png({ compressionLevel: 9 }).toBuffer(), mediaType: type };
    case 'image/jpeg':
      return { data: await image.jpeg({ quality: 85 }).toBuffer(), mediaType: type };
    case 'image/webp':
      return { data: await image.webp({ quality: 85 }).toBuffer(), mediaType: type };
    case 'image/gif':
      return { data: await image.gif().toBuffer(), mediaType: type };
  }
}

/** Thumbnail-sized check of an image the renderer sends back: still the same kind, within the limits. */
export async function checkOutgoingImage(
  image: { mediaType: ImageMediaType; data: string },
  imagesInTurn: number,
): Promise<void> {
  const bytes = Buffer.from(image.data, 'base64');
  const name = 'An image';
  if (sniffImageType(bytes) !== image.mediaType) throw new ImageRefused({ name, reason: 'not_an_image' });
  if (image.data.length > IMAGE_LIMITS.maxBase64Length) throw new ImageRefused({ name, reason: 'too_large' });
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { animated: true, limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw new ImageRefused({ name, reason: 'unreadable' });
  }
  const maxSide = apiMaxSideFor(imagesInTurn);
  const height =
    (metadata.pages ?? 1) > 1 ? (metadata.pageHeight ?? metadata.height ?? 0) : (metadata.height ?? 0);
  if (Math.max(metadata.width ?? 0, height) > maxSide) throw new ImageRefused({ name, reason: 'too_large' });
}
