import { useId, useRef, useState, type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ElicitationRequest } from '../../../shared/conversation';
import type { ElicitationAnswer, ElicitationField } from '../../../shared/ipc';
import { useStore } from '../state/store';

/**
 * MCP elicitation: an MCP server asks the user for something while Claude waits, as a card above the
 * composer like a permission request. A form's fields come from the server's schema (text, numbers, yes/no,
 * choices); "Submit" sends what was filled in, "Decline" says no, "Cancel" dismisses it (the server tells
 * Claude which). Main checks the answer against the schema; a refusal shows its reason and the card stays.
 */
export function WaitingElicitations({ tabId }: { tabId: string }) {
  const requests = useStore(useShallow((state) => state.tabs[tabId]?.conversation.elicitations ?? NONE));
  if (requests.length === 0) return null;
  return (
    <div className="permission-requests">
      {requests.map((request) => (
        <ElicitationCard key={request.requestId} tabId={tabId} request={request} />
      ))}
    </div>
  );
}

const NONE: ElicitationRequest[] = [];

/** What a field holds while it is being filled in: text for text boxes, numbers and choices; a box's tick. */
type Values = Record<string, string | boolean>;

export function ElicitationCard({ tabId, request }: { tabId: string; request: ElicitationRequest }) {
  const answerElicitation = useStore((state) => state.answerElicitation);
  const [values, setValues] = useState<Values>(() => startingValues(request.fields));
  const [sending, setSending] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const inFlight = useRef(false);
  const ids = useId();
  const unsupported = request.fields.filter((field) => field.type === 'unsupported');

  const answer = async (reply: ElicitationAnswer) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setSending(true);
    setNote(null);
    try {
      const { answered } = await answerElicitation(tabId, request.requestId, reply);
      // Answered: the card goes when the request is resolved.
      if (answered) return;
      setNote(`${request.serverName} was no longer waiting for this answer.`);
    } catch (error) {
      setNote(`Not sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    inFlight.current = false;
    setSending(false);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void answer({ action: 'accept', content: contentOf(request.fields, values) });
  };

  return (
    <form
      role="group"
      aria-label={request.message}
      aria-describedby={`${ids}-from`}
      aria-busy={sending}
      className="permission-card elicitation-card"
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        event.stopPropagation();
        void answer({ action: 'cancel' });
      }}
    >
      <p className="permission-title" id={`${ids}-from`}>
        <strong>{request.serverName}</strong> asks
      </p>
      <p className="elicitation-message">{request.message}</p>
      {request.mode === 'url' && request.url && (
        <p className="elicitation-url">
          It asks you to open <code>{request.url}</code>
        </p>
      )}
      {request.fields.length > 0 && (
        <div className="elicitation-fields">
          {request.fields.map((field) => (
            <FieldInput
              key={field.name}
              id={`${ids}-${field.name}`}
              field={field}
              value={values[field.name] ?? ''}
              disabled={sending}
              onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
            />
          ))}
        </div>
      )}
      {unsupported.length > 0 && (
        <p className="inline-error">
          Byre cannot show {unsupported.map((field) => field.label).join(', ')}: decline or cancel this one.
        </p>
      )}
      <div className="permission-buttons">
        <button type="submit" className="button-primary" disabled={sending || unsupported.length > 0}>
          Submit
        </button>
        <button
          type="button"
          className="button-secondary"
          disabled={sending}
          onClick={() => void answer({ action: 'decline' })}
        >
          Decline
        </button>
        <button
          type="button"
          className="button-secondary"
          disabled={sending}
          onClick={() => void answer({ action: 'cancel' })}
        >
          Cancel
        </button>
        {sending && <span className="permission-keys">Sending your answer…</span>}
      </div>
      {note && (
        <p className="inline-error" role="alert">
          {note}
        </p>
      )}
    </form>
  );
}

function FieldInput(props: {
  id: string;
  field: ElicitationField;
  value: string | boolean;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const { id, field, value, disabled, onChange } = props;
  const described = field.description ? `${id}-about` : undefined;
  const about = field.description && (
    <span className="elicitation-about" id={`${id}-about`}>
      {field.description}
    </span>
  );
  const label = `${field.label}${field.required ? ' (required)' : ''}`;
  if (field.type === 'unsupported') return null;
  if (field.type === 'boolean') {
    return (
      <div className="elicitation-field elicitation-check">
        <label>
          <input
            type="checkbox"
            checked={value === true}
            disabled={disabled}
            aria-describedby={described}
            onChange={(event) => onChange(event.target.checked)}
          />{' '}
          {label}
        </label>
        {about}
      </div>
    );
  }
  return (
    <div className="elicitation-field">
      <label htmlFor={id}>{label}</label>
      {field.type === 'choice' ? (
        <select
          id={id}
          value={String(value)}
          required={field.required}
          disabled={disabled}
          aria-describedby={described}
          onChange={(event) => onChange(event.target.value)}
        >
          {!field.required || value === '' ? <option value="">—</option> : null}
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={field.type === 'text' ? 'text' : 'number'}
          step={field.type === 'integer' ? 1 : 'any'}
          min={field.minimum ?? undefined}
          max={field.maximum ?? undefined}
          value={String(value)}
          required={field.required}
          disabled={disabled}
          aria-describedby={described}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
      {about}
    </div>
  );
}

/** Each field as it starts: the server's default, else empty (a box unticked). */
function startingValues(fields: ElicitationField[]): Values {
  return Object.fromEntries(
    fields.map((field) => [
      field.name,
      field.type === 'boolean' ? field.default === true : field.default === null ? '' : String(field.default),
    ]),
  );
}

/** What the form sends: numbers as numbers, a yes/no as one; an empty optional field is left out. */
export function contentOf(
  fields: ElicitationField[],
  values: Values,
): Record<string, string | number | boolean> {
  const content: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.type === 'boolean') content[field.name] = value === true;
    else if (typeof value !== 'string' || value === '') continue;
    else if (field.type === 'number' || field.type === 'integer') content[field.name] = Number(value);
    else content[field.name] = value;
  }
  return content;
}
