import { join } from 'node:path';
import { z } from 'zod';
import { Lane } from '../../shared/ipc';
import { JsonFile } from './json-file';

/**
 * Which lane Byre last ran each session in: `lanes.json` in the data folder. A Terminal conversation leaves no
 * transcript of Byre's (its record is the CLI's own file), so this is where resuming it, after a restart too,
 * finds that it goes on in the terminal. Only the Terminal lane's sessions are kept: every other one Byre
 * ran has its transcript, and one it never ran takes the default lane. A JsonFile: a crash never leaves half
 * of it.
 */

const LanesFile = z.object({ version: z.literal(1), sessions: z.record(z.string(), Lane) });
type LanesFile = z.infer<typeof LanesFile>;

/** Enough for years of sessions; the oldest go first past it. */
const MAX_SESSIONS = 20_000;

export class SessionLanes {
  private readonly file: JsonFile<LanesFile>;

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, 'lanes.json'), LanesFile, () => ({ version: 1, sessions: {} }));
  }

  /** The lane a session last ran in, if Byre kept it. */
  of(sessionId: string): Lane | undefined {
    return this.file.read().sessions[sessionId];
  }

  /** The session runs in `lane` from now on. */
  note(sessionId: string, lane: Lane): void {
    if (this.of(sessionId) === lane) return;
    this.file.update((current) => {
      const { [sessionId]: _old, ...rest } = current.sessions;
      const entries = Object.entries(rest);
      const kept =
        entries.length >= MAX_SESSIONS ? entries.slice(entries.length - MAX_SESSIONS + 1) : entries;
      return { version: 1, sessions: { ...Object.fromEntries(kept), [sessionId]: lane } };
    });
  }
}
