import { parentPort, workerData } from 'node:worker_threads';
import { DiffRequest, DiffWorkerSetup, type DiffReply } from './rewind-diff';
import { countLines } from './rewind-preview';

/**
 * The rewind preview's diff worker (rewind-diff.ts): counts each file's lines as main asks, one at a time,
 * off main's event loop. Main sends only requests of the schema; anything else is dropped, never a crash.
 */

const port = parentPort;
if (!port) throw new Error('The diff worker runs only as a worker thread.');
const { timeoutMs } = DiffWorkerSetup.parse(workerData ?? {});

port.on('message', (raw: unknown) => {
  const request = DiffRequest.safeParse(raw);
  if (!request.success) return;
  const { id, now, before } = request.data;
  port.postMessage({ id, counts: countLines(now, before, timeoutMs) } satisfies DiffReply);
});
