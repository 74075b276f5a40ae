import { memo, useEffect, useState, type ReactNode } from 'react';
import { create } from 'zustand';
import type { ChatMessage } from '../../../shared/conversation';
import type { ProtocolLinesRequest } from '../../../shared/ipc';
import { liveConversationId } from '../state/selectors';
import { useLatestAnswer } from '../ui/latest';
import { useStore } from '../state/store';
import type { Tab } from '../state/types';
import { CopyButton } from '../ui/CopyButton';

/**
 * The protocol inspector: "Show protocol lines" on a message opens a panel beside the conversation with the
 * raw lines behind it, as Byre's transcript has them (what Byre sent, what the CLI said, Byre's own notes),
 * pretty-printed, searchable and copyable as JSONL. "Whole session" shows every line, filtered by type.
 */

type Behind = NonNullable<ProtocolLinesRequest['behind']>;

interface InspectorTarget {
  /** What the lines are behind, as the panel names it. */
  label: string;
  behind: Behind | null;
}

export const useInspector = create<{
  byTab: Record<string, InspectorTarget>;
  open(tabId: string, target: InspectorTarget): void;
  close(tabId: string): void;
}>((set) => ({
  byTab: {},
  open: (tabId, target) => set((state) => ({ byTab: { ...state.byTab, [tabId]: target } })),
  close: (tabId) =>
    set((state) => {
      const { [tabId]: _closed, ...rest } = state.byTab;
      return { byTab: rest };
    }),
}));

/** The keys that tie transcript lines to a message; null for a message with none (a notice, a check). */
export function behindMessage(
  message: ChatMessage,
  tools: Record<string, { messageId: string }>,
): Behind | null {
  switch (message.role) {
    case 'user':
      return message.uuid ? { uuids: [message.uuid], apiMessageIds: [], toolUseIds: [] } : null;
    case 'assistant': {
      const toolUseIds = message.parts.flatMap((part) => (part.kind === 'tool' ? [part.toolUseId] : []));
      // Tools whose complete call came without a streamed part still name the message.
      for (const [id, tool] of Object.entries(tools)) {
        if (tool.messageId === message.id && !toolUseIds.includes(id)) toolUseIds.push(id);
      }
      return {
        uuids: message.uuid ? [message.uuid] : [],
        apiMessageIds: message.id.startsWith('a:') ? [message.id.slice(2)] : [],
        toolUseIds: toolUseIds.slice(0, 500),
      };
    }
    case 'result':
      return message.id.startsWith('r:')
        ? { uuids: [message.id.slice(2)], apiMessageIds: [], toolUseIds: [] }
        : null;
    default:
      return null;
  }
}

/** The "Show protocol lines" button of a message's header. */
export function ShowProtocolLines({ tabId, message }: { tabId: string; message: ChatMessage }) {
  const open = useInspector((state) => state.open);
  return (
    <span className="message-actions">
      <button
        type="button"
        className="link-button"
        title="The raw lines Byre and Claude Code exchanged for this message"
        onClick={() => {
          const tab = useStore.getState().tabs[tabId];
          const behind = behindMessage(message, tab?.conversation.tools ?? {});
          open(tabId, { label: describe(message), behind });
        }}
      >
        Show protocol lines
      </button>
    </span>
  );
}

function describe(message: ChatMessage): string {
  switch (message.role) {
    case 'user':
      return `Your message “${clip(message.text)}”`;
    case 'assistant':
      return `Claude’s reply${message.parts.some((part) => part.kind === 'text') ? '' : ' (tool calls)'}`;
    case 'result':
      return 'The end of the turn';
    default:
      return 'This message';
  }
}

function clip(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

/** Where to read the lines from: the running conversation, else the saved session the tab shows. */
function targetOf(tab: Tab | undefined): ProtocolLinesRequest['target'] | null {
  if (!tab) return null;
  const live = liveConversationId(tab);
  if (live) return { conversationId: live };
  const sessionId = tab.saved?.sessionId ?? tab.conversation.sessionId;
  return sessionId ? { sessionId } : null;
}

const LIMIT = 300;

/** Beside the conversation while its inspector is open. */
export function WithInspector({ tabId, children }: { tabId: string; children: ReactNode }) {
  const target = useInspector((state) => state.byTab[tabId]);
  if (!target) return <>{children}</>;
  return (
    <div className="with-inspector">
      {children}
      <InspectorPanel
        key={`${target.label}|${JSON.stringify(target.behind)}`}
        tabId={tabId}
        target={target}
      />
    </div>
  );
}

function InspectorPanel({ tabId, target }: { tabId: string; target: InspectorTarget }) {
  const close = useInspector((state) => state.close);
  const [whole, setWhole] = useState(target.behind === null);
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [type, setType] = useState('');
  const [round, setRound] = useState(0);
  const where = useStore((state) => JSON.stringify(targetOf(state.tabs[tabId])));

  // The search waits for a pause in typing: a long session is read again for each one.
  useEffect(() => {
    const timer = window.setTimeout(() => setSearched(query), 250);
    return () => window.clearTimeout(timer);
  }, [query]);

  const from = JSON.parse(where) as ProtocolLinesRequest['target'] | null;
  const asked = JSON.stringify([where, whole, target.behind, type, searched, round]);
  // Only the answer to the latest question is kept: one to a search typed over lands, if at all, unseen.
  const answer = useLatestAnswer(
    from
      ? {
          asked,
          request: {
            target: from,
            behind: whole ? null : target.behind,
            types: type ? [type] : null,
            query: searched,
            limit: LIMIT,
          },
        }
      : null,
    asked,
    ({ request }) => useStore.getState().readProtocolLines(request),
  );
  // Until the answer to what the panel asks now comes (or while the search is still being typed), the
  // last lines stay, dimmed, and the status says they are being read.
  const loading = from !== null && (answer?.question.asked !== asked || query !== searched);
  const result = answer && 'value' in answer ? answer.value : null;
  const error = answer && 'error' in answer && !loading ? answer.error : null;
  const lines = result?.lines ?? [];
  let summary: string;
  if (where === 'null') summary = 'This conversation has no session to read yet.';
  else if (loading) summary = 'Reading the transcript…';
  else if (!result) summary = '';
  else if (result.files === 0)
    summary = 'Byre has no transcript of this conversation (it was not made in Byre).';
  else if (result.total === 0) summary = searched || type ? 'No line matches.' : 'No lines yet.';
  else {
    summary =
      result.total > lines.length
        ? `The first ${lines.length} of ${result.total} lines.`
        : `${result.total} line${result.total === 1 ? '' : 's'}.`;
    if (result.unreadable > 0) summary += ` ${result.unreadable} could not be read.`;
  }

  return (
    <aside className="inspector" aria-label="Protocol lines">
      <header className="inspector-head">
        <h2>Protocol lines</h2>
        <button type="button" className="link-button" onClick={() => close(tabId)}>
          Close
        </button>
      </header>
      <div className="inspector-scope" role="group" aria-label="Which lines">
        <button
          type="button"
          className="button-secondary"
          aria-pressed={!whole}
          disabled={target.behind === null}
          onClick={() => setWhole(false)}
        >
          {target.label}
        </button>
        <button
          type="button"
          className="button-secondary"
          aria-pressed={whole}
          onClick={() => setWhole(true)}
        >
          Whole session
        </button>
      </div>
      <div className="inspector-controls">
        <input
          type="search"
          aria-label="Search lines"
          placeholder="Search lines…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <select aria-label="Type of line" value={type} onChange={(event) => setType(event.target.value)}>
          <option value="">All types</option>
          {(result?.types ?? []).map((entry) => (
            <option key={entry.type} value={entry.type}>
              {entry.type} ({entry.count})
            </option>
          ))}
          {type && !result?.types.some((entry) => entry.type === type) && (
            <option value={type}>{type}</option>
          )}
        </select>
      </div>
      <div className="inspector-bar">
        <span role="status" aria-busy={loading}>
          {error ? `Could not read the lines: ${error}` : summary}
        </span>
        <button type="button" className="link-button" onClick={() => setRound((value) => value + 1)}>
          Refresh
        </button>
        <CopyButton
          label="Copy as JSONL"
          title="The lines shown, one JSON object per line"
          text={() => lines.map((line) => line.text).join('\n') + (lines.length > 0 ? '\n' : '')}
        />
      </div>
      <ol className="inspector-lines" aria-busy={loading}>
        {lines.map((line) => (
          <li key={`${line.file}:${line.line}`} aria-label={`${line.dir} ${line.type}`}>
            <div className="inspector-line-head">
              <span className={`inspector-dir inspector-dir-${line.dir}`}>{line.dir}</span>
              <span className="inspector-type">{line.type}</span>
              {line.cut && <span className="inspector-cut">{line.cut}</span>}
              <span className="inspector-where">line {line.line}</span>
            </div>
            <PrettyJson text={line.text} />
          </li>
        ))}
      </ol>
    </aside>
  );
}

/** A line's JSON, indented: formatted once per line, not at each key typed in the search. */
const PrettyJson = memo(function PrettyJson({ text }: { text: string }) {
  return <pre>{pretty(text)}</pre>;
});

/** Indented JSON; a huge line is cut, with a note. */
function pretty(text: string): string {
  const MAX = 20_000;
  let shown: string;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    shown = text;
  }
  return shown.length > MAX ? `${shown.slice(0, MAX)}\n… ${shown.length - MAX} more characters` : shown;
}
