import type { ModelInfo } from '../../../shared/protocol';
import type { IpcError } from '../../../shared/ipc';
import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { ShieldOff } from 'lucide-react';
import { folderName } from '../state/selectors';
import { useStore } from '../state/store';
import { SavedFooter, SavedHeader } from '../library/SavedConversation';
import {
  BranchBanner,
  BranchCompare,
  BranchTree,
  RewindDialogView,
  useBranchCount,
} from '../branches/BranchViews';
import { ChangesButton, WithChanges } from '../changes/ChangesPanel';
import { BackgroundTasks } from './BackgroundTasks';
import { Composer } from './Composer';
import { ContextMeter } from './ContextMeter';
import { AuthBanner } from './AuthBanner';
import { RateLimit, RateLimitReached } from './RateLimit';
import { formatCost } from './figures';
import { FindBar } from './FindBar';
import { WithInspector } from './Inspector';
import { TodoPanel } from './Todos';
import { McpServersButton } from './McpServers';
import { HeaderMenu } from './HeaderMenu';
import { WorktreeDialogs, WorktreeHeader } from './WorktreeMenu';
import { MessageList } from './MessageList';
import { WaitingRequests } from './PermissionCard';
import { WaitingElicitations } from './ElicitationCard';
import { CommitIdentityLine, DoneWhenButton } from './DoneWhen';
import { PermissionModePicker } from './PermissionMode';
import { RetryStatus } from './RetryStatus';
import { TerminalConversation } from '../terminal/TerminalConversation';

/** One conversation tab: its header (folder, model), the log, and the composer; or why it cannot run. */
export function ConversationView({ tabId }: { tabId: string }) {
  const tab = useStore(
    useShallow((state) => {
      const found = state.tabs[tabId];
      return {
        id: tabId,
        cwd: found?.cwd ?? '',
        starting: found?.starting ?? false,
        startError: found?.startError ?? null,
        actionError: found?.actionError ?? null,
        saved: found?.saved != null,
        branch: found?.branch ?? null,
        comparing: found?.compare != null,
        opening: tabId.startsWith('saved:'),
        lane: found?.conversation.lane ?? 'stream',
      };
    }),
  );
  if (tab.starting) {
    return (
      <div className="state-panel" role="status">
        <p>{tab.opening ? 'Opening the conversation…' : `Starting Claude Code in ${tab.cwd}…`}</p>
      </div>
    );
  }
  if (tab.startError) return <StartFailure tabId={tabId} error={tab.startError} />;
  if (tab.lane === 'terminal' && !tab.saved) {
    return (
      <TerminalConversation
        tabId={tabId}
        around={(view) => (
          <WithInspector tabId={tabId}>
            <WithChanges tabId={tabId}>{view}</WithChanges>
          </WithInspector>
        )}
      />
    );
  }
  const banner = tab.actionError && (
    <div className="banner banner-error" role="alert">
      {tab.actionError}
    </div>
  );
  if (tab.saved) {
    return (
      <WithInspector tabId={tabId}>
        <WithBranches tabId={tabId}>
          <div className="conversation">
            <SavedHeader tabId={tabId} />
            {banner}
            <ConversationBody tabId={tabId} branch={tab.branch} comparing={tab.comparing} />
            <SavedFooter tabId={tabId} />
            <RewindDialogView tabId={tabId} />
          </div>
        </WithBranches>
      </WithInspector>
    );
  }
  return (
    <WithInspector tabId={tabId}>
      <WithBranches tabId={tabId}>
        <WithChanges tabId={tabId}>
          <DropZone tabId={tabId}>
            <ConversationHeader tabId={tabId} cwd={tab.cwd} />
            <ExitBanner tabId={tabId} />
            {banner}
            <ConversationBody tabId={tabId} branch={tab.branch} comparing={tab.comparing} />
            <RetryStatus tabId={tabId} />
            <WaitingRequests tabId={tabId} toolsShown={!tab.comparing} />
            <WaitingElicitations tabId={tabId} />
            <BackgroundTasks tabId={tabId} />
            <TodoPanel tabId={tabId} />
            <AuthBanner tabId={tabId} />
            <RateLimitReached tabId={tabId} />
            <Composer tabId={tab.id} />
            <RewindDialogView tabId={tabId} />
            <WorktreeDialogs tabId={tabId} />
          </DropZone>
        </WithChanges>
      </WithBranches>
    </WithInspector>
  );
}

/** What live and saved conversations show alike: branch notices, find, and the log (or a comparison). */
function ConversationBody(props: { tabId: string; branch: string | null; comparing: boolean }) {
  const { tabId, branch, comparing } = props;
  return (
    <>
      <BranchBanner tabId={tabId} />
      <FindBar tabId={tabId} />
      {/* A branch switch opens its own log, at its end or where the branches part. */}
      {comparing ? <BranchCompare tabId={tabId} /> : <MessageList key={branch ?? ''} tabId={tabId} />}
    </>
  );
}

/** Window width (px) from which the branch tree opens beside the conversation by itself. */
const WIDE_ENOUGH_FOR_TREE = 1100;

/** The conversation, and beside it the tree of its family's branches once there is more than one. */
function WithBranches({ tabId, children }: { tabId: string; children: ReactNode }) {
  const count = useBranchCount(tabId);
  // Beside the conversation when the window has room for both; folded away in a narrow one.
  const [open, setOpen] = useState(
    () => typeof window === 'undefined' || window.innerWidth >= WIDE_ENOUGH_FOR_TREE,
  );
  if (count < 2) return <>{children}</>;
  return (
    <div className="with-branches">
      {children}
      <div className={`branch-column${open ? '' : ' branch-column-folded'}`}>
        <button
          type="button"
          className="link-button branch-toggle"
          aria-expanded={open}
          onClick={() => setOpen((value) => !value)}
        >
          {open ? 'Hide branches' : `Branches (${count})`}
        </button>
        {open && <BranchTree tabId={tabId} />}
      </div>
    </div>
  );
}

/** The whole conversation takes dropped image files; it lights up while files are dragged over it. */
function DropZone({ tabId, children }: { tabId: string; children: ReactNode }) {
  const attachFiles = useStore((state) => state.attachFiles);
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const carriesFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  return (
    <div
      className={`conversation${over ? ' drop-target' : ''}`}
      onDragEnter={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        depth.current += 1;
        setOver(true);
      }}
      onDragOver={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        depth.current = 0;
        setOver(false);
        const files = [...event.dataTransfer.files];
        if (files.length > 0) void attachFiles(tabId, files);
      }}
    >
      {children}
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          Drop images to attach them
        </div>
      )}
    </div>
  );
}

function ConversationHeader({ tabId, cwd }: { tabId: string; cwd: string }) {
  const setModel = useStore((state) => state.setModel);
  const { model, models, status, title, sessionId, host } = useStore(
    useShallow((state) => {
      const conversation = state.tabs[tabId]?.conversation;
      return {
        host: conversation?.host ?? null,
        model: conversation?.model ?? null,
        models: conversation?.models ?? [],
        status: conversation?.status ?? 'exited',
        title: conversation?.title ?? null,
        // Once it has something to export.
        sessionId: conversation?.order.length ? conversation.sessionId : null,
      };
    }),
  );
  return (
    <header className="conversation-header">
      <div className="conversation-title">
        <h1 title={title ?? cwd}>{title ?? folderName(cwd)}</h1>
        <span className="cwd-line">
          <span className="cwd" title={cwd}>
            {cwd}
          </span>
          {/* Never cut off with a long folder: it says where every command of this conversation runs. */}
          {host && (
            <span className="conversation-host" title={`Runs on ${host}, over ssh`}>
              on {host}
            </span>
          )}
        </span>
        <CommitIdentityLine tabId={tabId} />
      </div>
      <WorktreeHeader tabId={tabId} />
      <div className="header-controls">
        <ConversationCost tabId={tabId} />
        <ContextMeter tabId={tabId} />
        <RateLimit tabId={tabId} />
        <label className="model-picker">
          <span className="sr-only">Model</span>
          <select
            aria-label="Model"
            title="Model"
            value={pickerValue(model, models)}
            disabled={status === 'exited' || models.length === 0}
            onChange={(event) => void setModel(tabId, event.target.value)}
          >
            {pickerOptions(model, models).map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <FolderSettingsOff tabId={tabId} />
        <PermissionModePicker tabId={tabId} />
      </div>
      <div className="header-actions">
        <ChangesButton tabId={tabId} />
        <McpServersButton tabId={tabId} />
        <DoneWhenButton tabId={tabId} />
        <HeaderMenu sessionId={sessionId} tabId={tabId} />
        <StatusDot status={status} />
      </div>
    </header>
  );
}

/**
 * While the conversation's CLI runs without its folder's own settings (the folder is not trusted): says so,
 * with a way to trust it, which starts the CLI again with them once no reply runs.
 */
function FolderSettingsOff({ tabId }: { tabId: string }) {
  const { off, busy, remote } = useStore(
    useShallow((state) => {
      const conversation = state.tabs[tabId]?.conversation;
      return {
        remote: conversation?.host !== null && conversation?.host !== undefined,
        off: conversation?.folderSettingsOff ?? false,
        busy: conversation?.status === 'running' || conversation?.status === 'starting',
      };
    }),
  );
  const trustFolderOf = useStore((state) => state.trustFolderOf);
  if (!off) return null;
  // An icon where the header is short of room; its words are for a screen reader and the tooltip.
  const badge = (
    <span
      className="badge badge-warning header-warning"
      role="note"
      title={`Folder settings off: its hooks, MCP servers and allow rules do not run${remote ? ' on the host' : ''}`}
    >
      <ShieldOff aria-hidden="true" size={14} />
      <span className="sr-only">Folder settings off</span>
    </span>
  );
  return (
    <span className="folder-settings-off">
      {badge}
      <button
        type="button"
        className="button-secondary button-small"
        disabled={busy}
        title={busy ? 'After this reply' : 'Trust this folder and start Claude Code again with its settings'}
        onClick={() => void trustFolderOf(tabId)}
      >
        Trust folder…
      </button>
    </span>
  );
}

/** The conversation's state, or that the page has lost the host (then nothing it shows is live). */
function StatusDot({ status }: { status: string }) {
  const connected = useStore((state) => state.connected);
  const shown = connected ? status : 'disconnected';
  return (
    // A live region: a screen reader says the new status when it changes.
    <span
      role="status"
      className={`status-dot status-${shown}`}
      aria-label={`Status: ${shown}`}
      title={connected ? `Status: ${shown}` : 'Lost the connection to Byre'}
    >
      <span className="sr-only">Status: {shown}</span>
    </span>
  );
}

/** What the conversation's turns have cost together, once it has had one. */
function ConversationCost({ tabId }: { tabId: string }) {
  const { costUsd, turns, partial } = useStore(
    useShallow((state) => {
      const tab = state.tabs[tabId];
      return {
        costUsd: tab?.conversation.costUsd ?? 0,
        turns: tab?.conversation.lastResultId != null,
        // Opened from the library: turns on pages not read yet are not counted.
        partial: tab?.paging?.before != null,
      };
    }),
  );
  if (!turns) return null;
  return (
    <span
      className="conversation-cost"
      title={`What this conversation's turns have cost, as Claude Code reports it${partial ? ' (earlier turns not loaded yet are not counted)' : ''}`}
    >
      {/* Where the header is narrow, "total" gives way and the tooltip says what the figure is. */}
      {formatCost(costUsd)}
      <span className="cost-total"> total</span>
    </span>
  );
}

/** The models the CLI offers; the running model is listed even when it is not one of them. */
function pickerOptions(model: string | null, models: ModelInfo[]): { value: string; label: string }[] {
  const options = models.map((info) => ({ value: info.value, label: info.displayName }));
  if (model && !models.some((info) => info.value === model || info.resolvedModel === model)) {
    options.unshift({ value: model, label: model });
  }
  return options;
}

function pickerValue(model: string | null, models: ModelInfo[]): string {
  if (!model) return models.find((info) => info.value === 'default')?.value ?? models[0]?.value ?? '';
  return (
    models.find((info) => info.value === model)?.value ??
    models.find((info) => info.resolvedModel === model)?.value ??
    model
  );
}

function ExitBanner({ tabId }: { tabId: string }) {
  const resume = useStore((state) => state.resume);
  const status = useStore((state) => state.tabs[tabId]?.conversation.status);
  const exitError = useStore((state) => state.tabs[tabId]?.conversation.exitError);
  const [resuming, setResuming] = useState(false);
  if (status !== 'exited') return null;
  return (
    <div className="banner banner-error" role="alert">
      <p>
        <strong>
          {exitError?.name === 'RemoteProblem'
            ? 'Disconnected from the host.'
            : exitError
              ? 'Claude Code exited unexpectedly.'
              : 'Claude Code has stopped.'}
        </strong>{' '}
        Your conversation is saved; resume it to carry on.
      </p>
      {exitError && <pre className="stderr">{exitError.message}</pre>}
      <button
        type="button"
        className="button-primary"
        disabled={resuming}
        onClick={() => {
          setResuming(true);
          void resume(tabId).finally(() => setResuming(false));
        }}
      >
        {resuming ? 'Resuming…' : 'Resume'}
      </button>
    </div>
  );
}

function StartFailure({ tabId, error }: { tabId: string; error: IpcError }) {
  const retry = useStore((state) => state.retryStart);
  if (error.name === 'CliNotFound') {
    return (
      <div className="state-panel" role="alert">
        <h2>Claude Code CLI not found</h2>
        {error.explanation && <p className="banner banner-error">{error.explanation}</p>}
        <p>
          Byre runs the <code>claude</code> command-line tool. Install it with:
        </p>
        <pre>
          <code>npm install -g @anthropic-ai/claude-code</code>
        </pre>
        <p>
          or point Byre at it by starting Byre with <code>BYRE_CLAUDE_PATH=/path/to/claude</code>. Then log in
          once by running <code>claude</code> in a terminal.
        </p>
        {error.looked && (
          <details>
            <summary>Places Byre looked</summary>
            <ul className="looked">
              {error.looked.map((place) => (
                <li key={place}>{place}</li>
              ))}
            </ul>
          </details>
        )}
        <button type="button" className="button-primary" onClick={() => void retry(tabId)}>
          Try again
        </button>
      </div>
    );
  }
  if (tabId.startsWith('saved:')) {
    return (
      <div className="state-panel" role="alert">
        <h2>This conversation could not be opened</h2>
        <p>{error.message}</p>
      </div>
    );
  }
  if (error.name === 'RemoteProblem' && error.hostKey) {
    return <UnknownHostKey tabId={tabId} hostKey={error.hostKey} />;
  }
  return (
    <div className="state-panel" role="alert">
      <h2>{error.name === 'RemoteProblem' ? 'The host could not be used' : 'Claude Code could not start'}</h2>
      <pre className="stderr">{error.message}</pre>
      <button type="button" className="button-primary" onClick={() => void retry(tabId)}>
        Try again
      </button>
    </div>
  );
}

/**
 * A host whose key ssh does not know: its fingerprints, to be checked, and accepting them as shown (never
 * another key), after which the start is tried again.
 */
function UnknownHostKey({
  tabId,
  hostKey,
}: {
  tabId: string;
  hostKey: { host: string; fingerprints: string[] };
}) {
  const retry = useStore((state) => state.retryStart);
  const acceptHostKey = useStore((state) => state.acceptHostKey);
  const [accepting, setAccepting] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  return (
    <div className="state-panel" role="alert">
      <h2>The host key of {hostKey.host} is not known</h2>
      <p>
        Byre never accepts a host key unseen. Check that the fingerprint is the one the host’s owner gives (
        <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code> on the host), then trust it.
      </p>
      <ul className="host-key-fingerprints" aria-label="Host key fingerprints">
        {hostKey.fingerprints.map((fingerprint) => (
          <li key={fingerprint}>
            <code>{fingerprint}</code>
          </li>
        ))}
      </ul>
      {refused && <p className="banner banner-error">{refused}</p>}
      <button
        type="button"
        className="button-primary"
        disabled={accepting}
        onClick={() => {
          setAccepting(true);
          setRefused(null);
          acceptHostKey(hostKey.host, hostKey.fingerprints)
            .then(
              () => retry(tabId),
              (problem: unknown) => setRefused(problem instanceof Error ? problem.message : String(problem)),
            )
            .finally(() => setAccepting(false));
        }}
      >
        Trust this key and connect
      </button>
    </div>
  );
}
