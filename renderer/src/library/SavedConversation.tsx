import { useCallback, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useDismiss } from '../ui/popover';
import { useStore } from '../state/store';
import { worktreeStatusKey } from '../../../shared/worktrees';

/**
 * The header and footer of a saved conversation shown read-only: its title and folder, and what can be
 * done with it (resume, continue in a new conversation, rename, export, remove from the list).
 */
export function SavedHeader({ tabId }: { tabId: string }) {
  const saved = useStore(
    useShallow((state) => {
      const found = state.tabs[tabId]?.saved;
      return found
        ? {
            sessionId: found.sessionId,
            title: found.row.title,
            cwd: found.row.cwd,
            branch: found.row.gitBranch,
          }
        : null;
    }),
  );
  if (!saved) return null;
  return (
    <header className="conversation-header">
      <div className="conversation-title">
        <Title sessionId={saved.sessionId} title={saved.title} />
        <span className="cwd" title={saved.cwd ?? undefined}>
          {saved.cwd ?? 'Folder unknown'}
          {saved.branch && <span className="branch"> ⎇ {saved.branch}</span>}
        </span>
      </div>
      <ExportMenu sessionId={saved.sessionId} />
      <RemoveButton sessionId={saved.sessionId} />
    </header>
  );
}

/** The title, renamed in place: click Rename, type, Enter (Escape leaves it as it was). */
function Title({ sessionId, title }: { sessionId: string; title: string }) {
  const rename = useStore((state) => state.renameSaved);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(title);
  const [error, setError] = useState<string | null>(null);
  if (!editing) {
    return (
      <div className="title-row">
        <h1>{title}</h1>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setText(title);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  const save = async () => {
    const next = text.trim();
    if (!next || next === title) {
      setEditing(false);
      return;
    }
    try {
      await rename(sessionId, next);
      setEditing(false);
      setError(null);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return (
    <form
      className="title-row"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <input
        aria-label="Title"
        value={text}
        maxLength={200}
        autoFocus
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setEditing(false);
        }}
      />
      <button type="submit" className="button-primary">
        Save
      </button>
      <button type="button" className="button-secondary" onClick={() => setEditing(false)}>
        Cancel
      </button>
      {error && (
        <span className="inline-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

/** "Export", with the choices "Markdown" and "JSONL": a small menu that closes on Escape or a click away. */
/**
 * Exporting a conversation, as every export menu does it: where the file went (or that it was downloaded),
 * or why it could not be written, as a note beside the menu.
 */
export function useExport() {
  const exportSaved = useStore((state) => state.exportSaved);
  const [note, setNote] = useState<{ error: boolean; text: string } | null>(null);
  const exportAs = async (sessionId: string, format: 'markdown' | 'jsonl') => {
    setNote(null);
    try {
      const saved = await exportSaved(sessionId, format);
      if (saved) setNote({ error: false, text: saved });
    } catch (caught) {
      setNote({ error: true, text: caught instanceof Error ? caught.message : String(caught) });
    }
  };
  return { note, setNote, exportAs };
}

export function ExportMenu({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const { note, exportAs } = useExport();
  const menu = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, menu, close, button);
  const run = async (format: 'markdown' | 'jsonl') => {
    setOpen(false);
    await exportAs(sessionId, format);
  };
  return (
    <div className="menu-anchor" ref={menu}>
      <button
        ref={button}
        type="button"
        className="button-secondary"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        Export
      </button>
      {open && (
        <div role="menu" className="menu">
          <button type="button" role="menuitem" autoFocus onClick={() => void run('markdown')}>
            Markdown
          </button>
          <button type="button" role="menuitem" onClick={() => void run('jsonl')}>
            JSONL
          </button>
        </div>
      )}
      {note?.error && (
        <span className="inline-error" role="alert">
          {note.text}
        </span>
      )}
      {note && !note.error && <span role="status">{note.text}</span>}
    </div>
  );
}

/** Removes the conversation from Byre's list after a second click; its files stay where they are. */
function RemoveButton({ sessionId }: { sessionId: string }) {
  const hide = useStore((state) => state.hideSaved);
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button-secondary" onClick={() => setAsking(true)}>
        Remove from list
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label="Remove from list?">
      <span>Remove it from Byre’s list? Its files are kept.</span>
      <button type="button" className="button-primary" onClick={() => void hide(sessionId)}>
        Remove
      </button>
      <button type="button" className="button-secondary" onClick={() => setAsking(false)}>
        Keep
      </button>
    </div>
  );
}

/** In place of the composer: resume the conversation, or carry it on in a new one where it cannot be. */
export function SavedFooter({ tabId }: { tabId: string }) {
  const { resumable, hasTranscript, skipped, inFile, removedBranch } = useStore(
    useShallow((state) => {
      const saved = state.tabs[tabId]?.saved;
      const worktree = saved?.row.cwd
        ? state.worktrees[worktreeStatusKey(saved.row.cwd, saved.row.host)]
        : undefined;
      return {
        removedBranch: worktree?.removed ? worktree.branch : null,
        inFile: !!saved?.leafUuid,
        resumable: saved?.row.resumable ?? false,
        hasTranscript: saved?.row.hasTranscript ?? false,
        skipped: saved?.skipped ?? 0,
      };
    }),
  );
  // A tab reopened after a restart keeps its unsent message; it goes into the composer on Resume.
  const draft = useStore((state) => state.drafts[tabId]?.text ?? '');
  const resume = useStore((state) => state.resumeSaved);
  const continueSaved = useStore((state) => state.continueSaved);
  const [busy, setBusy] = useState(false);
  const act = (action: (tabId: string) => Promise<void>) => {
    setBusy(true);
    void action(tabId).finally(() => setBusy(false));
  };
  return (
    <div className="saved-footer">
      {draft && (
        <p className="saved-draft" role="note" aria-label="Not yet sent">
          <span className="muted">Not yet sent: </span>
          {draft}
        </p>
      )}
      {skipped > 0 && (
        <p className="muted">
          {skipped === 1 ? '1 line' : `${skipped} lines`} of this conversation’s files could not be read and
          are left out.
        </p>
      )}
      {inFile ? (
        <p role="note">
          A branch Claude Code rewound inside this conversation’s file. It can be read here; to carry on from
          it, use Fork from here on one of its replies.
        </p>
      ) : resumable ? (
        <>
          <p>
            {removedBranch
              ? `Its worktree was removed. Resume makes it again from its branch ${removedBranch} and carries on.`
              : 'A saved conversation. Resume it to carry on where it left off.'}
          </p>
          <button type="button" className="button-primary" disabled={busy} onClick={() => act(resume)}>
            {busy ? 'Resuming…' : 'Resume'}
          </button>
        </>
      ) : !hasTranscript ? (
        <p role="note">
          Claude Code has deleted this conversation’s files, and Byre has no transcript of it: it is listed so
          that nothing disappears without a trace, but there is nothing left to open or continue.
        </p>
      ) : (
        <>
          <p role="note">
            Claude Code no longer has its own copy of this conversation, so it cannot be resumed. Byre kept
            its transcript: a new conversation can start with it as context.
          </p>
          <button type="button" className="button-primary" disabled={busy} onClick={() => act(continueSaved)}>
            Continue in a new conversation
          </button>
        </>
      )}
    </div>
  );
}
