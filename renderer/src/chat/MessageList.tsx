import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useStore } from '../store';
import { MessageView } from './MessageView';

/**
 * The conversation as a virtualized log: only the rows on screen exist in the DOM, so a conversation of
 * 10,000 messages opens and scrolls like a short one. It follows new output while the reader is at the
 * bottom and leaves them alone when they have scrolled up.
 */
export function MessageList({ tabId }: { tabId: string }) {
  const order = useStore((state) => state.tabs[tabId]?.conversation.order);
  const ids = order ?? [];
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; rows re-render by subscription
  const virtualizer = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => ids[index] ?? index,
  });

  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && atBottom.current) element.scrollTop = element.scrollHeight;
  }, [total, ids.length]);

  // Open at the end of the conversation.
  useEffect(() => {
    if (ids.length > 0) virtualizer.scrollToIndex(ids.length - 1, { align: 'end' });
    // Only when the tab is first shown.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tabId]);

  return (
    <div
      ref={scroller}
      className="message-list"
      role="log"
      aria-label="Conversation"
      tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget;
        atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
      }}
    >
      {ids.length === 0 && <p className="empty">Send a message to start.</p>}
      <div className="message-list-inner" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={virtualizer.measureElement}
            className="message-row"
            style={{ transform: `translateY(${row.start}px)` }}
          >
            <MessageView tabId={tabId} id={ids[row.index] ?? ''} />
          </div>
        ))}
      </div>
    </div>
  );
}
