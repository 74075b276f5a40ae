import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { currentMatchIndex, findMatches } from '../../../shared/conversation/find';
import { useStore } from '../state/store';

/**
 * Find in conversation (Ctrl/Cmd+F): searches the conversation's messages themselves, so it reaches those
 * the virtualized list has not rendered; the list brings each match into view and highlights it.
 */
export function FindBar({ tabId }: { tabId: string }) {
  const find = useStore((state) => state.finds[tabId]);
  const { count, at } = useStore(
    useShallow((state) => {
      const current = state.finds[tabId];
      const conversation = state.tabs[tabId]?.conversation;
      const matches = current && conversation ? findMatches(conversation, current.query) : [];
      return { count: matches.length, at: currentMatchIndex(matches, current?.current ?? null) };
    }),
  );
  const setQuery = useStore((state) => state.setFindQuery);
  const step = useStore((state) => state.stepFind);
  const close = useStore((state) => state.closeFind);
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(find?.query ?? '');

  // Each Ctrl+F (and each jump from a search result) shows the bar's query, focused and selected.
  const opened = find?.opened;
  const [shownFor, setShownFor] = useState(opened);
  if (opened !== shownFor) {
    setShownFor(opened);
    setText(find?.query ?? '');
  }
  useEffect(() => {
    if (opened === undefined) return;
    input.current?.focus();
    input.current?.select();
  }, [opened]);

  // Find as the user types, once they pause.
  useEffect(() => {
    const current = useStore.getState().finds[tabId];
    if (!current || text === current.query) return;
    const timer = setTimeout(() => setQuery(tabId, text), 120);
    return () => clearTimeout(timer);
  }, [text, tabId, setQuery]);

  if (!find) return null;
  const settled = text === find.query;
  return (
    <div className="find-bar" role="search" aria-label="Find">
      <input
        ref={input}
        type="search"
        role="searchbox"
        aria-label="Find in conversation"
        placeholder="Find in conversation"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            if (!settled) setQuery(tabId, text);
            else step(tabId, event.shiftKey ? -1 : 1);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            close(tabId);
          }
        }}
      />
      <span className="find-count" aria-live="polite">
        {!find.query.trim() ? '' : count === 0 ? 'No matches' : `${at + 1} of ${count}`}
      </span>
      <button
        type="button"
        className="icon-button"
        aria-label="Previous match"
        disabled={count === 0}
        onClick={() => step(tabId, -1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label="Next match"
        disabled={count === 0}
        onClick={() => step(tabId, 1)}
      >
        ↓
      </button>
      <button type="button" className="icon-button" aria-label="Close find bar" onClick={() => close(tabId)}>
        ×
      </button>
    </div>
  );
}
