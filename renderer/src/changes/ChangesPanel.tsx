/**
 * The Changes panel (issue 27): every file the conversation changed in its folder, shell commands' changes
 * included, with which turns changed it and how; a Turn filter showing what one step changed; the picked
 * file's diff; and reverts of a file, a turn, or of a revert. Beside the conversation where the window has
 * room, over it where it has not. The view is `ChangesPanelView`, a function of the panel's state, so what it
 * shows is tested without a store; `WithChanges` and `ChangesButton` connect it to the store.
 */
import { FileDiff as FileDiffIcon, X } from 'lucide-react';
import { useEffect, useId, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ChangedFile, ChangesView, RevertTarget } from '../../../shared/ipc';
import { liveConversationId } from '../state/selectors';
import { useStore } from '../state/store';
import type { ChangesPanel, ChangesScope, DiffLayout, Store } from '../state/types';
import { DiffView } from './DiffView';
import { RevertDialog } from './RevertDialog';
import { againstBaseWords, fileSteps, filesWord, statusWords, stepLabel, summaryWords } from './words';

const panelId = (conversationId: string) => `changes-${conversationId}`;

/** The conversation a tab's Changes are of: the one it runs (its shown branch's); none for a saved one. */
function conversationOf(state: Store, tabId: string): string | null {
  const tab = state.tabs[tabId];
  return tab ? liveConversationId(tab) : null;
}

/** The header's "Changes" button: opens and closes the panel, with how many files changed once known. */
export function ChangesButton({ tabId }: { tabId: string }) {
  const { conversationId, open, count } = useStore(
    useShallow((state) => {
      const id = conversationOf(state, tabId);
      const panel = id ? state.changes[id] : undefined;
      return {
        conversationId: id,
        open: panel?.open ?? false,
        count: panel && !panel.stale ? panel.total : null,
      };
    }),
  );
  const toggle = useStore((state) => state.toggleChanges);
  if (!conversationId) return null;
  return (
    <button
      type="button"
      className="header-text-button changes-toggle"
      aria-label="Changes"
      aria-expanded={open}
      aria-controls={open ? panelId(conversationId) : undefined}
      title={
        count === null
          ? 'Changes: what this conversation changed in its folder'
          : `Changes: ${filesWord(count)} changed since the conversation’s start`
      }
      onClick={() => toggle(conversationId)}
    >
      <FileDiffIcon aria-hidden="true" size={16} />
      <span className="changes-toggle-name">Changes</span>
      {count !== null && count > 0 && <span className="changes-count">{count}</span>}
    </button>
  );
}

/**
 * The conversation, and beside it (or over it, in a narrow window) its Changes panel while that is open. The
 * wrapper stays while the panel opens and closes, so the conversation is not mounted again (its scroll kept).
 */
export function WithChanges({ tabId, children }: { tabId: string; children: ReactNode }) {
  const conversationId = useStore((state) => conversationOf(state, tabId));
  const open = useStore((state) => (conversationId ? !!state.changes[conversationId]?.open : false));
  return (
    <div className="with-changes">
      {children}
      {conversationId && open && <ConnectedPanel conversationId={conversationId} />}
    </div>
  );
}

function ConnectedPanel({ conversationId }: { conversationId: string }) {
  const panel = useStore((state) => state.changes[conversationId]);
  const layout = useStore((state) => state.diffLayout);
  const actions = useStore(
    useShallow((state) => ({
      close: state.closeChanges,
      refresh: state.refreshChanges,
      pick: state.pickChangesStep,
      pickScope: state.pickChangesScope,
      select: state.selectChangedFile,
      setLayout: state.setDiffLayout,
      ask: state.askRevert,
      overwrite: state.setOverwriteChanged,
      cancel: state.cancelRevert,
      confirm: state.confirmRevert,
    })),
  );
  if (!panel) return null;
  const close = () => {
    actions.close(conversationId);
    document.querySelector<HTMLElement>('.changes-toggle')?.focus();
  };
  return (
    <ChangesPanelView
      id={panelId(conversationId)}
      panel={panel}
      layout={layout}
      on={{
        close,
        retry: () => void actions.refresh(conversationId),
        pick: (step) => void actions.pick(conversationId, step),
        scope: (scope) => void actions.pickScope(conversationId, scope),
        select: (path) => void actions.select(conversationId, path),
        layout: actions.setLayout,
        revert: (target) => void actions.ask(conversationId, target),
        overwrite: (value) => actions.overwrite(conversationId, value),
        cancel: () => actions.cancel(conversationId),
        confirm: () => void actions.confirm(conversationId),
      }}
    />
  );
}

/** What the panel's controls do. */
export interface PanelActions {
  close(): void;
  retry(): void;
  pick(step: number | null): void;
  scope(scope: ChangesScope): void;
  select(path: string): void;
  layout(layout: DiffLayout): void;
  revert(target: RevertTarget): void;
  overwrite(value: boolean): void;
  cancel(): void;
  confirm(): void;
}

export function ChangesPanelView(props: {
  id: string;
  panel: ChangesPanel;
  layout: DiffLayout;
  on: PanelActions;
}) {
  const { id, panel, layout, on } = props;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || panel.revert) return;
    event.stopPropagation();
    on.close();
  };
  const view = panel.view;
  return (
    <section id={id} className="changes-panel" aria-label="Changes" onKeyDown={onKeyDown}>
      <header className="changes-head">
        <h2>Changes</h2>
        {view && (
          <span className="changes-root" title={view.root}>
            <bdi>{view.root}</bdi>
          </span>
        )}
        <button
          type="button"
          className="icon-button"
          aria-label="Close changes"
          title="Close"
          onClick={on.close}
        >
          <X aria-hidden="true" size={16} />
        </button>
      </header>
      {panel.error && (
        <div className="inline-error changes-error" role="alert">
          The changes could not be read: {panel.error}{' '}
          <button type="button" className="link-button" onClick={on.retry}>
            Try again
          </button>
        </div>
      )}
      {!view && !panel.error && <p role="status">Reading the changes…</p>}
      {view && <ViewBody view={view} panel={panel} layout={layout} on={on} />}
    </section>
  );
}

/** In a worktree: everything its branch holds against its base, or what this conversation changed. */
function ScopeToggle(props: { base: string; scope: ChangesScope; on: PanelActions }) {
  const name = useId();
  const options: { scope: ChangesScope; label: string }[] = [
    { scope: 'base', label: `Against ${props.base}` },
    { scope: 'conversation', label: "This conversation's changes" },
  ];
  return (
    <div role="radiogroup" aria-label="Show" className="changes-scope">
      {options.map((option) => (
        <label key={option.scope}>
          <input
            type="radio"
            name={name}
            checked={props.scope === option.scope}
            onChange={() => props.on.scope(option.scope)}
          />
          {option.label}
        </label>
      ))}
    </div>
  );
}

/** Files listed in the panel's first frame: more than the tallest list shows. */
export const FIRST_FILE_ROWS = 80;
/** Files added to the list after each frame, until all are there: a task well under 50 ms on a slow machine. */
const MORE_FILE_ROWS = 120;

/**
 * How many of `total` rows to render now: a screenful at once, the rest a few score after each frame, so a
 * change of a thousand files is on screen in the time of eighty (its rows are laid out only as they scroll
 * into view: `content-visibility` in the styles). The list grows only after the frame that drew it, never
 * in that frame (which would hold the first rows back by the next ones' work), and not while the panel
 * reads the folder again: the list kept from the last open is shown at once, and the rows it would grow
 * would only be drawn again when the new list comes, while git wants the processor.
 */
function useRowsShown(total: number, list: string, reading: boolean): number {
  const [rows, setRows] = useState({ list, shown: FIRST_FILE_ROWS });
  // Another list (a step picked, the other scope) starts again from a screenful; the same list read again
  // (a turn ended while the panel is open) keeps what it shows, and where it is scrolled.
  if (rows.list !== list) setRows({ list, shown: FIRST_FILE_ROWS });
  const shown = rows.list === list ? rows.shown : FIRST_FILE_ROWS;
  useEffect(() => {
    if (reading || shown >= total) return;
    return afterNextPaint(() =>
      setRows((now) => (now.list === list ? { list, shown: now.shown + MORE_FILE_ROWS } : now)),
    );
  }, [shown, total, list, reading]);
  return Math.min(shown, total);
}

/** Calls `then` in the task after the next frame is painted; returns what cancels it. */
function afterNextPaint(then: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => (timer = setTimeout(then, 0)));
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}

function ViewBody(props: { view: ChangesView; panel: ChangesPanel; layout: DiffLayout; on: PanelActions }) {
  const { view, panel, layout, on } = props;
  const picked = view.steps.find((step) => step.step === panel.step);
  const shown = useRowsShown(
    view.files.length,
    `${view.scope ?? 'conversation'} ${view.step ?? 'all'}`,
    panel.loading,
  );
  return (
    <>
      <StateLine view={view} />
      {view.repositoryState && (
        <p className="changes-note">The repository is in the middle of {view.repositoryState}.</p>
      )}
      {view.notes.length > 0 && (
        <ul className="changes-notes" aria-label="Notes">
          {[...new Set(view.notes)].map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {panel.reverted && (
        <p className="changes-reverted" role="status">
          {panel.reverted}
        </p>
      )}
      {view.base && <ScopeToggle base={view.base.branch} scope={view.scope ?? 'conversation'} on={on} />}
      <div className="changes-controls" hidden={view.scope === 'base'}>
        <label className="changes-turn">
          Turn
          <select
            value={panel.step === null ? '' : String(panel.step)}
            onChange={(event) => on.pick(event.target.value === '' ? null : Number(event.target.value))}
          >
            <option value="">All turns</option>
            {view.steps.map((step) => (
              <option key={step.step} value={String(step.step)}>
                {stepLabel(step)}
              </option>
            ))}
          </select>
        </label>
        {picked?.kind === 'turn' && (
          <button
            type="button"
            className="button-secondary"
            disabled={picked.files === 0}
            onClick={() => on.revert({ kind: 'step', step: picked.step })}
          >
            Revert this turn
          </button>
        )}
        {picked?.kind === 'revert' && !picked.undone && (
          <button
            type="button"
            className="button-secondary"
            onClick={() => on.revert({ kind: 'undo', step: picked.step })}
          >
            Undo this revert
          </button>
        )}
      </div>
      <p className="changes-summary" aria-busy={panel.loading}>
        {view.scope === 'base' && view.base
          ? againstBaseWords(view.files.length, view.base.branch)
          : summaryWords(view.files.length, picked)}
      </p>
      {view.files.length > 0 && (
        <ul className="changes-files" aria-label="Changed files" aria-busy={panel.loading}>
          {view.files.slice(0, shown).map((file) => (
            <FileRow
              key={file.path}
              file={file}
              view={view}
              selected={file.path === panel.selected}
              on={on}
              step={panel.step}
            />
          ))}
        </ul>
      )}
      <div className="changes-diff-area">
        {panel.selected === null ? (
          view.files.length > 0 && <p className="muted">Pick a file to see its diff.</p>
        ) : panel.diffError ? (
          <p className="inline-error" role="alert">
            The diff of {panel.selected} could not be read: {panel.diffError}
          </p>
        ) : panel.diff && panel.diff.path === panel.selected ? (
          <DiffView key={panel.selected} diff={panel.diff} layout={layout} onLayout={on.layout} />
        ) : (
          <p role="status">Reading the diff of {panel.selected}…</p>
        )}
      </div>
      {panel.revert && (
        <RevertDialog
          question={panel.revert}
          steps={view.steps}
          onOverwrite={on.overwrite}
          onConfirm={on.confirm}
          onCancel={on.cancel}
        />
      )}
    </>
  );
}

/** Whether snapshots are being taken: said only when they are not (yet). */
function StateLine({ view }: { view: ChangesView }) {
  if (view.state.kind === 'on') return null;
  if (view.state.kind === 'starting') return <p role="status">Taking the first snapshot of the folder…</p>;
  return (
    <p className="changes-note changes-off" role="status">
      {view.state.reason}
    </p>
  );
}

function FileRow(props: {
  file: ChangedFile;
  view: ChangesView;
  selected: boolean;
  step: number | null;
  on: PanelActions;
}) {
  const { file, view, selected, step, on } = props;
  return (
    <li className={`changes-file${selected ? ' changes-file-selected' : ''}`}>
      <div className="changes-file-line">
        <button
          type="button"
          className="changes-file-open"
          aria-current={selected ? 'true' : undefined}
          title={`Show the diff of ${file.path}`}
          onClick={() => on.select(file.path)}
        >
          {file.path}
        </button>
        {/* A submodule is listed, never reverted: its checkout is its own repository's. */}
        {/* Against the base, a file's difference may be committed: a revert goes by the conversation's own. */}
        {file.kind !== 'submodule' && view.scope !== 'base' && (
          <button
            type="button"
            className="link-button changes-file-revert"
            aria-label={`Revert ${file.path}`}
            title={
              step === null
                ? 'Back to how it was at the conversation’s start'
                : 'Back to how it was before this step'
            }
            onClick={() => on.revert({ kind: 'file', path: file.path, step })}
          >
            Revert
          </button>
        )}
      </div>
      <div className="changes-file-facts">
        <span className={`changes-status changes-status-${file.status}`}>{statusWords(file)}</span>
        {file.added !== null && file.removed !== null ? (
          <span className="changes-counts">
            <span className="diff-plus">+{file.added}</span>{' '}
            <span className="diff-minus">−{file.removed}</span>
          </span>
        ) : (
          file.kind === 'file' && <span className="changes-counts">binary</span>
        )}
        {file.changedSince && <span className="changes-flag">Changed since the last turn</span>}
      </div>
      {file.steps.length > 0 && (
        <div className="changes-file-steps">
          {fileSteps(file, view.steps).map((words, index) => (
            <span key={index} className="changes-file-step" title={words}>
              {words}
            </span>
          ))}
        </div>
      )}
    </li>
  );
}
