/**
 * A worktree conversation's header (issue 28): its branch and base ("⎇ fix-login → main"), and the
 * "Worktree" menu that finishes it: merge into the base, a pull request, open its folder, remove it. Each
 * finishing step asks first in a dialog drafted from the conversation; the dialog is the store's (one at a
 * time, the palette opens them too). The draft is read when a dialog opens and again whenever Claude starts
 * or ends a turn, since a turn may write files; removal waits for the turn to end. The dialogs' views are
 * functions of their props, tested as rendered.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { GitBranch } from 'lucide-react';
import { useShallow } from 'zustand/react/shallow';
import type { MergeOutcome, WorktreeDraft, WorktreeStatus } from '../../../shared/ipc';
import { conversationActivity } from '../state/selectors';
import { useStore } from '../state/store';
import type { Tab, WorktreeDialogKind } from '../state/types';
import { useBusyAction } from '../ui/busy-action';
import { useModalDialog, usePopover } from '../ui/popover';
import { moveFocus } from './HeaderMenu';
import { worktreeStatusKey } from '../../../shared/worktrees';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The branch and its base, and the menu; nothing for a conversation in its own folder. */
export function WorktreeHeader({ tabId }: { tabId: string }) {
  const worktree = useStore((state) => state.tabs[tabId]?.conversation.worktree ?? null);
  if (!worktree) return null;
  const base = worktree.base ?? 'its commit';
  return (
    <span className="worktree-header">
      <span className="worktree-branch" title={`Worktree ${worktree.name}, made from ${base}`}>
        <span className="worktree-branch-name">⎇ {worktree.branch}</span>
        <span className="worktree-branch-base">
          {'\u00a0'}→ {base}
        </span>
      </span>
      <WorktreeMenu tabId={tabId} base={worktree.base} />
    </span>
  );
}

function WorktreeMenu({ tabId, base }: { tabId: string; base: string | null }) {
  const { open, setOpen, area, toggle, panelId, toggleProps } = usePopover();
  const openDialog = useStore((state) => state.openWorktreeDialog);
  const openFolder = useStore((state) => state.openWorktreeFolder);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
  }, [open]);
  const choose = (run: () => void) => {
    setOpen(false);
    toggle.current?.focus();
    run();
  };
  const dialog = (kind: WorktreeDialogKind) => () => choose(() => openDialog(tabId, kind));
  return (
    <div className="menu-anchor" ref={area}>
      <button
        {...toggleProps}
        className="button-secondary button-small"
        aria-haspopup="menu"
        onClick={() => setOpen(!open)}
      >
        <GitBranch aria-hidden="true" size={14} /> Worktree
      </button>
      {open && (
        <div
          ref={menu}
          id={panelId}
          role="menu"
          aria-label="Worktree"
          className="menu"
          onKeyDown={(event) => moveFocus(event, menu.current)}
        >
          <button type="button" role="menuitem" disabled={!base} onClick={dialog('merge')}>
            {base ? `Merge into ${base}` : 'Merge (made from a commit, not a branch)'}
          </button>
          <button type="button" role="menuitem" onClick={dialog('pullRequest')}>
            Create pull request
          </button>
          <button type="button" role="menuitem" onClick={() => choose(() => void openFolder(tabId, 'files'))}>
            Open folder
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={() => choose(() => void openFolder(tabId, 'terminal'))}
          >
            Open in terminal
          </button>
          <button type="button" role="menuitem" onClick={dialog('remove')}>
            Remove worktree
          </button>
        </div>
      )}
    </div>
  );
}

/** The finishing dialog open for this tab, if any, with the conversation's draft read for it. */
export function WorktreeDialogs({ tabId }: { tabId: string }) {
  const kind = useStore((state) =>
    state.worktreeDialog?.tabId === tabId ? state.worktreeDialog.kind : null,
  );
  if (!kind) return null;
  return <DraftedDialog key={kind} tabId={tabId} kind={kind} />;
}

/** Claude is running a turn, or waiting for permission in one: files in the worktree may still be written. */
function claudeAtWork(conversation: Tab['conversation'] | undefined): boolean {
  const activity = conversation ? conversationActivity(conversation) : null;
  return activity === 'running' || activity === 'waiting';
}

function DraftedDialog({ tabId, kind }: { tabId: string; kind: WorktreeDialogKind }) {
  const readDraft = useStore((state) => state.worktreeDraft);
  const atWork = useStore((state) => claudeAtWork(state.tabs[tabId]?.conversation));
  // Each start and end of a turn calls for a new reading: what was uncommitted may have changed.
  const [turns, setTurns] = useState({ atWork, reading: 0 });
  if (turns.atWork !== atWork) setTurns({ atWork, reading: turns.reading + 1 });
  const { reading } = turns;
  const [draft, setDraft] = useState<WorktreeDraft | null>(null);
  const [readAt, setReadAt] = useState(-1);
  const [loadError, setLoadError] = useState<{ reading: number; message: string } | null>(null);
  useEffect(() => {
    let current = true;
    readDraft(tabId).then(
      (read) => {
        if (!current) return;
        setDraft(read);
        setReadAt(reading);
      },
      (error: unknown) => {
        if (current) setLoadError({ reading, message: messageOf(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [tabId, readDraft, reading]);
  const error = loadError?.reading === reading ? loadError.message : null;
  if (kind === 'merge') return <MergeDialog tabId={tabId} draft={draft} loadError={error} />;
  if (kind === 'pullRequest') return <PullRequestDialog tabId={tabId} draft={draft} loadError={error} />;
  return (
    <RemoveDialog tabId={tabId} draft={draft} fresh={readAt === reading} atWork={atWork} loadError={error} />
  );
}

/** A modal dialog named by its heading; Escape or Cancel closes it and changes nothing. */
function Dialog(props: { title: string; className: string; children: ReactNode; actions: ReactNode }) {
  const close = useStore((state) => state.closeWorktreeDialog);
  const dialog = useModalDialog();
  const titleId = useId();
  return (
    <dialog
      ref={dialog}
      className={`confirm-dialog worktree-dialog ${props.className}`}
      aria-modal="true"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={close}>
          {props.actions ? 'Cancel' : 'Close'}
        </button>
        {props.actions}
      </div>
    </dialog>
  );
}

function Loading({ loadError }: { loadError: string | null }) {
  return loadError ? (
    <p className="inline-error" role="alert">
      {loadError}
    </p>
  ) : (
    <p role="status">Reading the worktree…</p>
  );
}

function UncommittedList({ paths }: { paths: readonly string[] }) {
  return (
    <ul className="worktree-files" aria-label="Uncommitted files">
      {paths.map((path) => (
        <li key={path}>
          <code>{path}</code>
        </li>
      ))}
    </ul>
  );
}

/** The merge dialog's form, as it stands. */
export interface MergeForm {
  squash: boolean;
  message: string;
  commitUncommitted: boolean;
}

export function MergeDialogView(props: {
  draft: WorktreeDraft | null;
  loadError: string | null;
  form: MergeForm;
  busy: boolean;
  outcome: MergeOutcome | null;
  error: string | null;
  onChange(form: MergeForm): void;
  onMerge(): void;
}) {
  const { draft, loadError, form, busy, outcome, error, onChange, onMerge } = props;
  const base = draft?.status.base ?? 'the base';
  const done = outcome?.merged === true;
  const uncommitted = draft?.status.uncommitted ?? [];
  return (
    <Dialog
      title={`Merge into ${base}`}
      className="worktree-merge"
      actions={
        !done && (
          <button
            type="button"
            className="button-primary"
            disabled={!draft || busy || !form.message.trim()}
            aria-busy={busy || undefined}
            onClick={onMerge}
          >
            {busy ? 'Merging…' : 'Merge'}
          </button>
        )
      }
    >
      {!draft ? (
        <Loading loadError={loadError} />
      ) : done ? (
        <p role="status">
          Merged into {outcome.base} as <code>{outcome.commit.slice(0, 7)}</code>.
        </p>
      ) : (
        <fieldset className="worktree-form" disabled={busy}>
          <div role="radiogroup" aria-label="How" className="worktree-radios">
            <label>
              <input
                type="radio"
                name="merge-how"
                checked={!form.squash}
                onChange={() => onChange({ ...form, squash: false })}
              />
              Merge
            </label>
            <label>
              <input
                type="radio"
                name="merge-how"
                checked={form.squash}
                onChange={() => onChange({ ...form, squash: true })}
              />
              Squash
            </label>
          </div>
          <label className="field">
            <span>Commit message</span>
            <textarea
              rows={6}
              value={form.message}
              onChange={(event) => onChange({ ...form, message: event.target.value })}
            />
          </label>
          {uncommitted.length > 0 && (
            <>
              <p>Not committed in the worktree:</p>
              <UncommittedList paths={uncommitted} />
              <label className="checkbox-row">
                <input
                  type="checkbox"
                  checked={form.commitUncommitted}
                  onChange={(event) => onChange({ ...form, commitUncommitted: event.target.checked })}
                />
                Commit uncommitted changes first
              </label>
            </>
          )}
        </fieldset>
      )}
      {outcome?.merged === false && (
        <div role="alert" className="worktree-conflicts">
          <p>These files conflict with {base}:</p>
          <ul className="worktree-files" aria-label="Conflicting files">
            {outcome.conflicts.map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
          </ul>
          <p>Nothing was changed: resolve these in the worktree and merge again.</p>
        </div>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

function MergeDialog(props: { tabId: string; draft: WorktreeDraft | null; loadError: string | null }) {
  const merge = useStore((state) => state.mergeWorktree);
  const [form, setForm] = useState<MergeForm | null>(null);
  const [outcome, setOutcome] = useState<MergeOutcome | null>(null);
  const { busy, error, run } = useBusyAction();
  // The drafted message, until the user changes it.
  const shown = form ?? {
    squash: false,
    message: props.draft?.commitMessage ?? '',
    commitUncommitted: true,
  };
  const onMerge = () => {
    setOutcome(null);
    run(async () => {
      setOutcome(
        await merge(props.tabId, {
          squash: shown.squash,
          message: shown.message,
          commitUncommitted: shown.commitUncommitted && (props.draft?.status.uncommitted.length ?? 0) > 0,
        }),
      );
    });
  };
  return (
    <MergeDialogView
      draft={props.draft}
      loadError={props.loadError}
      form={shown}
      busy={busy}
      outcome={outcome}
      error={error}
      onChange={setForm}
      onMerge={onMerge}
    />
  );
}

export function PullRequestDialogView(props: {
  draft: WorktreeDraft | null;
  loadError: string | null;
  title: string;
  body: string;
  busy: boolean;
  created: { url: string | null; output: string } | null;
  error: string | null;
  onChange(title: string, body: string): void;
  onCreate(): void;
  onOpen(url: string): void;
}) {
  const { draft, loadError, title, body, busy, created, error } = props;
  const ready = draft?.pullRequest.ready === true;
  return (
    <Dialog
      title="Create pull request"
      className="worktree-pull-request"
      actions={
        ready &&
        !created && (
          <button
            type="button"
            className="button-primary"
            disabled={busy || !title.trim()}
            aria-busy={busy || undefined}
            onClick={props.onCreate}
          >
            {busy ? 'Creating…' : 'Create pull request'}
          </button>
        )
      }
    >
      {!draft ? (
        <Loading loadError={loadError} />
      ) : !draft.pullRequest.ready ? (
        <p role="note">{draft.pullRequest.reason}</p>
      ) : created ? (
        <div role="status">
          {created.url ? (
            <p>
              Pull request created:{' '}
              <a
                href={created.url}
                onClick={(event) => {
                  event.preventDefault();
                  props.onOpen(created.url ?? '');
                }}
              >
                {created.url}
              </a>
            </p>
          ) : (
            <p>GitHub CLI finished without giving the pull request&apos;s address.</p>
          )}
          {created.output && <pre className="worktree-output">{created.output}</pre>}
        </div>
      ) : (
        <fieldset className="worktree-form" disabled={busy}>
          <p className="muted">
            Pushes {draft.status.branch} to {draft.pullRequest.remote}, then opens a pull request against{' '}
            {draft.status.base ?? 'the base'}.
          </p>
          <label className="field">
            <span>Title</span>
            <input type="text" value={title} onChange={(event) => props.onChange(event.target.value, body)} />
          </label>
          <label className="field">
            <span>Body</span>
            <textarea rows={8} value={body} onChange={(event) => props.onChange(title, event.target.value)} />
          </label>
        </fieldset>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

function PullRequestDialog(props: { tabId: string; draft: WorktreeDraft | null; loadError: string | null }) {
  const create = useStore((state) => state.createPullRequest);
  const openLink = useStore((state) => state.openLink);
  const [typed, setTyped] = useState<{ title: string; body: string } | null>(null);
  const [created, setCreated] = useState<{ url: string | null; output: string } | null>(null);
  const { busy, error, run } = useBusyAction();
  const title = typed?.title ?? props.draft?.title ?? '';
  const body = typed?.body ?? props.draft?.body ?? '';
  return (
    <PullRequestDialogView
      draft={props.draft}
      loadError={props.loadError}
      title={title}
      body={body}
      busy={busy}
      created={created}
      error={error}
      onChange={(nextTitle, nextBody) => setTyped({ title: nextTitle, body: nextBody })}
      onCreate={() => run(async () => setCreated(await create(props.tabId, { title, body })))}
      onOpen={(url) => void openLink(url)}
    />
  );
}

/** What deleting the branch loses: its commits the base lacks (or the commit it was made from, detached). */
function branchCommits(status: WorktreeStatus): { said: string; deleteLabel: string } {
  const { branch, ahead } = status;
  const against = status.base ?? status.baseCommit.slice(0, 7);
  const madeFrom = status.base === null ? ', the commit it was made from' : '';
  if (ahead === null) {
    return {
      said: `How many commits on ${branch} are not in ${against}${madeFrom} could not be counted.${status.problem ? ` ${status.problem}` : ''}`,
      deleteLabel: `Also delete the branch ${branch}, and any commits on it not in ${against}`,
    };
  }
  if (ahead === 0) {
    return {
      said: `Its commits are all in ${against}${madeFrom}.`,
      deleteLabel: `Also delete the branch ${branch}`,
    };
  }
  const commits = ahead === 1 ? '1 commit' : `${ahead} commits`;
  return {
    said: `${commits} on ${branch} ${ahead === 1 ? 'is' : 'are'} not in ${against}${madeFrom}.`,
    deleteLabel: `Also delete the branch ${branch} and its ${commits} not in ${against}`,
  };
}

export function RemoveDialogView(props: {
  status: WorktreeStatus | null;
  /** The status was read since the dialog opened and since Claude's last turn started or ended. */
  fresh: boolean;
  /** Claude is running a turn or waiting for permission: files may still be written. */
  atWork: boolean;
  loadError: string | null;
  deleteBranch: boolean;
  busy: boolean;
  error: string | null;
  onDeleteBranch(value: boolean): void;
  onRemove(): void;
}) {
  const { status, fresh, atWork, loadError, deleteBranch, busy, error } = props;
  const commits = status && branchCommits(status);
  return (
    <Dialog
      title="Remove worktree"
      className="worktree-remove"
      actions={
        <button
          type="button"
          className="button-danger"
          disabled={!status || !fresh || atWork || busy}
          aria-busy={busy || undefined}
          onClick={props.onRemove}
        >
          {busy ? 'Removing…' : 'Remove'}
        </button>
      }
    >
      {!status || !commits ? (
        <Loading loadError={loadError} />
      ) : (
        <fieldset className="worktree-form" disabled={busy}>
          <p>
            Ends this conversation and deletes the folder <code>{status.path}</code>. The conversation stays
            in the list; resuming it makes the worktree again from its branch, if the branch is kept.
          </p>
          {atWork && (
            <p className="inline-error" role="alert">
              Claude is at work in this conversation: stop it before removing its worktree.
            </p>
          )}
          {status.uncommitted.length > 0 ? (
            <>
              <p>Not committed, and lost with the folder:</p>
              <UncommittedList paths={status.uncommitted} />
            </>
          ) : (
            <p>Nothing is uncommitted.</p>
          )}
          {!fresh &&
            (loadError ? (
              <p className="inline-error" role="alert">
                {loadError}
              </p>
            ) : (
              <p role="status">Reading what is uncommitted now…</p>
            ))}
          <p>{commits.said}</p>
          <label className="checkbox-row">
            <input
              type="checkbox"
              checked={deleteBranch}
              onChange={(event) => props.onDeleteBranch(event.target.checked)}
            />
            {commits.deleteLabel}
          </label>
        </fieldset>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

function RemoveDialog(props: {
  tabId: string;
  draft: WorktreeDraft | null;
  fresh: boolean;
  atWork: boolean;
  loadError: string | null;
}) {
  const remove = useStore((state) => state.removeWorktree);
  // Until the draft comes, what the sidebar knows of the worktree is shown; Remove waits for the draft.
  const known = useStore(
    useShallow((state) => {
      const conversation = state.tabs[props.tabId]?.conversation;
      const cwd = conversation?.cwd;
      return (cwd && state.worktrees[worktreeStatusKey(cwd, conversation.host)]) || null;
    }),
  );
  const status = props.draft?.status ?? known;
  const [deleteBranch, setDeleteBranch] = useState(false);
  // Busy still once removed: the conversation's tab goes read-only, and this dialog with it.
  const { busy, error, run } = useBusyAction();
  return (
    <RemoveDialogView
      status={status}
      fresh={props.fresh}
      atWork={props.atWork}
      loadError={props.loadError}
      deleteBranch={deleteBranch}
      busy={busy}
      error={error}
      onDeleteBranch={setDeleteBranch}
      onRemove={() => run(() => remove(props.tabId, deleteBranch), { keepBusy: true })}
    />
  );
}
