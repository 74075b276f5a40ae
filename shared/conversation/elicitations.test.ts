import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../ipc';
import { applyEvents, initialConversation } from '.';

/** MCP elicitations through the reducer: waiting while asked, gone when answered, a notice when withdrawn. */

const asked = (requestId: string): ConversationEvent => ({
  kind: 'elicitation_request',
  requestId,
  serverName: 'people',
  message: 'Who is asking?',
  mode: 'form',
  url: null,
  fields: [],
});

const start = () => initialConversation({ sessionId: 's1', cwd: '/work' });

describe('elicitations in the conversation state', () => {
  it('wait in the order they came; the same one again (a reload) replaces itself', () => {
    const state = applyEvents(start(), [asked('e1'), asked('e2'), asked('e1')]);
    expect(state.elicitations.map((request) => request.requestId)).toEqual(['e1', 'e2']);
  });

  it('an answered one goes quietly; a withdrawn one says why', () => {
    const state = applyEvents(start(), [
      asked('e1'),
      asked('e2'),
      { kind: 'elicitation_resolved', requestId: 'e1', outcome: 'accept', reason: null },
      { kind: 'elicitation_resolved', requestId: 'e2', outcome: 'cancel', reason: 'Claude Code stopped.' },
    ]);
    expect(state.elicitations).toEqual([]);
    const notices = Object.values(state.messages).filter((message) => message.role === 'notice');
    expect(notices).toMatchObject([{ text: "people's question withdrawn: Claude Code stopped." }]);
  });
});
