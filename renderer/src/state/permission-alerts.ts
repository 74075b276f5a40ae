import type { PermissionRequest } from '../../../shared/conversation';
import type { ConversationEvent } from '../../../shared/ipc';

/**
 * System notifications while the window is in the background: when Claude asks for permission, asks a
 * question or has a plan to approve, or an MCP server asks for a form's answer (each stops the work until
 * someone answers), when a reply ends, and what main reports (a "Done when" loop that ended, a usage limit
 * past the user's threshold or reached: main says those once per window, whichever conversation heard it). A click brings the window and the conversation to the front.
 * The browser's Notification API (Electron's renderer has the same), asked for permission the first time it
 * is needed; the settings can switch them all off.
 */

/** The part of the Notification API used here; tests pass a fake. */
export type NotificationApi = Pick<typeof Notification, 'permission' | 'requestPermission'> &
  (new (title: string, options?: NotificationOptions) => Pick<Notification, 'onclick' | 'close'>);

export interface PermissionAlertHost {
  /** Undefined where the host has no notifications. */
  notifications: NotificationApi | undefined;
  /** The user's setting. */
  enabled(): boolean;
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

  const show = (api: NotificationApi, conversationId: string, title: string, body: string, tag: string) => {
    // One at a time per conversation and kind: a newer one replaces the older notification.
    const notification = new api(title, { body, tag: `${tag}:${conversationId}` });
    notification.onclick = () => {
      host.show(conversationId);
      notification.close();
    };
  };

  /** Shows it once the user has allowed notifications (asked the first time), in the order they came. */
  const enqueue = (notify: (api: NotificationApi) => void): Promise<void> => {
    const api = host.notifications;
    // Whether the window has the focus is what it was when the event came.
    if (!api || !host.enabled() || host.hasFocus()) return queue;
    queue = queue
      .then(async () => {
        // The first time, this asks the user; what comes meanwhile waits for the answer.
        if (await allowed(api)) notify(api);
      })
      // A host that will not show notifications has nothing more to say; the cards and the tab badges remain.
      .catch(() => undefined);
    return queue;
  };

  return {
    /** With each batch of a conversation's events as it arrives from main. */
    events(conversationId: string, events: readonly ConversationEvent[]): Promise<void> {
      const requests = events.filter((event) => event.kind === 'permission_request');
      const last = requests[requests.length - 1];
      const ended = events.findLast((event) => event.kind === 'message' && event.message.type === 'result');
      const asked = events.findLast((event) => event.kind === 'elicitation_request');
      if (!last && !ended && !asked) return queue;
      return enqueue((api) => {
        const name = host.conversationName(conversationId);
        if (last) {
          const more = requests.length > 1 ? ` (and ${requests.length - 1} more)` : '';
          const body = [name, whatItWillDo(last)].filter(Boolean).join(': ');
          show(api, conversationId, `${whatItAsks(last)}${more}`, body, 'permission');
        }
        // An MCP server's form waits like a permission card: nothing goes on until someone answers it.
        if (asked?.kind === 'elicitation_request') {
          const body = [name, firstLine(asked.message)].filter(Boolean).join(': ');
          show(api, conversationId, `${asked.serverName} asks for your answer`, body, 'elicitation');
        }
        if (ended?.kind === 'message' && ended.message.type === 'result' && !last && !asked) {
          const failed = ended.message.is_error || ended.message.subtype !== 'success';
          show(
            api,
            conversationId,
            failed ? 'Claude stopped with an error' : 'Claude has replied',
            name ?? 'A conversation',
            'turn',
          );
        }
      });
    },
    /** A notice from main about a conversation. */
    notice(conversationId: string, title: string, message: string): Promise<void> {
      return enqueue((api) => show(api, conversationId, title, message, 'notice'));
    },
  };
}

/** The notification's title: a question or a plan from Claude is not asked as a permission. */
function whatItAsks(request: PermissionRequest): string {
  switch (request.interaction?.kind) {
    case 'questions':
      return request.interaction.questions.length > 1
        ? 'Claude has questions for you'
        : 'Claude has a question';
    case 'plan':
      return 'Claude has a plan for your approval';
    default:
      return `Claude asks to use ${request.displayName}`;
  }
}

/** One line for the notification: the question, the command, file, URL or query, else what the CLI said. */
function whatItWillDo(request: PermissionRequest): string {
  if (request.interaction?.kind === 'questions')
    return firstLine(request.interaction.questions[0]?.question ?? '');
  if (request.interaction?.kind === 'plan') return '';
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
