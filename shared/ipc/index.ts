/**
 * The one IPC contract between the renderer and main, assembled from its domains. Each invoke channel names
 * its request and response schema; each event channel names its payload schema. Main's handlers, the
 * preload's `window.byre`, the browser bridge and the renderer's types are all derived from here.
 *
 * The domains' files import each other directly, never through this file, so nothing here is a circle.
 */
import type { z } from 'zod';
import { appChannels } from './app';
import { invokeChannelNames } from './channel-names';
import { branchChannels } from './branches';
import { changesChannels } from './changes';
import { conversationChannels } from './conversation';
import type { IpcResult } from './errors';
import type { EventChannel, EventPayload } from './events';
import { intakeChannels } from './intake';
import { libraryChannels } from './library';
import { remoteChannels } from './remote';
import { tabsChannels } from './tabs';
import { trustChannels } from './trust';
import { usageChannels } from './usage';
import { worktreeChannels } from './worktrees';

export const invokeChannels = {
  ...appChannels,
  ...conversationChannels,
  ...intakeChannels,
  ...trustChannels,
  ...branchChannels,
  ...changesChannels,
  ...libraryChannels,
  ...tabsChannels,
  ...worktreeChannels,
  ...usageChannels,
  ...remoteChannels,
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type InvokeChannel = keyof typeof invokeChannels;
export type InvokeRequest<C extends InvokeChannel> = z.input<(typeof invokeChannels)[C]['request']>;
export type InvokeResponse<C extends InvokeChannel> = z.infer<(typeof invokeChannels)[C]['response']>;

/**
 * `window.byre`: one function per invoke channel, one subscription per event channel. Calls resolve to a
 * result object rather than throwing, so nothing depends on how a host carries exceptions.
 */
export type ByreApi = {
  [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<IpcResult<InvokeResponse<C>>>;
} & {
  on<C extends EventChannel>(channel: C, listener: (payload: EventPayload<C>) => void): () => void;
  /** Which host serves this window. */
  readonly host: 'electron' | 'browser';
};

export { invokeChannelNames };

/** The plain list of names is the channels' keys, no more and no fewer (a type error names the odd one). */
type Listed = (typeof invokeChannelNames)[number];
const namesComplete: [Exclude<InvokeChannel, Listed>] extends [never]
  ? true
  : Exclude<InvokeChannel, Listed> = true;
const namesKnown: [Exclude<Listed, InvokeChannel>] extends [never] ? true : Exclude<Listed, InvokeChannel> =
  true;
void namesComplete;
void namesKnown;

/** The IPC channel string for a contract name; one namespace so nothing else can collide. */
export const ipcChannel = (name: InvokeChannel | EventChannel): string => `byre:${name}`;

export {
  AppInfo,
  AppSettings,
  CommitIdentity,
  Lane,
  LaneChoice,
  PermissionModeChoice,
  SettingsView,
  Theme,
} from './app';
export { FileChange, FileRewind } from './branches';
export {
  ChangeCause,
  ChangedFile,
  ChangedKind,
  ChangesState,
  ChangeStep,
  ChangesView,
  DiffHunk,
  FileDiff,
  RevertPreview,
  RevertTarget,
} from './changes';
export {
  CHECK_OUTPUT_SHOWN_CHARS,
  CheckRun,
  ContextUsage,
  ConversationEvent,
  ConversationSnapshot,
  DONE_WHEN_MAX_CHARS,
  DoneWhenCommand,
  SlashCommand,
  DEFAULT_TERMINAL_SIZE,
  TERMINAL_INPUT_MAX_CHARS,
  TERMINAL_SCREEN_MAX_CHARS,
  TerminalSize,
} from './conversation';
export { ElicitationAnswer, ElicitationField } from './elicitation';
export { IpcError, IpcErrorName, errorFromIpc, type IpcResult } from './errors';
export { eventChannels, type EventChannel, type EventPayload } from './events';
export {
  DraftImage,
  EMPTY_SAVED_DRAFT,
  FileMatch,
  IMAGE_REF_PREFIX,
  MAX_IMAGE_FILE_BYTES,
  PreparedImage,
  ProtocolLine,
  ProtocolLinesRequest,
  ProtocolLinesResponse,
  SavedDraft,
  ShownImage,
  TurnImage,
} from './intake';
export {
  AskUserQuestionInput,
  Interaction,
  PlanAnswer,
  PlanApprovalMode,
  Question,
  QuestionOption,
  QuestionsAnswer,
} from './questions';
export { SessionTarget } from './refs';
export { KeptTab, MAX_KEPT_TABS, WindowTab } from './tabs';
export { FolderTrust, TrustItem, TrustedFolder } from './trust';
export {
  ConversationUsage,
  FolderUsage,
  LimitWindow,
  Limits,
  LaneUsage,
  ModelUsage,
  ScheduledSend,
  TokenCounts,
  UsageCost,
  UsageDay,
  UsageGrouping,
  UsageRange,
  UsageReport,
  UsageTotals,
} from './usage';
export {
  BranchName,
  MAX_SUBMODULES_LISTED,
  MergeOutcome,
  NewWorktree,
  SETUP_COMMAND_MAX_CHARS,
  SetupCommand,
  SetupRun,
  WorktreeChoices,
  WorktreeDraft,
  WorktreeName,
  WorktreeStatus,
} from './worktrees';
