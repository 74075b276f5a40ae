import { useEffect, useRef, type KeyboardEvent } from 'react';
import { Download, Ellipsis, SquareTerminal } from 'lucide-react';
import { LANE_BILLING } from '../../../shared/ipc/app';
import { useStore } from '../state/store';
import { usePopover } from '../ui/popover';
import { useExport } from '../library/SavedConversation';

/**
 * The conversation header's "More actions" menu: what is used now and then (exporting the conversation) waits
 * here, so the header keeps to one row. A menu in the ARIA sense: the arrows, Home and End move between its
 * items, and Escape closes it and gives the focus back to its button.
 */
export function HeaderMenu({ sessionId, tabId }: { sessionId: string | null; tabId: string }) {
  const { open, setOpen, area, toggle, panelId, toggleProps } = usePopover();
  const switchLane = useStore((state) => state.switchLane);
  const busy = useStore((state) => state.tabs[tabId]?.conversation.status === 'running');
  const { note, setNote, exportAs: exportSession } = useExport();
  const menu = useRef<HTMLDivElement>(null);
  // Opened, the menu's first item takes the focus, so the arrows work at once.
  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
  }, [open]);

  const exportAs = async (format: 'markdown' | 'jsonl') => {
    setOpen(false);
    toggle.current?.focus();
    if (sessionId) await exportSession(sessionId, format);
  };

  return (
    <div className="menu-anchor" ref={area}>
      <button
        {...toggleProps}
        className="header-icon-button"
        aria-haspopup="menu"
        aria-label="More actions"
        title="More actions"
        onClick={() => {
          setNote(null);
          setOpen(!open);
        }}
      >
        <Ellipsis aria-hidden="true" size={16} />
      </button>
      {open && (
        <div
          ref={menu}
          id={panelId}
          role="menu"
          aria-label="More actions"
          className="menu"
          onKeyDown={(event) => moveFocus(event, menu.current)}
        >
          <button
            type="button"
            role="menuitem"
            disabled={!sessionId}
            title={sessionId ? undefined : 'Nothing to export before the first message'}
            onClick={() => void exportAs('markdown')}
          >
            <Download aria-hidden="true" size={14} /> Export as Markdown
          </button>
          <button type="button" role="menuitem" disabled={!sessionId} onClick={() => void exportAs('jsonl')}>
            <Download aria-hidden="true" size={14} /> Export as JSONL
          </button>
          <button
            type="button"
            role="menuitem"
            disabled={!sessionId || busy}
            title={
              busy
                ? 'After this reply'
                : `The same conversation in the real Claude Code terminal: ${LANE_BILLING.terminal}`
            }
            onClick={() => {
              setOpen(false);
              void switchLane(tabId, 'terminal').catch((error: unknown) =>
                setNote({ text: error instanceof Error ? error.message : String(error), error: true }),
              );
            }}
          >
            <SquareTerminal aria-hidden="true" size={14} /> Continue in the Terminal lane
          </button>
        </div>
      )}
      {note && (
        <span
          className={`header-menu-note${note.error ? ' inline-error' : ''}`}
          role={note.error ? 'alert' : 'status'}
        >
          {note.text}
        </span>
      )}
    </div>
  );
}

/** Arrow keys, Home and End move the focus between the menu's items, wrapping round at either end. */
export function moveFocus(event: KeyboardEvent, menu: HTMLElement | null): void {
  if (!menu) return;
  const items = [...menu.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])')];
  if (items.length === 0) return;
  const at = items.indexOf(document.activeElement as HTMLElement);
  const next: Record<string, number> = {
    ArrowDown: (at + 1) % items.length,
    ArrowUp: (at - 1 + items.length) % items.length,
    Home: 0,
    End: items.length - 1,
  };
  const index = next[event.key];
  if (index === undefined) return;
  event.preventDefault();
  items[index]?.focus();
}
