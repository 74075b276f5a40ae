import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  permissionPlaces,
  type ConversationState,
  type PermissionRequest,
} from '../../../shared/conversation';
import { useStore } from '../state/store';
import { PlanCard } from './PlanCard';
import { QuestionCard } from './QuestionCard';
import { ToolAction } from './ToolCard';
import { useCardAnswer, useWaitingCardFocus } from './waiting-card';

/**
 * A question Claude waits on: may it use this tool? The card sits in the tool call it is about (or at the end
 * of the conversation when that call is not shown), says what the call will do, and takes the answer: Allow,
 * Always allow (when the CLI can remember it), or Deny with an optional reason for Claude. Enter allows and
 * Escape denies while the card has the focus. Each waiting request has its own card; none blocks another.
 * A question or a plan from Claude (a request with an `interaction`) waits the same way, in a card of its own.
 */

const NONE: PermissionRequest[] = [];

/** The waiting requests of a tool call and of the calls inside it (a subagent's), in the order they came. */
export function requestsHeldBy(
  conversation: ConversationState | undefined,
  toolUseId: string,
): PermissionRequest[] {
  if (!conversation || conversation.permissionRequests.length === 0) return NONE;
  const places = permissionPlaces(conversation);
  const held = conversation.permissionRequests.filter((request) =>
    places.get(request.requestId)?.toolUseIds.includes(toolUseId),
  );
  return held.length > 0 ? held : NONE;
}

/** The waiting requests whose tool call is not shown: their cards go at the end of the conversation. */
export function requestsAtEnd(
  conversation: ConversationState | undefined,
  toolsShown: boolean,
): PermissionRequest[] {
  if (!conversation || conversation.permissionRequests.length === 0) return NONE;
  if (!toolsShown) return conversation.permissionRequests;
  const places = permissionPlaces(conversation);
  const unplaced = conversation.permissionRequests.filter((request) => !places.get(request.requestId));
  return unplaced.length > 0 ? unplaced : NONE;
}

export function PermissionCards({ tabId, requests }: { tabId: string; requests: PermissionRequest[] }) {
  return (
    <>
      {requests.map((request) =>
        request.interaction?.kind === 'questions' ? (
          <QuestionCard
            key={request.requestId}
            tabId={tabId}
            request={request}
            questions={request.interaction.questions}
          />
        ) : request.interaction?.kind === 'plan' ? (
          <PlanCard
            key={request.requestId}
            tabId={tabId}
            request={request}
            approveMode={request.interaction.approveMode}
          />
        ) : (
          <PermissionCard key={request.requestId} tabId={tabId} request={request} />
        ),
      )}
    </>
  );
}

/**
 * Above the composer: requests about tool calls the conversation does not show (all of them while
 * `toolsShown` is false, as when two branches are compared).
 */
export function WaitingRequests({ tabId, toolsShown }: { tabId: string; toolsShown: boolean }) {
  const requests = useStore(
    useShallow((state) => requestsAtEnd(state.tabs[tabId]?.conversation, toolsShown)),
  );
  if (requests.length === 0) return null;
  return (
    <div className="permission-requests">
      <PermissionCards tabId={tabId} requests={requests} />
    </div>
  );
}

type Choice = 'allow' | 'always' | 'deny';

function PermissionCard({ tabId, request }: { tabId: string; request: PermissionRequest }) {
  const answerPermission = useStore((state) => state.answerPermission);
  const [reason, setReason] = useState('');
  const card = useWaitingCardFocus(tabId, request.requestId);
  const { sending, note, send } = useCardAnswer<Choice>(card, 'answer');
  const reasonInput = useRef<HTMLInputElement>(null);
  const ids = useId();

  const answer = (choice: Choice) =>
    send(choice, () =>
      answerPermission(
        tabId,
        request.requestId,
        choice === 'deny'
          ? { behavior: 'deny', message: reason.trim() }
          : { behavior: 'allow', remember: choice === 'always' },
      ),
    );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.nativeEvent.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      void answer('deny');
    } else if (event.key === 'Enter' && !event.shiftKey) {
      // A focused button answers as it says; Enter in the reason sends it with Deny.
      if (event.target instanceof HTMLButtonElement) return;
      event.preventDefault();
      void answer(event.target === reasonInput.current ? 'deny' : 'allow');
    }
  };

  const busy = sending !== null;
  return (
    <div
      ref={card}
      role="group"
      aria-label="Permission request"
      aria-describedby={`${ids}-title`}
      aria-busy={busy}
      tabIndex={-1}
      className="permission-card"
      onKeyDown={onKeyDown}
    >
      <p className="permission-title" id={`${ids}-title`}>
        Claude wants to use <strong>{request.displayName}</strong>
      </p>
      {request.description && <p className="permission-description">{request.description}</p>}
      <div className="permission-action">
        <ToolAction name={request.toolName} input={request.input} originalFile={request.fileBefore} />
      </div>
      {request.blockedPath && (
        <p className="permission-blocked">
          Outside the folders Claude may use: <code>{request.blockedPath}</code>
        </p>
      )}
      <div className="permission-buttons">
        <button type="button" className="button-primary" disabled={busy} onClick={() => void answer('allow')}>
          Allow
        </button>
        {request.remember !== null && (
          <button
            type="button"
            className="button-secondary"
            disabled={busy}
            aria-describedby={`${ids}-remember`}
            onClick={() => void answer('always')}
          >
            Always allow
          </button>
        )}
        <button
          type="button"
          className="button-secondary"
          disabled={busy}
          onClick={() => void answer('deny')}
        >
          Deny
        </button>
        <span className="permission-keys" aria-hidden="true">
          {sending ? 'Sending your answer…' : 'Enter allows · Esc denies'}
        </span>
      </div>
      {request.remember !== null && (
        <p className="permission-remember" id={`${ids}-remember`}>
          Always allow: {request.remember}
        </p>
      )}
      <div className="permission-reason">
        <label htmlFor={`${ids}-reason`}>Reason for Claude (optional)</label>
        <input
          ref={reasonInput}
          id={`${ids}-reason`}
          type="text"
          value={reason}
          readOnly={busy}
          maxLength={10_000}
          placeholder="Sent with Deny"
          spellCheck
          onChange={(event) => setReason(event.target.value)}
        />
      </div>
      {note && (
        <p className="inline-error" role="alert">
          {note}
        </p>
      )}
    </div>
  );
}
