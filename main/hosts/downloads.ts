import { randomBytes } from 'node:crypto';
import type { ExportDelivery, ExportFile } from '../../shared/library';

/**
 * Files the browser host offers a page to download (an export, which can be hundreds of MB and so never
 * goes over the socket): each under a random id, served once by the web bridge to a request that proves it
 * holds the token, and forgotten once fetched or after a few minutes, whichever comes first. The id is
 * not the token and opens nothing else; a page that never fetches it costs memory only until it expires.
 */

/** The page fetches a file at once; this leaves room for a busy machine, not for keeping it. */
export const DOWNLOAD_TTL_MS = 5 * 60 * 1000;

export class Downloads {
  private readonly offered = new Map<string, ExportFile>();

  constructor(private readonly ttlMs = DOWNLOAD_TTL_MS) {}

  /** Offers each file once; what the page is told to fetch. */
  deliver(files: readonly ExportFile[]): ExportDelivery {
    return { way: 'download', files: files.map((file) => ({ name: file.name, id: this.offer(file) })) };
  }

  /** The file under `id`, once: a second take, or one after it expired, finds nothing. */
  take(id: string): ExportFile | undefined {
    const file = this.offered.get(id);
    this.offered.delete(id);
    return file;
  }

  private offer(file: ExportFile): string {
    const id = randomBytes(32).toString('base64url');
    this.offered.set(id, file);
    setTimeout(() => this.offered.delete(id), this.ttlMs).unref();
    return id;
  }
}
