import { useEffect, useId, useRef, useState } from 'react';
import { Plug } from 'lucide-react';
import type { InvokeResponse } from '../../../shared/ipc';
import { placePopover, usePopover } from '../ui/popover';
import { useStore } from '../state/store';

type McpServer = InvokeResponse<'mcpStatus'>['servers'][number];

type Reading =
  { state: 'loading' } | { state: 'failed'; error: string } | { state: 'ready'; servers: McpServer[] };

/** How often the panel asks again while a server is still connecting ("pending"), and for how long. */
const PENDING_RECHECK_MS = 1_000;
const PENDING_RECHECKS = 30;

/**
 * The header's "MCP servers" button and its panel (not modal; Escape or a click elsewhere closes it). Each
 * opening asks the CLI afresh, and lists every server: its status, its error in full, its tools, and what
 * can be done with it (Disable, Enable, Reconnect), after which the panel reads the servers again.
 */
export function McpServersButton({ tabId }: { tabId: string }) {
  const mcpStatus = useStore((state) => state.mcpStatus);
  const { open, setOpen, area, panelId, toggleProps } = usePopover();
  const [reading, setReading] = useState<Reading>({ state: 'loading' });
  const reads = useRef(0);
  const rechecks = useRef(0);

  /** `quietly`: the list stays as it is until the new one comes (a refresh, not a first read). */
  const load = async (quietly = false) => {
    // Only the latest answer counts when the panel is opened again before one came.
    const read = ++reads.current;
    if (!quietly) setReading({ state: 'loading' });
    try {
      const { servers } = await mcpStatus(tabId);
      if (read === reads.current) setReading({ state: 'ready', servers });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (read === reads.current) setReading({ state: 'failed', error: message });
    }
  };

  // A server the CLI is still connecting (after Enable, Reconnect or at start) is read again until it settles.
  const pending = reading.state === 'ready' && reading.servers.some((server) => server.status === 'pending');
  useEffect(() => {
    if (!open || !pending || rechecks.current >= PENDING_RECHECKS) return;
    const timer = setTimeout(() => {
      rechecks.current += 1;
      void load(true);
    }, PENDING_RECHECK_MS);
    return () => clearTimeout(timer);
  });

  return (
    <div className="menu-anchor" ref={area}>
      <button
        {...toggleProps}
        className="header-icon-button"
        aria-label="MCP servers"
        title="MCP servers"
        onClick={() => {
          if (!open) {
            rechecks.current = 0;
            void load();
          }
          setOpen(!open);
        }}
      >
        <Plug aria-hidden="true" size={16} />
      </button>
      {open && (
        <McpPanel
          id={panelId}
          tabId={tabId}
          reading={reading}
          onRetry={() => void load()}
          onChanged={() => {
            rechecks.current = 0;
            return load(true);
          }}
        />
      )}
    </div>
  );
}

export function McpPanel(props: {
  id: string;
  tabId: string;
  reading: Reading;
  onRetry: () => void;
  onChanged: () => Promise<void>;
}) {
  const { id, tabId, reading, onRetry, onChanged } = props;
  return (
    <div
      ref={placePopover}
      id={id}
      role="dialog"
      aria-label="MCP servers"
      aria-busy={reading.state === 'loading'}
      tabIndex={-1}
      className="popover mcp-panel"
    >
      <p className="popover-title">MCP servers</p>
      {reading.state === 'loading' && (
        <p className="muted" role="status">
          Asking Claude Code about its MCP servers…
        </p>
      )}
      {reading.state === 'failed' && (
        <div className="inline-error" role="alert">
          <p>The MCP servers could not be read: {reading.error}</p>
          <button type="button" className="link-button" onClick={onRetry}>
            Try again
          </button>
        </div>
      )}
      {reading.state === 'ready' &&
        (reading.servers.length === 0 ? (
          <p className="muted">This conversation has no MCP servers.</p>
        ) : (
          <ul className="mcp-servers">
            {reading.servers.map((server) => (
              <McpServerItem key={server.name} tabId={tabId} server={server} onChanged={onChanged} />
            ))}
          </ul>
        ))}
    </div>
  );
}

/** Statuses the CLI gives a server, by how they should look. */
const TONES: Record<string, 'ok' | 'error' | 'warn'> = {
  connected: 'ok',
  failed: 'error',
  'needs-auth': 'warn',
};

type Action = 'disable' | 'enable' | 'reconnect';

// Claude Code keeps a disabled server off in this folder (its ~/.claude.json), as `/mcp disable` does.
const ACTION_WORDS: Record<Action, { label: string; failed: string; tooltip: string }> = {
  disable: {
    label: 'Disable',
    failed: 'could not be disabled',
    tooltip: 'Turn this server and its tools off in this folder, until it is enabled again',
  },
  enable: { label: 'Enable', failed: 'could not be enabled', tooltip: 'Turn this server on again' },
  reconnect: { label: 'Reconnect', failed: 'could not be reconnected', tooltip: 'Start this server again' },
};

function McpServerItem(props: { tabId: string; server: McpServer; onChanged: () => Promise<void> }) {
  const { tabId, server, onChanged } = props;
  const mcpToggle = useStore((state) => state.mcpToggle);
  const mcpReconnect = useStore((state) => state.mcpReconnect);
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  const nameId = useId();
  const tone = TONES[server.status] ?? 'muted';
  const disabled = server.status === 'disabled';

  const act = async (action: Action) => {
    setBusy(action);
    setError(null);
    try {
      if (action === 'reconnect') await mcpReconnect(tabId, server.name);
      else await mcpToggle(tabId, server.name, action === 'enable');
      await onChanged();
    } catch (caught) {
      const reason = caught instanceof Error ? caught.message : String(caught);
      setError(`${server.name} ${ACTION_WORDS[action].failed}: ${reason}`);
    } finally {
      setBusy(null);
    }
  };
  const actions: Action[] = server.builtIn
    ? []
    : [...(server.status === 'failed' ? (['reconnect'] as const) : []), disabled ? 'enable' : 'disable'];

  return (
    <li className="mcp-server">
      <div className="mcp-server-head">
        <strong className="mcp-server-name" id={nameId}>
          {server.name}
        </strong>
        <span className={`mcp-status mcp-status-${tone}`}>{server.status.replaceAll('-', ' ')}</span>
      </div>
      {server.error && <pre className="mcp-error">{server.error}</pre>}
      {server.tools.length > 0 ? (
        <ul className="mcp-tools" aria-label={`Tools of ${server.name}`}>
          {server.tools.map((tool) => (
            <li key={tool}>
              <code>{tool}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted mcp-no-tools">No tools</p>
      )}
      {actions.length > 0 && (
        <div className="mcp-actions">
          {actions.map((action) => (
            <button
              key={action}
              type="button"
              className="button-secondary button-small"
              aria-describedby={nameId}
              title={ACTION_WORDS[action].tooltip}
              disabled={busy !== null}
              onClick={() => void act(action)}
            >
              {ACTION_WORDS[action].label}
            </button>
          ))}
        </div>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
