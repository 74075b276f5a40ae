import { IMAGE_REF_PREFIX } from '../../../shared/images';
import { bridgeConnection } from './bridge-client';

/**
 * Where the page loads an image an event shows: its base64 as a data URL, or, for one main sent by
 * reference (`ref:<sha256>`, main/image-refs.ts), its address: `byre-image://image/<sha256>` under
 * Electron, `/images/<sha256>?key=…` under the browser host (the key its hello gave, derived from the token).
 */
export function imageSource(image: { mediaType: string; data: string }): string {
  if (!image.data.startsWith(IMAGE_REF_PREFIX)) return `data:${image.mediaType};base64,${image.data}`;
  const hash = image.data.slice(IMAGE_REF_PREFIX.length);
  if (window.byre.host === 'electron') return `byre-image://image/${hash}`;
  const key = bridgeConnection()?.imagesKey;
  return `/images/${hash}${key ? `?key=${encodeURIComponent(key)}` : ''}`;
}
