/**
 * The new-conversation form's worktree part (issue 28): "In a new worktree", offered only for a folder in
 * a git repository (asked of main as the folder is typed, the last answer winning), and once ticked the base
 * branch, an optional name, the first message that names it, and what runs first in it (Settings' setup
 * command). Once ticked, Start waits until the folder as typed is known to be able to have one. The view is
 * a function of its props, so its enabling and disabling are tested as rendered.
 */
import { useEffect, useId, useState } from 'react';
import type { NewWorktree, WorktreeChoices } from '../../../shared/ipc';
import { useStore } from '../state/store';
import { useOverlay } from '../ui/overlays';

/** How long typing pauses before the folder is asked about. */
const ASK_AFTER_MS = 200;

/** Main's answer about one folder (trimmed as it was asked), on a host or (null) on this computer. */
export interface FolderAnswer {
  folder: string;
  host?: string | null;
  choices: WorktreeChoices;
}

/**
 * Main's latest answer about the folder typed, on `host` (null: this computer; empty: a host not named yet,
 * not asked); null before the first. It may be for a folder, or a host, typed earlier.
 */
export function useWorktreeAnswer(folder: string, host: string | null = null): FolderAnswer | null {
  const ask = useStore((state) => state.worktreeChoices);
  const [known, setKnown] = useState<FolderAnswer | null>(null);
  const wanted = folder.trim();
  useEffect(() => {
    if (!wanted || host === '') return;
    // Only the answer for the folder typed last counts: an earlier one arriving late is dropped.
    let current = true;
    const timer = setTimeout(() => {
      ask(wanted, host).then(
        (choices) => current && setKnown({ folder: wanted, host, choices }),
        (error: unknown) =>
          current &&
          setKnown({
            folder: wanted,
            host,
            choices: {
              available: false,
              reason: `Whether this folder can have a worktree could not be told: ${error instanceof Error ? error.message : String(error)}`,
            },
          }),
      );
    }, ASK_AFTER_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [wanted, host, ask]);
  return known;
}

/**
 * The choices for the folder as typed, where it is; null while it is asked about (an answer for another
 * folder, or for the same path on another computer, is not it).
 */
export function choicesFor(
  folder: string,
  answer: FolderAnswer | null,
  host: string | null = null,
): WorktreeChoices | null {
  return answer && answer.folder === folder.trim() && (answer.host ?? null) === host ? answer.choices : null;
}

/** The bases offered, the preselected one first: the current branch, or a detached HEAD's commit. */
export function baseOptions(
  choices: Extract<WorktreeChoices, { available: true }>,
): { value: string; label: string }[] {
  const branches = choices.branches.map((branch) => ({ value: branch, label: branch }));
  if (choices.current) return branches;
  return [{ value: choices.head, label: `${choices.head.slice(0, 7)} (detached HEAD)` }, ...branches];
}

/** Why the checkbox cannot be ticked, in words; null when it can. */
export function worktreeUnavailable(folder: string, choices: WorktreeChoices | null): string | null {
  if (!folder.trim()) return 'Choose a folder in a git repository first.';
  if (!choices) return 'Checking whether this folder is in a git repository…';
  return choices.available ? null : choices.reason;
}

export interface WorktreeValues {
  on: boolean;
  base: string;
  name: string;
  firstMessage: string;
  /** Fetch the repository's submodules into the worktree: off until ticked (a fetch is the repository's choice of server). */
  submodules?: boolean;
}

/** The base picked, or the one preselected when none was (or the one picked is no longer offered). */
function pickedBase(values: WorktreeValues, options: readonly { value: string }[]): string {
  return options.some((option) => option.value === values.base) ? values.base : (options[0]?.value ?? '');
}

/**
 * What Start asks main for (a worktree and its first message, or nothing when the box is not ticked), or
 * why Start waits. A ticked box never falls back to a plain conversation in the folder itself: while the
 * folder is asked about, or when it cannot have a worktree, Start waits and says so.
 */
export type WorktreeStart =
  | { ready: true; options: { worktree?: NewWorktree; firstMessage?: string } }
  | { ready: false; waiting: string };

export function worktreeStart(
  values: WorktreeValues,
  folder: string,
  answer: FolderAnswer | null,
  host: string | null = null,
): WorktreeStart {
  if (!values.on) return { ready: true, options: {} };
  if (!folder.trim()) return { ready: false, waiting: 'Choose a folder in a git repository first.' };
  const choices = choicesFor(folder, answer, host);
  if (!choices) return { ready: false, waiting: 'Checking the folder for a worktree…' };
  if (!choices.available) {
    return {
      ready: false,
      waiting: 'No worktree can be made here: untick “In a new worktree” to start in the folder itself.',
    };
  }
  const name = values.name.trim();
  const firstMessage = values.firstMessage.trim();
  return {
    ready: true,
    options: {
      worktree: {
        base: pickedBase(values, baseOptions(choices)),
        ...(name ? { name } : {}),
        ...(values.submodules && choices.submodules.length > 0 ? { submodules: true } : {}),
      },
      ...(firstMessage ? { firstMessage } : {}),
    },
  };
}

export function WorktreeFields(props: {
  folder: string;
  choices: WorktreeChoices | null;
  values: WorktreeValues;
  onChange(values: WorktreeValues): void;
}) {
  const { folder, choices, values, onChange } = props;
  const reasonId = useId();
  const unavailable = worktreeUnavailable(folder, choices);
  const available = choices?.available ? choices : null;
  const options = available ? baseOptions(available) : [];
  const base = pickedBase(values, options);
  const shown = values.on && available !== null;
  // A ticked box stays ticked, and can be unticked, whatever the folder turns out to be.
  return (
    <div className="new-conversation-field worktree-fields">
      <label className="checkbox-row">
        <input
          type="checkbox"
          checked={values.on}
          disabled={!values.on && unavailable !== null}
          aria-describedby={unavailable ? reasonId : undefined}
          onChange={(event) => onChange({ ...values, on: event.target.checked, base })}
        />
        In a new worktree
      </label>
      {unavailable ? (
        <span id={reasonId} className="field-hint">
          {unavailable}
        </span>
      ) : (
        !shown && (
          <span className="field-hint">
            Its own folder and branch, so other conversations in this repository do not see its files.
          </span>
        )
      )}
      {shown && (
        <div className="worktree-choices">
          <label>
            Base branch
            <select value={base} onChange={(event) => onChange({ ...values, base: event.target.value })}>
              {options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Worktree name <span className="muted">(optional)</span>
            <input
              type="text"
              value={values.name}
              spellCheck={false}
              maxLength={100}
              placeholder="Made from the first message"
              onChange={(event) => onChange({ ...values, name: event.target.value, base })}
            />
          </label>
          <label>
            First message <span className="muted">(optional)</span>
            <textarea
              value={values.firstMessage}
              rows={3}
              placeholder="What Claude should do; sent once the worktree is ready"
              onChange={(event) => onChange({ ...values, firstMessage: event.target.value, base })}
            />
          </label>
          {available.setupCommand && (
            <p className="worktree-setup-line">
              Runs first: <code>{available.setupCommand}</code>{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => useOverlay.getState().show('settings')}
              >
                Change in Settings
              </button>
            </p>
          )}
          {available.submodules.length > 0 && (
            <div className="worktree-submodules">
              <label className="checkbox-row">
                <input
                  type="checkbox"
                  checked={values.submodules ?? false}
                  onChange={(event) => onChange({ ...values, submodules: event.target.checked, base })}
                />
                Fetch its submodules into the worktree
              </label>
              <span className="field-hint">
                Unticked, their folders stay empty. Each is fetched from where the checkout’s .gitmodules and
                the repository’s config say:
              </span>
              <ul className="worktree-submodule-list">
                {available.submodules.map((submodule) => (
                  <li key={submodule.path}>
                    <code>{submodule.path}</code> from{' '}
                    <code className="worktree-submodule-url">{submodule.url}</code>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {available.notes.length > 0 && (
            <ul className="worktree-notes">
              {available.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
