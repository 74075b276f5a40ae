import { useId, useState, type KeyboardEvent } from 'react';
import type { PermissionRequest } from '../../../shared/conversation';
import type { Question, QuestionsAnswer } from '../../../shared/ipc';
import { useStore } from '../state/store';
import { useCardAnswer, useWaitingCardFocus } from './waiting-card';

/**
 * Claude's questions (AskUserQuestion), as a form at the tool call: each question with its header as a chip,
 * its options as radio buttons (or checkboxes for `multiSelect`) with their descriptions, an option's preview
 * while it has the focus, and an "Other" field. "Send answers" sends them by question text; "Skip" (or
 * Escape) tells Claude the user skipped them. Arrows move between options, Space picks, Enter sends.
 */

/** What the user has picked for one question: labels, and the "Other" text. */
interface Picked {
  labels: string[];
  other: string;
}

/** The answer to one question as the CLI takes it: the labels joined with ", ", "Other" text last. */
export function answerText(question: Question, picked: Picked | undefined): string {
  const other = picked?.other.trim() ?? '';
  // For a single choice, the "Other" text is the answer in place of an option.
  if (!question.multiSelect) return other || (picked?.labels[0] ?? '');
  const labels = question.options
    .map((option) => option.label)
    .filter((label) => picked?.labels.includes(label));
  return [...labels, ...(other ? [other] : [])].join(', ');
}

export function QuestionCard({
  tabId,
  request,
  questions,
}: {
  tabId: string;
  request: PermissionRequest;
  questions: Question[];
}) {
  const answerQuestions = useStore((state) => state.answerQuestions);
  const [picked, setPicked] = useState<Record<number, Picked>>({});
  const card = useWaitingCardFocus(tabId, request.requestId);
  const {
    sending,
    note,
    setNote,
    send: sendAnswer,
  } = useCardAnswer<QuestionsAnswer['behavior']>(card, 'answers');

  const answers = questions.map((question, index) => answerText(question, picked[index]));
  const unanswered = answers.filter((answer) => !answer).length;

  const send = (answer: QuestionsAnswer) =>
    sendAnswer(answer.behavior, () => answerQuestions(tabId, request.requestId, answer));

  const sendAnswers = () => {
    if (unanswered > 0) {
      setNote(
        questions.length === 1
          ? 'Pick an answer or write one under Other, or Skip.'
          : `${unanswered} of ${questions.length} questions have no answer yet: pick one or write one under Other, or Skip.`,
      );
      return;
    }
    void send({
      behavior: 'answer',
      answers: Object.fromEntries(
        questions.map((question, index) => [question.question, answers[index] ?? '']),
      ),
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.nativeEvent.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      void send({ behavior: 'skip' });
    } else if (event.key === 'Enter' && !event.shiftKey) {
      // A focused button does as it says.
      if (event.target instanceof HTMLButtonElement) return;
      event.preventDefault();
      sendAnswers();
    } else if (MOVES[event.key] && (event.target === card.current || isOption(event.target))) {
      // Arrows move between the options without picking (Space picks), radio buttons included; from the
      // card itself (it takes the focus when it appears), to the first.
      event.preventDefault();
      const options = [...(card.current?.querySelectorAll<HTMLInputElement>('input[data-option]') ?? [])];
      const at = isOption(event.target) ? options.indexOf(event.target) : -1;
      options[at === -1 ? 0 : at + (MOVES[event.key] ?? 0)]?.focus();
    }
  };

  const update = (index: number, change: (current: Picked) => Picked) =>
    setPicked((current) => ({ ...current, [index]: change(current[index] ?? { labels: [], other: '' }) }));

  const busy = sending !== null;
  return (
    <div
      ref={card}
      role="group"
      aria-label="Question from Claude"
      aria-busy={busy}
      tabIndex={-1}
      className="permission-card question-card"
      onKeyDown={onKeyDown}
    >
      <p className="permission-title">
        <strong>Claude asks</strong>
        {questions.length > 1 ? ` ${questions.length} questions` : ''}
      </p>
      {questions.map((question, index) => (
        <QuestionFields
          key={`${index}:${question.question}`}
          question={question}
          picked={picked[index] ?? { labels: [], other: '' }}
          busy={busy}
          onPick={(label, on) =>
            update(index, (current) => ({
              labels: question.multiSelect
                ? on
                  ? [...current.labels, label]
                  : current.labels.filter((candidate) => candidate !== label)
                : [label],
              // Picking an option of a single choice is the answer: "Other" no longer is.
              other: question.multiSelect ? current.other : '',
            }))
          }
          onOther={(other) =>
            update(index, (current) => ({
              labels: question.multiSelect || !other.trim() ? current.labels : [],
              other,
            }))
          }
        />
      ))}
      <div className="permission-buttons">
        <button type="button" className="button-primary" disabled={busy} onClick={sendAnswers}>
          Send answers
        </button>
        <button
          type="button"
          className="button-secondary"
          disabled={busy}
          onClick={() => void send({ behavior: 'skip' })}
        >
          Skip
        </button>
        <span className="permission-keys" aria-hidden="true">
          {sending ? 'Sending your answers…' : 'Arrows move · Space picks · Enter sends · Esc skips'}
        </span>
      </div>
      {note && (
        <p className="inline-error" role="alert">
          {note}
        </p>
      )}
    </div>
  );
}

const MOVES: Record<string, number> = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

const isOption = (target: EventTarget): target is HTMLInputElement =>
  target instanceof HTMLInputElement && target.dataset.option === 'true';

function QuestionFields({
  question,
  picked,
  busy,
  onPick,
  onOther,
}: {
  question: Question;
  picked: Picked;
  busy: boolean;
  onPick(label: string, on: boolean): void;
  onOther(text: string): void;
}) {
  const ids = useId();
  const [focused, setFocused] = useState<number | null>(null);
  const preview = focused === null ? undefined : question.options[focused]?.preview;
  return (
    <fieldset className="question" aria-label={question.question}>
      <legend className="question-text">
        {question.header && <span className="question-chip">{question.header}</span>}
        <span>{question.question}</span>
        {question.multiSelect && <span className="question-hint"> (pick any)</span>}
      </legend>
      <ul className="question-options">
        {question.options.map((option, index) => (
          <li key={`${index}:${option.label}`}>
            <label className="question-option">
              <input
                type={question.multiSelect ? 'checkbox' : 'radio'}
                name={`${ids}-options`}
                data-option="true"
                checked={picked.labels.includes(option.label)}
                disabled={busy}
                aria-labelledby={`${ids}-${index}-label`}
                aria-describedby={option.description ? `${ids}-${index}-description` : undefined}
                onChange={(event) => onPick(option.label, event.target.checked)}
                onFocus={() => setFocused(index)}
                onBlur={() => setFocused((current) => (current === index ? null : current))}
              />
              <span className="question-option-label" id={`${ids}-${index}-label`}>
                {option.label}
              </span>
              {option.description && (
                <span className="question-option-description" id={`${ids}-${index}-description`}>
                  {option.description}
                </span>
              )}
            </label>
          </li>
        ))}
      </ul>
      {preview && (
        <pre className="question-preview" aria-label="Preview">
          {preview}
        </pre>
      )}
      <div className="permission-reason question-other">
        <label htmlFor={`${ids}-other`}>Other</label>
        <input
          id={`${ids}-other`}
          type="text"
          value={picked.other}
          readOnly={busy}
          maxLength={10_000}
          placeholder={question.multiSelect ? 'Added to what you pick' : 'Your own answer'}
          spellCheck
          onChange={(event) => onOther(event.target.value)}
        />
      </div>
    </fieldset>
  );
}
