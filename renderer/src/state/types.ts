/**
 * The store's types, in one place so that no slice imports another: the tab (whose fields several slices
 * own: branches, the library, find, context), every slice's interface, and `Store`, their sum. Slices
 * reach each other through `get()`, typed by this.
 */
import type { StoreApi } from 'zustand';
import type { LibrarySort } from '../../../shared/library-groups';
import type { ConversationState } from '../../../shared/conversation';
import type { FindMatch } from '../../../shared/conversation/find';
import type { Paging } from '../../../shared/conversation/paging';
import type { BranchNode } from '../../../shared/branches/tree';
import type {
  AppInfo,
  Lane,
  TerminalSize,
  CommitIdentity as CommitIdentityValue,
  ContextUsage,
  ConversationEvent,
  DraftImage,
  ChangesView,
  FileDiff,
  FileRewind,
  FolderTrust,
  InvokeRequest,
  InvokeResponse,
  IpcError,
  LimitWindow,
  PermissionModeChoice,
  PreparedImage,
  RevertPreview,
  RevertTarget,
  SavedDraft,
  ScheduledSend,
  TrustedFolder,
  TurnImage,
  UsageGrouping,
  UsageRange,
  UsageReport,
  ConversationUsage,
  WorktreeChoices,
  WorktreeDraft,
  WorktreeStatus,
} from '../../../shared/ipc';
import type { LibraryRow, LibraryStatus, SearchHit } from '../../../shared/library';

export type { FindMatch, Paging };

/** A branch as a tab holds it: the tree's node, the conversation it runs in main, and its view. */
export interface Branch extends BranchNode {
  /** The conversation open in main for it (a live CLI process), if any. */
  conversationId: string | null;
  /** Its view while it is not the one shown (the shown branch's view is the tab's own). Null: not loaded. */
  view: BranchView | null;
}

/** What a tab shows of one branch: the conversation, and where it came from. */
export interface BranchView {
  conversation: ConversationState;
  saved: SavedView | null;
  paging: Paging | null;
}

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
   * Claude's turn ended while another tab was shown, and this one has not been shown since: its tab says
   * "done". Only a turn ending live sets it, never a history read again (a reload, a reconnect).
   */
  doneUnseen?: boolean;
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
  /**
   * Send was asked for while an image was still being checked: the message goes as soon as every image is
   * ready, unless one is refused meanwhile or the text changes (then the composer waits for the user again).
   */
  sendWhenReady?: boolean;
}

export interface AppSlice {
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
  /**
   * A tab for each conversation open in main that this window does not show, as at startup: one main
   * opened itself (a kept message sent to a session no tab had).
   */
  adoptOpenConversations(): Promise<void>;
  /** The new-conversation form, with the lane to offer first (the palette's "…in the Terminal lane"). */
  showNewConversation(lane?: Lane): void;
  /** The lane the form offers first; null: the default. */
  newConversationLane: Lane | null;
  activate(tabId: string): void;
  /** The tab is shown: a turn that ended while it was not is seen now. */
  seen(tabId: string): void;
  /** Reads the host's info again (after the settings changed); throws if it could not be read. */
  reloadInfo(): Promise<void>;
  /** Keeps `mode` as the settings' default for new conversations; a failure leaves the default as it was. */
  setDefaultPermissionMode(mode: PermissionModeChoice): Promise<void>;
  /** The native folder picker (Electron); null if nothing was picked or it could not open. */
  pickFolder(): Promise<string | null>;
  /** The folder as main will start a conversation in it; rejects with why it cannot be used. */
  checkFolder(cwd: string): Promise<string>;
  /** Opens a web link in the system browser (Electron); one that cannot be opened does nothing. */
  openLink(url: string): Promise<void>;
  readSettings(): Promise<InvokeResponse<'settings'>>;
  /** The hosts of the ssh config file, for the new-conversation form's "Where". */
  listRemoteHosts(): Promise<InvokeResponse<'remoteHosts'>>;
  /** The folders on a host that start with `prefix`, and those conversations ran in there before. */
  listRemoteFolders(host: string, prefix: string): Promise<InvokeResponse<'remoteFolders'>>;
  /** Keeps a host's keys, as their fingerprints were shown; rejects with the reason otherwise. */
  acceptHostKey(host: string, fingerprints: string[]): Promise<void>;
  saveSettings(values: InvokeRequest<'saveSettings'>): Promise<InvokeResponse<'saveSettings'>>;
  testCli(path: string | null): Promise<InvokeResponse<'testCli'>>;
  openDataFolder(): Promise<void>;
}

export interface ConversationsSlice {
  tabs: Record<string, Tab>;
  tabOrder: string[];
  startConversation(cwd: string, options?: StartOptions): Promise<void>;
  /**
   * A start in a new worktree that main refused (WorktreeRefused): the form comes back with what was typed
   * and the reason, until the next start or until the form is left.
   */
  refusedStart: RefusedStart | null;
  dismissRefusedStart(): void;
  retryStart(tabId: string): Promise<void>;
  /**
   * Sends a message as it is, not from the draft: one sent again (cancelled, or lost when the CLI stopped),
   * or a command such as /compact. False (and the tab's error says why) if it could not be sent.
   */
  sendMessage(tabId: string, text: string, images?: readonly TurnImage[]): Promise<boolean>;
  interrupt(tabId: string): Promise<void>;
  /** Reads how full the context window is now; a failure keeps the reading before and says why. */
  readContext(tabId: string): Promise<void>;
  /** Files of the conversation's folder matching what follows an `@`. */
  findFiles(conversationId: string, query: string): Promise<InvokeResponse<'findFiles'>>;
  /** The protocol inspector's lines (the stream-json main kept). */
  readProtocolLines(request: InvokeRequest<'protocolLines'>): Promise<InvokeResponse<'protocolLines'>>;
  /** The conversation's MCP servers as the CLI sees them now; throws if they could not be read. */
  mcpStatus(tabId: string): Promise<InvokeResponse<'mcpStatus'>>;
  /** Disables or enables one MCP server; throws with the CLI's reason if it could not. */
  mcpToggle(tabId: string, serverName: string, enabled: boolean): Promise<void>;
  /** Connects a failed MCP server again; throws with the CLI's reason if it could not. */
  mcpReconnect(tabId: string, serverName: string): Promise<void>;
  /** "Commit as" for all folders and for `cwd` (on `host`, when given). */
  readCommitIdentity(cwd: string, host?: string | null): Promise<InvokeResponse<'commitIdentity'>>;
  setCommitIdentity(
    scope: 'global' | 'folder',
    cwd: string,
    identity: CommitIdentityValue | null,
    host?: string | null,
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
  /** Answers (or skips) Claude's waiting questions; throws if the answer could not be sent. */
  answerQuestions(
    tabId: string,
    requestId: string,
    answer: InvokeRequest<'answerQuestions'>['answer'],
  ): Promise<InvokeResponse<'answerQuestions'>>;
  /** Approves Claude's waiting plan or keeps planning; throws if the answer could not be sent. */
  answerPlan(
    tabId: string,
    requestId: string,
    answer: InvokeRequest<'answerPlan'>['answer'],
  ): Promise<InvokeResponse<'answerPlan'>>;
  /** Answers an MCP server's waiting question; throws with the reason if the answer was refused. */
  answerElicitation(
    tabId: string,
    requestId: string,
    answer: InvokeRequest<'answerElicitation'>['answer'],
  ): Promise<InvokeResponse<'answerElicitation'>>;
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

/** What the new-conversation form had when main refused its worktree, and why. */
export interface RefusedStart {
  cwd: string;
  options: StartOptions;
  reason: string;
}

/** The window's tabs, kept by main so that they come back after a restart (kept-tabs.ts). */
export interface KeptTabsSlice {
  /** The window has reopened what main kept and tells main its tabs from now on. */
  tabsKept: boolean;
  /** Why the tabs open when Byre last quit could not be reopened, until the user dismisses it. */
  keptTabsProblem: string | null;
  /** Reopens the kept tabs this window does not show, in their order, the open one open. */
  reopenTabs(kept: InvokeResponse<'openTabs'>): void;
  /** From now on, each change of the tabs is told to main. */
  startKeepingTabs(): void;
  /** Tells main the tabs as they are now, if they changed since it was last told. */
  tellTabs(): void;
  dismissKeptTabsProblem(): void;
}

export interface DraftsSlice {
  drafts: Record<string, Draft>;
  /** Checks files as images for the next message; refusals are kept, by file name and reason. */
  attachFiles(tabId: string, files: readonly File[]): Promise<void>;
  removeAttachment(tabId: string, attachmentId: string): void;
  setDraftText(tabId: string, text: string): void;
  dismissRefusals(tabId: string): void;
  /**
   * Sends the draft's text and images; on failure both stay where they were. While an image is still being
   * checked, it is sent once that is done (false now).
   */
  send(tabId: string): Promise<boolean>;
  /** Puts a message back into the composer (a rewound one), replacing what was there. */
  restoreDraft(tabId: string, text: string, images: readonly TurnImage[]): void;
  /** A draft main kept, as the composer shows it. */
  draftFromMain(saved: SavedDraft): Draft;
  /** What main holds of these conversations' drafts already (it told the page), so it is not told again. */
  draftsHeard(conversations: readonly { conversationId: string; draft: SavedDraft }[]): void;
  /** Tells main every draft again (after the connection to the host came back). */
  tellDrafts(): void;
  /** A tab's draft goes with it; main is told nothing more of it, nor of its branches' conversations. */
  dropDrafts(tabId: string, conversationIds: readonly string[]): void;
  /** The tab's draft under the tab's new key (its conversation started, or it was resumed). */
  moveDraft(from: string, to: string): void;
}

/** A Terminal conversation's screen, to and from main (state/terminal.ts). */
export interface TerminalSlice {
  /** Carries the tab's conversation on in the other lane (the same session); the tab follows it. */
  switchLane(tabId: string, lane: Lane): Promise<void>;
  /** What the person typed or pasted, as the terminal encodes it. */
  terminalInput(conversationId: string, data: string): Promise<void>;
  terminalResize(conversationId: string, size: TerminalSize): void;
  /**
   * Main keeps an image pasted or dropped into the terminal where the CLI can read it: the path to paste,
   * or why it was not taken (not an image, too large, the conversation gone).
   */
  terminalImage(conversationId: string, file: File): Promise<{ path: string } | { refused: string }>;
  /**
   * Draws the screen as it stands, then each output as it comes, until the returned function is called;
   * rejects when the conversation is gone.
   */
  followTerminal(
    conversationId: string,
    /** Draws `data`, then calls `drawn` (xterm's write callback). */
    draw: (data: string, drawn: () => void) => void,
  ): Promise<() => void>;
}

export type Store = AppSlice &
  TerminalSlice &
  ConversationsSlice &
  DraftsSlice &
  KeptTabsSlice &
  LibrarySlice &
  FindSlice &
  BranchSlice &
  TrustSlice &
  ChangesSlice &
  WorktreesSlice &
  UsageSlice &
  LimitsSlice;

/** How slices change and read the store (zustand's `set` and `get`). */
export type StoreSet = StoreApi<Store>['setState'];
export type StoreGet = StoreApi<Store>['getState'];

export interface FindSlice {
  /** Per tab, while its find bar is open. */
  finds: Record<string, FindState>;
  openFind(tabId: string): void;
  setFindQuery(tabId: string, query: string): void;
  /** Moves to the next (+1) or previous (-1) match, wrapping around, and brings it into view. */
  stepFind(tabId: string, step: 1 | -1): void;
  closeFind(tabId: string): void;
  /** Brings a message of a tab into view. */
  focusMessage(tabId: string, messageId: string): void;
  /** Opens the find bar on a message, with the words of a library search that it contains. */
  showFindMatch(tabId: string, messageId: string, text: string): void;
  /** A tab given a new key keeps its find bar. */
  moveFind(from: string, to: string): void;
}

/** A tab showing a saved conversation, read-only until it is resumed. */
export interface SavedView {
  sessionId: string;
  row: LibraryRow;
  /** Lines of its files that could not be read. */
  skipped: number;
  /**
   * For a branch the CLI rewound inside the file: the uuid of its last entry. It is read whole and cannot be
   * resumed (the file's latest branch is what --resume continues); it can be forked from a reply.
   */
  leafUuid?: string;
}

/** The order of the sidebar's list: by last activity, or by what each conversation cost, most first. */
export type { LibrarySort };

export interface LibrarySearch {
  query: string;
  hits: SearchHit[];
  complete: boolean;
  /**
   * Asked while the library was still being indexed: how many of how many conversations it looked through.
   * It is asked again as the index grows; absent once the whole library was looked through.
   */
  partial?: { indexed: number; total: number };
}

export interface LibrarySlice {
  sidebarOpen: boolean;
  libraryRows: LibraryRow[];
  libraryStatus: LibraryStatus | null;
  libraryError: string | null;
  /** The rows have arrived at least once. */
  libraryLoaded: boolean;
  /** Only this folder's conversations are listed (and searched). */
  libraryFolder: string | null;
  librarySort: LibrarySort;
  libraryQuery: string;
  /**
   * What the search box found, for the query it was asked with (the box may be ahead of it by a keystroke);
   * null while there is no query. `complete` is false while only the titles are in: the messages are still
   * being looked through.
   */
  search: LibrarySearch | null;
  toggleSidebar(): void;
  refreshLibrary(): Promise<void>;
  setLibraryFolder(folder: string | null): void;
  setLibrarySort(sort: LibrarySort): void;
  /** Searches as the user types: each call supersedes the one before it (main stops it). */
  searchLibrary(query: string): Promise<void>;
  /** Opens a saved conversation (or switches to its tab), optionally at a search hit's message. */
  openSaved(sessionId: string, jumpTo?: { messageUuid: string | null; text: string }): Promise<void>;
  /** Fetches the page before what is loaded; a second call while one runs waits for the same page. */
  loadEarlier(tabId: string): Promise<void>;
  resumeSaved(tabId: string): Promise<void>;
  continueSaved(tabId: string): Promise<void>;
  renameSaved(sessionId: string, title: string): Promise<void>;
  hideSaved(sessionId: string): Promise<void>;
  /** Exports the conversation; what to tell the user, if the host saved it somewhere. */
  exportSaved(sessionId: string, format: 'markdown' | 'jsonl'): Promise<string | null>;
  /** A saved branch's view: a whole session's last page, or (`leafUuid`) a branch inside a file, read whole. */
  readSavedView(sessionId: string, leafUuid: string | null): Promise<BranchView>;
}

export type RewindChoice = 'both' | 'conversation' | 'files';

export interface RewindDialog {
  messageId: string;
  /** The dry run's answer; null while it runs. */
  preview: FileRewind | null;
  /** Why the dry run (or the restore) failed. */
  error: string | null;
  busy: boolean;
}

export interface BranchSlice {
  openRewind(tabId: string, messageId: string): Promise<void>;
  closeRewind(tabId: string): void;
  applyRewind(tabId: string, choice: RewindChoice): Promise<void>;
  forkFromHere(tabId: string, messageId: string): void;
  /**
   * Shows another branch of the tab's family; a branch not read yet is read first. With `partAt` (the
   * fork point a switcher stands at), the view opens where the branches part.
   */
  switchBranch(tabId: string, key: string, partAt?: string | null): Promise<void>;
  /** Shows another branch beside the one shown, from where they part (null closes the comparison). */
  compareWith(tabId: string, key: string | null): Promise<void>;
  /** Leaves a rewind that was never sent, back to the branch it was made from. */
  cancelPendingRewind(tabId: string): void;
  /** The first message of a rewound branch: starts its fork. Throws if it could not start. */
  sendInPendingBranch(tabId: string, text: string, images: TurnImage[]): Promise<void>;
  /** A saved conversation's family, read from the library, becomes the tab's branches. */
  loadFamily(tabId: string): Promise<void>;
  /** Events of conversations that are branches (of any tab), routed to the branch they belong to. */
  routeBranchEvents(
    batches: ReadonlyMap<string, ConversationEvent[]>,
  ): ReadonlyMap<string, ConversationEvent[]>;
}

export interface TrustSlice {
  /** The question on screen, if any. */
  trustQuestion: FolderTrust | null;
  /** Runs `start`; if main first needs the user's answer for a folder, asks and runs it again. */
  trusted<T>(start: () => Promise<T>): Promise<T>;
  /**
   * Asks about a folder (unless its settings need no answer) and tells main; true if it is trusted. `host`:
   * the folder is on that host, and its files are read there.
   */
  askTrust(folder: string, host?: string): Promise<boolean>;
  /** The dialog's answer: Trust, or open without the folder's settings (Escape, closing, the button). */
  answerTrust(trust: boolean): void;
  /** The folders trusted now, for Settings. */
  listTrusted(): Promise<TrustedFolder[]>;
  /** Takes trust back: the next CLI there asks first. */
  forgetTrust(folder: string): Promise<void>;
}

/** What the Changes panel compares (shared/ipc/changes.ts ChangesScope). */
export type ChangesScope = 'conversation' | 'base';

/** How the Changes panel shows a diff: one column, or before and after side by side. */
export type DiffLayout = 'unified' | 'split';

/** A revert being asked about: what it targets, what it would do (null while main works it out). */
export interface RevertQuestion {
  target: RevertTarget;
  preview: RevertPreview | null;
  /** Files changed since the last snapshot are overwritten too (off unless the user ticks it). */
  overwriteChanged: boolean;
  error: string | null;
  busy: boolean;
}

/** One conversation's Changes panel (changes.ts), kept while its tab is open, shown or not. */
export interface ChangesPanel {
  open: boolean;
  /** The step picked in the Turn filter; null: everything since the conversation's start. */
  step: number | null;
  /**
   * In a worktree: against its base, or the conversation's own changes; null until picked (a worktree
   * conversation then shows against its base).
   */
  scope: ChangesScope | null;
  /** The last view read; it stays (and is shown) while the next is read. */
  view: ChangesView | null;
  /** How many files differ from the conversation's start, as last read; null until read. */
  total: number | null;
  loading: boolean;
  error: string | null;
  /** A `changes` event came while the panel was closed: the count on its button may be old. */
  stale: boolean;
  /** The file whose diff is shown, by path. */
  selected: string | null;
  diff: FileDiff | null;
  diffError: string | null;
  revert: RevertQuestion | null;
  /** What the last revert did, in words, until the next one. */
  reverted: string | null;
}

export interface ChangesSlice {
  /** By conversation id (a branch's own conversation has its own panel). */
  changes: Record<string, ChangesPanel>;
  diffLayout: DiffLayout;
  toggleChanges(conversationId: string): void;
  closeChanges(conversationId: string): void;
  /** "Show": against the worktree's base, or the conversation's own changes. */
  pickChangesScope(conversationId: string, scope: ChangesScope): Promise<void>;
  /** The Turn filter: shows what one step changed (null: everything since the start). */
  pickChangesStep(conversationId: string, step: number | null): Promise<void>;
  /** Reads the view again, keeping the file picked if it is still listed. */
  refreshChanges(conversationId: string): Promise<void>;
  selectChangedFile(conversationId: string, path: string | null): Promise<void>;
  setDiffLayout(layout: DiffLayout): void;
  /** Asks main what a revert would do, and shows the question. */
  askRevert(conversationId: string, target: RevertTarget): Promise<void>;
  setOverwriteChanged(conversationId: string, overwrite: boolean): void;
  cancelRevert(conversationId: string): void;
  /** Does the revert asked about; the panel is read again, with the new step in it. */
  confirmRevert(conversationId: string): Promise<void>;
  /** Main's events: an open panel whose conversation's Changes moved on is read again. */
  changesArrived(batches: ReadonlyMap<string, readonly ConversationEvent[]>): void;
}

/** A worktree conversation's finishing dialogs (the header's Worktree menu, the palette). */
export type WorktreeDialogKind = 'merge' | 'pullRequest' | 'remove';

export interface WorktreeDialog {
  tabId: string;
  kind: WorktreeDialogKind;
}

/** Worktrees (worktrees.ts): how each one Byre made stands, and what a worktree conversation can do. */
export interface WorktreesSlice {
  /** By the worktree's folder (a conversation's `cwd`), as main last said. */
  worktrees: Record<string, WorktreeStatus>;
  /** The finishing dialog open, if any: one at a time. */
  worktreeDialog: WorktreeDialog | null;
  /** Reads every worktree's status (at start, and after the connection came back). */
  loadWorktrees(): Promise<void>;
  /** Main's `worktreesChanged`: all of them, as they are now. */
  worktreesArrived(worktrees: readonly WorktreeStatus[]): void;
  /** Whether a conversation in `cwd` can have a worktree, and from which branches. */
  /** `host`: the folder is on that host (null or absent: on this computer). */
  worktreeChoices(cwd: string, host?: string | null): Promise<WorktreeChoices>;
  openWorktreeDialog(tabId: string, kind: WorktreeDialogKind): void;
  closeWorktreeDialog(): void;
  /** The merge and pull request drafted from the conversation; throws with the reason. */
  worktreeDraft(tabId: string): Promise<WorktreeDraft>;
  mergeWorktree(
    tabId: string,
    merge: Omit<InvokeRequest<'mergeWorktree'>, 'conversationId'>,
  ): Promise<InvokeResponse<'mergeWorktree'>>;
  createPullRequest(
    tabId: string,
    pullRequest: Omit<InvokeRequest<'createPullRequest'>, 'conversationId'>,
  ): Promise<InvokeResponse<'createPullRequest'>>;
  /** Opens the worktree's folder in the file manager or a terminal; the tab's error says why it could not. */
  openWorktreeFolder(tabId: string, where: 'files' | 'terminal'): Promise<void>;
  /**
   * Removes the worktree (and its branch, if asked); the tab then shows the conversation read-only from the
   * library, in the same place among the tabs. Throws with the reason, leaving the tab as it was.
   */
  removeWorktree(tabId: string, deleteBranch: boolean): Promise<void>;
  /** A failed setup command: run it again, or go on without it. */
  setupAction(tabId: string, action: 'retry' | 'skip'): Promise<void>;
  /** "Run in each new worktree", for Settings. */
  worktreeSetups(): Promise<InvokeResponse<'worktreeSetups'>['setups']>;
  /** `host`: the repository is on that host (absent or null: on this computer). */
  setWorktreeSetup(
    repository: string,
    command: string,
    host?: string | null,
  ): Promise<InvokeResponse<'setWorktreeSetup'>>;
}

/** What the Usage view's bars measure: tokens of every kind, or money. */
export type UsageMetric = 'tokens' | 'cost';

/** A day picked on the Usage chart: its conversations, null while they are read. */
export interface UsageDayList {
  day: string;
  conversations: ConversationUsage[] | null;
  error: string | null;
}

/** The Usage view (usage.ts): open or not, what it shows, and main's report for it. */
export interface UsageSlice {
  /** It shows in the main area, in place of the conversation. */
  usageOpen: boolean;
  usageRange: UsageRange;
  usageGrouping: UsageGrouping;
  /** Only this folder's usage (and its worktrees'); null: every folder. */
  usageFolder: string | null;
  usageMetric: UsageMetric;
  /** The last report read; it stays (and is shown) while the next is read. */
  usageReport: UsageReport | null;
  usageLoading: boolean;
  usageError: string | null;
  usageDay: UsageDayList | null;
  openUsage(): void;
  closeUsage(): void;
  toggleUsage(): void;
  setUsageRange(range: UsageRange): Promise<void>;
  /** Switching the grouping asks main nothing: the report holds them all. */
  setUsageGrouping(grouping: UsageGrouping): void;
  setUsageFolder(folder: string | null): Promise<void>;
  setUsageMetric(metric: UsageMetric): void;
  refreshUsage(): Promise<void>;
  /** Lists a day's conversations (null closes the list). */
  showUsageDay(day: string | null): Promise<void>;
  /** Opens a conversation of the view in the library's read-only tab, closing the view. */
  openUsageConversation(sessionId: string): Promise<void>;
  /** Main's `usageChanged`: an open view asks again. */
  usageChanged(): void;
  /**
   * Main's `libraryChanged`: the index may have finished reading, so a report that said it was still
   * reading is read again (else its "may still grow" would stay when nothing more is coming).
   */
  usageLibraryChanged(): void;
}

/** The current 5-hour window's usage by conversation, as last read; `since`: the window's start (ms). */
export interface WindowUsageReading {
  since: number;
  usage: InvokeResponse<'windowUsage'> | null;
  error: string | null;
}

/** The plan's limits (limits.ts): the account's windows, and the messages kept for when a limit resets. */
export interface LimitsSlice {
  /** The account's windows as last reported, by kind; empty for an API key account. */
  limitWindows: LimitWindow[];
  /** The share of a window at which the user is told (Settings). */
  limitAlertAt: number;
  /** Every message kept to be sent when a limit resets, as main last said. */
  scheduledSends: ScheduledSend[];
  /** Why keeping or cancelling a message failed, by tab, until the next try. */
  scheduleErrors: Record<string, string>;
  windowUsage: WindowUsageReading | null;
  /** Reads the windows and the kept messages (at start, and after the connection came back). */
  loadLimits(): Promise<void>;
  /** Main's `limitsChanged`. */
  limitsArrived(limits: InvokeResponse<'limits'>): void;
  /** Main's `scheduledSendsChanged`: a kept message sent to a session no tab shows brings its tab. */
  scheduledSendsArrived(sends: readonly ScheduledSend[]): void;
  /** Keeps `text` to be sent when the tab's reached limit resets; the draft gives it up. False on failure. */
  sendWhenLimitResets(tabId: string, text: string): Promise<boolean>;
  /** Cancels a kept message; its text goes back into its tab's composer if that is empty. */
  cancelScheduledSend(id: string): Promise<void>;
  /** A kept message that failed: sent now in its tab, and no longer kept. */
  retryScheduledSend(id: string): Promise<void>;
  /** Reads the usage since `since` (a window's start), by conversation. */
  readWindowUsage(since: number): Promise<void>;
}
