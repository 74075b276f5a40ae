/**
 * Syntax highlighting for the Changes panel's diff lines, with the highlighter the chat's code blocks use
 * (highlight.js's common languages through lowlight, as rehype-highlight runs them), so both read alike in
 * either theme (the same `hljs-*` classes). One line at a time: the view highlights only the lines in sight.
 */
import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { common, createLowlight } from 'lowlight';
import type { ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';

const lowlight = createLowlight(common);

/** Longer lines are drawn plain: highlighting a minified file's one line costs more than it helps. */
const LONGEST_HIGHLIGHTED = 2_000;

/** Extensions highlight.js does not know by that name. */
const LANGUAGE_OF_EXTENSION: Record<string, string> = {
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  h: 'c',
  hpp: 'cpp',
  cc: 'cpp',
  yml: 'yaml',
  htm: 'xml',
  html: 'xml',
  svg: 'xml',
  vue: 'xml',
};

/** The language to highlight a file in, from its name; null: none known (drawn plain). */
export function languageOf(path: string): string | null {
  const name = path.split('/').pop() ?? path;
  if (name === 'Makefile') return lowlight.registered('makefile') ? 'makefile' : null;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  const language = LANGUAGE_OF_EXTENSION[extension] ?? extension;
  return lowlight.registered(language) ? language : null;
}

/** One line, highlighted as `language` (plain when null or too long). */
export function highlightLine(text: string, language: string | null): ReactNode {
  if (language === null || text.length > LONGEST_HIGHLIGHTED || text.trim() === '') return text;
  return toJsxRuntime(lowlight.highlight(language, text), { Fragment, jsx, jsxs });
}
