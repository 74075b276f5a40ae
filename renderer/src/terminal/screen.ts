/**
 * A Terminal conversation's screen: xterm.js with its addons (fit, links, search, Unicode 11 widths, and the
 * WebGL renderer where the machine gives it a context, else xterm's DOM renderer). Loaded with the first
 * Terminal tab, so the app's first screen does not carry it. Its colours and font are the app's theme's,
 * read from the page's CSS, and follow it when the theme changes.
 */
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

export const TERMINAL_FONT = "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace";

export interface Screen {
  terminal: Terminal;
  /** Fits the terminal to its element; returns the size in cells. */
  fit(): { cols: number; rows: number };
  /** Finds `text` from the cursor on (or back); false when it is not on the screen or above. */
  find(text: string, backwards: boolean): boolean;
  clearFind(): void;
  /** Takes the page's theme again (its colours changed). */
  retheme(): void;
  dispose(): void;
}

export function openScreen(
  element: HTMLElement,
  options: { openLink(url: string): void; fontSize: number },
): Screen {
  const terminal = new Terminal({
    allowProposedApi: true,
    fontFamily: TERMINAL_FONT,
    fontSize: options.fontSize,
    scrollback: 10_000,
    cursorBlink: true,
    theme: themeOf(element),
    // A Mac's Option is Meta for the CLI's shortcuts (Option+Enter for a new line), as in its own terminal.
    macOptionIsMeta: true,
  });
  const fit = new FitAddon();
  const search = new SearchAddon();
  terminal.loadAddon(fit);
  terminal.loadAddon(search);
  terminal.loadAddon(new Unicode11Addon());
  terminal.unicode.activeVersion = '11';
  // Only a link the person clicks opens, in the browser, never in the app's window.
  terminal.loadAddon(new WebLinksAddon((_event, url) => options.openLink(url)));
  terminal.open(element);
  if (hardwareWebgl()) {
    try {
      const webgl = new WebglAddon();
      // A lost context (a GPU reset, too many of them) falls back to the DOM renderer.
      webgl.onContextLoss(() => webgl.dispose());
      terminal.loadAddon(webgl);
    } catch {
      // No WebGL after all: xterm's DOM renderer draws it.
    }
  }
  return {
    terminal,
    fit() {
      fit.fit();
      return { cols: terminal.cols, rows: terminal.rows };
    },
    find(text, backwards) {
      const found = backwards ? search.findPrevious(text) : search.findNext(text);
      return found;
    },
    clearFind() {
      search.clearDecorations();
      terminal.clearSelection();
    },
    retheme() {
      terminal.options.theme = themeOf(element);
    },
    dispose() {
      terminal.dispose();
    },
  };
}

/**
 * Whether WebGL here runs on a GPU. Software WebGL (SwiftShader, llvmpipe: a machine or a VM without one) is
 * slower than xterm's DOM renderer, which then draws instead. Asked once a page.
 */
function hardwareWebgl(): boolean {
  webglChecked ??= (() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return false;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return !/swiftshader|llvmpipe|softpipe|software/i.test(renderer);
  })();
  return webglChecked;
}
let webglChecked: boolean | undefined;

/** The app's colours as xterm takes them: each CSS variable resolved by a probe (they are light-dark()). */
function themeOf(element: HTMLElement): ITheme {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  element.appendChild(probe);
  const colour = (variable: string) => {
    probe.style.color = `var(${variable})`;
    return getComputedStyle(probe).color;
  };
  const dark = matchesDark(colour('--bg'));
  const theme: ITheme = {
    background: colour('--bg'),
    foreground: colour('--text'),
    cursor: colour('--accent'),
    cursorAccent: colour('--bg'),
    selectionBackground: colour('--accent-bg'),
    selectionForeground: colour('--text'),
    ...(dark ? DARK_ANSI : LIGHT_ANSI),
  };
  probe.remove();
  return theme;
}

/** Whether a background colour is a dark one (its luminance below the middle). */
function matchesDark(rgb: string): boolean {
  const [r = 255, g = 255, b = 255] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}

/** ANSI colours readable on the light background. */
const LIGHT_ANSI: ITheme = {
  black: '#1f1f1f',
  red: '#b3261e',
  green: '#2e7d32',
  yellow: '#8a6100',
  blue: '#1a56b0',
  magenta: '#8e3aa8',
  cyan: '#00727a',
  white: '#6b6b6b',
  brightBlack: '#5c5c5c',
  brightRed: '#c62828',
  brightGreen: '#388e3c',
  brightYellow: '#9e7000',
  brightBlue: '#1e63c9',
  brightMagenta: '#a040c0',
  brightCyan: '#00838f',
  brightWhite: '#3a3a3a',
};

/** ANSI colours readable on the dark background. */
const DARK_ANSI: ITheme = {
  black: '#2b2b2b',
  red: '#f2857d',
  green: '#8fd18f',
  yellow: '#e8c46a',
  blue: '#86b4f5',
  magenta: '#d49be6',
  cyan: '#7fd4dc',
  white: '#d0d0d0',
  brightBlack: '#8a8a8a',
  brightRed: '#ff9d96',
  brightGreen: '#a6e3a6',
  brightYellow: '#f5d580',
  brightBlue: '#a0c6ff',
  brightMagenta: '#e2b2f2',
  brightCyan: '#98e2e8',
  brightWhite: '#f2f2f2',
};
