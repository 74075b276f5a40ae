import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKGROUND_NICE } from './worker/background-priority';
import { HEALTHY_MS, Library, LibraryUnavailable, NoSuchSession } from './library';
import {
  append,
  byreRun,
  cli,
  conversation,
  createSessionWorld,
  linked,
  type SessionWorld,
} from '../test-support/library';

/** These tests run the real worker thread (its TypeScript source, through tsx). */

const WORKER = join(import.meta.dirname, 'worker', 'worker.ts');

let world: SessionWorld;
const libraries: Library[] = [];

beforeEach(() => {
  world = createSessionWorld();
});
afterEach(async () => {
  await Promise.all(libraries.splice(0).map((library) => library.close()));
  world.dispose();
});

function start(workerPath = WORKER): Library {
  const library = Library.start({
    dataDir: world.dataDir,
    env: { HOME: world.root, CLAUDE_CONFIG_DIR: world.configDir },
    workerPath,
    // Far beyond the test's own deadline: what it sees comes from the folder watchers.
    rescanMs: 3_600_000,
  });
  libraries.push(library);
  return library;
}

/** Polls until `check` holds, with a deadline generous enough for a busy machine; never asserts on time. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Each test waits for states, up to until()'s 60 s: on a busy machine the (niced) worker can take many seconds.
describe('Library (in its worker)', { timeout: 90_000 }, () => {
  it('lists and searches, and shows a session written while it runs', async () => {
    const id = randomUUID();
    const path = world.writeCli(id, conversation(id, 'find the flaky test', 'It is timingSensitiveTest.'));
    world.writeTranscript('run-1', byreRun(id, 'find the flaky test', 'It is timingSensitiveTest.'));
    const library = start();
    let changes = 0;
    library.onChange(() => {
      changes += 1;
    });
    await until(async () => (await library.status()).done, 'the first index is done');
    expect(await library.list()).toMatchObject([{ sessionId: id, resumable: true, hasTranscript: true }]);
    const [hit] = await library.search({ query: 'SensitiveTe' });
    expect(hit).toMatchObject({ sessionId: id, title: 'find the flaky test' });

    // The CLI goes on writing this session, and starts another in a new folder.
    const before = changes;
    append(path, [cli.user(id, 'and now appendedWordXyz'), cli.assistant(id, 'noted')]);
    const other = randomUUID();
    world.writeCli(other, conversation(other, 'a brand new project', 'hello'), '/new/project');
    await until(
      async () => (await library.search({ query: 'appendedWordXyz' })).length === 1,
      'the append is found',
    );
    await until(async () => (await library.list()).length === 2, 'the new session is listed');
    await until(async () => changes > before, 'onChange is called');

    await library.rename(id, 'Flaky test hunt');
    expect((await library.list({ folder: null })).find((row) => row.sessionId === id)?.title).toBe(
      'Flaky test hunt',
    );
    const files = await library.files(id);
    expect(files).toMatchObject({ cliFile: path, title: 'Flaky test hunt' });
    expect(files?.transcripts).toHaveLength(1);
    await library.hide(other);
    expect((await library.list()).map((row) => row.sessionId)).toEqual([id]);
    expect(await library.files('no-such-session')).toBeNull();
  });

  it('groups a fork Byre recorded, once told to refresh, and reads its family', async () => {
    const root = randomUUID();
    const fork = randomUUID();
    const rootEntries = linked(conversation(root, 'draft the release notes', 'Here is a draft.'));
    const forkPoint = String(rootEntries[2]?.uuid);
    world.writeCli(root, rootEntries);
    world.writeCli(fork, [
      ...rootEntries.slice(0, 3).map((entry) => ({ ...entry, sessionId: fork })),
      ...linked([cli.user(fork, 'shorter, please'), cli.assistant(fork, 'A short draft.')], forkPoint),
    ]);
    const library = start();
    await until(async () => (await library.list()).length === 2, 'both sessions are listed');
    world.writeForkRecords([
      { sessionId: fork, parentSessionId: root, forkPointUuid: forkPoint, createdAt: 1 },
    ]);
    library.refresh();
    await until(async () => (await library.list()).length === 1, 'the family is listed once');
    expect(await library.list()).toMatchObject([{ sessionId: fork, familyKey: root, branchCount: 2 }]);
    expect(await library.row(root)).toMatchObject({ sessionId: root, familyKey: root });
    const family = await library.family(root);
    expect(family.branches.map((branch) => [branch.key, branch.parentKey, branch.firstMessage])).toEqual([
      [root, null, 'draft the release notes'],
      [fork, root, 'shorter, please'],
    ]);
    await expect(library.family('no-such-session')).rejects.toBeInstanceOf(NoSuchSession);
  });

  it.runIf(process.platform === 'linux')(
    "indexes at background priority, leaving the host's own thread as it was",
    async (context) => {
      /** Each thread of this process and its nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
      const niceByThread = () => {
        const nices = new Map<number, number>();
        for (const tid of readdirSync('/proc/self/task')) {
          try {
            const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
            nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
          } catch {
            // The thread ended between the listing and the read.
          }
        }
        return nices;
      };
      const before = niceByThread();
      // Already running at background priority or lower: the library's threads could not be told apart.
      if ((before.get(process.pid) ?? 0) >= BACKGROUND_NICE) context.skip();
      const id = randomUUID();
      world.writeCli(id, conversation(id, 'a niced index', 'fine'));
      const library = start();
      await until(async () => (await library.status()).done, 'the first index is done');
      const after = niceByThread();
      // The index's thread and its text shards' writers, each made by the library and niced by itself.
      const niced = [...after].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_NICE);
      expect(niced.length).toBeGreaterThanOrEqual(2);
      expect(after.get(process.pid)).toBe(before.get(process.pid));
    },
  );

  it("notices the CLI's projects folder once it is created", async () => {
    const library = start();
    await until(async () => (await library.status()).done, 'the empty index is done');
    expect(await library.list()).toEqual([]);
    const id = randomUUID();
    world.writeCli(id, conversation(id, 'the very first session', 'hi'));
    await until(async () => (await library.list()).length === 1, 'the first session is listed');
  });

  it('says why when its index cannot be opened, and keeps the files', async () => {
    const blocked = join(world.dataDir, 'library.sqlite');
    mkdirSync(blocked, { recursive: true });
    const library = start();
    const reason = /The search index in .* could not be opened \(.*\)\. Its files were left as they are\./;
    const failure = await library.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LibraryUnavailable);
    expect(String(failure)).toMatch(reason);
    // While the worker is down (between restarts, and once they run out) a request still says why.
    await until(
      async () => String(await library.status().catch((error: unknown) => error)).includes('not running:'),
      'a request finds the worker down',
    );
    expect(String(await library.status().catch((error: unknown) => error))).toMatch(reason);
    expect(statSync(blocked).isDirectory()).toBe(true);
  });

  it('starts its worker again however often it dies, if each ran a healthy while first', async () => {
    // A worker that answers renames and dies when told to refresh.
    const script = join(world.root, 'mortal-worker.mjs');
    writeFileSync(
      script,
      `import { parentPort } from 'node:worker_threads';
      parentPort.on('message', (message) => {
        if (message.type === 'refresh') process.exit(1);
        if (message.type === 'request') parentPort.postMessage({ type: 'reply', id: message.id, value: null });
        if (message.type === 'close') process.exit(0);
      });`,
    );
    let now = 0;
    const library = Library.start({
      dataDir: world.dataDir,
      env: { HOME: world.root, CLAUDE_CONFIG_DIR: world.configDir },
      workerPath: script,
      now: () => now,
    });
    libraries.push(library);
    const running = () =>
      library.rename(randomUUID(), 'x').then(
        () => true,
        () => false,
      );
    // More deaths than the restarts a crash loop gets.
    for (let death = 0; death < 5; death++) {
      await until(running, `the worker runs again after ${death} deaths`);
      now += HEALTHY_MS;
      library.refresh();
      await until(async () => !(await running()), `the worker dies a ${death + 1}th time`);
    }
    await until(running, 'the worker runs again after 5 deaths');
  });

  it('answers with an error, not a hang, when the worker cannot run', async () => {
    const library = start(join(world.root, 'missing-worker.js'));
    await expect(library.list()).rejects.toBeInstanceOf(LibraryUnavailable);
    await library.close();
    await expect(library.status()).rejects.toBeInstanceOf(LibraryUnavailable);
  });
});
