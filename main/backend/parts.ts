import type { z } from 'zod';
import type {
  ConversationEvent,
  EventChannel,
  EventPayload,
  InvokeChannel,
  InvokeResponse,
  invokeChannels,
} from '../../shared/ipc';
import type { ImageRefs } from '../conversation/image-refs';
import type { KeptTabs } from '../data/kept-tabs';
import type { SettingsStore } from '../data/settings';
import type { TrustGate } from '../data/trust';
import type { WorktreeRecords } from '../data/worktree-records';
import type { FileIndex } from '../intake/file-index';
import type { Library } from '../library/library';
import type { AccountLimits } from './account-limits';
import type { OpenConversations } from './open-conversations';
import type { RemoteHosts } from '../remote/hosts';
import type { ScheduledSender } from './scheduled-sender';
import type { WorktreeStatuses } from './worktree-statuses';
import type { BackendOptions } from './options';

/**
 * What the backend's handlers share: the host's options, the rooms the backend routes to, and the open
 * conversations. Each handler file takes these and answers its domain's channels; `Handlers` makes the
 * backend answer every channel of the contract, each with its own request and response types.
 */

export type Handlers = {
  [C in InvokeChannel]: (
    request: z.infer<(typeof invokeChannels)[C]['request']>,
  ) => Promise<InvokeResponse<C>>;
};

/** The handlers of some channels, as one domain's file gives them. */
export type HandlersOf<C extends InvokeChannel> = Pick<Handlers, C>;

export type EventListener = <C extends EventChannel>(channel: C, payload: EventPayload<C>) => void;

export interface Parts {
  options: BackendOptions;
  settings: SettingsStore;
  library: Library;
  images: ImageRefs;
  files: FileIndex;
  /** Every CLI starts through it: a folder's own settings run only once the user trusts them. */
  trust: TrustGate;
  open: OpenConversations;
  /** The window's tabs, kept for the next start. */
  tabs: KeptTabs;
  /** The worktrees Byre made for conversations (worktrees.json). */
  worktrees: WorktreeRecords;
  /** How each recorded worktree stands (main/worktrees/status.ts). */
  worktreeStatuses: WorktreeStatuses;
  /** Something changed how a worktree stands (made, a turn in it ended, merged, removed): tells the windows. */
  worktreesChanged: () => void;
  /** The plan's limit windows, and each open conversation's last limit line. */
  limits: AccountLimits;
  /** Messages kept to be sent when a limit resets. */
  scheduled: ScheduledSender;
  /** Other hosts, over ssh: the hosts of the config file, and their connections. */
  remote: RemoteHosts;
}

/** A page for a window: its images by reference. */
export function byReference<T extends { events: ConversationEvent[] }>(images: ImageRefs, page: T): T {
  return { ...page, events: images.events(page.events) };
}
