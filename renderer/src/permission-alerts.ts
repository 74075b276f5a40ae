import type { PermissionRequest } from '../../shared/conversation';
import type { ConversationEvent } from '../../shared/ipc';

/**
 * A system notification when Claude asks for permission while the window is in the background: Claude is
 * stopped until someone answers. A click brings the window and the conversation to the front. The browser's
 * Notification API (Electron's renderer has the same), asked for permission the first time it is needed.
 */

/** The part of the Notification API used here; tests pass a fake. */
export type NotificationApi = Pick<typeof Notification, 'permission' | 'requestPermission'> &
  (new (title: string, options?: NotificationOptions) => Pick<Notification, 'onclick' | 'close'>);

export interface PermissionAlertHost {
  /** Undefined where the host has no notifications. */
  notifications: NotificationApi | undefined;
  hasFocus(): boolean;
  /** The conversation's name, as its tab shows it; null when no tab has it. */
  conversationName(conversationId: string): string | null;
  /** Brings the window and the conversation to the front. */
  show(conversationId: string): void;
}

/** Returns what to call with each batch of a conversation's events as it arrives from main. */
export function permissionAlerts(host: PermissionAlertHost) {
  // One after another, so that the newest request's notification is the one left showing.
  let queue = Promise.resolve();

  const allowed = async (api: NotificationApi): Promise<boolean> =>
    api.permission === 'default'
      ? (await api.requestPermission()) === 'granted'
      : api.permission === 'granted';

  const notify = (api: NotificationApi, conversationId: string, requests: PermissionRequest[]) => {
    const last = requests[requests.length - 1];
    if (!last) return;
    const name = host.conversationName(conversationId);
    const more = requests.length > 1 ? ` (and ${requests.length - 1} more)` : '';
    const notification = new api(`Claude asks to use ${last.displayName}${more}`, {
      body: [name, whatItWillDo(last)].filter(Boolean).join(': '),
      // One at a time per conversation: a newer request replaces the older notification.
      tag: `permission:${conversationId}`,
    });
    notification.onclick = () => {
      host.show(conversationId);
      notification.close();
    };
  };

  return (conversationId: string, events: readonly ConversationEvent[]): Promise<void> => {
    const api = host.notifications;
    const requests = events.filter((event) => event.kind === 'permission_request');
    // Whether the window has the focus is what it was when the request came.
    if (!api || requests.length === 0 || host.hasFocus()) return queue;
    queue = queue
      .then(async () => {
        // The first time, this asks the user; the requests that come meanwhile wait for the answer.
        if (await allowed(api)) notify(api, conversationId, requests);
      })
      // A host that will not show notifications has nothing more to say; the card and the tab badge remain.
      .catch(() => undefined);
    return queue;
  };
}

/** One line for the notification: the command, file, URL or query, else what the CLI said about it. */
function whatItWillDo(request: PermissionRequest): string {
  const input = request.input;
  for (const key of ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim()) return firstLine(value);
  }
  return request.description ? firstLine(request.description) : '';
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
