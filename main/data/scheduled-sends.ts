import { join } from 'node:path';
import { z } from 'zod';
import { ScheduledSend } from '../../shared/ipc';
import { makePrivateDir } from '../disk/private-files';
import { JsonFile } from './json-file';

/**
 * Messages kept to be sent when a limit resets, in `scheduled-sends.json` in the data folder, so that they
 * survive a restart. Each is sent once at most: it is marked `sending` in the file before it goes (under the
 * file's lock, so two Byre processes on one folder cannot both take it), and removed once it went. One found
 * still marked `sending` at start was cut off mid-way (Byre closed or crashed): it may have gone, so it is
 * not sent again but shown as failed, for the user to send or cancel.
 */
const StoredSend = ScheduledSend.extend({ sending: z.boolean().default(false) });
type StoredSend = z.infer<typeof StoredSend>;

const SendsFile = z.object({ sends: z.array(StoredSend) });
type SendsFile = z.infer<typeof SendsFile>;

const EMPTY: SendsFile = { sends: [] };

export const CUT_OFF =
  'Byre closed while sending this message, so it may or may not have been sent; look in the conversation before sending it again.';

export class ScheduledSends {
  readonly problem: string | null;
  private readonly file: JsonFile<SendsFile>;

  constructor(dataDir: string) {
    makePrivateDir(dataDir);
    let problem: string | null = null;
    this.file = new JsonFile(join(dataDir, 'scheduled-sends.json'), SendsFile, () => EMPTY, {
      report: (why) => (problem = `The messages kept for when a limit resets could not be read: ${why}`),
    });
    this.problem = problem;
  }

  /** Every kept message, soonest first, as the contract shows them. */
  all(): ScheduledSend[] {
    return this.file
      .read()
      .sends.map(({ sending: _sending, ...send }) => send)
      .sort((a, b) => a.sendAt - b.sendAt);
  }

  /** The ones to wait for: not failed, not being sent. */
  pending(): ScheduledSend[] {
    return this.all().filter((send) => send.failed === null);
  }

  add(send: ScheduledSend): void {
    this.file.update((file) => ({ sends: [...file.sends, { ...send, sending: false }] }));
  }

  /** At start: those cut off mid-send are marked failed, never sent again on their own. */
  recover(): void {
    this.file.update((file) =>
      file.sends.some((send) => send.sending)
        ? {
            sends: file.sends.map((send) =>
              send.sending ? { ...send, sending: false, failed: CUT_OFF } : send,
            ),
          }
        : file,
    );
  }

  /** Takes one to send now: false if it is gone, failed, or already taken (by this process or another). */
  take(id: string): boolean {
    let taken = false;
    this.file.update((file) => {
      const send = file.sends.find((s) => s.id === id);
      if (!send || send.sending || send.failed !== null) return file;
      taken = true;
      return { sends: file.sends.map((s) => (s.id === id ? { ...s, sending: true } : s)) };
    });
    return taken;
  }

  /** Sent, or cancelled: it is gone. Returns whether it was there. */
  remove(id: string): boolean {
    let found = false;
    this.file.update((file) => {
      found = file.sends.some((s) => s.id === id);
      return found ? { sends: file.sends.filter((s) => s.id !== id) } : file;
    });
    return found;
  }

  /** Not sent after all (Byre was closing before the text went): waiting again, for the next start. */
  release(id: string): void {
    this.file.update((file) => ({
      sends: file.sends.map((s) => (s.id === id ? { ...s, sending: false } : s)),
    }));
  }

  /** The attempt failed: kept with the reason, and not tried again on its own. */
  fail(id: string, why: string): void {
    this.file.update((file) => ({
      sends: file.sends.map((s) => (s.id === id ? { ...s, sending: false, failed: why } : s)),
    }));
  }
}
