import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  EventChannel,
  EventPayload,
  PermissionModeChoice,
  SessionTarget,
  TurnImage,
} from '../../shared/ipc';
import { CliExited } from '../claude';
import { Conversation, type ConversationOptions } from '../conversation/conversation';
import type { EventBatcher } from '../conversation/event-batcher';
import type { ImageRefs } from '../conversation/image-refs';
import type { ForkRecords } from '../data/fork-records';
import type { SettingsStore } from '../data/settings';
import type { TrustGate } from '../data/trust';
import { changesFolders } from '../changes/record';
import { checkOutgoingImage } from '../intake/images';
import type { Library } from '../library/library';
import { cliCursorAt } from '../library/read-session';
import {
  CliCopyGone,
  ImageGone,
  NoSuchConversation,
  NoSuchSession,
  NotAFolder,
  UnknownMessage,
} from './errors';
import type { BackendOptions } from './options';

/**
 * The conversations open in this process, and how one starts: afresh, resumed, forked, or in a process of
 * its own for one request. Every CLI starts here, through the trust gate, with the settings of its folder.
 */
export class OpenConversations {
  private readonly conversations = new Map<string, Conversation>();
  /** Saved sessions whose CLI is starting, so a second resume joins the first. */
  private readonly resuming = new Map<string, Promise<Conversation>>();

  constructor(
    /** Every CLI starts through the gate: a folder's own settings run only once the user trusts them. */
    private readonly trust: TrustGate,
    private readonly parts: {
      options: BackendOptions;
      settings: SettingsStore;
      forks: ForkRecords;
      library: Library;
      images: ImageRefs;
      batcher: EventBatcher;
      eventLogDir: string;
      emit: <C extends EventChannel>(channel: C, payload: EventPayload<C>) => void;
    },
  ) {}

  all(): Conversation[] {
    return [...this.conversations.values()];
  }

  get(conversationId: string): Conversation {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) throw new NoSuchConversation('That conversation is closed.');
    return conversation;
  }

  async close(conversationId: string): Promise<void> {
    const conversation = this.conversations.get(conversationId);
    this.conversations.delete(conversationId);
    await conversation?.close();
  }

  /** Ends every conversation's CLI process cleanly, in parallel. */
  async closeAll(): Promise<void> {
    await Promise.all(this.all().map((conversation) => conversation.close()));
    this.conversations.clear();
  }

  withSession(sessionId: string): Conversation | undefined {
    return this.all().find((conversation) => conversation.snapshot().sessionId === sessionId);
  }

  /** The open conversation of a saved session, or one resuming: a request joins it rather than start another. */
  async withSessionOrResuming(sessionId: string): Promise<Conversation | undefined> {
    return this.withSession(sessionId) ?? (await this.resuming.get(sessionId));
  }

  /** A conversation the UI can show in a tab: its events reach every window. */
  async start(cwd: string, launch: Launch): Promise<Conversation> {
    const id = randomUUID();
    const conversation = await this.launch(cwd, launch, {
      id,
      emit: (event, seq) => this.parts.batcher.push(id, event, seq),
      notify: ({ title, message }) => this.parts.emit('notification', { conversationId: id, title, message }),
    });
    this.conversations.set(id, conversation);
    try {
      this.parts.settings.addRecentFolder(conversation.snapshot().cwd);
    } catch {
      // The recent folders are a convenience: settings that cannot be written do not stop a conversation.
    }
    return conversation;
  }

  /** A saved session carried on in a tab: one process however many windows (or clicks) ask at once. */
  async resume(sessionId: string): Promise<Conversation> {
    const open = this.withSession(sessionId);
    if (open) return open;
    let resuming = this.resuming.get(sessionId);
    if (!resuming) {
      resuming = this.resumeNow(sessionId).finally(() => this.resuming.delete(sessionId));
      this.resuming.set(sessionId, resuming);
    }
    return resuming;
  }

  private launch(
    cwd: string,
    launch: Launch,
    wiring: Pick<ConversationOptions, 'id' | 'emit' | 'notify'>,
  ): Promise<Conversation> {
    const { options, settings } = this.parts;
    const folder = resolve(cwd);
    if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder.`);
    return Conversation.start({
      cwd: folder,
      ...launch,
      permissionMode: launch.permissionMode ?? settings.defaultPermissionMode,
      doneWhen: settings.doneWhenFor(folder),
      identity: settings.commitIdentityFor(folder),
      checkLimits: settings.checkLimits,
      ...wiring,
      startSession: (session) => this.trust.startSession(session),
      remembered: (suggestions) => this.trust.expect(folder, suggestions),
      planApproval: {
        mode: () => settings.planApprovalMode,
        remember: (mode) => settings.setPlanApprovalMode(mode),
      },
      env: this.cliEnv(),
      promptSuggestions: settings.values.promptSuggestions,
      transcriptDir: join(options.dataDir, 'transcripts'),
      eventLogDir: this.parts.eventLogDir,
      ...(options.pageLimits ? { pageLimits: options.pageLimits } : {}),
      appVersion: options.version,
      changes: changesFolders(options.dataDir),
    });
  }

  /**
   * Runs `work` in a CLI resumed for it alone, for a saved session with no process: no tab and no events,
   * and the process is closed afterwards, whatever happened.
   */
  async inTemporaryProcess<T>(sessionId: string, work: (conversation: Conversation) => Promise<T>) {
    const saved = await this.saved(sessionId);
    if (!saved.cliFile) throw new CliCopyGone('files');
    const conversation = await this.launch(
      existingFolder(saved.cwd),
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
   * The images of a message to send: what prepareImage gave the window, checked again since main trusts no
   * window, or images a window was sent by reference (a message sent again), read back.
   */
  async outgoingImages(images: readonly TurnImage[]): Promise<TurnImage[]> {
    const checked: TurnImage[] = [];
    for (const image of images) {
      const bytes = this.parts.images.resolve(image);
      if (bytes === undefined) {
        throw new ImageGone('An image of this message is no longer available; attach it again.');
      }
      await checkOutgoingImage(bytes, images.length);
      checked.push(bytes);
    }
    return checked;
  }

  /**
   * A new branch: `from` carried on after its entry `at` in a conversation of its own (at null: a fresh one in
   * the same folder), recorded in branches.json, and sent its first message.
   */
  async fork(from: SessionTarget, at: string | null, body: { text: string; images: TurnImage[] }) {
    const message = { ...body, images: await this.outgoingImages(body.images) };
    const parent = await this.forkParent(from, at !== null);
    // A branch asks as much as the conversation it comes from.
    const mode = parent.permissionMode ? { permissionMode: parent.permissionMode } : {};
    const conversation = await this.start(
      parent.cwd,
      at === null ? mode : { ...mode, fork: { parentSessionId: parent.sessionId, at } },
    ).catch((error: unknown) => {
      throw explainForkFailure(error);
    });
    try {
      this.parts.forks.add({
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
    this.parts.library.refresh();
    const uuid = conversation.send(message.text, message.images);
    return { snapshot: conversation.snapshot(), uuid, parentSessionId: parent.sessionId };
  }

  /** The session a fork parts from and its folder; `resumed` when the fork keeps part of it (needs its CLI file). */
  private async forkParent(
    from: SessionTarget,
    resumed: boolean,
  ): Promise<{ sessionId: string; cwd: string; permissionMode?: PermissionModeChoice }> {
    if ('conversationId' in from) return this.get(from.conversationId).snapshot();
    const open = this.withSession(from.sessionId);
    if (open) return open.snapshot();
    const saved = await this.saved(from.sessionId);
    if (resumed && !saved.cliFile) throw new CliCopyGone('fork');
    return { sessionId: from.sessionId, cwd: existingFolder(saved.cwd) };
  }

  private async resumeNow(sessionId: string): Promise<Conversation> {
    const saved = await this.saved(sessionId);
    if (!saved.cliFile) throw new CliCopyGone('resume');
    // What the file holds now is the history before this process: the pages a window reads past the start
    // of main's log of it (which begins here).
    const before = statSync(saved.cliFile).size;
    const conversation = await this.start(existingFolder(saved.cwd), { resume: sessionId });
    conversation.savedBefore = before > 0 ? cliCursorAt(before) : null;
    return conversation;
  }

  /** A saved conversation's files, or a clear error. */
  async saved(sessionId: string) {
    const files = await this.parts.library.files(sessionId);
    if (!files) throw new NoSuchSession('That conversation is no longer in the library.');
    return files;
  }

  /** The environment CLI processes get: the settings' claude program, unless BYRE_CLAUDE_PATH names one. */
  cliEnv(): NodeJS.ProcessEnv {
    const { options, settings } = this.parts;
    const chosen = settings.values.cliPath;
    return chosen && !options.env.BYRE_CLAUDE_PATH
      ? { ...options.env, BYRE_CLAUDE_PATH: chosen }
      : options.env;
  }
}

/** How a new conversation starts: afresh, resuming a saved session, or as a fork of one. */
export type Launch = Pick<ConversationOptions, 'model' | 'resume' | 'fork'> & {
  /** Otherwise the settings' default. */
  permissionMode?: PermissionModeChoice;
};

/** A saved conversation's folder, if it still exists. */
export function existingFolder(cwd: string | null): string {
  if (!cwd) throw new NotAFolder('This conversation does not say which folder it ran in.');
  if (!isDirectory(cwd)) throw new NotAFolder(`The conversation's folder ${cwd} no longer exists.`);
  return cwd;
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A fork whose CLI would not start, in words a person understands (from the CLI's stderr, 2.1.332). */
function explainForkFailure(error: unknown): unknown {
  if (!(error instanceof CliExited)) return error;
  if (/No message found with message\.uuid/i.test(error.stderrTail)) {
    return new UnknownMessage(
      'That message is not in the saved conversation (it may not have been saved yet, or it comes from before Byre kept message ids), so the conversation cannot be rewound to it.',
    );
  }
  if (/No conversation found/i.test(error.stderrTail)) return new CliCopyGone('fork', 'maybeNeverSaved');
  return error;
}
