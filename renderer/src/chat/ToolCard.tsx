import { diffLines } from 'diff';
import { useEffect, useState, type ReactNode } from 'react';
import type { ToolCall } from '../../../shared/conversation';
import { taskToolSummary, TASK_TOOLS } from '../../../shared/tasks';
import { todoProgress, todosOf } from '../../../shared/todos';
import { formatSeconds } from './figures';
import { TodoChecklist } from './Todos';
import { DeniedNote } from './CliItemView';

/**
 * A tool call as a collapsible card: its name and a summary of its input, then what it did. Bash shows its
 * command and output, Edit and Write a diff, Read the path and an excerpt; a subagent's card holds its
 * messages (rendered by the caller, who knows how to draw a message). A permission request for the call is
 * shown in the card, right under its header.
 */

const COLLAPSED_LINES = 12;
const OPEN_BY_DEFAULT = new Set(['Bash', 'Edit', 'MultiEdit', 'Write', 'TodoWrite']);

export function ToolCard(props: {
  tool: ToolCall;
  /** The call's own permission request, waiting: shown whether the card is open or not. */
  permission?: ReactNode;
  /** Requests of calls inside this one (a subagent's), shown while the card is folded so that none is hidden. */
  heldInside?: ReactNode;
  /** Buttons beside the header, such as Stop for a task that runs. */
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const { tool, permission, heldInside, actions, children } = props;
  const isAgent = tool.name === 'Agent' || tool.name === 'Task';
  // Commands, edits and subagents are what a reader follows; lookups stay folded until asked for.
  const [open, setOpen] = useState(isAgent || OPEN_BY_DEFAULT.has(tool.name) || tool.status === 'error');
  const failed = tool.status === 'error' || (tool.result?.isError ?? false);
  const bodyId = `tool-body-${tool.id}`;
  return (
    <section
      className={`tool-card tool-${tool.status}${failed ? ' tool-failed' : ''}${isAgent ? ' agent-card' : ''}`}
      aria-label={`${toolLabel(tool)} tool call`}
      data-tool={tool.name}
    >
      <div className="tool-header-row">
        <button
          type="button"
          className="tool-header"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen((value) => !value)}
        >
          <span className="tool-chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <span className="tool-name">{toolLabel(tool)}</span>
          <span className="tool-summary">{summarize(tool)}</span>
          <ToolStatusBadge tool={tool} waiting={permission != null} />
        </button>
        {actions}
      </div>
      {permission}
      {tool.denied && <DeniedNote denial={tool.denied} result={tool.result?.text} />}
      {!open && heldInside}
      {open && (
        <div className="tool-body" id={bodyId}>
          {/* The request already shows what the call will do. */}
          {permission == null && <ToolBody tool={tool} />}
          {children}
        </div>
      )}
    </section>
  );
}

/** A call's name as the card shows it: a subagent by its kind, an MCP tool with its server. */
export function toolLabel(tool: ToolCall): string {
  if (tool.name === 'Agent' || tool.name === 'Task') {
    return tool.task?.subagentType ?? str(tool.input.subagent_type) ?? 'Agent';
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(tool.name);
  return mcp ? `${mcp[2]} (${mcp[1]})` : tool.name;
}

function ToolStatusBadge({ tool, waiting }: { tool: ToolCall; waiting: boolean }) {
  if (waiting) return <span className="tool-status status-waiting">waiting for permission</span>;
  const status = tool.task?.status && tool.status !== 'error' ? tool.task.status : tool.status;
  const label =
    tool.status === 'running' || status === 'running'
      ? 'running'
      : tool.status === 'interrupted'
        ? 'stopped'
        : tool.status === 'error'
          ? 'failed'
          : status === 'completed' || status === 'done'
            ? 'done'
            : status;
  return (
    <span className={`tool-status status-${label}`}>
      {label}
      {(tool.status === 'running' || tool.task?.status === 'running') && <Elapsed tool={tool} />}
    </span>
  );
}

/** Elapsed time of a running tool: ticks once a second, and trusts the CLI's own figure when larger. */
export function Elapsed({ tool }: { tool: ToolCall }) {
  const [mountedAt] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const since = tool.startedAt ?? mountedAt;
  const seconds = Math.max(Math.floor((now - since) / 1000), tool.elapsedSeconds ?? 0, 0);
  return <span className="tool-elapsed"> · {formatSeconds(seconds)}</span>;
}

function summarize(tool: ToolCall): string {
  const input = tool.input;
  switch (tool.name) {
    case 'Bash':
      return str(input.description) ?? str(input.command) ?? '';
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return str(input.file_path) ?? str(input.notebook_path) ?? '';
    case 'Glob':
    case 'Grep':
      return str(input.pattern) ?? '';
    case 'WebFetch':
      return str(input.url) ?? '';
    case 'WebSearch':
      return str(input.query) ?? '';
    case 'Agent':
    case 'Task':
      return tool.task?.description ?? str(input.description) ?? '';
    case 'TodoWrite': {
      const todos = todosOf(input);
      return todos ? todoProgress(todos) : '';
    }
    default: {
      // The task tools change one task each: one short line says which and how (the list is above the composer).
      if (TASK_TOOLS.has(tool.name)) return taskToolSummary(tool.name, input);
      const first = Object.values(input).find((value) => typeof value === 'string');
      return typeof first === 'string' ? first : tool.partialInput.slice(0, 80);
    }
  }
}

function ToolBody({ tool }: { tool: ToolCall }) {
  switch (tool.name) {
    case 'TodoWrite': {
      const todos = todosOf(tool.input);
      if (todos) return <TodoChecklist todos={todos} label="Todo list as set here" />;
      return <InputJson input={tool.input} partialInput={tool.partialInput} />;
    }
    case 'Agent':
    case 'Task':
      return <AgentDetails tool={tool} />;
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
      return (
        <>
          <ToolAction name={tool.name} input={tool.input} originalFile={tool.originalFile} />
          <Output tool={tool} onlyErrors />
        </>
      );
    case 'Bash':
    case 'Read':
      return (
        <>
          <ToolAction name={tool.name} input={tool.input} partialInput={tool.partialInput} />
          <Output tool={tool} />
        </>
      );
    default:
      // Lookups show their whole input: the header already names their target.
      return (
        <>
          <InputJson input={tool.input} partialInput={tool.partialInput} />
          <Output tool={tool} />
        </>
      );
  }
}

/**
 * What a call will do, from its input: the command, the diff, the path, pattern or URL; for any other tool,
 * the input itself. Tool cards and permission requests show it alike.
 */
export function ToolAction(props: {
  name: string;
  input: Record<string, unknown>;
  partialInput?: string;
  /** What a Write replaces: the file as it was while the Write waited, or as the CLI said; a new file diffs against ''. */
  originalFile?: string | undefined;
}) {
  const { name, input, partialInput = '', originalFile = '' } = props;
  switch (name) {
    case 'Bash':
      return (
        <pre className="bash-command">
          <code>$ {str(input.command) ?? partialInput}</code>
        </pre>
      );
    case 'Edit':
      return (
        <>
          <FilePath path={str(input.file_path)} />
          <Diff before={str(input.old_string) ?? ''} after={str(input.new_string) ?? ''} />
        </>
      );
    case 'MultiEdit':
      return (
        <>
          <FilePath path={str(input.file_path)} />
          {records(input.edits).map((edit, index) => (
            <Diff key={index} before={str(edit.old_string) ?? ''} after={str(edit.new_string) ?? ''} />
          ))}
        </>
      );
    case 'Write':
      return (
        <>
          <FilePath path={str(input.file_path)} />
          <Diff before={originalFile} after={str(input.content) ?? ''} />
        </>
      );
    case 'Read':
    case 'NotebookEdit':
    case 'NotebookRead':
    case 'LS':
      return <FilePath path={str(input.file_path) ?? str(input.notebook_path) ?? str(input.path)} />;
    case 'Glob':
    case 'Grep': {
      const pattern = str(input.pattern);
      const path = str(input.path);
      return <FilePath path={pattern && path ? `${pattern} in ${path}` : (pattern ?? path)} />;
    }
    case 'WebFetch':
      return <FilePath path={str(input.url)} />;
    case 'WebSearch':
      return <FilePath path={str(input.query)} />;
    default:
      return <InputJson input={input} partialInput={partialInput} />;
  }
}

function InputJson({ input, partialInput }: { input: Record<string, unknown>; partialInput: string }) {
  return (
    <pre className="tool-input">
      <code>{Object.keys(input).length > 0 ? JSON.stringify(input, null, 2) : partialInput}</code>
    </pre>
  );
}

function AgentDetails({ tool }: { tool: ToolCall }) {
  const task = tool.task;
  return (
    <div className="agent-details">
      {task?.backgrounded && <p className="agent-note">Runs in the background.</p>}
      {task?.status === 'running' && (task.progress || task.lastToolName) && (
        <p className="agent-note">
          {task.progress ?? 'Working'}
          {task.lastToolName ? ` (${task.lastToolName})` : ''}…
        </p>
      )}
      {task?.summary && task.status !== 'running' && <p className="agent-summary">{task.summary}</p>}
    </div>
  );
}

function FilePath({ path }: { path: string | undefined }) {
  return path ? <div className="file-path">{path}</div> : null;
}

function Output({ tool, onlyErrors = false }: { tool: ToolCall; onlyErrors?: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const result = tool.result;
  if (!result || (onlyErrors && !result.isError)) return null;
  const lines = result.text.split('\n');
  const long = lines.length > COLLAPSED_LINES;
  const shown = long && !expanded ? lines.slice(0, COLLAPSED_LINES).join('\n') : result.text;
  return (
    <div
      className={`tool-output${result.isError ? ' tool-error' : ''}`}
      role={result.isError ? 'alert' : undefined}
    >
      <pre>
        <code>
          {shown ||
            (result.images > 0 ? `[${result.images} image${result.images > 1 ? 's' : ''}]` : '(no output)')}
        </code>
      </pre>
      {long && (
        <button type="button" className="link-button" onClick={() => setExpanded((value) => !value)}>
          {expanded ? 'Show less' : `Show all ${lines.length} lines`}
        </button>
      )}
    </div>
  );
}

function Diff({ before, after }: { before: string; after: string }) {
  const rows: { kind: 'add' | 'del' | 'same'; text: string }[] = [];
  for (const change of diffLines(before, after)) {
    const kind = change.added ? 'add' : change.removed ? 'del' : 'same';
    const lines = change.value.replace(/\n$/, '').split('\n');
    for (const text of lines) rows.push({ kind, text });
  }
  return (
    <pre className="diff" aria-label="Diff">
      {rows.map((row, index) => (
        <div key={index} className={`diff-${row.kind}`}>
          <span className="diff-sign" aria-hidden="true">
            {row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : ' '}
          </span>
          {row.text}
        </div>
      ))}
    </pre>
  );
}

/** The entries of a list in a tool's input that are objects; the model's input is not to be trusted. */
function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
