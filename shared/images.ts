/**
 * Images in a turn: what the API accepts and the arithmetic of fitting an image to it. Pure: no Node, no
 * DOM, so main (which decodes and scales) and the renderer (which explains refusals) agree.
 */
import type { ImageMediaType } from './protocol';

export const IMAGE_LIMITS = {
  /** The API rejects an image whose base64 string is longer than this. */
  maxBase64Length: 5 * 1024 * 1024,
  /** The API rejects an image with a side longer than this. */
  maxSide: 8000,
  /** With more than `manyImages` images in a request, the API allows only this per side. */
  manyImagesMaxSide: 2000,
  manyImages: 20,
  /** The API refuses a request with more images than this. */
  maxImagesPerTurn: 100,
  /** The API refuses a request over 32 MB; the images of one message stay well under it. */
  maxTurnBase64Length: 24 * 1024 * 1024,
  /** The size the model works at: a longer side is scaled down by default (configurable). */
  defaultMaxLongSide: 1568,
} as const;

/** Recognises PNG, JPEG, GIF and WebP by their first bytes, whatever the file is called. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  // "GIF87a" or "GIF89a"
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return 'image/gif';
  }
  // "RIFF" <size> "WEBP"
  if (
    starts(0x52, 0x49, 0x46, 0x46) &&
    bytes[8] === 0x57 &&
    bytes[9] === 0x45 &&
    bytes[10] === 0x42 &&
    bytes[11] === 0x50
  ) {
    return 'image/webp';
  }
  return null;
}

/** The length of the base64 text for `byteLength` bytes. */
export function base64Length(byteLength: number): number {
  return Math.ceil(byteLength / 3) * 4;
}

/** The longest side the API accepts for each image of a turn of `imagesInTurn` images. */
export function apiMaxSideFor(imagesInTurn: number): number {
  return imagesInTurn > IMAGE_LIMITS.manyImages ? IMAGE_LIMITS.manyImagesMaxSide : IMAGE_LIMITS.maxSide;
}

/** The longest side allowed for an image in a turn of `imagesInTurn` images, given the user's default. */
export function maxLongSideFor(
  imagesInTurn: number,
  preferred: number = IMAGE_LIMITS.defaultMaxLongSide,
): number {
  return Math.max(1, Math.min(Math.floor(preferred), apiMaxSideFor(imagesInTurn)));
}

/**
 * The size an image is scaled to so that its long side is at most `maxLongSide`, keeping its aspect ratio;
 * null when it already fits. Neither side goes below one pixel.
 */
export function fitWithin(
  width: number,
  height: number,
  maxLongSide: number,
): { width: number; height: number } | null {
  const long = Math.max(width, height);
  if (long <= maxLongSide) return null;
  const scale = maxLongSide / long;
  return {
    width: Math.max(1, Math.min(maxLongSide, Math.round(width * scale))),
    height: Math.max(1, Math.min(maxLongSide, Math.round(height * scale))),
  };
}

export type RefusalReason = 'not_an_image' | 'unreadable' | 'too_many' | 'too_large' | 'turn_too_large';

export interface ImageRefusal {
  name: string;
  reason: RefusalReason;
}

/** What the user reads when a file is refused: the file's name and why. */
export function refusalMessage({ name, reason }: ImageRefusal): string {
  switch (reason) {
    case 'not_an_image':
      return `${name} is not a PNG, JPEG, GIF or WebP image.`;
    case 'unreadable':
      return `${name} could not be read: the image is damaged or incomplete.`;
    case 'too_many':
      return `${name} was not added: a message can hold at most ${IMAGE_LIMITS.maxImagesPerTurn} images.`;
    case 'too_large':
      return `${name} is too large to send, even scaled down.`;
    case 'turn_too_large':
      return `${name} was not added: the images of one message can total at most ${IMAGE_LIMITS.maxTurnBase64Length / 1024 / 1024} MB.`;
  }
}

/**
 * How an image's bytes are named once main holds them (main's image refs): `ref:<sha256>` in place of the
 * base64, in events and pages, for the page to load by address (the renderer's images module).
 */
export const IMAGE_REF_PREFIX = 'ref:';

/** The largest file the app reads for an image; anything bigger is refused before it is read. */
export const MAX_IMAGE_FILE_BYTES = 40 * 1024 * 1024;
