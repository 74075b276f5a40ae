import type { ConversationEvent } from '../ipc';
import type { StateDraft } from './draft';
import type { ElicitationRequest } from './state';

/**
 * What the reducer does with MCP elicitations: a question an MCP server asks waits in the state until it is
 * answered or withdrawn; one withdrawn without the user's answer leaves a notice saying so, so its form does
 * not vanish unexplained.
 */
export function reduceElicitation(
  d: StateDraft,
  event: Extract<ConversationEvent, { kind: 'elicitation_request' | 'elicitation_resolved' }>,
  notice: (text: string) => void,
): void {
  const waiting = d.state.elicitations;
  if (event.kind === 'elicitation_request') {
    const { kind: _kind, ...request } = event;
    // The same request again (a window that reloaded while it waited) replaces itself.
    const known = waiting.some((candidate) => candidate.requestId === request.requestId);
    d.set({
      elicitations: known
        ? waiting.map((candidate) => (candidate.requestId === request.requestId ? request : candidate))
        : [...waiting, request],
    });
    return;
  }
  const request: ElicitationRequest | undefined = waiting.find(
    (candidate) => candidate.requestId === event.requestId,
  );
  if (!request) return;
  d.set({ elicitations: waiting.filter((candidate) => candidate !== request) });
  if (event.reason) notice(`${request.serverName}'s question withdrawn: ${event.reason}`);
}
