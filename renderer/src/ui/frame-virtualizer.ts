import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useState, useSyncExternalStore, type RefObject } from 'react';
import { inNextFrame } from '../state/frame';
import { useStore } from '../state/store';

/**
 * A virtualizer (@tanstack/virtual-core's) that never makes a second React commit in a frame while the store
 * is updating: rows that came into range are rendered with the store's next update, in the same commit, so
 * a list that streams makes at most one commit a frame (RenderRequests below).
 *
 * Where the rows are and how tall the list is are not rendered by React at all: they are written to the DOM
 * after each commit and whenever the virtualizer's measurements change, as react-virtual's
 * `directDomUpdates` does. So a row measured above the view, and the view scrolled to make up for it, move
 * together before the next paint, which is what react-virtual's own hook needs flushSync for (it renders on
 * every change, with flushSync on scroll and on such a resize).
 */

export type FrameVirtualizerOptions = Omit<
  VirtualizerOptions<HTMLDivElement, HTMLDivElement>,
  'observeElementRect' | 'observeElementOffset' | 'scrollToFn' | 'onChange'
>;

/**
 * Renders one list asks for. A render goes with the store's next update, in its commit, or at the latest in
 * the next animation frame's run of updates from main (frame.ts), with whatever else it brings: never as a
 * second commit in a frame.
 */
class RenderRequests {
  private version = 0;
  private wanted = false;
  private queued = false;
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): number => this.version;

  request(): void {
    this.wanted = true;
    if (this.queued) return;
    this.queued = true;
    inNextFrame(() => {
      this.queued = false;
      this.deliver();
    });
  }

  /** Called as the store updates: React renders what is wanted in the commit it makes for the update. */
  readonly storeUpdated = (): void => this.deliver();

  private deliver(): void {
    if (!this.wanted) return;
    this.wanted = false;
    this.version += 1;
    for (const listener of this.listeners) listener();
  }
}

/**
 * Moves the rendered rows (the children of `inner`, by their data-index) to where the virtualizer now puts
 * them, and sizes `inner` to hold them all. A row that has left the range stays until React removes it.
 */
function placeRows(
  virtualizer: Virtualizer<HTMLDivElement, HTMLDivElement>,
  inner: HTMLElement | null,
): void {
  if (!inner) return;
  const starts = new Map(virtualizer.getVirtualItems().map((item) => [item.index, item.start]));
  for (const row of inner.children) {
    if (!(row instanceof HTMLElement)) continue;
    const start = starts.get(Number(row.dataset.index));
    if (start !== undefined) row.style.transform = `translateY(${start}px)`;
  }
  inner.style.height = `${virtualizer.getTotalSize()}px`;
}

/**
 * A row's height from its ResizeObserver entry. When a row is mounted there is no entry yet, and reading its
 * height would force a layout for each new row in turn (each measured row moves the others); it keeps the
 * height it has (the estimate for a new row) until the observer reports it, after the frame's one layout and
 * before its paint, all rows in one batch.
 */
function measureWithoutLayout(
  element: HTMLDivElement,
  entry: ResizeObserverEntry | undefined,
  instance: Virtualizer<HTMLDivElement, HTMLDivElement>,
): number {
  const box = entry?.borderBoxSize[0];
  if (box) return Math.round(box.blockSize);
  const index = instance.indexFromElement(element);
  const key = instance.options.getItemKey(index);
  return instance.itemSizeCache.get(key) ?? instance.measurementsCache[index]?.size ?? 0;
}

/**
 * The virtualizer for a scrolling element. `inner` holds the rows, each with its index in `data-index`;
 * neither it nor the rows may set their position or height in React: the hook writes them.
 */
export function useFrameVirtualizer(
  options: FrameVirtualizerOptions,
  inner: RefObject<HTMLElement | null>,
): Virtualizer<HTMLDivElement, HTMLDivElement> {
  const [requests] = useState(() => new RenderRequests());
  useSyncExternalStore(requests.subscribe, requests.getSnapshot);
  const resolved: VirtualizerOptions<HTMLDivElement, HTMLDivElement> = {
    ...options,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement: measureWithoutLayout,
    onChange: (instance) => {
      placeRows(instance, inner.current);
      requests.request();
    },
  };
  const [virtualizer] = useState(() => new Virtualizer(resolved));
  virtualizer.setOptions(resolved);

  useEffect(() => useStore.subscribe(requests.storeUpdated), [requests]);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
    placeRows(virtualizer, inner.current);
  });
  return virtualizer;
}
