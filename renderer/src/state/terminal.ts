/**
 * The terminal slice: what a Terminal conversation's screen sends main (the person's keys, its size) and
 * reads back (the screen as it stands, then its output as it comes). The output never passes through the
 * store: at megabytes a second it goes straight to the screen that follows it, which draws it in its own time.
 */
import { MAX_IMAGE_FILE_BYTES, TERMINAL_INPUT_MAX_CHARS, type TerminalSize } from '../../../shared/ipc';
import { readBase64 } from './drafts';
import { openWindow } from '../../../shared/conversation/paging';
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import { rekeyTab } from './tabs';
import type { StoreGet, StoreSet, TerminalSlice } from './types';

/** How much a screen draws between telling main (terminalDrawn). */
const DRAWN_EVERY_CHARS = 256 * 1024;

export function createTerminalSlice(set: StoreSet, get: StoreGet): TerminalSlice {
  return {
    async switchLane(tabId, lane) {
      const shown = get().tabs[tabId];
      const conversationId = shown ? liveConversationId(shown) : null;
      if (!conversationId) return;
      const { snapshot, savedBefore } = await get().trusted(() =>
        call('switchLane', { conversationId, lane }),
      );
      // The same session, now in the other lane: its history before the switch is read back as saved pages.
      const opened = openWindow(snapshot, { prelude: [], events: [], before: null, seq: 0, savedBefore });
      const id = snapshot.conversationId;
      set((state) => {
        const tab = state.tabs[tabId];
        if (!tab) return {};
        // The tab shows this conversation alone from now on: no branch of a family, comparison or rewind.
        return rekeyTab(state, tabId, {
          ...tab,
          id,
          conversation: opened.conversation,
          paging: opened.paging,
          eventsFrom: opened.eventsFrom,
          actionError: null,
          branches: null,
          branch: null,
          compare: null,
          rewind: null,
        });
      });
      get().moveDraft(tabId, id);
    },
    terminalInput(conversationId, data) {
      // A long paste goes in pieces, in order.
      let sent = Promise.resolve();
      for (let start = 0; start < data.length;) {
        let end = Math.min(data.length, start + TERMINAL_INPUT_MAX_CHARS);
        // Never between the two halves of a character outside the BMP (an emoji, say).
        if (end < data.length && /[\uD800-\uDBFF]/.test(data.charAt(end - 1))) end -= 1;
        const piece = data.slice(start, end);
        start = end;
        sent = sent.then(() => call('terminalInput', { conversationId, data: piece }).then(() => undefined));
      }
      // The CLI exited, or the tab closed: the screen says so already, a key has nowhere to go.
      return sent.catch(() => undefined);
    },
    async terminalImage(conversationId, file) {
      if (file.size > MAX_IMAGE_FILE_BYTES) {
        return { refused: `${file.name} is larger than ${MAX_IMAGE_FILE_BYTES / 1024 / 1024} MB.` };
      }
      let data: string;
      try {
        data = await readBase64(file);
      } catch {
        return { refused: `${file.name} could not be read.` };
      }
      try {
        const kept = await call('terminalImage', { conversationId, name: file.name || 'image', data });
        return kept.ok ? { path: kept.path } : { refused: `${file.name}: ${kept.message}` };
      } catch (error) {
        return { refused: error instanceof Error ? error.message : String(error) };
      }
    },
    terminalResize(conversationId, size: TerminalSize) {
      void call('terminalResize', { conversationId, ...size }).catch(() => undefined);
    },
    async followTerminal(conversationId, draw) {
      const early: { data: string; seq: number }[] = [];
      let next: number | null = null;
      // Main reads the CLI only as fast as the screen draws: it is told, every so much drawn.
      let undrawn = 0;
      const take = (output: { data: string; seq: number }) =>
        draw(output.data, () => {
          undrawn += output.data.length;
          if (undrawn < DRAWN_EVERY_CHARS) return;
          undrawn = 0;
          void call('terminalDrawn', { conversationId, seq: output.seq }).catch(() => undefined);
        });
      const off = window.byre.on('terminalOutput', (output) => {
        if (output.conversationId !== conversationId) return;
        if (next === null) early.push(output);
        else if (output.seq >= next) take(output);
      });
      try {
        const screen = await call('terminalScreen', { conversationId });
        draw(screen.data, () => undefined);
        next = screen.seq;
        for (const output of early) if (output.seq >= screen.seq) take(output);
      } catch (error) {
        off();
        throw error;
      }
      return off;
    },
  };
}
