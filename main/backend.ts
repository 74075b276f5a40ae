import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  invokeChannels,
  type AppInfo,
  type EventChannel,
  type EventPayload,
  type InvokeChannel,
  type InvokeResponse,
  type IpcResult,
} from '../shared/ipc';
import type { z } from 'zod';
import { CliNotFound, killAllCliProcesses, locateCli } from './claude';
import { SettingsStore } from './app-data';
import { Conversation } from './conversation';
import { EventBatcher } from './event-batcher';
import { toIpcError } from './ipc-errors';
import { checkOutgoingImage, ImageRefused, prepareImage } from './images';
import { IMAGE_LIMITS, apiMaxSideFor, maxLongSideFor, refusalMessage } from '../shared/images';

/**
 * The backend the UI talks to: it implements the IPC contract once, for both hosts (Electron's ipcMain and
 * the loopback browser bridge). Hosts check who is asking; the backend checks what is asked.
 */

export interface BackendOptions {
  host: AppInfo['host'];
  version: string;
  dataDir: string;
  initialCwd: string | null;
  /** The environment CLI processes inherit (CLAUDECODE is removed by the driver). */
  env: NodeJS.ProcessEnv;
  pickFolder?: () => Promise<string | null>;
  /** Opens a URL in the system browser; only a desktop host has one to open. */
  openExternal?: (url: string) => Promise<void>;
}

type Handlers = {
  [C in InvokeChannel]: (
    request: z.infer<(typeof invokeChannels)[C]['request']>,
  ) => Promise<InvokeResponse<C>>;
};

export type EventListener = <C extends EventChannel>(channel: C, payload: EventPayload<C>) => void;

export class NoSuchConversation extends Error {
  override readonly name = 'NoSuchConversation';
}

export class Backend {
  private readonly conversations = new Map<string, Conversation>();
  private readonly listeners = new Set<EventListener>();
  private readonly settings: SettingsStore;
  private readonly batcher = new EventBatcher((conversationId, events) =>
    this.emit('conversationEvents', { conversationId, events }),
  );

  constructor(private readonly options: BackendOptions) {
    this.settings = new SettingsStore(options.dataDir);
  }

  /** Validates a request against the contract, runs it, and returns a plain result or error. */
  async invoke(channel: string, payload: unknown): Promise<IpcResult<unknown>> {
    if (!Object.hasOwn(invokeChannels, channel)) {
      return { ok: false, error: { name: 'UnknownChannel', message: `No such channel: ${channel}` } };
    }
    const name = channel as InvokeChannel;
    const parsed = invokeChannels[name].request.safeParse(payload ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        error: {
          name: 'InvalidRequest',
          message: `Invalid ${name} request: ${parsed.error.issues[0]?.message}`,
        },
      };
    }
    try {
      const handler = this.handlers[name] as (request: unknown) => Promise<unknown>;
      return { ok: true, value: await handler(parsed.data) };
    } catch (error) {
      return { ok: false, error: toIpcError(error) };
    }
  }

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every conversation's CLI process cleanly, in parallel. */
  async dispose(): Promise<void> {
    this.batcher.flush();
    await Promise.all([...this.conversations.values()].map((conversation) => conversation.close()));
    this.conversations.clear();
  }

  /** For quitting without waiting. */
  killAll(): void {
    killAllCliProcesses();
  }

  private readonly handlers: Handlers = {
    appInfo: async () => ({
      host: this.options.host,
      version: this.options.version,
      dataDir: this.options.dataDir,
      initialCwd: this.options.initialCwd,
      recentFolders: this.settings.recentFolders,
      cli: this.findCli(),
    }),
    startConversation: async ({ cwd, model }) => {
      const folder = resolve(cwd);
      if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
      const id = randomUUID();
      const conversation = await Conversation.start({
        id,
        cwd: folder,
        ...(model ? { model } : {}),
        env: this.options.env,
        transcriptDir: join(this.options.dataDir, 'transcripts'),
        appVersion: this.options.version,
        emit: (event) => this.batcher.push(id, event),
        notify: ({ title, message }) => this.emit('notification', { conversationId: id, title, message }),
      });
      this.conversations.set(id, conversation);
      this.settings.addRecentFolder(folder);
      return conversation.snapshot();
    },
    send: async ({ conversationId, text, images, uuid }) => {
      const conversation = this.get(conversationId);
      // The renderer sent back what prepareImage gave it; check it again, since main trusts no window.
      for (const image of images) await checkOutgoingImage(image, images.length);
      return { uuid: conversation.send(text, images, uuid) };
    },
    prepareImage: async ({ name, data, imagesInTurn }) => {
      if (imagesInTurn > IMAGE_LIMITS.maxImagesPerTurn) {
        return { ok: false, reason: 'too_many', message: refusalMessage({ name, reason: 'too_many' }) };
      }
      try {
        const maxLongSide = maxLongSideFor(imagesInTurn, this.settings.imageMaxLongSide);
        const apiMaxSide = apiMaxSideFor(imagesInTurn);
        return {
          ok: true,
          image: await prepareImage(name, Buffer.from(data, 'base64'), { maxLongSide, apiMaxSide }),
        };
      } catch (error) {
        if (!(error instanceof ImageRefused)) throw error;
        return { ok: false, reason: error.refusal.reason, message: error.message };
      }
    },
    interrupt: async ({ conversationId }) => {
      await this.get(conversationId).interrupt();
      return {};
    },
    cancelQueued: async ({ conversationId, uuid }) => ({
      cancelled: await this.get(conversationId).cancelQueued(uuid),
    }),
    setModel: async ({ conversationId, model }) => ({
      model: await this.get(conversationId).setModel(model),
    }),
    resume: async ({ conversationId }) => this.get(conversationId).resume(),
    listConversations: async () => ({
      conversations: [...this.conversations.values()].map((conversation) => ({
        snapshot: conversation.snapshot(),
        events: conversation.history(),
      })),
    }),
    closeConversation: async ({ conversationId }) => {
      const conversation = this.conversations.get(conversationId);
      this.conversations.delete(conversationId);
      await conversation?.close();
      return {};
    },
    pickFolder: async () => ({ path: this.options.pickFolder ? await this.options.pickFolder() : null }),
    openLink: async ({ url }) => {
      if (!this.options.openExternal)
        throw new NotSupported('This host cannot open links; your browser opens them.');
      await this.options.openExternal(url);
      return {};
    },
  };

  private findCli(): AppInfo['cli'] {
    try {
      return { found: true, path: locateCli({ env: this.options.env }) };
    } catch (error) {
      if (error instanceof CliNotFound) return { found: false, looked: [...error.looked] };
      throw error;
    }
  }

  private get(conversationId: string): Conversation {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) throw new NoSuchConversation('That conversation is closed.');
    return conversation;
  }

  private emit<C extends EventChannel>(channel: C, payload: EventPayload<C>): void {
    for (const listener of this.listeners) listener(channel, payload);
  }
}

export class NotSupported extends Error {
  override readonly name = 'NotSupported';
}

export class NotAFolder extends Error {
  override readonly name = 'NotAFolder';
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
