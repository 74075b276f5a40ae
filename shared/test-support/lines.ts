import type { AppInfo, ConversationEvent } from '../ipc';

/**
 * For tests: a conversation's lines as the CLI gives them, each with its uuid (`user-<n>`, `reply-<n>`; the
 * reply's API message id is `msg-<n>`).
 */

export function userLine(n: number, sessionId = 's1'): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'user',
      message: { role: 'user', content: `question ${n}` },
      uuid: `user-${n}`,
      session_id: sessionId,
      parent_tool_use_id: null,
    },
  } as ConversationEvent;
}

export function replyLine(n: number, sessionId = 's1'): ConversationEvent {
  return {
    kind: 'message',
    message: {
      type: 'assistant',
      message: {
        id: `msg-${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'text', text: `answer ${n}` }],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      uuid: `reply-${n}`,
      session_id: sessionId,
      parent_tool_use_id: null,
    },
  } as ConversationEvent;
}

/** A turn: the prompt line and the reply line. */
export function turn(n: number, sessionId = 's1'): ConversationEvent[] {
  return [userLine(n, sessionId), replyLine(n, sessionId)];
}

/** For tests: what appInfo answers for a browser host with the CLI found. */
export const TEST_APP_INFO: AppInfo = {
  host: 'browser',
  version: '0',
  dataDir: '/d',
  initialCwd: null,
  initialLane: null,
  recentFolders: [],
  defaultPermissionMode: 'default',
  defaultLane: 'stream',
  login: 'api',
  settingsProblems: [],
  theme: 'system',
  notifications: true,
  defaultModel: null,
  cli: { found: true, path: '/c' },
};
