/**
 * The terminal slice: what a Terminal conversation's screen sends main (the person's keys, its size) and
 * reads back (the screen as it stands, then its output as it comes). The output never passes through the
 * store: at megabytes a second it goes straight to the screen that follows it, which draws it in its own time.
 */
import { TERMINAL_INPUT_MAX_CHARS, type TerminalSize } from '../../../shared/ipc';
import { call } from '../host/api';
import type { TerminalSlice } from './types';

export function createTerminalSlice(): TerminalSlice {
  return {
    terminalInput(conversationId, data) {
      // A long paste goes in pieces, in order.
      let sent = Promise.resolve();
      for (let start = 0; start < data.length; start += TERMINAL_INPUT_MAX_CHARS) {
        const piece = data.slice(start, start + TERMINAL_INPUT_MAX_CHARS);
        sent = sent.then(() => call('terminalInput', { conversationId, data: piece }).then(() => undefined));
      }
      // The CLI exited, or the tab closed: the screen says so already, a key has nowhere to go.
      return sent.catch(() => undefined);
    },
    terminalResize(conversationId, size: TerminalSize) {
      void call('terminalResize', { conversationId, ...size }).catch(() => undefined);
    },
    async followTerminal(conversationId, draw) {
      const early: { data: string; seq: number }[] = [];
      let next: number | null = null;
      const off = window.byre.on('terminalOutput', (output) => {
        if (output.conversationId !== conversationId) return;
        if (next === null) early.push(output);
        else if (output.seq >= next) draw(output.data);
      });
      try {
        const screen = await call('terminalScreen', { conversationId });
        draw(screen.data);
        next = screen.seq;
        for (const output of early) if (output.seq >= screen.seq) draw(output.data);
      } catch (error) {
        off();
        throw error;
      }
      return off;
    },
  };
}
