import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How much the library's threads give way: at nice 5 a thread gets about a quarter of a core that a normal
 * thread also wants, so it yields to the UI and the CLI and still makes progress on a machine kept busy.
 */
export const BACKGROUND_NICE = 5;

/**
 * Lowers the priority of the calling thread only, so the library's indexing gives way to the conversation
 * being shown: the host's event loop, the renderer and the CLI. Linux keeps a nice value per thread, and
 * `setpriority` given a thread id changes just that thread. Elsewhere (or if /proc is not there) it does
 * nothing and says so: the index then runs at the app's priority, as before. It never raises a priority: a
 * thread already at a higher nice value (the whole app started with `nice`, say) keeps it.
 */
export function runThisThreadInBackground(nice = BACKGROUND_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(thread) || thread <= 0) return false;
    setPriority(thread, Math.max(getPriority(thread), nice));
    return true;
  } catch {
    return false;
  }
}
