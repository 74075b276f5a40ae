import { useCallback, useEffect, useId, useRef, useState, type RefObject } from 'react';

/** What every popover does: it closes when the user is done with it, and it stays on screen. */

/**
 * While a popover is open: Escape, or a press outside `area` (the popover and what opens it), closes it.
 * Escape from inside it gives the focus back to `returnTo`, the control that opened it, rather than dropping
 * it onto the page.
 */
export function useDismiss(
  open: boolean,
  area: RefObject<HTMLElement | null>,
  close: () => void,
  returnTo?: RefObject<HTMLElement | null>,
): void {
  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (!area.current?.contains(event.target as Node)) close();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      if (area.current?.contains(document.activeElement)) returnTo?.current?.focus();
      close();
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, area, close, returnTo]);
}

/**
 * A popover opened by a button: whether it is open, the element holding both (`area`, for useDismiss), and
 * the props of the button that toggles it (it gets the focus back when Escape closes the popover).
 */
export function usePopover() {
  const [open, setOpen] = useState(false);
  const area = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, area, close, toggle);
  return {
    open,
    setOpen,
    close,
    area,
    toggle,
    panelId,
    toggleProps: {
      ref: toggle,
      type: 'button' as const,
      'aria-expanded': open,
      'aria-controls': open ? panelId : undefined,
    },
  };
}

const MARGIN = 8;

/**
 * A popover's ref: as it opens, it takes the focus, and where hanging from the right edge of what opens it
 * would push it off the left of the window (the header has wrapped, its control on the left), it moves right
 * until it fits.
 */
export function placePopover(element: HTMLElement | null): void {
  if (!element) return;
  const { left } = element.getBoundingClientRect();
  if (left < MARGIN) element.style.transform = `translateX(${MARGIN - left}px)`;
  element.focus();
}

/** A `<dialog>` shown modal as soon as it is mounted (it is rendered only while open). */
export function useModalDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return dialog;
}
