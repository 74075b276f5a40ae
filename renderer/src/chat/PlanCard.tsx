import { useId, useState, type KeyboardEvent } from 'react';
import { planOf, type PermissionRequest } from '../../../shared/conversation';
import { PlanApprovalMode } from '../../../shared/ipc/questions';
import type { PlanAnswer } from '../../../shared/ipc';
import { useStore } from '../state/store';
import { Markdown } from './Markdown';
import { useCardAnswer, useWaitingCardFocus } from './waiting-card';

/**
 * Claude's plan for approval (ExitPlanMode), at the tool call: the plan as Markdown (from the call's input;
 * the request itself has none), "Approve plan" with the mode to go on in (the last choice offered first),
 * and "Keep planning" with what to change, which Claude gets as the tool's result while the mode stays
 * "Plan only". Enter in "What to change" sends it.
 */

export const APPROVAL_MODES: { mode: PlanApprovalMode; name: string }[] = [
  { mode: 'default', name: 'Ask before acting' },
  { mode: 'acceptEdits', name: 'Accept edits' },
];

export function PlanCard({
  tabId,
  request,
  approveMode,
}: {
  tabId: string;
  request: PermissionRequest;
  approveMode: PlanApprovalMode;
}) {
  const plan = useStore((state) =>
    planOf(request.toolUseId ? state.tabs[tabId]?.conversation.tools[request.toolUseId] : undefined),
  );
  return <PlanForm tabId={tabId} request={request} approveMode={approveMode} plan={plan} />;
}

/** The card itself, given its plan (null: the call's input has none). */
export function PlanForm({
  tabId,
  request,
  approveMode,
  plan,
}: {
  tabId: string;
  request: PermissionRequest;
  approveMode: PlanApprovalMode;
  plan: string | null;
}) {
  const answerPlan = useStore((state) => state.answerPlan);
  const [mode, setMode] = useState<PlanApprovalMode>(approveMode);
  const [change, setChange] = useState('');
  const card = useWaitingCardFocus(tabId, request.requestId);
  const { sending, note, send: sendAnswer } = useCardAnswer<PlanAnswer['behavior']>(card, 'answer');
  const ids = useId();

  const send = (answer: PlanAnswer) =>
    sendAnswer(answer.behavior, () => answerPlan(tabId, request.requestId, answer));

  const keepPlanning = () => void send({ behavior: 'keep_planning', message: change.trim() });

  const onChangeKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing || event.key !== 'Enter' || event.shiftKey) return;
    event.preventDefault();
    keepPlanning();
  };

  const busy = sending !== null;
  return (
    <div
      ref={card}
      role="group"
      aria-label="Plan from Claude"
      aria-busy={busy}
      tabIndex={-1}
      className="permission-card plan-card"
    >
      <p className="permission-title">
        <strong>Claude&rsquo;s plan</strong>, for your approval
      </p>
      <div className="plan-text">
        {plan ? <Markdown text={plan} /> : <p className="plan-missing">The plan is not in the tool call.</p>}
      </div>
      <div className="permission-buttons">
        <button
          type="button"
          className="button-primary"
          disabled={busy}
          onClick={() => void send({ behavior: 'approve', mode })}
        >
          Approve plan
        </button>
        <label className="plan-mode">
          <span>then</span>
          <select
            aria-label="Mode after approval"
            value={mode}
            disabled={busy}
            onChange={(event) => {
              const chosen = PlanApprovalMode.safeParse(event.target.value);
              if (chosen.success) setMode(chosen.data);
            }}
          >
            {APPROVAL_MODES.map((choice) => (
              <option key={choice.mode} value={choice.mode}>
                {choice.name}
              </option>
            ))}
          </select>
        </label>
        <span className="permission-keys" aria-hidden="true">
          {sending ? 'Sending your answer…' : 'Enter in What to change keeps planning'}
        </span>
      </div>
      <div className="plan-keep">
        <label htmlFor={`${ids}-change`}>What to change</label>
        <textarea
          id={`${ids}-change`}
          rows={2}
          value={change}
          readOnly={busy}
          maxLength={10_000}
          placeholder="Sent with Keep planning"
          spellCheck
          onChange={(event) => setChange(event.target.value)}
          onKeyDown={onChangeKeyDown}
        />
        <button type="button" className="button-secondary" disabled={busy} onClick={keepPlanning}>
          Keep planning
        </button>
      </div>
      {note && (
        <p className="inline-error" role="alert">
          {note}
        </p>
      )}
    </div>
  );
}
