import { create, type StateCreator } from 'zustand';
import {
  applyEvents,
  initialConversation,
  type ChatMessage,
  type ConversationState,
} from '../../../shared/conversation';
import { IMAGE_LIMITS, refusalMessage } from '../../../shared/images';
import {
  MAX_IMAGE_FILE_BYTES,
  type AppInfo,
  type CommitIdentity as CommitIdentityValue,
  type ContextUsage,
  type ConversationEvent,
  type InvokeRequest,
  type InvokeResponse,
  type IpcError,
  type DraftImage,
  type PermissionModeChoice,
  type PreparedImage,
  type SavedDraft,
  type TurnImage,
} from '../../../shared/ipc';
import { call } from '../host/api';
import { inNextFrame, notifiedInFrame } from './frame';
import type { Branch } from '../branches/model';
import { isPending } from '../branches/model';
import { createBranchSlice, liveConversationId, type BranchSlice, type RewindDialog } from './branches';
import { createLibrarySlice, openWindow, type LibrarySlice, type Paging, type SavedView } from './library';
import { newTab, tabActions } from './tabs';
import { trustSlice, type TrustSlice } from './trust';

/**
 * The renderer's one store, in two slices: the app (host info, which tab is open) and the open
 * conversations. Actions are plain functions; protocol events reach it from outside React through
 * `applyConversationEvents`, at most once per animation frame (see events.ts).
 */

/** How a new conversation starts, besides its folder. */
export type StartOptions = Omit<InvokeRequest<'startConversation'>, 'cwd'>;

export interface Tab {
  id: string;
  cwd: string;
  /** Set while the CLI is starting; the tab exists before its conversation does. */
  starting: boolean;
  /** Why the conversation could not start. */
  startError: IpcError | null;
  /** What the user asked for when starting (model, permission mode), for trying again. */
  requested: StartOptions;
  conversation: ConversationState;
  /** The last action that failed (send, stop, set model …), shown until the next one. */
  actionError: string | null;
  /** Set while the tab shows a saved conversation, read-only, until it is resumed. */
  saved: SavedView | null;
  /**
   * Events from main numbered below this are already in the conversation: it was built from a window
   * (`listConversations`), and batches sent before that answer may still be waiting to be applied.
   */
  eventsFrom: number;
  /** Where the earlier part of a conversation opened from the library is read from (kept after Resume). */
  paging: Paging | null;
  /** A message to bring into view (a search result, a find match); the nonce makes each request new. */
  focus: { messageId: string; nonce: number } | null;
  /** The family's branches once it has more than one (or a rewind waits to be sent); null until then. */
  branches: Branch[] | null;
  /** The key of the branch shown (its view is this tab's conversation, saved and paging). */
  branch: string | null;
  /** The Rewind dialog, while it is open. */
  rewind: RewindDialog | null;
  /** What the last file restore did ("3 files restored"). */
  branchNotice: string | null;
  /** Another branch shown beside this one from where they part, by key. */
  compare: string | null;
  /** How full the context window of the conversation shown was at its last reading. */
  context: ContextReading | null;
  /** Background tasks the user asked to stop that have not ended yet, by task id. */
  stoppingTasks: readonly string[];
  /**
   * Its whole history is in main's log of its conversation (started here, or opened from main's window),
   * so it can be rebuilt from that log; one resumed from the library holds history from files too.
   */
  fromMain: boolean;
}

/** A reading of how full a conversation's context window is, taken after one of its turns. */
export interface ContextReading {
  conversationId: string;
  /** The turn (its result's id) after which it was read. */
  turn: string | null;
  usage: ContextUsage;
  /** Why the latest try to read it again failed; the reading before it stays. */
  error: string | null;
}

/** Find in conversation: the query, and which of its matches is current. */
export interface FindState {
  query: string;
  /** The current match, by identity: it stays put when earlier messages load above it. */
  current: FindMatch | null;
  /** Counts Ctrl+F presses, so the open bar takes the focus again. */
  opened: number;
}

/** An image in the message being written: being checked, or ready to send. */
export interface Attachment {
  id: string;
  name: string;
  /** Its data may be a reference (`ref:…`) once it comes back from main, after a reload say. */
  image: PreparedImage | DraftImage | null;
  /** How main keeps it (prepareImage's `ref`), for the draft main holds; null while it is being checked. */
  ref: string | null;
}

/** The message being written in a tab, besides its text: images, and why files were refused. */
export interface Draft {
  /** Kept in the store, so switching tabs loses nothing typed. */
  text: string;
  attachments: Attachment[];
  refusals: string[];
}

const EMPTY_DRAFT: Draft = { text: '', attachments: [], refusals: [] };

interface AppSlice {
  info: AppInfo | null;
  infoError: string | null;
  /**
   * Whether the page hears from the host (always, under Electron). While it does not, nothing is shown as
   * live: a reply that was streaming has stopped arriving.
   */
  connected: boolean;
  setConnected(connected: boolean): void;
  activeTab: string | null;
  /** The "new conversation" form is showing. */
  composingNew: boolean;
  loadInfo(): Promise<void>;
  /**
   * After the connection to the host came back: what happened meanwhile is fetched again, each open
   * conversation rebuilt from main's window of it, and drafts typed meanwhile are told to main.
   */
  resync(): Promise<void>;
  showNewConversation(): void;
  activate(tabId: string): void;
}

interface ConversationsSlice {
  tabs: Record<string, Tab>;
  tabOrder: string[];
  startConversation(cwd: string, options?: StartOptions): Promise<void>;
  retryStart(tabId: string): Promise<void>;
  drafts: Record<string, Draft>;
  /** Checks files as images for the next message; refusals are kept, by file name and reason. */
  attachFiles(tabId: string, files: readonly File[]): Promise<void>;
  removeAttachment(tabId: string, attachmentId: string): void;
  setDraftText(tabId: string, text: string): void;
  dismissRefusals(tabId: string): void;
  /** Sends the draft's text and ready images; on failure both stay where they were. */
  send(tabId: string): Promise<boolean>;
  /** Puts a message back into the composer (a rewound one), replacing what was there. */
  restoreDraft(tabId: string, text: string, images: readonly TurnImage[]): void;
  /**
   * Sends a message as it is, not from the draft: one sent again (cancelled, or lost when the CLI stopped),
   * or a command such as /compact. False (and the tab's error says why) if it could not be sent.
   */
  sendMessage(tabId: string, text: string, images?: readonly TurnImage[]): Promise<boolean>;
  interrupt(tabId: string): Promise<void>;
  /** Reads how full the context window is now; a failure keeps the reading before and says why. */
  readContext(tabId: string): Promise<void>;
  /** The conversation's MCP servers as the CLI sees them now; throws if they could not be read. */
  mcpStatus(tabId: string): Promise<InvokeResponse<'mcpStatus'>>;
  /** "Commit as" for all folders and for `cwd`. */
  readCommitIdentity(cwd: string): Promise<InvokeResponse<'commitIdentity'>>;
  setCommitIdentity(
    scope: 'global' | 'folder',
    cwd: string,
    identity: CommitIdentityValue | null,
  ): Promise<void>;
  /** Sets the "Done when" check (and, with folderDefault, the folder's default); rejects with the reason. */
  setDoneWhen(tabId: string, command: string, folderDefault: boolean): Promise<void>;
  /** Stops a background task (a subagent, a shell command); it shows as stopping until it ends. */
  stopTask(tabId: string, taskId: string): Promise<void>;
  cancelQueued(tabId: string, uuid: string): Promise<void>;
  setModel(tabId: string, model: string): Promise<void>;
  /** Changes how much Claude may do without asking; false (and the tab's error says why) if it failed. */
  setPermissionMode(tabId: string, mode: PermissionModeChoice): Promise<boolean>;
  /** Answers a waiting permission request; throws if the answer could not be sent. */
  answerPermission(
    tabId: string,
    requestId: string,
    answer: InvokeRequest<'answerPermission'>['answer'],
  ): Promise<InvokeResponse<'answerPermission'>>;
  /** Brings a conversation to the front: its tab, and its branch if the tab shows another. */
  showConversation(conversationId: string): void;
  resume(tabId: string): Promise<void>;
  /**
   * For a tab whose folder settings are off: asks "Trust this folder?" and, if trusted, starts its CLI again
   * with them (refused while a reply runs, the tab's error says so).
   */
  trustFolderOf(tabId: string): Promise<void>;
  closeTab(tabId: string): Promise<void>;
  applyConversationEvents(batches: ReadonlyMap<string, ConversationEvent[]>): void;
}

export type Store = AppSlice & ConversationsSlice & LibrarySlice & FindSlice & BranchSlice & TrustSlice;

interface FindSlice {
  /** Per tab, while its find bar is open. */
  finds: Record<string, FindState>;
  openFind(tabId: string): void;
  setFindQuery(tabId: string, query: string): void;
  /** Moves to the next (+1) or previous (-1) match, wrapping around, and brings it into view. */
  stepFind(tabId: string, step: 1 | -1): void;
  closeFind(tabId: string): void;
  /** Brings a message of a tab into view. */
  focusMessage(tabId: string, messageId: string): void;
}

let localTabs = 0;
let localAttachments = 0;

/** What main was last told of each conversation's draft, and a long one's wait before it is told. */
const keptDrafts = new Map<string, string>();
const draftTimers = new Map<string, ReturnType<typeof setTimeout>>();
/** A draft this long is told to main after a pause in typing, not on every key. */
const LONG_DRAFT_CHARS = 100_000;

/** A draft main kept, as the composer shows it. */
function draftFrom(saved: SavedDraft): Draft {
  return {
    text: saved.text,
    refusals: [],
    attachments: saved.images.map((image) => ({
      id: `image-${++localAttachments}`,
      name: image.name,
      image,
      ref: image.data,
    })),
  };
}

/** What tells two drafts apart for main: their text and how main keeps their images. */
function draftSignature(draft: SavedDraft): string {
  return `${draft.text}\u0000${draft.images.map((image) => image.data).join(',')}`;
}

/**
 * A tab for each conversation open in main that this window does not show, with the draft main kept of
 * it. With `refresh`, those it shows are rebuilt from main's window of them too (after a lost connection).
 */
function withOpenConversations(
  state: Store,
  open: InvokeResponse<'listConversations'>['conversations'],
  refresh: boolean,
): Pick<Store, 'tabs' | 'tabOrder' | 'drafts'> {
  const tabs = { ...state.tabs };
  const tabOrder = [...state.tabOrder];
  const drafts = { ...state.drafts };
  for (const { snapshot, draft, ...window } of open) {
    const id = snapshot.conversationId;
    const showing = Object.values(tabs).find((tab) => liveConversationId(tab) === id);
    if (showing) {
      // Only a tab whose whole history is in main's log can be rebuilt from it: one resumed from the
      // library, or showing branches, holds history main's log of this process does not.
      if (refresh && showing.fromMain && !showing.branches) {
        tabs[showing.id] = { ...showing, ...openWindow(snapshot, window) };
      }
      continue;
    }
    // After a lost connection, no tab is added: a fork still starting, or a tab closed meanwhile, would
    // come back as a tab of its own. Conversations opened from another window show after a reload.
    if (refresh) continue;
    if (tabs[id] || Object.values(tabs).some((tab) => tab.branches?.some((b) => b.conversationId === id))) {
      continue;
    }
    tabs[id] = newTab(id, snapshot.cwd, { ...openWindow(snapshot, window), fromMain: true });
    tabOrder.push(id);
    if (draft.text || draft.images.length > 0) drafts[id] = draftFrom(draft);
  }
  return { tabs, tabOrder, drafts };
}

/** Which tab was open, kept per window (sessionStorage) so that a reload opens it again. */
const ACTIVE_TAB_KEY = 'byre.activeTab';

function rememberedTab(): string | null {
  try {
    return sessionStorage.getItem(ACTIVE_TAB_KEY);
  } catch {
    return null;
  }
}

function rememberTab(tabId: string): void {
  try {
    sessionStorage.setItem(ACTIVE_TAB_KEY, tabId);
  } catch {
    // Storage off: a reload opens the first tab.
  }
}

/** The file's bytes as base64, read by the browser itself. */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.readAsDataURL(file);
  });
}

let focusNonce = 0;
/** Context readings asked for, per tab, so that a slow answer does not overwrite a newer one. */
const contextReads = new Map<string, number>();

const storeState: StateCreator<Store> = (set, get, api) => {
  const { patchTab, guarded } = tabActions(set);

  const launch = async (tabId: string, cwd: string, options: StartOptions) => {
    try {
      const snapshot = await get().trusted(() => call('startConversation', { cwd, ...options }));
      if (!get().tabs[tabId]) {
        // The tab was closed while its CLI started: end that CLI rather than leave it running.
        await call('closeConversation', { conversationId: snapshot.conversationId }).catch(() => undefined);
        return;
      }
      // The tab takes the conversation's id, so events addressed to it find it.
      set((state) => {
        const tab = state.tabs[tabId];
        if (!tab) return {};
        const { [tabId]: _old, ...rest } = state.tabs;
        const id = snapshot.conversationId;
        return {
          tabs: {
            ...rest,
            [id]: {
              ...tab,
              id,
              starting: false,
              startError: null,
              conversation: initialConversation(snapshot),
            },
          },
          tabOrder: state.tabOrder.map((existing) => (existing === tabId ? id : existing)),
          activeTab: state.activeTab === tabId ? id : state.activeTab,
        };
      });
    } catch (error) {
      const ipc = error as Error & Partial<IpcError>;
      patchTab(tabId, {
        starting: false,
        startError: {
          name: ipc.name,
          message: ipc.message,
          ...(ipc.looked ? { looked: ipc.looked } : {}),
          ...(ipc.explanation ? { explanation: ipc.explanation } : {}),
        },
      });
    }
  };

  const patchDraft = (tabId: string, update: (draft: Draft) => Draft) => {
    set((state) => ({ drafts: { ...state.drafts, [tabId]: update(state.drafts[tabId] ?? EMPTY_DRAFT) } }));
    keepDraft(tabId);
  };

  /**
   * Tells main the tab's draft as it is now, so that a reload finds it: at once (the page may go any
   * moment), and only when its text or images changed. A very long text waits for a pause in typing.
   */
  const keepDraft = (tabId: string) => {
    const tab = get().tabs[tabId];
    const conversationId = tab && !tab.starting ? liveConversationId(tab) : null;
    if (!conversationId) return;
    const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
    const kept: SavedDraft = {
      text: draft.text,
      images: draft.attachments.flatMap((attachment) =>
        attachment.image && attachment.ref ? [{ ...attachment.image, data: attachment.ref }] : [],
      ),
    };
    const signature = draftSignature(kept);
    if (keptDrafts.get(conversationId) === signature) return;
    keptDrafts.set(conversationId, signature);
    clearTimeout(draftTimers.get(conversationId));
    const tell = () => {
      draftTimers.delete(conversationId);
      // Best effort: the draft on screen is what counts, and a failure here loses nothing shown.
      void call('setDraft', { conversationId, draft: kept }).catch(() => keptDrafts.delete(conversationId));
    };
    if (kept.text.length > LONG_DRAFT_CHARS) draftTimers.set(conversationId, setTimeout(tell, 500));
    else tell();
  };

  const prepare = async (tabId: string, attachment: Attachment, file: File, imagesInTurn: number) => {
    let refusal: string | null = null;
    let image: PreparedImage | null = null;
    let ref: string | null = null;
    try {
      if (file.size > MAX_IMAGE_FILE_BYTES) {
        refusal = refusalMessage({ name: file.name, reason: 'too_large' });
      } else {
        const answer = await call('prepareImage', {
          name: file.name,
          data: await readBase64(file),
          imagesInTurn,
        });
        if (answer.ok) {
          image = answer.image;
          ref = answer.ref;
        } else refusal = answer.message;
      }
    } catch (error) {
      refusal = `${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
    patchDraft(tabId, (draft) => {
      let reason = refusal;
      if (image) {
        // One request to the API has a size limit: the images of a message must fit in it together.
        const others = draft.attachments.reduce(
          (sum, existing) => sum + (existing.image?.data.length ?? 0),
          0,
        );
        if (others + image.data.length > IMAGE_LIMITS.maxTurnBase64Length) {
          reason = refusalMessage({ name: file.name, reason: 'turn_too_large' });
        }
      }
      const accepted = image && !reason ? image : null;
      return {
        ...draft,
        refusals: reason ? [...draft.refusals, reason] : draft.refusals,
        attachments: accepted
          ? draft.attachments.map((existing) =>
              existing.id === attachment.id ? { ...existing, image: accepted, ref } : existing,
            )
          : draft.attachments.filter((existing) => existing.id !== attachment.id),
      };
    });
  };

  const focusMessage = (tabId: string, messageId: string) =>
    patchTab(tabId, { focus: { messageId, nonce: ++focusNonce } });

  /** Brings the current find match into view. */
  const focusFind = (tabId: string) => {
    const match = get().finds[tabId]?.current;
    if (match) focusMessage(tabId, match.messageId);
  };

  const patchFind = (tabId: string, update: (find: FindState) => FindState) =>
    set((state) => ({
      finds: {
        ...state.finds,
        [tabId]: update(state.finds[tabId] ?? { query: '', current: null, opened: 0 }),
      },
    }));

  /** Where a tab's actions go: the conversation of the branch it shows. */
  const conversationOf = (tabId: string): string => {
    const tab = get().tabs[tabId];
    const id = tab ? liveConversationId(tab) : tabId;
    if (!id) throw new Error('This branch is not running; resume it to carry on in it.');
    return id;
  };

  return {
    ...createLibrarySlice(set, get, api),
    ...createBranchSlice(set, get, api),
    ...trustSlice(set, get),
    finds: {},
    focusMessage,

    openFind(tabId) {
      patchFind(tabId, (find) => ({ ...find, opened: find.opened + 1 }));
    },

    setFindQuery(tabId, query) {
      const conversation = get().tabs[tabId]?.conversation;
      const first = conversation ? (findMatches(conversation, query)[0] ?? null) : null;
      patchFind(tabId, (find) => ({ ...find, query, current: first }));
      focusFind(tabId);
    },

    stepFind(tabId, step) {
      const conversation = get().tabs[tabId]?.conversation;
      const find = get().finds[tabId];
      if (!conversation || !find) return;
      const matches = findMatches(conversation, find.query);
      if (matches.length === 0) return;
      const at = currentMatchIndex(matches, find.current);
      const next = matches[(at + step + matches.length) % matches.length] ?? null;
      patchFind(tabId, (current) => ({ ...current, current: next }));
      focusFind(tabId);
    },

    closeFind(tabId) {
      set((state) => {
        const { [tabId]: _closed, ...finds } = state.finds;
        return { finds };
      });
    },

    drafts: {},

    async attachFiles(tabId, files) {
      const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
      const refusals: string[] = [];
      const accepted: { attachment: Attachment; file: File }[] = [];
      for (const file of files) {
        const count = draft.attachments.length + accepted.length + 1;
        if (count > IMAGE_LIMITS.maxImagesPerTurn) {
          refusals.push(refusalMessage({ name: file.name, reason: 'too_many' }));
          continue;
        }
        accepted.push({
          attachment: { id: `image-${++localAttachments}`, name: file.name, image: null, ref: null },
          file,
        });
      }
      patchDraft(tabId, (current) => ({
        ...current,
        attachments: [...current.attachments, ...accepted.map((entry) => entry.attachment)],
        refusals: [...current.refusals, ...refusals],
      }));
      const total = draft.attachments.length + accepted.length;
      await Promise.all(accepted.map(({ attachment, file }) => prepare(tabId, attachment, file, total)));
    },

    removeAttachment(tabId, attachmentId) {
      patchDraft(tabId, (draft) => ({
        ...draft,
        attachments: draft.attachments.filter((attachment) => attachment.id !== attachmentId),
      }));
    },

    setDraftText(tabId, text) {
      patchDraft(tabId, (draft) => ({ ...draft, text }));
    },

    restoreDraft(tabId, text, images) {
      patchDraft(tabId, (draft) => ({
        ...draft,
        text,
        attachments: images.map((image, index) => ({
          id: `image-${++localAttachments}`,
          name: `image ${index + 1}`,
          // Main keeps it by this (a reference, as events carry images, or its base64).
          ref: image.data,
          image: {
            name: `image ${index + 1}`,
            mediaType: image.mediaType,
            data: image.data,
            // Already prepared when it was first sent; its size is not needed again.
            width: 1,
            height: 1,
            originalWidth: 1,
            originalHeight: 1,
            resized: false,
          },
        })),
      }));
    },

    dismissRefusals(tabId) {
      patchDraft(tabId, (draft) => ({ ...draft, refusals: [] }));
    },

    info: null,
    infoError: null,
    connected: true,
    setConnected(connected) {
      if (get().connected !== connected) set({ connected });
    },
    activeTab: null,
    composingNew: false,
    tabs: {},
    tabOrder: [],

    async loadInfo() {
      try {
        const [info, open] = await Promise.all([call('appInfo', {}), call('listConversations', {})]);
        set({ info, infoError: null });
        // Conversations already open in main (this window reloaded, or another one opened them) come back
        // as they stand; the folder from the command line is opened only once.
        if (open.conversations.length > 0) {
          set((state) => {
            const opened = withOpenConversations(state, open.conversations, false);
            for (const { snapshot, draft } of open.conversations) {
              keptDrafts.set(snapshot.conversationId, draftSignature(draft));
            }
            const remembered = rememberedTab();
            const activeTab =
              state.activeTab ??
              (remembered && opened.tabs[remembered] ? remembered : (opened.tabOrder[0] ?? null));
            return { ...opened, activeTab, composingNew: false };
          });
        } else if (info.initialCwd && get().tabOrder.length === 0) {
          await get().startConversation(info.initialCwd);
        } else if (get().tabOrder.length === 0) {
          set({ composingNew: true });
        }
      } catch (error) {
        set({ infoError: error instanceof Error ? error.message : String(error) });
      }
    },

    async resync() {
      let open: InvokeResponse<'listConversations'>;
      try {
        open = await call('listConversations', {});
      } catch {
        // Lost again already; the next reconnection tries again.
        return;
      }
      set((state) => withOpenConversations(state, open.conversations, true));
      keptDrafts.clear();
      for (const tabId of Object.keys(get().drafts)) keepDraft(tabId);
    },

    showNewConversation() {
      set({ composingNew: true, activeTab: null });
    },

    activate(tabId) {
      set({ activeTab: tabId, composingNew: false });
    },

    async startConversation(cwd, options = {}) {
      const tabId = `starting-${++localTabs}`;
      set((state) => ({
        tabs: {
          ...state.tabs,
          [tabId]: newTab(tabId, cwd, { starting: true, requested: options, fromMain: true }),
        },
        tabOrder: [...state.tabOrder, tabId],
        activeTab: tabId,
        composingNew: false,
      }));
      await launch(tabId, cwd, options);
    },

    async retryStart(tabId) {
      const tab = get().tabs[tabId];
      if (!tab) return;
      patchTab(tabId, { starting: true, startError: null });
      await launch(tabId, tab.cwd, tab.requested);
    },

    async send(tabId) {
      const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
      const text = draft.text.trim();
      if (draft.attachments.some((attachment) => !attachment.image)) return false;
      if (!text && draft.attachments.length === 0) return false;
      const images = draft.attachments.flatMap((attachment) =>
        attachment.image ? [{ mediaType: attachment.image.mediaType, data: attachment.image.data }] : [],
      );
      const sentIds = new Set(draft.attachments.map((attachment) => attachment.id));
      // Clear at once, so a second Enter cannot send it twice; anything added meanwhile is kept. The notes
      // about files refused for this message go with it.
      patchDraft(tabId, (current) => ({
        ...current,
        text: current.text === draft.text ? '' : current.text,
        attachments: current.attachments.filter((attachment) => !sentIds.has(attachment.id)),
        refusals: current.refusals.slice(draft.refusals.length),
      }));
      const sent = await get().sendMessage(tabId, text, images);
      if (!sent) {
        // Nothing is lost: the message and its images come back, ahead of anything typed since.
        patchDraft(tabId, (current) => ({
          ...current,
          text: current.text ? `${draft.text}\n${current.text}` : draft.text,
          attachments: [
            ...draft.attachments,
            ...current.attachments.filter((attachment) => !sentIds.has(attachment.id)),
          ],
        }));
      }
      return sent;
    },

    async sendMessage(tabId, text, images = []) {
      let sent = false;
      const shown = get().tabs[tabId];
      const pending = isPending(shown?.branches?.find((branch) => branch.key === shown.branch));
      await guarded(tabId, async () => {
        // The first message of a rewound branch starts its fork.
        if (pending) await get().sendInPendingBranch(tabId, text, [...images]);
        else await call('send', { conversationId: conversationOf(tabId), text, images: [...images] });
        sent = true;
      });
      return sent;
    },

    interrupt: (tabId) =>
      guarded(tabId, async () => {
        await call('interrupt', { conversationId: conversationOf(tabId) });
      }),

    async readContext(tabId) {
      const tab = get().tabs[tabId];
      const conversationId = tab && liveConversationId(tab);
      if (!conversationId) return;
      const turn = tab.conversation.lastResultId;
      const read = (contextReads.get(tabId) ?? 0) + 1;
      contextReads.set(tabId, read);
      // Only the latest reading counts: turns can end faster than the CLI answers.
      const latest = () => contextReads.get(tabId) === read;
      try {
        const usage = await call('contextUsage', { conversationId });
        if (latest()) {
          inNextFrame(() => patchTab(tabId, { context: { conversationId, turn, usage, error: null } }));
        }
      } catch (error) {
        if (!latest()) return;
        const message = error instanceof Error ? error.message : String(error);
        patchTab(tabId, (current) => ({
          context: current.context ? { ...current.context, error: message } : null,
        }));
      }
    },

    mcpStatus: (tabId) => call('mcpStatus', { conversationId: conversationOf(tabId) }),

    readCommitIdentity: (cwd) => call('commitIdentity', { cwd }),

    async setCommitIdentity(scope, cwd, identity) {
      await call('setCommitIdentity', { scope, cwd, identity });
    },

    async setDoneWhen(tabId, command, folderDefault) {
      await call('setDoneWhen', { conversationId: conversationOf(tabId), command, folderDefault });
    },

    async stopTask(tabId, taskId) {
      const stopping = (update: (ids: readonly string[]) => readonly string[]) =>
        patchTab(tabId, (tab) => ({ stoppingTasks: update(tab.stoppingTasks) }));
      stopping((ids) => (ids.includes(taskId) ? ids : [...ids, taskId]));
      await guarded(tabId, async () => {
        try {
          await call('stopTask', { conversationId: conversationOf(tabId), taskId });
        } catch (error) {
          stopping((ids) => ids.filter((id) => id !== taskId));
          throw new Error(
            `The task could not be stopped: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
      });
    },

    cancelQueued: (tabId, uuid) =>
      guarded(tabId, async () => {
        await call('cancelQueued', { conversationId: conversationOf(tabId), uuid });
      }),

    setModel: (tabId, model) =>
      guarded(tabId, async () => {
        await call('setModel', { conversationId: conversationOf(tabId), model });
      }),

    async setPermissionMode(tabId, mode) {
      let changed = false;
      await guarded(tabId, async () => {
        try {
          await call('setPermissionMode', { conversationId: conversationOf(tabId), mode });
        } catch (error) {
          throw new Error(
            `The permission mode could not be changed: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
        changed = true;
      });
      return changed;
    },

    answerPermission: (tabId, requestId, answer) =>
      call('answerPermission', { conversationId: conversationOf(tabId), requestId, answer }),

    showConversation(conversationId) {
      const tab = tabOfConversation(get(), conversationId);
      if (!tab) return;
      get().activate(tab.id);
      const branch = tab.branches?.find((candidate) => candidate.conversationId === conversationId);
      if (branch && branch.key !== tab.branch) void get().switchBranch(tab.id, branch.key);
    },

    resume: (tabId) =>
      guarded(tabId, async () => {
        await get().trusted(() => call('resume', { conversationId: conversationOf(tabId) }));
      }),

    trustFolderOf: (tabId) =>
      guarded(tabId, async () => {
        const cwd = get().tabs[tabId]?.conversation.cwd;
        if (!cwd || !(await get().askTrust(cwd))) return;
        await call('useFolderSettings', { conversationId: conversationOf(tabId) });
      }),

    async closeTab(tabId) {
      const tab = get().tabs[tabId];
      // Nothing more is told to main of a draft whose conversation ends.
      for (const id of [
        tabId,
        ...(tab?.branches ?? []).flatMap((b) => (b.conversationId ? [b.conversationId] : [])),
      ]) {
        clearTimeout(draftTimers.get(id));
        draftTimers.delete(id);
        keptDrafts.delete(id);
      }
      set((state) => {
        const { [tabId]: _closed, ...tabs } = state.tabs;
        const { [tabId]: _draft, ...drafts } = state.drafts;
        const { [tabId]: _find, ...finds } = state.finds;
        const tabOrder = state.tabOrder.filter((id) => id !== tabId);
        const index = state.tabOrder.indexOf(tabId);
        const activeTab =
          state.activeTab === tabId
            ? (tabOrder[Math.min(index, tabOrder.length - 1)] ?? null)
            : state.activeTab;
        return { tabs, drafts, finds, tabOrder, activeTab, composingNew: tabOrder.length === 0 };
      });
      if (tab?.branches) {
        // Every branch running in this tab ends with it.
        const running = tab.branches.flatMap((branch) =>
          branch.conversationId ? [branch.conversationId] : [],
        );
        await Promise.all(
          running.map((conversationId) =>
            call('closeConversation', { conversationId }).catch(() => undefined),
          ),
        );
      } else if (tab && !tab.starting && !tab.startError && !tab.saved) {
        await call('closeConversation', { conversationId: tabId }).catch(() => undefined);
      }
    },

    applyConversationEvents(all) {
      // Branches' conversations first (their events go to the branch, shown or not); the rest by tab.
      const batches = get().routeBranchEvents(all);
      set((state) => {
        let tabs = state.tabs;
        for (const [conversationId, events] of batches) {
          const tab = tabs[conversationId];
          if (!tab) continue;
          const conversation = applyEvents(tab.conversation, events);
          if (conversation !== tab.conversation)
            tabs = { ...tabs, [conversationId]: { ...tab, conversation } };
        }
        return tabs === state.tabs ? {} : { tabs };
      });
    },
  };
};

export const useStore = create<Store>()(notifiedInFrame(storeState));
useStore.subscribe((state, previous) => {
  if (state.activeTab && state.activeTab !== previous.activeTab) rememberTab(state.activeTab);
});

/** The tab a conversation open in main belongs to: its own, or the tab it is a branch of. */
export function tabOfConversation(state: Store, conversationId: string): Tab | undefined {
  return (
    state.tabs[conversationId] ??
    Object.values(state.tabs).find((tab) =>
      tab.branches?.some((branch) => branch.conversationId === conversationId),
    )
  );
}

/** One occurrence of the find query: in which message, and which occurrence within it. */
export interface FindMatch {
  messageId: string;
  occurrence: number;
}

/** The text of a message as find searches it: what the reader sees written, not tool internals. */
export function messageText(message: ChatMessage | undefined): string {
  switch (message?.role) {
    case 'user':
      return message.text;
    case 'assistant':
      return message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
    case 'notice':
      return message.text;
    case 'check':
      return `${message.check.command}\n${message.check.summary}\n${message.check.output}`;
    case 'result':
      return message.errorText ?? '';
    default:
      return '';
  }
}

const matchCache = new WeakMap<ConversationState, { query: string; matches: FindMatch[] }>();

/**
 * Every occurrence of `query` (case-insensitive) in the conversation, in order; it reaches every message,
 * not only those the virtualized list has rendered.
 */
export function findMatches(conversation: ConversationState, query: string): FindMatch[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const cached = matchCache.get(conversation);
  if (cached?.query === needle) return cached.matches;
  const matches: FindMatch[] = [];
  for (const messageId of conversation.order) {
    const text = messageText(conversation.messages[messageId]).toLowerCase();
    let occurrence = 0;
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      matches.push({ messageId, occurrence: occurrence++ });
    }
  }
  matchCache.set(conversation, { query: needle, matches });
  return matches;
}

/** Where the current match is among the matches; -1 when it is gone (or there is none). */
export function currentMatchIndex(matches: readonly FindMatch[], current: FindMatch | null): number {
  if (!current) return -1;
  return matches.findIndex(
    (match) => match.messageId === current.messageId && match.occurrence === current.occurrence,
  );
}
