import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { AppSettings, LANE_BILLING, LaneChoice } from '../../../shared/ipc/app';
import { SETUP_COMMAND_MAX_CHARS } from '../../../shared/ipc/worktrees';
import type { InvokeResponse, SettingsView, Theme, TrustedFolder } from '../../../shared/ipc';
import { IMAGE_LIMITS } from '../../../shared/images';
import { PermissionModeOptions } from '../chat/PermissionMode';
import { useOverlay } from '../ui/overlays';
import { useModalDialog } from '../ui/popover';
import { useStore } from '../state/store';
import { applyTheme } from '../ui/theme';
import { useRemoteHosts } from '../ui/remote-hosts';

/**
 * The settings screen (Ctrl/Cmd+, or the palette): the claude program, the defaults new conversations start
 * with, images, theme, notifications and the data folder. Each value is checked before anything is saved
 * (here, then by main, which checks the program on disk); one that is not valid is refused with the reason
 * and nothing is saved.
 */
export function SettingsScreen() {
  const open = useOverlay((state) => state.open === 'settings');
  if (!open) return null;
  return <SettingsDialog />;
}

/** The form's fields as typed: text boxes hold strings until saved. */
interface Form {
  cliPath: string;
  defaultModel: string;
  defaultPermissionMode: AppSettings['defaultPermissionMode'];
  defaultLane: AppSettings['defaultLane'];
  imageMaxLongSide: string;
  theme: Theme;
  notifications: boolean;
  promptSuggestions: boolean;
  /** How long the Changes panel's snapshots are kept: a number of days, or while the conversation is listed. */
  snapshotKeep: 'library' | 'days';
  snapshotDays: string;
  /** "Notify at": a percent of a plan limit, as typed. */
  limitAlertPercent: string;
  /** The ssh config file; empty: ~/.ssh/config. */
  sshConfigFile: string;
}

/** The days offered when the user switches from "as long as it is in the library" to a number of days. */
const SUGGESTED_SNAPSHOT_DAYS = 30;

function formOf(values: AppSettings): Form {
  const { snapshotRetentionDays, ...rest } = values;
  return {
    ...rest,
    cliPath: values.cliPath ?? '',
    defaultModel: values.defaultModel ?? '',
    imageMaxLongSide: String(values.imageMaxLongSide),
    // A main without the setting yet says nothing: kept as long as the conversation is, as main does then.
    snapshotKeep: snapshotRetentionDays == null ? 'library' : 'days',
    snapshotDays: String(snapshotRetentionDays ?? SUGGESTED_SNAPSHOT_DAYS),
    limitAlertPercent: String(values.limitAlertPercent),
    sshConfigFile: values.sshConfigFile ?? '',
  };
}

/** The form as settings, or the first reason it cannot be. */
export function settingsOf(form: Form): { values: AppSettings } | { problem: string } {
  const { snapshotKeep, snapshotDays, ...rest } = form;
  const parsed = AppSettings.safeParse({
    ...rest,
    cliPath: form.cliPath.trim() || null,
    defaultModel: form.defaultModel.trim() || null,
    imageMaxLongSide: numberOf(form.imageMaxLongSide),
    snapshotRetentionDays: snapshotKeep === 'library' ? null : numberOf(snapshotDays),
    limitAlertPercent: numberOf(form.limitAlertPercent),
    sshConfigFile: form.sshConfigFile.trim() || null,
  });
  if (parsed.success) return { values: parsed.data };
  return { problem: parsed.error.issues[0]?.message ?? 'A value is not valid.' };
}

/** A typed number; an empty box is not one (zod then says what the field needs). */
const numberOf = (typed: string) => (typed.trim() === '' ? Number.NaN : Number(typed));

function SettingsDialog() {
  const close = useOverlay((state) => state.close);
  const dialog = useModalDialog();
  const [view, setView] = useState<SettingsView | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [test, setTest] = useState<InvokeResponse<'testCli'> | 'testing' | null>(null);
  const [folderError, setFolderError] = useState<string | null>(null);
  const models = useStore((state) => knownModels(state.tabs));
  const cli = useStore((state) => state.info?.cli);

  useEffect(() => {
    useStore
      .getState()
      .readSettings()
      .then(
        (loaded) => {
          setView(loaded);
          setForm(formOf(loaded.values));
        },
        (error: unknown) => setLoadError(error instanceof Error ? error.message : String(error)),
      );
  }, []);

  const change = (patch: Partial<Form>) => {
    setForm((current) => (current ? { ...current, ...patch } : current));
    setProblem(null);
    setSaved(false);
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    const checked = settingsOf(form);
    if ('problem' in checked) {
      setProblem(checked.problem);
      return;
    }
    setSaving(true);
    try {
      const next = await useStore.getState().saveSettings(checked.values);
      setView(next);
      setForm(formOf(next.values));
      setSaved(true);
      applyTheme(next.values.theme);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      setSaving(false);
      return;
    }
    // Saved. The window follows: the theme, notifications, the permission mode new conversations get, and
    // where the claude program now is (a failure here leaves the rest as it was until the next start).
    try {
      await useStore.getState().reloadInfo();
    } catch {
      // The settings are saved all the same.
    }
    setSaving(false);
  };

  const testCli = async () => {
    if (!form) return;
    setTest('testing');
    try {
      setTest(await useStore.getState().testCli(form.cliPath.trim() || null));
    } catch (error) {
      setTest({ ok: false, reason: error instanceof Error ? error.message : String(error) });
    }
  };

  const openFolder = async () => {
    setFolderError(null);
    try {
      await useStore.getState().openDataFolder();
    } catch (error) {
      setFolderError(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <dialog
      ref={dialog}
      className="confirm-dialog settings-screen"
      aria-labelledby="settings-title"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id="settings-title">Settings</h2>
      {loadError && (
        <p className="inline-error settings-error" role="alert">
          The settings could not be read: {loadError}
        </p>
      )}
      {!form || !view ? (
        !loadError && <p className="muted">Loading…</p>
      ) : (
        <form onSubmit={(event) => void save(event)} noValidate>
          <fieldset>
            <legend>Claude Code</legend>
            <label htmlFor="settings-cli">The claude program</label>
            <div className="settings-inline">
              <input
                id="settings-cli"
                value={form.cliPath}
                placeholder={cli?.found ? `Found: ${cli.path}` : 'Not found: enter its path'}
                spellCheck={false}
                autoComplete="off"
                onChange={(event) => {
                  change({ cliPath: event.target.value });
                  setTest(null);
                }}
                aria-describedby="settings-cli-help settings-cli-test"
              />
              <button
                type="button"
                className="button-secondary"
                disabled={test === 'testing'}
                onClick={() => void testCli()}
              >
                Test
              </button>
            </div>
            <p id="settings-cli-help" className="settings-help">
              Empty: Byre finds it (PATH, the usual install places, then its own copy).
              {view.cliFromEnvironment && (
                <>
                  {' '}
                  BYRE_CLAUDE_PATH is set to <code>{view.cliFromEnvironment}</code> and wins while it is.
                </>
              )}
            </p>
            <p id="settings-cli-test" className="settings-help" role="status">
              {test === 'testing'
                ? 'Running claude --version…'
                : test?.ok
                  ? `Works: ${test.path} is Claude Code ${test.version}.`
                  : test
                    ? `Does not work: ${test.reason}`
                    : ''}
            </p>

            <label htmlFor="settings-model">Model for new conversations</label>
            <input
              id="settings-model"
              value={form.defaultModel}
              placeholder="Claude Code's default"
              list="settings-models"
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => change({ defaultModel: event.target.value })}
            />
            <datalist id="settings-models">
              {models.map((model) => (
                <option key={model.value} value={model.value}>
                  {model.displayName}
                </option>
              ))}
            </datalist>

            <label htmlFor="settings-mode">Permission mode for new conversations</label>
            <select
              id="settings-mode"
              value={form.defaultPermissionMode}
              onChange={(event) =>
                change({
                  defaultPermissionMode: event.target.value as AppSettings['defaultPermissionMode'],
                })
              }
            >
              <PermissionModeOptions />
            </select>

            <label htmlFor="settings-lane">New conversations run in</label>
            <select
              id="settings-lane"
              value={form.defaultLane}
              onChange={(event) => change({ defaultLane: LaneChoice.parse(event.target.value) })}
            >
              <option value="auto">By the login (a subscription: Terminal; an API key: Stream)</option>
              <option value="terminal">Terminal · {LANE_BILLING.terminal}</option>
              <option value="stream">Stream · {LANE_BILLING.stream}</option>
            </select>
          </fieldset>

          <fieldset>
            <legend>Images</legend>
            <label htmlFor="settings-image">Longest side of an image sent (pixels)</label>
            <input
              id="settings-image"
              type="number"
              inputMode="numeric"
              min={200}
              max={IMAGE_LIMITS.maxSide}
              value={form.imageMaxLongSide}
              onChange={(event) => change({ imageMaxLongSide: event.target.value })}
              aria-describedby="settings-image-help"
            />
            <p id="settings-image-help" className="settings-help">
              Larger images are scaled down to this before they are sent (200 to {IMAGE_LIMITS.maxSide}).
            </p>
          </fieldset>

          <fieldset>
            <legend>Appearance and notifications</legend>
            <div role="radiogroup" aria-label="Theme" className="settings-radios">
              {(['system', 'light', 'dark'] as const).map((theme) => (
                <label key={theme} className="settings-radio">
                  <input
                    type="radio"
                    name="theme"
                    value={theme}
                    checked={form.theme === theme}
                    onChange={() => change({ theme })}
                  />
                  {theme === 'system' ? 'System' : theme === 'light' ? 'Light' : 'Dark'}
                </label>
              ))}
            </div>
            <label className="settings-check">
              <input
                type="checkbox"
                checked={form.notifications}
                onChange={(event) => change({ notifications: event.target.checked })}
              />
              Notify me when a reply ends or Claude asks for permission while Byre is in the background
            </label>
          </fieldset>

          <fieldset>
            <legend>Suggestions</legend>
            <label className="settings-check">
              <input
                type="checkbox"
                checked={form.promptSuggestions}
                aria-describedby="settings-suggestions-help"
                onChange={(event) => change({ promptSuggestions: event.target.checked })}
              />
              Suggest a next prompt after each reply
            </label>
            <p id="settings-suggestions-help" className="settings-help">
              Claude Code guesses what you might type next and shows it faintly in the empty message box (Tab
              takes it). Each guess is one more short request to the model. For conversations started from now
              on.
            </p>
          </fieldset>

          <fieldset>
            <legend>Keep snapshots of changes</legend>
            <div role="radiogroup" aria-label="Keep snapshots of changes" className="settings-radios">
              <label className="settings-radio">
                <input
                  type="radio"
                  name="snapshot-keep"
                  checked={form.snapshotKeep === 'library'}
                  onChange={() => change({ snapshotKeep: 'library' })}
                />
                As long as the conversation is in the library
              </label>
              <label className="settings-radio">
                <input
                  type="radio"
                  name="snapshot-keep"
                  checked={form.snapshotKeep === 'days'}
                  onChange={() => change({ snapshotKeep: 'days' })}
                />
                For a number of days
              </label>
            </div>
            <label htmlFor="settings-snapshot-days">
              Days to keep snapshots after a conversation’s last turn
            </label>
            <input
              id="settings-snapshot-days"
              type="number"
              inputMode="numeric"
              min={1}
              max={3650}
              disabled={form.snapshotKeep !== 'days'}
              value={form.snapshotDays}
              onChange={(event) => change({ snapshotDays: event.target.value })}
              aria-describedby="settings-snapshots-help"
            />
            <p id="settings-snapshots-help" className="settings-help">
              The Changes panel and Rewind restore files, shell commands&apos; changes included, from the
              snapshots Byre takes of a conversation&apos;s folder after each turn. Removing a conversation
              from Byre removes its snapshots at once.
            </p>
          </fieldset>

          <fieldset>
            <legend>Plan limits</legend>
            <label htmlFor="settings-limit-alert">Notify at (% of a limit)</label>
            <input
              id="settings-limit-alert"
              type="number"
              inputMode="numeric"
              min={1}
              max={100}
              value={form.limitAlertPercent}
              onChange={(event) => change({ limitAlertPercent: event.target.value })}
              aria-describedby="settings-limit-alert-help"
            />
            <p id="settings-limit-alert-help" className="settings-help">
              A notification says so once a 5-hour or weekly limit is used this far, once per window. Only
              accounts signed in with a subscription report their limits.
            </p>
          </fieldset>

          <fieldset>
            <legend>Other hosts</legend>
            <label htmlFor="settings-ssh-config">ssh config file</label>
            <input
              id="settings-ssh-config"
              value={form.sshConfigFile}
              placeholder="~/.ssh/config"
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => change({ sshConfigFile: event.target.value })}
              aria-describedby="settings-ssh-config-help"
            />
            <p id="settings-ssh-config-help" className="settings-help">
              The hosts a new conversation can run on (“Where”) are this file’s <code>Host</code> entries, and
              every ssh Byre runs reads it and no other. Empty: <code>~/.ssh/config</code> of your home
              folder.
            </p>
          </fieldset>

          <TrustedFolders />
          <WorktreeSetups />

          <fieldset>
            <legend>Data</legend>
            <p className="settings-help">
              Byre keeps its settings, transcripts and library in <code>{view.dataDir}</code>.
            </p>
            {view.canOpenFolders && (
              <button type="button" className="button-secondary" onClick={() => void openFolder()}>
                Open the data folder
              </button>
            )}
            {folderError && (
              <p className="inline-error settings-error" role="alert">
                {folderError}
              </p>
            )}
          </fieldset>

          {problem && (
            <p className="inline-error settings-error" role="alert">
              Not saved. {problem}
            </p>
          )}
          <div className="dialog-actions">
            {saved && (
              <span className="settings-saved" role="status">
                Saved.
              </span>
            )}
            <button type="button" className="button-secondary" onClick={close}>
              Close
            </button>
            <button type="submit" className="button-primary" disabled={saving}>
              Save
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

const NO_MODELS: { value: string; displayName: string }[] = [];

/** The models the open conversations' CLIs offer, once each. */
function knownModels(
  tabs: ReturnType<typeof useStore.getState>['tabs'],
): { value: string; displayName: string }[] {
  for (const tab of Object.values(tabs)) {
    if (tab.conversation.models.length > 0) return tab.conversation.models;
  }
  return NO_MODELS;
}

/** The folders whose own settings (hooks, MCP servers, allow rules) Byre lets run, each with Forget. */
function TrustedFolders() {
  const listTrusted = useStore((state) => state.listTrusted);
  const forgetTrust = useStore((state) => state.forgetTrust);
  const [folders, setFolders] = useState<TrustedFolder[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      listTrusted().then(setFolders, (reason: unknown) =>
        setError(reason instanceof Error ? reason.message : String(reason)),
      ),
    [listTrusted],
  );
  useEffect(() => void load(), [load]);
  const forget = async (folder: string) => {
    setError(null);
    try {
      await forgetTrust(folder);
      await load();
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    }
  };
  return (
    <fieldset>
      <legend>Trusted folders</legend>
      <p className="settings-help">
        Claude Code runs these folders&apos; own hooks, MCP servers and helper commands, and follows their
        allow rules. Byre asks again when their settings change.
      </p>
      {folders && folders.length === 0 && <p className="muted">No folder is trusted yet.</p>}
      {folders && folders.length > 0 && (
        <ul className="trusted-folders" aria-label="Trusted folders">
          {folders.map((entry) => (
            <li key={entry.folder}>
              <code title={entry.folder}>{entry.folder}</code>
              {entry.source === 'claude' && <span className="muted"> (trusted in Claude Code)</span>}
              <button
                type="button"
                className="button-secondary button-small"
                aria-label={`Forget ${entry.folder}`}
                onClick={() => void forget(entry.folder)}
              >
                Forget
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="inline-error settings-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/**
 * "Run in each new worktree": a repository's setup command (e.g. `npm ci`), each editable and removable; a
 * repository on another host is named with its host, and added by picking the host first.
 */
function WorktreeSetups() {
  const readSetups = useStore((state) => state.worktreeSetups);
  const setSetup = useStore((state) => state.setWorktreeSetup);
  const hosts = useRemoteHosts();
  const recent = useStore((state) => state.info?.recentFolders ?? NO_FOLDERS);
  const [setups, setSetups] = useState<{ repository: string; command: string; host?: string }[] | null>(null);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [folder, setFolder] = useState('');
  const [command, setCommand] = useState('');
  const [host, setHost] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      readSetups().then(setSetups, (reason: unknown) =>
        setError(reason instanceof Error ? reason.message : String(reason)),
      ),
    [readSetups],
  );
  useEffect(() => void load(), [load]);
  /** One setup's key among the edits: the same path on two computers is two repositories. */
  const keyOf = (setup: { repository: string; host?: string }) => `${setup.host ?? ''}\n${setup.repository}`;
  const save = async (setup: { repository: string; host?: string }, value: string) => {
    setError(null);
    try {
      await setSetup(setup.repository, value.trim(), setup.host ?? null);
      setEdits(({ [keyOf(setup)]: _saved, ...rest }) => rest);
      await load();
      return true;
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
      return false;
    }
  };
  return (
    <fieldset>
      <legend>Worktrees</legend>
      <p className="settings-help">
        Run in each new worktree: a command that readies a repository&apos;s fresh worktree (installing its
        packages, say), run before the first message.
      </p>
      {setups && setups.length === 0 && <p className="muted">No repository has one yet.</p>}
      {setups && setups.length > 0 && (
        <ul className="worktree-setups" aria-label="Run in each new worktree">
          {setups.map((setup) => {
            const key = keyOf(setup);
            const named = setup.host ? `${setup.repository} on ${setup.host}` : setup.repository;
            return (
              <li key={key}>
                <code title={named}>
                  {setup.repository}
                  {setup.host && <span className="muted"> on {setup.host}</span>}
                </code>
                <input
                  type="text"
                  aria-label={`Command for ${named}`}
                  spellCheck={false}
                  maxLength={SETUP_COMMAND_MAX_CHARS}
                  value={edits[key] ?? setup.command}
                  onChange={(event) => setEdits({ ...edits, [key]: event.target.value })}
                />
                <button
                  type="button"
                  className="button-secondary button-small"
                  disabled={edits[key] === undefined}
                  onClick={() => void save(setup, edits[key] ?? setup.command)}
                >
                  Save
                </button>
                <button
                  type="button"
                  className="button-secondary button-small"
                  aria-label={`Remove the command for ${named}`}
                  onClick={() => void save(setup, '')}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="worktree-setup-add">
        {hosts.length > 0 && (
          <select aria-label="Repository on" value={host} onChange={(event) => setHost(event.target.value)}>
            <option value="">This computer</option>
            {hosts.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
        <input
          type="text"
          aria-label="Repository folder"
          placeholder={host ? `Repository folder on ${host}` : 'Repository folder'}
          list={host ? undefined : 'worktree-setup-folders'}
          spellCheck={false}
          value={folder}
          onChange={(event) => setFolder(event.target.value)}
        />
        <datalist id="worktree-setup-folders">
          {recent.map((path) => (
            <option key={path} value={path} />
          ))}
        </datalist>
        <input
          type="text"
          aria-label="Command"
          placeholder="e.g. npm ci"
          spellCheck={false}
          maxLength={SETUP_COMMAND_MAX_CHARS}
          value={command}
          onChange={(event) => setCommand(event.target.value)}
        />
        <button
          type="button"
          className="button-secondary"
          disabled={!folder.trim() || !command.trim()}
          onClick={() =>
            void save({ repository: folder.trim(), ...(host ? { host } : {}) }, command).then((saved) => {
              if (!saved) return;
              setFolder('');
              setCommand('');
            })
          }
        >
          Add
        </button>
      </div>
      {error && (
        <p className="inline-error settings-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

const NO_FOLDERS: string[] = [];
