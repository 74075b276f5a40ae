import { useEffect, useState } from 'react';
import { Lane, LANE_BILLING, PermissionModeChoice } from '../../../shared/ipc/app';
import { useStore } from '../state/store';
import { useOverlay } from '../ui/overlays';
import { PermissionModeOptions, permissionModeDescription } from './PermissionMode';
import { useRemoteHosts } from '../ui/remote-hosts';
import {
  WorktreeFields,
  choicesFor,
  useWorktreeAnswer,
  worktreeStart,
  type WorktreeValues,
} from './WorktreeFields';

/**
 * Pick a working folder (a recent one, the native picker in Electron, or a typed path), a model, how much
 * Claude may do without asking, and whether it works in a new git worktree. A worktree main refused brings
 * the form back as it was, with the reason; with the box ticked, Start waits for the folder to be checked
 * again rather than start a conversation without the worktree.
 */
export function NewConversation() {
  const info = useStore((state) => state.info);
  const start = useStore((state) => state.startConversation);
  const setDefaultMode = useStore((state) => state.setDefaultPermissionMode);
  const pickFolder = useStore((state) => state.pickFolder);
  const checkFolder = useStore((state) => state.checkFolder);
  const dismissRefused = useStore((state) => state.dismissRefusedStart);
  // Read once: the form holds what was typed from here on.
  const [refused, setRefused] = useState(() => useStore.getState().refusedStart);
  useEffect(() => {
    if (refused) dismissRefused();
  }, [refused, dismissRefused]);
  const [cwd, setCwd] = useState(() => refused?.cwd ?? info?.recentFolders[0] ?? info?.initialCwd ?? '');
  const [model, setModel] = useState(refused?.options.model ?? '');
  const [mode, setMode] = useState<PermissionModeChoice>(
    () => refused?.options.permissionMode ?? info?.defaultPermissionMode ?? 'default',
  );
  const [worktree, setWorktree] = useState<WorktreeValues>(() => ({
    on: !!refused?.options.worktree,
    base: refused?.options.worktree?.base ?? '',
    name: refused?.options.worktree?.name ?? '',
    firstMessage: refused?.options.firstMessage ?? '',
  }));
  const [lane, setLane] = useState<Lane>(
    () => refused?.options.lane ?? useStore.getState().newConversationLane ?? info?.defaultLane ?? 'stream',
  );
  const [makeDefault, setMakeDefault] = useState(false);
  const isDefault = mode === (info?.defaultPermissionMode ?? 'default');
  const [picking, setPicking] = useState(false);
  const [folderError, setFolderError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const where = useWhere();
  const host = where.host;
  // On a host, its git is asked there, over ssh.
  const answer = useWorktreeAnswer(cwd, host);
  const inWorktree = worktreeStart(worktree, cwd, answer, host);
  // A host typed under Other… is asked once a folder is typed too: never each half-typed name.
  const remoteFolders = useRemoteFolders(where.choice === OTHER && !cwd.trim() ? null : host, cwd);

  const pick = async () => {
    setPicking(true);
    try {
      const path = await pickFolder();
      if (path) setCwd(path);
    } finally {
      setPicking(false);
    }
  };

  return (
    <form
      className="new-conversation"
      aria-label="New conversation"
      onSubmit={(event) => {
        event.preventDefault();
        if (!cwd.trim() || checking) return;
        if (!inWorktree.ready) return;
        const { options } = inWorktree;
        if (host !== null) {
          // The folder is on the host: main checks it there, over ssh, as it starts.
          if (!host) return;
          setRefused(null);
          if (makeDefault && !isDefault) void setDefaultMode(mode);
          void start(cwd.trim(), {
            ...(model.trim() ? { model: model.trim() } : {}),
            permissionMode: mode,
            lane,
            host,
            ...options,
          });
          return;
        }
        setRefused(null);
        // A folder that is not there is said here, in the form, rather than in a tab that cannot start.
        setChecking(true);
        void checkFolder(cwd.trim())
          .then(
            (path) => {
              setFolderError(null);
              if (makeDefault && !isDefault) void setDefaultMode(mode);
              void start(path, {
                ...(model.trim() ? { model: model.trim() } : {}),
                permissionMode: mode,
                lane,
                ...options,
              });
            },
            (error: unknown) => setFolderError(error instanceof Error ? error.message : String(error)),
          )
          .finally(() => setChecking(false));
      }}
    >
      <h2>New conversation</h2>
      {info && !info.cli.found && (
        <p className="banner banner-error" role="alert">
          {info.cli.explanation ? (
            info.cli.explanation
          ) : (
            <>
              The Claude Code CLI was not found. Install it with{' '}
              <code>npm install -g @anthropic-ai/claude-code</code>, or give its path in settings.
            </>
          )}{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => useOverlay.getState().show('settings')}
          >
            Open settings
          </button>
        </p>
      )}
      <WhereField where={where} />
      <label>
        Working folder
        {host && <span className="muted"> on {host}</span>}
        <div className="folder-row">
          <input
            type="text"
            value={cwd}
            onChange={(event) => {
              setCwd(event.target.value);
              setFolderError(null);
            }}
            placeholder={host ? '/path/on/the/host' : '/path/to/your/project'}
            list={host ? 'remote-folders' : undefined}
            spellCheck={false}
            required
            aria-invalid={folderError ? true : undefined}
            aria-describedby={folderError ? 'folder-error' : undefined}
          />
          {info?.host === 'electron' && host === null && (
            <button type="button" className="button-secondary" onClick={() => void pick()} disabled={picking}>
              Choose…
            </button>
          )}
        </div>
      </label>
      {host && (
        <datalist id="remote-folders">
          {remoteFolders?.folders.map((folder) => (
            <option key={folder} value={folder} />
          ))}
        </datalist>
      )}
      {host && remoteFolders && (
        <RecentFolders label={`Recent on ${host}`} folders={remoteFolders.recent} onPick={setCwd} />
      )}
      {folderError && (
        <p id="folder-error" className="banner banner-error" role="alert">
          {folderError}
        </p>
      )}
      {info && host === null && <RecentFolders label="Recent" folders={info.recentFolders} onPick={setCwd} />}
      <label>
        Model <span className="muted">(optional)</span>
        <input
          type="text"
          value={model}
          onChange={(event) => setModel(event.target.value)}
          placeholder={info?.defaultModel ? `${info.defaultModel} (from settings)` : 'default'}
          list="model-aliases"
          spellCheck={false}
        />
        <datalist id="model-aliases">
          {['default', 'opus', 'sonnet', 'haiku'].map((alias) => (
            <option key={alias} value={alias} />
          ))}
        </datalist>
      </label>
      <div className="new-conversation-field">
        <label htmlFor="new-lane">Runs in</label>
        <select
          id="new-lane"
          value={lane}
          aria-describedby="new-lane-hint"
          onChange={(event) => setLane(Lane.parse(event.target.value))}
        >
          <option value="terminal">Terminal · {LANE_BILLING.terminal}</option>
          <option value="stream">Stream · {LANE_BILLING.stream}</option>
        </select>
        <span id="new-lane-hint" className="field-hint">
          {LANE_HINTS[lane]}
          {host !== null && lane === 'terminal'
            ? ' On the host, with its own login and Node.js for Byre’s hooks.'
            : ''}
          {host === null && info && lane === info.defaultLane && info.login !== 'unknown'
            ? ` The default for your ${info.login === 'subscription' ? 'subscription' : 'API key'} login.`
            : ''}
        </span>
      </div>
      <div className="new-conversation-field">
        <label htmlFor="new-permission-mode">Permission mode</label>
        <select
          id="new-permission-mode"
          value={mode}
          aria-describedby="new-permission-mode-hint"
          onChange={(event) => setMode(PermissionModeChoice.parse(event.target.value))}
        >
          <PermissionModeOptions />
        </select>
        <span id="new-permission-mode-hint" className="field-hint">
          {permissionModeDescription(mode)}
        </span>
        {!isDefault && (
          <label className="checkbox-row">
            <input
              type="checkbox"
              checked={makeDefault}
              onChange={(event) => setMakeDefault(event.target.checked)}
            />
            Start new conversations in this mode
          </label>
        )}
      </div>
      {host !== '' && (
        <WorktreeFields
          folder={cwd}
          choices={choicesFor(cwd, answer, host)}
          values={worktree}
          onChange={setWorktree}
        />
      )}
      {refused && (
        <p className="banner banner-error" role="alert">
          The worktree was not made: {refused.reason}
        </p>
      )}
      {host !== '' && !inWorktree.ready && (
        <p id="start-waiting" className="field-hint" role="status">
          {inWorktree.waiting}
        </p>
      )}
      <button
        type="submit"
        className="button-primary"
        disabled={!cwd.trim() || (host === null ? !inWorktree.ready : !host)}
        aria-describedby={host === null && !inWorktree.ready ? 'start-waiting' : undefined}
      >
        Start
      </button>
    </form>
  );
}

const THIS_COMPUTER = '';
const OTHER = '\u0000other';

interface Where {
  hosts: string[];
  choice: string;
  other: string;
  setChoice(choice: string): void;
  setOther(other: string): void;
  /** null: this computer; otherwise the host as named (empty while "Other…" has nothing typed). */
  host: string | null;
}

/** Where the conversation runs: this computer, a host of the ssh config file, or one typed in. */
function useWhere(): Where {
  const hosts = useRemoteHosts();
  const [choice, setChoice] = useState(THIS_COMPUTER);
  const [other, setOther] = useState('');
  const host = choice === THIS_COMPUTER ? null : choice === OTHER ? other.trim() : choice;
  return { hosts, choice, other, setChoice, setOther, host };
}

function WhereField({ where }: { where: Where }) {
  return (
    <div className="new-conversation-field">
      <label htmlFor="new-where">Where</label>
      <select id="new-where" value={where.choice} onChange={(event) => where.setChoice(event.target.value)}>
        <option value={THIS_COMPUTER}>This computer</option>
        {where.hosts.map((host) => (
          <option key={host} value={host}>
            {host}
          </option>
        ))}
        <option value={OTHER}>Other…</option>
      </select>
      {where.choice === OTHER && (
        <label>
          Host <span className="muted">(user@host or user@host:port)</span>
          <input
            type="text"
            value={where.other}
            onChange={(event) => where.setOther(event.target.value)}
            placeholder="user@host"
            spellCheck={false}
            autoCapitalize="off"
            required
          />
        </label>
      )}
      {where.host !== null && (
        <span className="field-hint">
          Claude Code runs there over ssh, with your ssh config and keys; Byre never asks for a password.
        </span>
      )}
    </div>
  );
}

/**
 * What the folder field offers on a host: the folders there that start with what is typed, and those
 * conversations ran in there before. Asked a moment after the typing stops (each asking is an ssh over the
 * host's one connection); only the answer to the latest is kept.
 */
function useRemoteFolders(host: string | null, prefix: string) {
  const listRemoteFolders = useStore((state) => state.listRemoteFolders);
  const [answer, setAnswer] = useState<{ host: string; folders: string[]; recent: string[] } | null>(null);
  useEffect(() => {
    if (!host) return;
    let current = true;
    const timer = window.setTimeout(() => {
      listRemoteFolders(host, prefix).then(
        (folders) => current && setAnswer({ host, ...folders }),
        // A host that cannot be asked yet (its key, say) says why when the conversation starts.
        () => current && setAnswer({ host, folders: [], recent: [] }),
      );
    }, FOLDER_ASK_DELAY_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [host, prefix, listRemoteFolders]);
  return answer?.host === host ? answer : null;
}

const FOLDER_ASK_DELAY_MS = 150;

/** The folders conversations ran in before, each a click from the folder field; nothing when there are none. */
function RecentFolders({
  label,
  folders,
  onPick,
}: {
  label: string;
  folders: readonly string[];
  onPick(folder: string): void;
}) {
  if (folders.length === 0) return null;
  return (
    <div className="recent">
      <span>{label}</span>
      <ul>
        {folders.map((folder) => (
          <li key={folder}>
            <button type="button" className="link-button" onClick={() => onPick(folder)}>
              {folder}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

const LANE_HINTS: Record<Lane, string> = {
  terminal:
    'The real Claude Code terminal in the tab: with a subscription it counts against your plan’s limits. Byre keeps Changes, “Done when” and the library around it; the reply is the terminal’s own screen.',
  stream:
    'Byre’s own view of every message, tool call and subagent, with permission cards, rewind and images: a subscription bills it to the Agent SDK credit (then API rates), an API key to the API.',
};
