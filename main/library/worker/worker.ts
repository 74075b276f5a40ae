import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { IdleCollector } from '../../conversation/idle-collector';
import { runThisThreadInBackground } from './background-priority';
import { LibraryIndex } from './library-index';
import { LiveIndex } from './live';
import { ToWorker, WorkerSetup, type FromWorker, type LibraryRequest } from './messages';
import { supersededBy } from '../search-lanes';
import { startWorker } from '../start-worker';
import { runTextWorker, TextWorkerSetup, ThreadedShards } from './text-shards';

/**
 * The library's worker thread: a thin message loop around the index, which it keeps current with a
 * LiveIndex. Requests are answered between the index's steps, so a long index never blocks a list.
 *
 * The same script is also each text shard's writer (text-shards.ts), started by the index with a
 * `role: 'text'` setup: one file to bundle and to find, whichever host runs it.
 */

const port = parentPort;
if (!port) throw new Error('The library worker runs only as a worker thread.');

// Indexing is background work: under load it waits for the conversation on screen, not the other way round.
runThisThreadInBackground();

const textSetup = TextWorkerSetup.safeParse(workerData);
if (textSetup.success) runTextWorker(textSetup.data, port);
else runIndex(port, WorkerSetup.parse(workerData));

function runIndex(port: MessagePort, setup: WorkerSetup): void {
  let closed = false;
  // A family still being read when the worker closes has no one left to answer.
  const post = (message: FromWorker) => {
    if (!closed) port.postMessage(message);
  };
  const self = new URL(import.meta.url);
  // The loop is made after the index; the shards call back only once it is going.
  let wake = () => {};
  const index = new LibraryIndex({
    ...setup,
    textShards: (dataDir, shards) =>
      new ThreadedShards({
        dataDir,
        shards,
        start: (textWorker, limits) => startWorker(self, textWorker, limits),
        onWake: () => wake(),
        onLost: (shard, error) => {
          post({ type: 'error', message: `The index's text shard ${shard} failed: ${messageOf(error)}` });
          index.repairText();
          wake();
        },
      }),
  });
  // Reading a long transcript leaves the worker's heap full of garbage that V8 would keep for many seconds;
  // once indexing has stopped a while, one full collection gives it back.
  const idle = new IdleCollector();
  const live = new LiveIndex(index, {
    ...(setup.rescanMs ? { rescanMs: setup.rescanMs } : {}),
    onWork: () => idle.poke(),
    onChange: () => post({ type: 'changed', usage: index.takeUsageChanged() }),
    onError: (error) => post({ type: 'error', message: messageOf(error) }),
  });
  wake = () => live.wake();
  live.start();

  /** Most answers are at once; a family is read from its files, a few megabytes at a time. */
  function answer(request: LibraryRequest): unknown {
    switch (request.op) {
      case 'list':
        return index.list(request.folder, request.limit);
      case 'search':
        return index.search(request, supersededBy(setup.lanes, request.ticket));
      case 'status':
        return index.status();
      case 'files':
        return index.files(request.sessionId);
      case 'rename':
        index.rename(request.sessionId, request.title);
        return null;
      case 'hide':
        index.hide(request.sessionId);
        return null;
      case 'row':
        return index.row(request.sessionId);
      case 'family':
        return index.family(request.sessionId);
      case 'usageReport':
        return index.usageReport(request);
      case 'usageDay':
        return index.usageDayConversations(request);
      case 'windowUsage':
        return index.windowUsage(request.since);
    }
  }

  async function reply(id: number, request: LibraryRequest): Promise<void> {
    try {
      post({ type: 'reply', id, value: await answer(request) });
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      post({ type: 'failure', id, error: { name, message: messageOf(error) } });
    }
  }

  port.on('message', (raw: unknown) => {
    const parsed = ToWorker.safeParse(raw);
    if (!parsed.success) {
      post({
        type: 'error',
        message: `The library worker got a message it does not understand: ${parsed.error.message}`,
      });
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'request':
        void reply(message.id, message.request);
        return;
      case 'refresh':
        live.refresh();
        return;
      case 'close':
        live.close();
        idle.stop();
        void index.close().finally(() => {
          post({ type: 'closed' });
          closed = true;
          port.close();
        });
        return;
    }
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
