import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCliWorld, type CliWorld } from '../../e2e/fixtures/cli-env';
import {
  eventChannels,
  type ConversationEvent,
  type EventPayload,
  type InvokeChannel,
  type InvokeRequest,
  type InvokeResponse,
} from '../../shared/ipc';
import { Backend, type BackendOptions } from '../backend/backend';

/** For tests: runs one IPC request through the backend as a window would, throwing its error if it fails. */
export async function invokeOk<C extends InvokeChannel>(
  backend: Backend,
  channel: C,
  request: InvokeRequest<C>,
): Promise<InvokeResponse<C>> {
  const result = await backend.invoke(channel, request);
  if (!result.ok) throw new Error(`${channel}: ${result.error.name}: ${result.error.message}`);
  return result.value as InvokeResponse<C>;
}

/**
 * For tests of something other than permissions: new conversations start in "Don't ask" mode, so tools run
 * without a permission request to answer (as they did before the app asked first).
 */
export function dontAskByDefault(dataDir: string, settings: Record<string, unknown> = {}): void {
  writeFileSync(
    join(dataDir, 'settings.json'),
    JSON.stringify({ defaultPermissionMode: 'bypassPermissions', ...settings }),
  );
}

/** A backend as the UI talks to it, over the real CLI and the fake model, with what it sent each window. */
export interface BackendHarness {
  world: CliWorld;
  dataDir: string;
  backend: Backend;
  invoke<C extends InvokeChannel>(channel: C, request: InvokeRequest<C>): Promise<InvokeResponse<C>>;
  /** The system notifications the backend asked for, in order. */
  notifications: EventPayload<'notification'>[];
  /** Every event of a conversation so far, as a window got them. */
  eventsOf(conversationId: string): ConversationEvent[];
  /** Resolves with the first truthy value of `check`, looked at again after each event from the backend. */
  when<T>(check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T>;
  /** Looks at what `when` waits for again now (for events that do not come from the backend). */
  wake(): void;
  dispose(): Promise<void>;
}

/**
 * A backend as the browser host makes one, over a data folder and the CLI world's environment, with the
 * workers run from source. A test that restarts Byre makes a second one over the same data folder.
 */
export function backendOver(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  pageLimits?: BackendOptions['pageLimits'],
  sshConfigFile?: string,
): Backend {
  return new Backend({
    host: 'browser',
    version: 'test',
    dataDir,
    initialCwd: null,
    env,
    libraryWorker: join(import.meta.dirname, '..', 'library', 'worker', 'worker.ts'),
    rewindDiffWorker: join(import.meta.dirname, '..', 'intake', 'rewind-diff-worker.ts'),
    ...(pageLimits ? { pageLimits } : {}),
    ...(sshConfigFile ? { sshConfigFile } : {}),
  });
}

export async function openBackend(options: {
  dontAsk: boolean;
  /** More settings for a backend that does not ask (`dontAsk`). */
  settings?: Record<string, unknown>;
  pageLimits?: BackendOptions['pageLimits'];
  /** Runs on the data folder before the backend starts (to break it, say). */
  prepare?: (dataDir: string) => void;
  /** The ssh config file the backend lists hosts from and gives every ssh. */
  sshConfigFile?: string;
}): Promise<BackendHarness> {
  const world = await createCliWorld();
  const dataDir = mkdtempSync(join(tmpdir(), 'byre-backend-data-'));
  if (options.dontAsk) dontAskByDefault(dataDir, options.settings);
  options.prepare?.(dataDir);
  const backend = backendOver(dataDir, world.env, options.pageLimits, options.sshConfigFile);
  const seen = new Map<string, ConversationEvent[]>();
  const notifications: EventPayload<'notification'>[] = [];
  let waiters: (() => void)[] = [];
  const wake = () => {
    const waiting = waiters;
    waiters = [];
    for (const resolve of waiting) resolve();
  };
  backend.on((channel, payload) => {
    if (channel === 'notification') {
      const notification = eventChannels.notification.safeParse(payload);
      if (notification.success) notifications.push(notification.data);
    }
    if ('events' in payload) {
      seen.set(payload.conversationId, [...(seen.get(payload.conversationId) ?? []), ...payload.events]);
    }
    wake();
  });
  return {
    world,
    dataDir,
    backend,
    notifications,
    invoke: (channel, request) => invokeOk(backend, channel, request),
    eventsOf: (conversationId) => seen.get(conversationId) ?? [],
    async when(check) {
      for (;;) {
        const next = new Promise<void>((resolve) => waiters.push(resolve));
        const value = await check();
        if (value) return value;
        await next;
      }
    },
    wake,
    async dispose() {
      await backend.dispose();
      await world.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
