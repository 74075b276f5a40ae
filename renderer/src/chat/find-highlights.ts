import { useEffect, type RefObject } from 'react';
import { useStore } from '../state/store';

/** The names of the two highlights in styles.css: every match, and the current one. */
const MATCHES = 'find-match';
const CURRENT = 'find-current';

/**
 * Paints the find bar's matches in the rendered rows with the CSS Custom Highlight API: no change to the
 * DOM or to React, so markdown and code render as they are and a streaming row is not re-rendered for it.
 * Rows come and go as the list scrolls; a MutationObserver paints each new one.
 */
export function useFindHighlights(tabId: string, scroller: RefObject<HTMLElement | null>): void {
  const query = useStore((state) => state.finds[tabId]?.query.trim() ?? '');
  const current = useStore((state) => state.finds[tabId]?.current ?? null);
  const currentId = current?.messageId ?? null;
  const occurrence = current?.occurrence ?? 0;

  useEffect(() => {
    const root = scroller.current;
    if (!root || typeof CSS === 'undefined' || !('highlights' in CSS)) return;
    if (!query) {
      CSS.highlights.delete(MATCHES);
      CSS.highlights.delete(CURRENT);
      return;
    }
    let frame: number | null = null;
    const paint = () => {
      frame = null;
      const all: Range[] = [];
      const mine: Range[] = [];
      for (const row of root.querySelectorAll<HTMLElement>('[data-message-id]')) {
        const ranges = rangesOf(row, query);
        all.push(...ranges);
        const chosen = ranges[occurrence] ?? ranges[0];
        if (row.dataset.messageId === currentId && chosen) mine.push(chosen);
      }
      CSS.highlights.set(MATCHES, new Highlight(...all));
      CSS.highlights.set(CURRENT, new Highlight(...mine));
    };
    paint();
    const observer = new MutationObserver(() => {
      frame ??= requestAnimationFrame(paint);
    });
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      if (frame !== null) cancelAnimationFrame(frame);
      CSS.highlights.delete(MATCHES);
      CSS.highlights.delete(CURRENT);
    };
  }, [scroller, query, currentId, occurrence]);
}

const APP_WORDS = '.message-actions, .code-head';

/** Every case-insensitive occurrence of `query` inside one text node of `element`, in order. */
function rangesOf(element: HTMLElement, query: string): Range[] {
  const needle = query.toLowerCase();
  const ranges: Range[] = [];
  // The app's own words in a row (its Copy buttons, a code block's language) are not the message.
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest(APP_WORDS) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase();
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      ranges.push(range);
    }
  }
  return ranges;
}
