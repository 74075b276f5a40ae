import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import {
  invokeChannels,
  type AppInfo,
  type ConversationEvent,
  type EventChannel,
  type EventPayload,
  type FileRewind,
  type InvokeChannel,
  type PermissionModeChoice,
  type InvokeResponse,
  type IpcResult,
  type SessionTarget,
  type SettingsView,
  type TurnImage,
} from '../../shared/ipc';
import type { z } from 'zod';
import { CliExited, CliNotFound, cliPathProblem, killAllCliProcesses, locateCli } from '../claude';
import { commandFor, type Command } from '../claude/cmd-shim';
import { SettingsStore } from '../data/settings';
import { killAllChecks } from '../conversation/done-check';
import { ForkRecords } from '../data/fork-records';
import { Conversation, type ConversationOptions } from '../conversation/conversation';
import { EventBatcher } from '../conversation/event-batcher';
import { FileIndex } from '../intake/file-index';
import { readProtocolLines } from '../intake/protocol-lines';
import type { EventLogLimits } from '../conversation/event-log';
import { IdleCollector } from '../conversation/idle-collector';
import { ImageRefs, type StoredImage } from '../conversation/image-refs';
import { toIpcError } from './errors';
import { checkOutgoingImage, ImageRefused, prepareImage } from '../intake/images';
import { IMAGE_LIMITS, apiMaxSideFor, maxLongSideFor, refusalMessage } from '../../shared/images';
import { exportJsonl, exportMarkdown, recentMarkdown } from '../library/export';
import { claudeConfigDir, Library } from '../library/library';
import type { ExportDelivery, ExportFile } from '../../shared/library';
import { readBranch } from '../library/read-branch';
import { cliCursorAt, readLastPage, readPageBefore } from '../library/read-session';
import { fileChanges } from '../intake/rewind-preview';
import { DiffWorker } from '../intake/rewind-diff';
import { makeDataPrivate } from '../disk/private-files';
import { TrustGate } from '../data/trust';

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
  /** Opens a folder in the system's file manager. */
  openFolder?: (path: string) => Promise<void>;
  /** Hands an export's files to the user: a save dialog, or downloads (shared/library.ts ExportDelivery). */
  deliverExport?: (files: ExportFile[]) => Promise<ExportDelivery>;
  /** The library's worker script: the build's `library-worker.js` beside the host's entry. */
  libraryWorker: string;
  /** The rewind preview's diff worker: the build's `rewind-diff-worker.js` beside the host's entry. */
  rewindDiffWorker: string;
  /** How open conversations are paged to a window (tests make pages small). */
  pageLimits?: Partial<EventLogLimits>;
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
  private readonly forks: ForkRecords;
  private readonly batcher = new EventBatcher((conversationId, events, seq) => {
    this.idle.poke();
    this.emit('conversationEvents', { conversationId, events: this.images.events(events), seq });
  });
  private readonly library: Library;
  /** Saved sessions whose CLI is starting, so a second resume joins the first. */
  private readonly resuming = new Map<string, Promise<Conversation>>();
  private readonly eventLogDir: string;
  private readonly images: ImageRefs;
  /** Gives memory back after a burst of events or pages. */
  private readonly idle = new IdleCollector();
  private readonly files = new FileIndex();
  /** Every CLI starts through it: a folder's own settings run only once the user trusts them. */
  private readonly trust: TrustGate;

  constructor(private readonly options: BackendOptions) {
    // What this process's conversations show, in a folder of its own: another instance on the same data
    // folder keeps its own. Those of processes that are gone went with them (their transcripts keep it).
    // What an earlier version wrote readable to others becomes private; what is written now is made so.
    void makeDataPrivate(options.dataDir).catch(() => undefined);
    const open = join(options.dataDir, 'open');
    removeDeadProcessFolders(open);
    this.eventLogDir = join(open, String(process.pid));
    this.images = new ImageRefs(join(this.eventLogDir, 'images'));
    this.settings = new SettingsStore(options.dataDir);
    this.forks = new ForkRecords(options.dataDir);
    this.trust = new TrustGate(options.dataDir, options.env);
    this.library = Library.start({
      dataDir: options.dataDir,
      env: options.env,
      workerPath: options.libraryWorker,
    });
    this.library.onChange(() => this.emit('libraryChanged', {}));
  }

  /** Validates a request against the contract, runs it, and returns a plain result or error. */
  async invoke(channel: string, payload: unknown): Promise<IpcResult<unknown>> {
    if (!Object.hasOwn(invokeChannels, channel)) {
      return { ok: false, error: { name: 'UnknownChannel', message: `No such channel: ${channel}` } };
    }
    const name = channel as InvokeChannel;
    this.idle.poke();
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
    this.idle.stop();
    await Promise.all([
      ...[...this.conversations.values()].map((conversation) => conversation.close()),
      this.library.close(),
    ]);
    this.conversations.clear();
    rmSync(this.eventLogDir, { recursive: true, force: true });
  }

  /** An image a window was sent by reference (main/image-refs.ts), by its hash. */
  image(hash: string): StoredImage | undefined {
    return this.images.read(hash);
  }

  /** A page for a window: its images by reference. */
  private byReference<T extends { events: ConversationEvent[] }>(page: T): T {
    return { ...page, events: this.images.events(page.events) };
  }

  /** For quitting without waiting. */
  killAll(): void {
    killAllCliProcesses();
    killAllChecks();
  }

  private readonly handlers: Handlers = {
    appInfo: async () => ({
      host: this.options.host,
      version: this.options.version,
      dataDir: this.options.dataDir,
      initialCwd: this.options.initialCwd,
      recentFolders: this.settings.recentFolders,
      defaultPermissionMode: this.settings.defaultPermissionMode,
      settingsProblems: this.settings.problems,
      theme: this.settings.values.theme,
      notifications: this.settings.values.notifications,
      defaultModel: this.settings.values.defaultModel,
      cli: this.findCli(),
    }),
    settings: async () => this.settingsView(),
    saveSettings: async (values) => {
      if (values.cliPath) {
        const problem = cliPathProblem(values.cliPath);
        if (problem) throw new InvalidSetting(`The claude program: ${problem}`);
      }
      this.settings.update(values);
      return this.settingsView();
    },
    testCli: async ({ path }) => {
      let program: string;
      if (path) {
        const problem = cliPathProblem(path);
        if (problem) return { ok: false, reason: problem };
        program = path;
      } else {
        const found = this.findCli();
        if (!found.found) return { ok: false, reason: found.explanation ?? 'Byre found no claude program.' };
        program = found.path;
      }
      return cliVersion(program, this.options.env);
    },
    openDataFolder: async () => {
      if (!this.options.openFolder) throw new InvalidSetting('This host cannot open folders.');
      await this.options.openFolder(this.options.dataDir);
      return {};
    },
    startConversation: async ({ cwd, model, permissionMode }) =>
      (
        await this.startConversation(cwd, {
          model: model ?? this.settings.values.defaultModel ?? undefined,
          ...(permissionMode ? { permissionMode } : {}),
        })
      ).snapshot(),
    setPermissionMode: async ({ conversationId, mode }) => ({
      mode: await this.get(conversationId).setPermissionMode(mode),
    }),
    setDefaultPermissionMode: async ({ mode }) => {
      this.settings.setDefaultPermissionMode(mode);
      return {};
    },
    contextUsage: async ({ conversationId }) => this.get(conversationId).contextUsage(),
    mcpStatus: async ({ conversationId }) => this.get(conversationId).mcpStatus(),
    stopTask: async ({ conversationId, taskId }) => {
      await this.get(conversationId).stopTask(taskId);
      return {};
    },
    answerPermission: async ({ conversationId, requestId, answer }) => ({
      answered: this.get(conversationId).answerPermission(requestId, answer),
    }),
    send: async ({ conversationId, text, images, uuid }) => {
      const conversation = this.get(conversationId);
      const checked = await this.outgoingImages(images);
      return { uuid: conversation.send(text, checked, uuid) };
    },
    prepareImage: async ({ name, data, imagesInTurn }) => {
      if (imagesInTurn > IMAGE_LIMITS.maxImagesPerTurn) {
        return { ok: false, reason: 'too_many', message: refusalMessage({ name, reason: 'too_many' }) };
      }
      try {
        const maxLongSide = maxLongSideFor(imagesInTurn, this.settings.imageMaxLongSide);
        const apiMaxSide = apiMaxSideFor(imagesInTurn);
        const image = await prepareImage(name, Buffer.from(data, 'base64'), { maxLongSide, apiMaxSide });
        return { ok: true, image, ref: this.images.keep(image) ?? image.data };
      } catch (error) {
        if (!(error instanceof ImageRefused)) throw error;
        return { ok: false, reason: error.refusal.reason, message: error.message };
      }
    },
    setDoneWhen: async ({ conversationId, command, folderDefault }) => {
      const conversation = this.get(conversationId);
      conversation.doneWhen.set(command);
      if (folderDefault) this.settings.setDoneWhenFor(conversation.snapshot().cwd, command);
      return { command: conversation.doneWhen.current };
    },
    commitIdentity: async ({ cwd }) => ({
      global: this.settings.globalCommitIdentity,
      folder: this.settings.folderCommitIdentity(resolve(cwd)),
    }),
    setCommitIdentity: async ({ scope, cwd, identity }) => {
      this.settings.setCommitIdentity(scope === 'global' ? 'global' : { folder: resolve(cwd) }, identity);
      return {};
    },
    setDraft: async ({ conversationId, draft }) => {
      // Images only by what main gave for them: a draft never carries megabytes on each keystroke.
      this.get(conversationId).draft = {
        text: draft.text,
        images: draft.images.flatMap((image) => {
          const data = this.images.keep(image);
          return data ? [{ ...image, data }] : [];
        }),
      };
      return {};
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
    listConversations: async () => {
      // What is on its way goes first (to no tab yet), so no event is both in a window and after it.
      this.batcher.flush();
      return {
        conversations: [...this.conversations.values()].map((conversation) => ({
          snapshot: conversation.snapshot(),
          ...this.byReference(conversation.history()),
          draft: conversation.draft,
          savedBefore: conversation.savedBefore,
        })),
      };
    },
    conversationBefore: async ({ conversationId, before }) =>
      this.byReference(this.get(conversationId).historyBefore(before)),
    findFiles: async ({ conversationId, query, limit }) =>
      this.files.find(this.get(conversationId).snapshot().cwd, query, limit),
    protocolLines: async ({ target, ...request }) => {
      let files: string[];
      if ('conversationId' in target) {
        const conversation = this.get(target.conversationId);
        // Earlier runs of a conversation resumed from the library are in transcripts the library knows.
        const earlier = (await this.library.files(conversation.snapshot().sessionId))?.transcripts ?? [];
        files = [...new Set([...earlier, ...conversation.transcripts])];
      } else {
        files = (await this.library.files(target.sessionId))?.transcripts ?? [];
      }
      // Named by the time each run started: in that order, oldest first.
      files.sort((a, b) => basename(a).localeCompare(basename(b)));
      return readProtocolLines(files, request);
    },
    closeConversation: async ({ conversationId }) => {
      const conversation = this.conversations.get(conversationId);
      this.conversations.delete(conversationId);
      await conversation?.close();
      return {};
    },
    folderTrust: async ({ cwd }) => this.trust.view(cwd),
    decideTrust: async ({ folder, digest, trust }) => {
      this.trust.decide(folder, digest, trust);
      return {};
    },
    trustedFolders: async () => ({ folders: this.trust.list() }),
    forgetTrust: async ({ folder }) => {
      this.trust.forget(folder);
      return {};
    },
    useFolderSettings: async ({ conversationId }) => this.get(conversationId).useFolderSettings(),
    pickFolder: async () => ({ path: this.options.pickFolder ? await this.options.pickFolder() : null }),
    checkFolder: async ({ cwd }) => {
      const folder = resolve(cwd);
      if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder, or does not exist.`);
      return { path: folder };
    },
    libraryList: async ({ folder }) => ({ rows: await this.library.list({ folder: folder ?? null }) }),
    libraryStatus: async () => this.library.status(),
    librarySearch: async ({ query, folder }) => ({
      hits: await this.library.search({ query, folder: folder ?? null }),
    }),
    openSaved: async ({ sessionId }) => {
      const saved = await this.saved(sessionId);
      // Any branch of a family opens, though the list shows each family once.
      const row = await this.library.row(sessionId);
      if (!row) throw new NoSuchSession('That conversation is no longer in the library.');
      return { row, ...this.byReference(await readLastPage(saved)) };
    },
    openSavedBranch: async ({ sessionId, leafUuid }) => {
      const saved = await this.saved(sessionId);
      const row = await this.library.row(sessionId);
      if (!row) throw new NoSuchSession('That conversation is no longer in the library.');
      const page = saved.cliFile === null ? null : await readBranch(saved.cliFile, leafUuid);
      if (!page) {
        throw new CliCopyGone(
          'Claude Code no longer has its copy of this conversation (it deletes them after cleanupPeriodDays), and the branches made inside it went with it. The conversation itself can still be opened.',
        );
      }
      return { row, ...this.byReference(page) };
    },
    openSavedBefore: async ({ sessionId, before }) =>
      this.byReference(await readPageBefore(await this.saved(sessionId), before)),
    resumeSaved: async ({ sessionId }) => {
      const open = this.openWithSession(sessionId);
      if (open) return open.snapshot();
      // Two windows (or two clicks) resuming at once get one process, not two writing one session.
      let resuming = this.resuming.get(sessionId);
      if (!resuming) {
        resuming = this.resumeNow(sessionId).finally(() => this.resuming.delete(sessionId));
        this.resuming.set(sessionId, resuming);
      }
      return (await resuming).snapshot();
    },
    continueSaved: async ({ sessionId }) => {
      const saved = await this.saved(sessionId);
      if (!saved.cliFile && saved.transcripts.length === 0) {
        throw new NoSuchSession('Nothing of this conversation is left on disk to carry on from.');
      }
      const cwd = this.existingFolder(saved.cwd);
      const meta = { title: saved.title, sessionId, cwd: saved.cwd };
      const { markdown } = await recentMarkdown(saved, meta, MAX_CONTINUATION_CHARS);
      const conversation = await this.startConversation(cwd, {});
      conversation.send(continuationPrompt(saved.title, markdown));
      const continued = conversation.snapshot();
      // Listed under the old title rather than the boilerplate of its first message.
      await this.library.rename(continued.sessionId, `${saved.title} (continued)`).catch(() => undefined);
      return continued;
    },
    libraryFamily: async ({ sessionId }) => this.library.family(sessionId),
    forkConversation: async ({ from, at, message }) => this.fork(from, at, message),
    rewindFiles: async ({ target, userMessageUuid, dryRun }) => {
      let sessionId: string;
      let result: FileRewind;
      if ('conversationId' in target) {
        const conversation = this.get(target.conversationId);
        result = await conversation.rewindFiles(userMessageUuid, dryRun);
        sessionId = conversation.snapshot().sessionId;
      } else {
        sessionId = target.sessionId;
        const open = this.openWithSession(sessionId) ?? (await this.resuming.get(sessionId));
        result = open
          ? await open.rewindFiles(userMessageUuid, dryRun)
          : await this.inTemporaryProcess(sessionId, (conversation) =>
              conversation.rewindFiles(userMessageUuid, dryRun),
            );
      }
      if (!dryRun) return result;
      const configDir = claudeConfigDir(this.options.env);
      return {
        ...result,
        fileChanges: await this.fileChanges(configDir, sessionId, userMessageUuid, result),
      };
    },
    renameSaved: async ({ sessionId, title }) => {
      await this.library.rename(sessionId, title);
      return {};
    },
    hideSaved: async ({ sessionId }) => {
      await this.library.hide(sessionId);
      return {};
    },
    exportSaved: async ({ sessionId, format }) => {
      const deliver = this.options.deliverExport;
      if (!deliver) throw new NotSupported('This host cannot export files.');
      const saved = await this.saved(sessionId);
      const meta = { title: saved.title, sessionId, cwd: saved.cwd };
      return deliver(
        format === 'markdown' ? await exportMarkdown(saved, meta) : await exportJsonl(saved, meta),
      );
    },
    openLink: async ({ url }) => {
      if (!this.options.openExternal)
        throw new NotSupported('This host cannot open links; your browser opens them.');
      await this.options.openExternal(url);
      return {};
    },
  };

  /** A conversation the UI can show in a tab: its events reach every window. */
  private async startConversation(cwd: string, launch: Launch): Promise<Conversation> {
    const id = randomUUID();
    const conversation = await this.launch(cwd, launch, {
      id,
      emit: (event, seq) => this.batcher.push(id, event, seq),
      notify: ({ title, message }) => this.emit('notification', { conversationId: id, title, message }),
    });
    this.conversations.set(id, conversation);
    try {
      this.settings.addRecentFolder(conversation.snapshot().cwd);
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
    return conversation;
  }

  private launch(
    cwd: string,
    launch: Launch,
    wiring: Pick<ConversationOptions, 'id' | 'emit' | 'notify'>,
  ): Promise<Conversation> {
    const folder = resolve(cwd);
    if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
    return Conversation.start({
      cwd: folder,
      ...launch,
      permissionMode: launch.permissionMode ?? this.settings.defaultPermissionMode,
      doneWhen: this.settings.doneWhenFor(folder),
      identity: this.settings.commitIdentityFor(folder),
      checkLimits: this.settings.checkLimits,
      ...wiring,
      startSession: (session) => this.trust.startSession(session),
      env: this.cliEnv(),
      transcriptDir: join(this.options.dataDir, 'transcripts'),
      eventLogDir: this.eventLogDir,
      ...(this.options.pageLimits ? { pageLimits: this.options.pageLimits } : {}),
      appVersion: this.options.version,
    });
  }

  /**
   * Runs `work` in a CLI resumed for it alone, for a saved session with no process: no tab and no events,
   * and the process is closed afterwards, whatever happened.
   */
  private async inTemporaryProcess<T>(sessionId: string, work: (conversation: Conversation) => Promise<T>) {
    const saved = await this.saved(sessionId);
    if (!saved.cliFile) {
      throw new CliCopyGone(
        'Claude Code no longer has its copy of this conversation (it deletes them after cleanupPeriodDays), and its copies of the files went with it, so nothing can be restored.',
      );
    }
    const conversation = await this.launch(
      this.existingFolder(saved.cwd),
      { resume: sessionId },
      { id: randomUUID(), emit: () => undefined, notify: () => undefined },
    );
    try {
      return await work(conversation);
    } finally {
      await conversation.close();
    }
  }

  /**
   * A new branch: `from` carried on after its entry `at` in a conversation of its own (at null: a fresh one in
   * the same folder), recorded in branches.json, and sent its first message.
   */
  /**
   * The images of a message to send: what prepareImage gave the window, checked again since main trusts no
   * window, or images a window was sent by reference (a message sent again), read back.
   */
  private async outgoingImages(images: readonly TurnImage[]): Promise<TurnImage[]> {
    const checked: TurnImage[] = [];
    for (const image of images) {
      const bytes = this.images.resolve(image);
      if (bytes === undefined) {
        throw new ImageGone('An image of this message is no longer available; attach it again.');
      }
      await checkOutgoingImage(bytes, images.length);
      checked.push(bytes);
    }
    return checked;
  }

  private async fork(from: SessionTarget, at: string | null, body: { text: string; images: TurnImage[] }) {
    const message = { ...body, images: await this.outgoingImages(body.images) };
    const parent = await this.forkParent(from, at !== null);
    // A branch asks as much as the conversation it comes from.
    const mode = parent.permissionMode ? { permissionMode: parent.permissionMode } : {};
    const conversation = await this.startConversation(
      parent.cwd,
      at === null ? mode : { ...mode, fork: { parentSessionId: parent.sessionId, at } },
    ).catch((error: unknown) => {
      throw explainForkFailure(error);
    });
    try {
      this.forks.add({
        sessionId: conversation.snapshot().sessionId,
        parentSessionId: parent.sessionId,
        forkPointUuid: at,
        createdAt: Date.now(),
      });
    } catch (error) {
      // Unrecorded, the branch would be lost from its family: better no fork than a stray one.
      this.conversations.delete(conversation.id);
      await conversation.close();
      throw error;
    }
    this.library.refresh();
    const uuid = conversation.send(message.text, message.images);
    return { snapshot: conversation.snapshot(), uuid, parentSessionId: parent.sessionId };
  }

  /** The session a fork parts from and its folder; `resumed` when the fork keeps part of it (needs its CLI file). */
  private async forkParent(
    from: SessionTarget,
    resumed: boolean,
  ): Promise<{ sessionId: string; cwd: string; permissionMode?: PermissionModeChoice }> {
    if ('conversationId' in from) return this.get(from.conversationId).snapshot();
    const open = this.openWithSession(from.sessionId);
    if (open) return open.snapshot();
    const saved = await this.saved(from.sessionId);
    if (resumed && !saved.cliFile) {
      throw new CliCopyGone(
        'Claude Code no longer has its copy of this conversation (it deletes them after cleanupPeriodDays), so it cannot be forked. You can still continue it in a new conversation.',
      );
    }
    return { sessionId: from.sessionId, cwd: this.existingFolder(saved.cwd) };
  }

  private openWithSession(sessionId: string): Conversation | undefined {
    return [...this.conversations.values()].find(
      (conversation) => conversation.snapshot().sessionId === sessionId,
    );
  }

  private async resumeNow(sessionId: string): Promise<Conversation> {
    const saved = await this.saved(sessionId);
    if (!saved.cliFile) {
      throw new CliCopyGone(
        'Claude Code no longer has its copy of this conversation (it deletes them after cleanupPeriodDays), so it cannot be resumed. You can continue it in a new conversation instead.',
      );
    }
    // What the file holds now is the history before this process: the pages a window reads past the start
    // of main's log of it (which begins here).
    const before = statSync(saved.cliFile).size;
    const conversation = await this.startConversation(this.existingFolder(saved.cwd), { resume: sessionId });
    conversation.savedBefore = before > 0 ? cliCursorAt(before) : null;
    return conversation;
  }

  /** A saved conversation's files, or a clear error. */
  private async saved(sessionId: string) {
    const files = await this.library.files(sessionId);
    if (!files) throw new NoSuchSession('That conversation is no longer in the library.');
    return files;
  }

  private existingFolder(cwd: string | null): string {
    if (!cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
    if (!isDirectory(cwd)) throw new NotAFolder(`The conversation's folder ${cwd} no longer exists.`);
    return cwd;
  }

  /** The environment CLI processes get: the settings' claude program, unless BYRE_CLAUDE_PATH names one. */
  private cliEnv(): NodeJS.ProcessEnv {
    const chosen = this.settings.values.cliPath;
    return chosen && !this.options.env.BYRE_CLAUDE_PATH
      ? { ...this.options.env, BYRE_CLAUDE_PATH: chosen }
      : this.options.env;
  }

  private settingsView(): SettingsView {
    return {
      values: this.settings.values,
      cliFromEnvironment: this.options.env.BYRE_CLAUDE_PATH || null,
      dataDir: this.options.dataDir,
      canOpenFolders: !!this.options.openFolder,
    };
  }

  /** Per file figures for the Rewind dialog, counted in a worker of their own; none if it fails. */
  private async fileChanges(
    configDir: string,
    sessionId: string,
    uuid: string,
    preview: FileRewind,
  ): Promise<FileRewind['fileChanges']> {
    const diffs = new DiffWorker(this.options.rewindDiffWorker);
    try {
      return await fileChanges(configDir, sessionId, uuid, preview, diffs.count);
    } catch (error) {
      console.error('Byre: the rewind preview failed:', error);
      return null;
    } finally {
      void diffs.close();
    }
  }

  private findCli(): AppInfo['cli'] {
    try {
      return { found: true, path: locateCli({ env: this.cliEnv() }) };
    } catch (error) {
      if (error instanceof CliNotFound) {
        return {
          found: false,
          looked: [...error.looked],
          ...(error.explanation ? { explanation: error.explanation } : {}),
        };
      }
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

export class InvalidSetting extends Error {
  override readonly name = 'InvalidSetting';
}

/** What `claude --version` says, or why it could not be run; within 20 s. */
function cliVersion(program: string, env: NodeJS.ProcessEnv): Promise<InvokeResponse<'testCli'>> {
  return new Promise((done) => {
    let run: Command;
    try {
      run = commandFor(program, ['--version']);
    } catch (error) {
      done({ ok: false, reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    execFile(run.command, run.args, { env, timeout: 20_000, windowsHide: true }, (error, stdout, stderr) => {
      // "2.1.332 (Claude Code)": the screen says whose version it is.
      const said = (`${stdout}`.trim().split('\n')[0] ?? '').replace(/\s*\(Claude Code\)$/, '');
      if (!error && said) {
        done({ ok: true, path: program, version: said });
        return;
      }
      const detail = `${stderr}`.trim().split('\n')[0] || error?.message || 'it printed nothing';
      done({
        ok: false,
        reason: error?.killed
          ? `${program} --version did not answer within 20 s.`
          : `${program} --version failed: ${detail}`,
      });
    });
  });
}

export class NotAFolder extends Error {
  override readonly name = 'NotAFolder';
}

export class NoSuchSession extends Error {
  override readonly name = 'NoSuchSession';
}

/** The CLI cleaned up its session file: `--resume` has nothing to read. */
export class CliCopyGone extends Error {
  override readonly name = 'CliCopyGone';
}

/** A fork point that is not an entry of the saved session. */
export class UnknownMessage extends Error {
  override readonly name = 'UnknownMessage';
}

/** How a new conversation starts: afresh, resuming a saved session, or as a fork of one. */
type Launch = Pick<ConversationOptions, 'model' | 'resume' | 'fork'> & {
  /** Otherwise the settings' default. */
  permissionMode?: PermissionModeChoice;
};

/** A fork whose CLI would not start, in words a person understands (from the CLI's stderr, 2.1.332). */
function explainForkFailure(error: unknown): unknown {
  if (!(error instanceof CliExited)) return error;
  if (/No message found with message\.uuid/i.test(error.stderrTail)) {
    return new UnknownMessage(
      'That message is not in the saved conversation (it may not have been saved yet, or it comes from before Byre kept message ids), so the conversation cannot be rewound to it.',
    );
  }
  if (/No conversation found/i.test(error.stderrTail)) {
    return new CliCopyGone(
      'Claude Code has no saved copy of this conversation (nothing was saved in it yet, or it was deleted after cleanupPeriodDays), so it cannot be forked. You can still continue it in a new conversation.',
    );
  }
  return error;
}

/** The most of an old conversation that goes into a new one's first message (the end is kept). */
const MAX_CONTINUATION_CHARS = 200_000;

/** The first message of a conversation that carries on from one the CLI can no longer resume. */
export function continuationPrompt(title: string, transcript: string): string {
  const kept =
    transcript.length > MAX_CONTINUATION_CHARS
      ? `[… the start is left out …]\n${transcript.slice(-MAX_CONTINUATION_CHARS)}`
      : transcript;
  return [
    `This conversation continues an earlier one, "${title}", which can no longer be resumed.`,
    'Its transcript follows. Read it for context, say in one sentence where it left off, and wait for my next message.',
    '',
    '<earlier-conversation>',
    kept,
    '</earlier-conversation>',
  ].join('\n');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Removes the folders under `dir` named for a process that no longer runs. */
function removeDeadProcessFolders(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (/^\d+$/.test(name) && !processRuns(Number(name)))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A message sent again names an image by reference that main no longer holds (it was restarted). */
export class ImageGone extends Error {
  override readonly name = 'ImageGone';
}
