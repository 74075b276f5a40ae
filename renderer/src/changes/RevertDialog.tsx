/**
 * The question a revert asks before anything is done: what each file would go back to (written back,
 * deleted, made again), with the files changed since the last turn (by hand, say) flagged and left as they
 * are unless the user ticks the box. A modal `<dialog>`: Escape or Cancel leaves everything as it was.
 */
import { useId } from 'react';
import type { ChangeStep } from '../../../shared/ipc';
import type { RevertQuestion } from '../state/types';
import { useModalDialog } from '../ui/popover';
import { actionWords, revertTitle } from './words';

export function RevertDialog(props: {
  question: RevertQuestion;
  steps: readonly ChangeStep[];
  onOverwrite(overwrite: boolean): void;
  onConfirm(): void;
  onCancel(): void;
}) {
  const { question, steps, onOverwrite, onConfirm, onCancel } = props;
  const dialog = useModalDialog();
  const titleId = useId();
  const { preview } = question;
  const changedSince = preview?.files.filter((file) => file.changedSince) ?? [];
  const nothing = preview !== null && preview.files.length === 0;
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog changes-revert"
      aria-modal="true"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      onKeyDown={(event) => {
        // The panel's own Escape (close) waits until this question is answered.
        if (event.key === 'Escape') event.stopPropagation();
      }}
    >
      <h2 id={titleId}>{revertTitle(question.target, steps)}</h2>
      {!preview && !question.error && <p role="status">Checking what would change…</p>}
      {nothing && <p>Nothing would change: these files are already as they were then.</p>}
      {preview && !nothing && (
        <>
          <p>
            Back to {preview.to}. {preview.files.length === 1 ? 'This file' : 'These files'} would change:
          </p>
          <ul className="changes-revert-files" aria-label="What the revert changes">
            {preview.files.map((file) => (
              <li key={file.path}>
                <code>{file.path}</code> <span className="muted">{actionWords(file.action)}</span>
                {file.changedSince && <span className="changes-flag">Changed since the last turn</span>}
              </li>
            ))}
          </ul>
          {changedSince.length > 0 && (
            <label className="settings-check">
              <input
                type="checkbox"
                checked={question.overwriteChanged}
                onChange={(event) => onOverwrite(event.target.checked)}
              />
              Overwrite the {changedSince.length === 1 ? 'file' : `${changedSince.length} files`} changed
              since the last turn too (otherwise left as {changedSince.length === 1 ? 'it is' : 'they are'})
            </label>
          )}
          <p className="muted">The revert is a step of its own: it can be undone.</p>
        </>
      )}
      {question.error && (
        <p className="inline-error" role="alert">
          {question.error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="button-primary"
          disabled={!preview || nothing || question.busy}
          onClick={onConfirm}
        >
          Revert
        </button>
      </div>
    </dialog>
  );
}
