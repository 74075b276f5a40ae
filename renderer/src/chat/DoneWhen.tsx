import { useEffect, useRef, useState, type ReactNode } from 'react';
import { SlidersHorizontal } from 'lucide-react';
import { CommitIdentity } from '../../../shared/ipc/app';
import { DONE_WHEN_MAX_CHARS } from '../../../shared/ipc/conversation';
import type { CheckRun } from '../../../shared/ipc';
import { placePopover, usePopover } from '../ui/popover';
import { useStore } from '../state/store';

/**
 * "Done when": the header's button "Conversation settings", whose panel sets the command Byre runs each
 * time Claude stops (a failing one keeps Claude going), and the last check's result beside it.
 */
export function DoneWhenButton({ tabId }: { tabId: string }) {
  const command = useStore((state) => state.tabs[tabId]?.conversation.doneWhen ?? '');
  const lastCheck = useStore((state) => state.tabs[tabId]?.conversation.lastCheck ?? null);
  const { open, setOpen, close, area, toggle, panelId, toggleProps } = usePopover();
  return (
    <div className="menu-anchor" ref={area}>
      <button
        {...toggleProps}
        className="header-icon-button"
        aria-label="Conversation settings"
        title={
          command
            ? `Conversation settings (done when: ${command})`
            : 'Conversation settings: a check that decides when Claude is done, who commits'
        }
        onClick={() => setOpen(!open)}
      >
        <SlidersHorizontal aria-hidden="true" size={16} />
      </button>
      {command && lastCheck && lastCheck.command === command && <CheckBadge check={lastCheck} />}
      {open && (
        <DoneWhenPanel
          id={panelId}
          tabId={tabId}
          command={command}
          onDone={() => {
            close();
            toggle.current?.focus();
          }}
        />
      )}
    </div>
  );
}

/** Who the commits Claude makes here are by, when Byre set it (otherwise git's own setting decides). */
export function CommitIdentityLine({ tabId }: { tabId: string }) {
  const identity = useStore((state) => state.tabs[tabId]?.conversation.commitIdentity ?? null);
  if (!identity) return null;
  const text = `${identity.name} <${identity.email}>`;
  return (
    <span className="commit-identity" title={`Commits Claude makes here are by ${text}`}>
      Commits as {text}
    </span>
  );
}

/** How a run of the check stands, in words: on its card, and in the header's badge. */
const VERDICTS: Record<CheckRun['status'], { card: string; badge: string; tone: 'ok' | 'error' | 'muted' }> =
  {
    running: { card: 'Running', badge: 'Checking…', tone: 'muted' },
    passed: { card: 'Passed', badge: 'Check passed', tone: 'ok' },
    failed: { card: 'Failed', badge: 'Check failed', tone: 'error' },
    stopped: { card: 'Stopped', badge: 'Check stopped', tone: 'muted' },
  };

function CheckBadge({ check }: { check: CheckRun }) {
  const verdict = VERDICTS[check.status];
  return (
    <span
      className={`check-badge check-badge-${verdict.tone}`}
      role="status"
      title={`${check.command}: ${check.summary}`}
    >
      {verdict.badge}
    </span>
  );
}

type Scope = 'global' | 'folder';

/** "Commit as" as the panel edits it: both scopes as main has them, and the one shown. */
interface IdentityForm {
  loaded: Record<Scope, CommitIdentity | null> | null;
  scope: Scope;
  name: string;
  email: string;
}

const sameIdentity = (a: CommitIdentity | null, b: CommitIdentity | null) =>
  a?.name === b?.name && a?.email === b?.email;

function DoneWhenPanel(props: { id: string; tabId: string; command: string; onDone: () => void }) {
  const { id, tabId, command, onDone } = props;
  const setDoneWhen = useStore((state) => state.setDoneWhen);
  const readCommitIdentity = useStore((state) => state.readCommitIdentity);
  const setCommitIdentity = useStore((state) => state.setCommitIdentity);
  const cwd = useStore((state) => state.tabs[tabId]?.conversation.cwd ?? null);
  // A folder on a host is that host's: its "Commit as" is not this computer's folder of the same path.
  const host = useStore((state) => state.tabs[tabId]?.conversation.host ?? null);
  const [value, setValue] = useState(command);
  const [folderDefault, setFolderDefault] = useState(false);
  const [identity, setIdentity] = useState<IdentityForm>({
    loaded: null,
    scope: 'folder',
    name: '',
    email: '',
  });
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    if (!cwd) return;
    let current = true;
    readCommitIdentity(cwd, host).then(
      ({ global, folder }) => {
        if (!current) return;
        const scope: Scope = folder ? 'folder' : 'global';
        const shown = folder ?? global;
        setIdentity({
          loaded: { global, folder },
          scope,
          name: shown?.name ?? '',
          email: shown?.email ?? '',
        });
      },
      (failure: unknown) => {
        if (current)
          setError(
            `"Commit as" could not be read: ${failure instanceof Error ? failure.message : String(failure)}`,
          );
      },
    );
    return () => {
      current = false;
    };
  }, [cwd, host, readCommitIdentity]);

  const chooseScope = (scope: Scope) =>
    setIdentity((form) => {
      const shown = form.loaded?.[scope] ?? null;
      return { ...form, scope, name: shown?.name ?? '', email: shown?.email ?? '' };
    });

  const save = async () => {
    setError(null);
    // Both empty: none for this scope. Otherwise both must hold: refused here with the reason, as main would.
    let wanted: CommitIdentity | null = null;
    if (identity.name.trim() || identity.email.trim()) {
      const parsed = CommitIdentity.safeParse({ name: identity.name, email: identity.email });
      if (!parsed.success) {
        setError(`"Commit as": ${parsed.error.issues[0]?.message ?? 'not valid.'}`);
        return;
      }
      wanted = parsed.data;
    }
    setSaving(true);
    try {
      if (cwd && identity.loaded && !sameIdentity(identity.loaded[identity.scope], wanted))
        await setCommitIdentity(identity.scope, cwd, wanted, host);
      await setDoneWhen(tabId, value, folderDefault);
      onDone();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div
      ref={placePopover}
      id={id}
      role="dialog"
      aria-label="Conversation settings"
      tabIndex={-1}
      className="popover done-when-panel"
    >
      <p className="popover-title">Conversation settings</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label className="field">
          <span>Done when</span>
          <input
            ref={input}
            type="text"
            aria-label="Done when"
            placeholder="e.g. npm test"
            spellCheck={false}
            maxLength={DONE_WHEN_MAX_CHARS}
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
        </label>
        <p className="popover-note">
          Each time Claude stops, Byre runs this command in the conversation&apos;s folder. If it fails,
          Claude keeps going with its output, for a few rounds at most. Empty: no check. It applies from the
          next stop.
        </p>
        <label className="checkbox-field">
          <input
            type="checkbox"
            checked={folderDefault}
            onChange={(event) => setFolderDefault(event.target.checked)}
          />
          Also for new conversations in this folder
        </label>

        <fieldset className="commit-as" disabled={!identity.loaded}>
          <legend>Commit as</legend>
          <div className="commit-as-scope" role="radiogroup" aria-label="Commit as, for">
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                checked={identity.scope === 'folder'}
                onChange={() => chooseScope('folder')}
              />
              This folder
            </label>
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                checked={identity.scope === 'global'}
                onChange={() => chooseScope('global')}
              />
              All folders
            </label>
          </div>
          <label className="field">
            <span>Name</span>
            <input
              type="text"
              aria-label="Commit name"
              autoComplete="name"
              value={identity.name}
              onChange={(event) => setIdentity({ ...identity, name: event.target.value })}
            />
          </label>
          <label className="field">
            <span>Email</span>
            <input
              type="text"
              inputMode="email"
              aria-label="Commit email"
              autoComplete="email"
              spellCheck={false}
              value={identity.email}
              onChange={(event) => setIdentity({ ...identity, email: event.target.value })}
            />
          </label>
          <p className="popover-note">
            Commits Claude makes are by this name and email (author and committer). Both empty: git&apos;s own
            setting. It applies to conversations started from now on.
          </p>
        </fieldset>
        {error && (
          <p className="inline-error" role="alert">
            {error}
          </p>
        )}
        <div className="popover-actions">
          <button type="submit" disabled={saving}>
            Save
          </button>
        </div>
      </form>
    </div>
  );
}

/** A run of the "Done when" check, in the conversation: the command, the round, the time, then how it ended. */
export function CheckCard({ check }: { check: CheckRun }) {
  return (
    <RunCard
      name="Check"
      className={`check-card check-${check.status}`}
      verdict={VERDICTS[check.status].card}
      run={check}
      detail={
        <span className="check-round">
          round {check.round} of {check.maxRounds}
        </span>
      }
    >
      {check.status !== 'running' && (
        <p className="check-summary">
          {check.summary}
          {check.status === 'failed' && !check.gaveUp && ': Claude keeps going with this output.'}
          {check.gaveUp && `: still failing after ${check.maxRounds} rounds, so Claude was let stop.`}
        </p>
      )}
      {check.stopHookActive && (
        <p className="check-note">Claude was stopping again after a check (stop_hook_active).</p>
      )}
    </RunCard>
  );
}

/** What a card of a command Byre ran shows alike (the check, a worktree's setup): head, time and output. */
export interface CommandRun {
  command: string;
  status: string;
  startedAt: number;
  durationMs: number | null;
  output: string;
  outputTruncated: boolean;
}

/** A command Byre ran, as a card: how it stands, the command, the time (ticking while it runs), its output. */
export function RunCard(props: {
  name: string;
  className: string;
  verdict: string;
  run: CommandRun;
  detail?: ReactNode;
  children?: ReactNode;
}) {
  const { run } = props;
  const elapsed = useElapsed(run.status === 'running' ? run.startedAt : null);
  // A run the CLI's exit cut short has no duration to show.
  const seconds = run.durationMs !== null ? run.durationMs / 1000 : run.status === 'running' ? elapsed : null;
  return (
    <section role="group" aria-label={props.name} className={props.className}>
      <header className="check-head">
        <span className="check-verdict">{props.verdict}</span>
        <code className="check-command">{run.command}</code>
        {props.detail}
        {seconds !== null && <span className="check-time">{formatSeconds(seconds)}</span>}
      </header>
      {props.children}
      {run.output && (
        <details className="check-output">
          <summary>Output{run.outputTruncated ? ' (its end)' : ''}</summary>
          <pre>{run.output}</pre>
        </details>
      )}
    </section>
  );
}

/** Seconds since `since` (ms since the epoch), ticking every second; 0 when not running. */
function useElapsed(since: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1_000);
    return () => window.clearInterval(timer);
  }, [since]);
  return since === null ? 0 : Math.max(0, (now - since) / 1000);
}

function formatSeconds(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}
