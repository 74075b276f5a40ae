import { defaultRangeExtractor, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { permissionPlaces, type ChatMessage, type ConversationState } from '../../../shared/conversation';
import { useShallow } from 'zustand/react/shallow';
import { useStore } from '../state/store';
import { useFindHighlights } from './find-highlights';
import { useFrameVirtualizer } from '../ui/frame-virtualizer';
import { noteScrolling, prepareMarkdown } from './Markdown';
import { MessageView } from './MessageView';

/**
 * The conversation as a virtualized log: only the rows on screen exist in the DOM, so a conversation of
 * 10,000 messages opens and scrolls like a short one. It follows new output while the reader is at the
 * bottom and leaves them alone when they have scrolled up.
 *
 * The virtualizer renders with the store's updates (frame-virtualizer.ts): while a reply streams, the list
 * makes one React commit a frame at most. A reply that is streaming at the end of the log is not measured
 * by the virtualizer: its growth would move the list every frame. It overflows its slot instead, and a
 * ResizeObserver keeps the view at the bottom without React; once it is complete, it is measured like any
 * other row.
 *
 * Rows that hold a waiting permission request stay rendered wherever the reader has scrolled, so its card
 * can always take the focus and be found.
 */
export function MessageList({ tabId }: { tabId: string }) {
  const order = useStore((state) => state.tabs[tabId]?.conversation.order);
  const ids = order ?? NO_IDS;
  const lastId = ids[ids.length - 1];
  const lastStreaming = useStore((state) => {
    const message = lastId ? state.tabs[tabId]?.conversation.messages[lastId] : undefined;
    return message?.role === 'assistant' && message.streaming;
  });
  const scroller = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  // Scrolled up: the last message when the reader left the end (null: following the end). Counting after
  // it, not from a length, keeps earlier messages loaded at the front out of the count.
  const [leftAfter, setLeftAfter] = useState<string | null>(null);
  const follow = useCallback(() => {
    atBottom.current = true;
    setLeftAfter(null);
  }, []);
  const focus = useStore((state) => state.tabs[tabId]?.focus ?? null);
  const earlier = useStore(
    useShallow((state) => {
      const paging = state.tabs[tabId]?.paging;
      return paging ? { more: paging.before !== null, loading: paging.loading, error: paging.error } : null;
    }),
  );
  const saved = useStore((state) => state.tabs[tabId]?.saved != null);
  // Fetched by itself (scrolling near the top, a short page) only while nothing has gone wrong.
  const canFetch = !!earlier?.more && !earlier.loading && !earlier.error;
  const loadEarlier = useStore((state) => state.loadEarlier);
  const findCurrent = useStore((state) => state.finds[tabId]?.current?.messageId ?? null);
  const askingRows = useStore(useShallow((state) => rowsAsking(state.tabs[tabId]?.conversation)));
  const rangeExtractor = useCallback(
    (range: Range) => {
      const rows = defaultRangeExtractor(range);
      const extra = askingRows.filter((row) => row < range.count && !rows.includes(row));
      return extra.length === 0 ? rows : [...rows, ...extra].sort((a, b) => a - b);
    },
    [askingRows],
  );

  // The virtualizer works its rows' places out again whenever these change: they change with the ids.
  const getItemKey = useCallback((index: number) => ids[index] ?? index, [ids]);
  const estimates = useRef(new Map<string, number>());
  const estimateSize = useCallback(
    (index: number) => {
      const id = ids[index] ?? '';
      let estimate = estimates.current.get(id);
      if (estimate === undefined) {
        estimate = guessHeight(useStore.getState().tabs[tabId]?.conversation.messages[id]);
        // The last message may still grow; the others are as they will stay until they are measured.
        if (index < ids.length - 1) estimates.current.set(id, estimate);
      }
      return estimate;
    },
    [ids, tabId],
  );
  const virtualizer = useFrameVirtualizer(
    {
      count: ids.length,
      getScrollElement: () => scroller.current,
      estimateSize,
      overscan: 4,
      getItemKey,
      rangeExtractor,
    },
    inner,
  );

  // A message the user sends here always comes into view, with the reply after it. By the newest prompt, not
  // by the last message being one: on a busy machine the prompt and the start of its reply can come in the
  // same frame, and the prompt is never the last message the list sees.
  const lastPrompt = useStore((state) => latestPrompt(state.tabs[tabId]?.conversation));
  const promptSeen = useRef(lastPrompt);
  useLayoutEffect(() => {
    const before = promptSeen.current;
    promptSeen.current = lastPrompt;
    if (lastPrompt === null || lastPrompt === before || atBottom.current) return;
    follow();
    // At the end at once, not in the virtualizer's next frame: a scroll event still on its way (from where
    // the reader was) would otherwise read the old place and leave the end again.
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lastPrompt, follow]);

  // Follow new output while the reader is at the bottom. Through the virtualizer, not by setting scrollTop:
  // it would otherwise correct the view for rows measured meanwhile from where it last saw it.
  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    if (atBottom.current && ids.length > 0) virtualizer.scrollToEnd();
  }, [virtualizer, total, ids.length]);

  // Follow the streaming row as it grows, outside React.
  useEffect(() => {
    const rows = inner.current?.children ?? [];
    if (!lastStreaming) return;
    const observer = new ResizeObserver(() => {
      if (atBottom.current) virtualizer.scrollToEnd();
    });
    for (const row of rows) observer.observe(row);
    return () => observer.disconnect();
  }, [virtualizer, lastStreaming, lastId]);

  // Open at the end of the conversation, unless a message is asked for.
  useEffect(() => {
    if (ids.length > 0 && !useStore.getState().tabs[tabId]?.focus)
      virtualizer.scrollToIndex(ids.length - 1, { align: 'end' });
    // Only when the tab is first shown.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tabId]);

  // Bring a message into view when asked (a search result, a find match).
  const focusIndex = focus ? ids.indexOf(focus.messageId) : -1;
  useEffect(() => {
    if (focusIndex < 0) return;
    atBottom.current = false;
    virtualizer.scrollToIndex(focusIndex, { align: 'center' });
    // Once per request, when the message is in the list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focus?.nonce, focusIndex >= 0]);

  // Earlier messages arrive at the front: keep the reader where they were.
  const firstId = ids[0];
  const previousFirst = useRef(firstId);
  useLayoutEffect(() => {
    const before = previousFirst.current;
    previousFirst.current = firstId;
    if (!before || before === firstId || atBottom.current) return;
    const index = ids.indexOf(before);
    if (index > 0) virtualizer.scrollToIndex(index, { align: 'start' });
    // Only when the first message changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [firstId]);

  // A saved conversation whose loaded part does not fill the view: fetch more, since there is no scrolling up.
  useEffect(() => {
    const element = scroller.current;
    if (!element || !canFetch) return;
    if (element.scrollHeight <= element.clientHeight) void loadEarlier(tabId);
  }, [ids.length, canFetch, loadEarlier, tabId]);

  useFindHighlights(tabId, scroller);
  usePrepareAhead(virtualizer, ids, tabId, atBottom);

  return (
    <div
      ref={scroller}
      className="message-list"
      role="log"
      aria-label="Conversation"
      tabIndex={0}
      onKeyDown={(event) => {
        // Escape while reading stops a running reply, as it does in the composer, which then has the focus.
        // Not while it closes something open (an image shown large, a popover: that is what it is for then),
        // nor while typing in a field of the log (a permission card's reason) or composing a character.
        if (event.key !== 'Escape' || event.defaultPrevented || event.nativeEvent.isComposing) return;
        if (document.querySelector('[role="dialog"], dialog[open]')) return;
        const target = event.target instanceof HTMLElement ? event.target : null;
        if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
        if (useStore.getState().tabs[tabId]?.conversation.status !== 'running') return;
        event.preventDefault();
        event.currentTarget
          .closest('.conversation')
          ?.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')
          ?.focus();
        void useStore.getState().interrupt(tabId);
      }}
      onScroll={(event) => {
        const element = event.currentTarget;
        atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
        if (atBottom.current !== (leftAfter === null)) setLeftAfter(atBottom.current ? null : (lastId ?? ''));
        // The reader is scrolling (following new output at the bottom is not): rows mount fast, so their
        // Markdown is rendered a few ms a frame.
        if (!atBottom.current) noteScrolling();
        // Near the top of a saved conversation: fetch the page before it.
        if (element.scrollTop < 400 && canFetch) void loadEarlier(tabId);
      }}
    >
      {ids.length === 0 && !earlier?.more && (
        <p className="empty">{saved ? 'This conversation has no messages.' : 'Send a message to start.'}</p>
      )}
      {earlier?.more && (
        <p className="load-earlier" role="status">
          {earlier.error ? (
            <>
              Earlier messages could not be read: {earlier.error}{' '}
              <button type="button" className="link-button" onClick={() => void loadEarlier(tabId)}>
                Try again
              </button>
            </>
          ) : earlier.loading ? (
            'Loading earlier messages…'
          ) : (
            'Scroll up for earlier messages'
          )}
        </p>
      )}
      <div ref={inner} className="message-list-inner">
        {virtualizer.getVirtualItems().map((row) => {
          const unmeasured = lastStreaming && row.index === ids.length - 1;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={unmeasured ? undefined : virtualizer.measureElement}
              className="message-row"
              data-message-id={ids[row.index]}
              aria-current={ids[row.index] === findCurrent ? 'true' : undefined}
            >
              <MessageView tabId={tabId} id={ids[row.index] ?? ''} nextId={ids[row.index + 1]} />
            </div>
          );
        })}
      </div>
      {leftAfter !== null && (
        <JumpToLatest
          fresh={leftAfter ? ids.length - 1 - ids.lastIndexOf(leftAfter) : 0}
          onJump={() => {
            follow();
            virtualizer.scrollToEnd();
            // The button goes: the keyboard stays in the log rather than falling to the page.
            scroller.current?.focus({ preventScroll: true });
          }}
        />
      )}
    </div>
  );
}

/** Shown while the reader has scrolled up: back to the end, saying how many messages came meanwhile. */
function JumpToLatest({ fresh, onJump }: { fresh: number; onJump: () => void }) {
  return (
    <button type="button" className="jump-to-latest" onClick={onJump}>
      <span aria-hidden="true">↓</span> Jump to latest
      {fresh > 0 && (
        <span className="jump-count">
          {fresh} new <span className="sr-only">{fresh === 1 ? 'message' : 'messages'}</span>
        </span>
      )}
    </button>
  );
}

/** Rows past the rendered ones, in the direction of scrolling, whose Markdown is rendered in idle time. */
const PREPARE_AHEAD_ROWS = 30;
/** When the list is still: rows on each side. */
const PREPARE_AROUND_ROWS = 8;
const STILL_MS = 300;

/**
 * Renders the Markdown of the rows about to come into view while the page is idle, so that a fast scroll
 * mounts rows whose blocks are already rendered: parsing a row's Markdown costs a few ms, and a frame that
 * mounts several rows at once would otherwise miss its deadline. Idle time is what is left of each frame.
 */
function usePrepareAhead(
  virtualizer: ReturnType<typeof useFrameVirtualizer>,
  ids: readonly string[],
  tabId: string,
  following: RefObject<boolean>,
): void {
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  // Following new output is not the reader scrolling: it counts as still, so the rows around are prepared
  // only once nothing has moved for a moment. While output arrives, idle time belongs to the host delivering
  // it (two cores).
  const direction = following.current ? null : virtualizer.scrollDirection;
  useEffect(() => {
    if (typeof window.requestIdleCallback !== 'function' || last < 0) return;
    const rows: number[] = [];
    const above = (count: number) => {
      for (let row = first - 1; row >= Math.max(0, first - count); row--) rows.push(row);
    };
    const below = (count: number) => {
      for (let row = last + 1; row <= Math.min(ids.length - 1, last + count); row++) rows.push(row);
    };
    if (direction === 'backward') above(PREPARE_AHEAD_ROWS);
    else if (direction === 'forward') below(PREPARE_AHEAD_ROWS);
    else {
      above(PREPARE_AROUND_ROWS);
      below(PREPARE_AROUND_ROWS);
    }
    let next = 0;
    let handle = 0;
    let settle: number | undefined;
    const work = (deadline: IdleDeadline) => {
      const timeLeft = () => deadline.timeRemaining();
      const messages = useStore.getState().tabs[tabId]?.conversation.messages;
      for (; next < rows.length && timeLeft() > 1; next++) {
        const message = messages?.[ids[rows[next] ?? -1] ?? ''];
        if (message?.role !== 'assistant') continue;
        const prepared = message.parts.every(
          (part) => part.kind !== 'text' || prepareMarkdown(part.text, timeLeft),
        );
        if (!prepared) break;
      }
      if (next < rows.length) handle = window.requestIdleCallback(work);
    };
    // While still, only once the list has stayed still a moment: not for each batch of a reply streaming in.
    if (direction) handle = window.requestIdleCallback(work);
    else settle = window.setTimeout(() => (handle = window.requestIdleCallback(work)), STILL_MS);
    return () => {
      window.clearTimeout(settle);
      window.cancelIdleCallback(handle);
    };
  }, [first, last, direction, ids, tabId]);
}

const NO_IDS: string[] = [];
const NO_ROWS: number[] = [];

/** The rows (indexes in `order`) holding a tool call that waits for a permission answer. */
function rowsAsking(conversation: ConversationState | undefined): number[] {
  if (!conversation || conversation.permissionRequests.length === 0) return NO_ROWS;
  const rows = new Set<number>();
  for (const place of permissionPlaces(conversation).values()) if (place) rows.add(place.row);
  return rows.size === 0 ? NO_ROWS : [...rows].sort((a, b) => a - b);
}

/** A guess at a row's height before it is measured, from how much it holds; close guesses scroll smoothly. */
function guessHeight(message: ChatMessage | undefined): number {
  if (!message) return 80;
  const LINE = 22;
  const CHARS_PER_LINE = 90;
  const lines = (text: string) =>
    text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / CHARS_PER_LINE)), 0);
  switch (message.role) {
    case 'assistant':
      return (
        40 +
        message.parts.reduce(
          (sum, part) =>
            sum + (part.kind === 'text' ? lines(part.text) * LINE + 16 : part.kind === 'tool' ? 52 : 30),
          0,
        )
      );
    case 'user':
      return 52 + lines(message.text) * LINE + (message.images.length > 0 ? 84 : 0);
    case 'result':
    case 'notice':
      return 30;
    case 'check':
    case 'setup':
      return 64;
    case 'cli':
      return message.item.kind === 'command_output' ? 40 + lines(message.item.text) * LINE : 30;
  }
}

/** How far from the end a new prompt can be when the list first sees it: itself and its reply's first rows. */
const PROMPT_REACH = 50;

/** The id of the newest prompt the user typed, among the last messages (null: none there). */
function latestPrompt(conversation: ConversationState | undefined): string | null {
  if (!conversation) return null;
  const { order, messages } = conversation;
  for (let index = order.length - 1; index >= Math.max(0, order.length - PROMPT_REACH); index--) {
    const message = messages[order[index] ?? ''];
    if (message?.role === 'user' && message.author === 'You' && !message.parentToolUseId) return message.id;
  }
  return null;
}
