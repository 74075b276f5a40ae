import { useRef, useState } from 'react';
import { Plug } from 'lucide-react';
import type { InvokeResponse } from '../../../shared/ipc';
import { placePopover, usePopover } from '../ui/popover';
import { useStore } from '../state/store';

type McpServer = InvokeResponse<'mcpStatus'>['servers'][number];

type Reading =
  { state: 'loading' } | { state: 'failed'; error: string } | { state: 'ready'; servers: McpServer[] };

/**
 * The header's "MCP servers" button and its panel (not modal; Escape or a click elsewhere closes it). Each
 * opening asks the CLI afresh, and lists every server: its status, its error in full, and its tools.
 */
export function McpServersButton({ tabId }: { tabId: string }) {
  const mcpStatus = useStore((state) => state.mcpStatus);
  const { open, setOpen, area, panelId, toggleProps } = usePopover();
  const [reading, setReading] = useState<Reading>({ state: 'loading' });
  const reads = useRef(0);

  const load = async () => {
    // Only the latest answer counts when the panel is opened again before one came.
    const read = ++reads.current;
    setReading({ state: 'loading' });
    try {
      const { servers } = await mcpStatus(tabId);
      if (read === reads.current) setReading({ state: 'ready', servers });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (read === reads.current) setReading({ state: 'failed', error: message });
    }
  };

  return (
    <div className="menu-anchor" ref={area}>
      <button
        {...toggleProps}
        className="header-icon-button"
        aria-label="MCP servers"
        title="MCP servers"
        onClick={() => {
          if (!open) void load();
          setOpen(!open);
        }}
      >
        <Plug aria-hidden="true" size={16} />
      </button>
      {open && <McpPanel id={panelId} reading={reading} onRetry={() => void load()} />}
    </div>
  );
}

function McpPanel(props: { id: string; reading: Reading; onRetry: () => void }) {
  const { id, reading, onRetry } = props;
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
              <McpServerItem key={server.name} server={server} />
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

function McpServerItem({ server }: { server: McpServer }) {
  const tone = TONES[server.status] ?? 'muted';
  return (
    <li className="mcp-server">
      <div className="mcp-server-head">
        <strong className="mcp-server-name">{server.name}</strong>
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
    </li>
  );
}
