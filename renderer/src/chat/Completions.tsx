import fuzzysort from 'fuzzysort';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { FileMatch, SlashCommand } from '../../../shared/ipc';
import { useStore } from '../state/store';
import { useLatestAnswer, type Answer } from '../ui/latest';

/**
 * The composer's two menus: `/` at the start of the message lists the CLI's slash commands, `@` after a space
 * lists the conversation's files (main matches them fuzzily). Up and Down move, Enter or Tab chooses, Escape
 * closes; the text box keeps the focus throughout and points at the active option. Enter and Tab take what
 * the menu shows, whatever is still on its way from main: a key never waits for an answer.
 */

/** Where in the text a menu was asked for: the typed word it completes, `[start, end)`. */
export type Trigger =
  | { kind: 'command'; query: string; start: number; end: number }
  | { kind: 'file'; query: string; start: number; end: number };

/** The word being typed at the caret, when it asks for a menu. */
export function triggerAt(text: string, caret: number): Trigger | null {
  const before = text.slice(0, caret);
  const rest = /^\S*/.exec(text.slice(caret))?.[0] ?? '';
  const command = /^\/(\S*)$/.exec(before);
  if (command) return { kind: 'command', query: command[1] ?? '', start: 0, end: caret + rest.length };
  const file = /(^|\s)@([^\s@"]*)$/.exec(before);
  if (file) {
    const start = caret - (file[2]?.length ?? 0) - 1;
    return { kind: 'file', query: file[2] ?? '', start, end: caret + rest.length };
  }
  return null;
}

/** How a chosen path is written: `@path`, quoted when it holds a space. */
export function mention(path: string): string {
  return /\s/.test(path) ? `@"${path}"` : `@${path}`;
}

interface Option {
  key: string;
  /** The accessible name: the command with its slash, or the path. */
  label: string;
  /** What the option shows, with the query's characters marked. */
  shown: ReactNode;
  hint?: string;
  description?: string;
  /** What replaces the trigger's word. */
  insert: string;
}

export interface Completion {
  /** The menu, to place above the text box; null when closed. */
  menu: ReactNode;
  /** Handles the key when the menu is open and the key is the menu's; true when it did. */
  onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): boolean;
  /** ARIA attributes for the text box. */
  inputProps: {
    'aria-autocomplete': 'list';
    'aria-controls'?: string;
    'aria-activedescendant'?: string;
  };
}

export function useCompletion({
  conversationId,
  commands,
  text,
  caret,
  focused,
  replace,
}: {
  conversationId: string | null;
  commands: readonly SlashCommand[];
  text: string;
  caret: number;
  focused: boolean;
  /** Puts `insert` in place of `[start, end)` and the caret after it. */
  replace: (start: number, end: number, insert: string) => void;
}): Completion {
  const id = useId();
  const trigger = focused ? triggerAt(text, caret) : null;
  const [active, setActive] = useState(0);
  // Escape closes the menu until the user starts another word.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const where = trigger ? `${trigger.kind}:${trigger.start}` : null;
  // Another word (or none) forgets the dismissal: the next `/` or `@` opens its menu again.
  if (dismissed !== null && where !== dismissed) setDismissed(null);
  const open = trigger !== null && where !== dismissed;

  const files = useFileMatches(
    open && trigger.kind === 'file' ? conversationId : null,
    trigger?.kind === 'file' ? trigger.query : '',
  );
  const kind = trigger?.kind ?? null;
  const query = trigger?.query ?? '';
  // A few hundred names at most: matched again at each render.
  const options: Option[] = !open
    ? []
    : kind === 'command'
      ? commandMatches(commands, query)
      : files && 'value' in files
        ? fileOptions(files.question.query, files.value.matches, query)
        : [];

  // A new list starts at its best match; the same list (an answer equal to what is shown) keeps the choice.
  const listKey = `${where}|${options.map((option) => option.key).join('\n')}`;
  const [shownKey, setShownKey] = useState(listKey);
  if (shownKey !== listKey) {
    setShownKey(listKey);
    setActive(0);
  }
  const at = Math.min(active, Math.max(options.length - 1, 0));
  const optionId = (index: number) => `${id}-option-${index}`;
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector(`[id="${CSS.escape(optionId(at))}"]`)?.scrollIntoView({ block: 'nearest' });
  });

  const choose = (option: Option) => {
    if (!trigger) return;
    replace(trigger.start, trigger.end, `${option.insert} `);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false;
    if (event.key === 'Escape') {
      // Only a menu on screen takes Escape; otherwise it is the composer's (stopping a reply).
      if (menu === null) return false;
      setDismissed(where);
      return true;
    }
    const action = menuKey(event, { kind: trigger.kind, query, options, at });
    if (action === 'pass') return false;
    if ('take' in action) choose(action.take);
    else setActive(action.move);
    return true;
  };

  const label = trigger?.kind === 'command' ? 'Slash commands' : 'Files';
  let menu: ReactNode = null;
  if (open && options.length > 0) {
    menu = (
      <ul ref={list} id={`${id}-menu`} role="listbox" aria-label={label} className="completion-menu">
        {options.map((option, index) => (
          <li
            key={option.key}
            id={optionId(index)}
            role="option"
            aria-selected={index === at}
            aria-label={option.label}
            aria-describedby={option.description ? `${optionId(index)}-about` : undefined}
            className={`completion-option${index === at ? ' completion-active' : ''}`}
            // The text box keeps the focus (and its caret).
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => index !== at && setActive(index)}
            onClick={() => choose(option)}
          >
            <span className="completion-name">{option.shown}</span>
            {option.hint && <span className="completion-hint">{option.hint}</span>}
            {option.description && (
              <span id={`${optionId(index)}-about`} className="completion-about">
                {option.description}
              </span>
            )}
          </li>
        ))}
      </ul>
    );
  } else if (open && trigger.kind === 'file' && files) {
    let status: string;
    if (files.question.query !== query) status = `Looking for “${query}”…`;
    else if ('error' in files) status = `Could not list the folder's files: ${files.error}`;
    else
      status =
        (query ? `No file or folder matches “${query}”.` : 'This folder has no files.') +
        (files.value.truncated
          ? ' Only part of the folder was listed: it is too big or too slow to list.'
          : '');
    menu = (
      <p className="completion-menu completion-empty" role="status">
        {status}
      </p>
    );
  } else if (open && trigger.kind === 'command' && query && commands.length > 0) {
    menu = (
      <p className="completion-menu completion-empty" role="status">
        No command matches “/{query}”.
      </p>
    );
  }
  const showing = open && options.length > 0;
  return {
    menu,
    onKeyDown,
    inputProps: {
      'aria-autocomplete': 'list',
      'aria-controls': showing ? `${id}-menu` : undefined,
      'aria-activedescendant': showing ? optionId(at) : undefined,
    },
  };
}

/**
 * What a key does to the open menu: takes the active option (Enter, Tab), moves (Up, Down), or leaves the key
 * to the text box ('pass'). It goes by the options shown, and only by them.
 */
export function menuKey(
  key: { key: string; shiftKey: boolean },
  menu: { kind: Trigger['kind']; query: string; options: readonly Option[]; at: number },
): { take: Option } | { move: number } | 'pass' {
  const { options, at } = menu;
  const takes = (key.key === 'Enter' || key.key === 'Tab') && !key.shiftKey;
  if (options.length === 0) return 'pass';
  if (key.key === 'ArrowDown' || key.key === 'ArrowUp') {
    const step = key.key === 'ArrowDown' ? 1 : -1;
    return { move: (at + step + options.length) % options.length };
  }
  if (!takes) return 'pass';
  const option = options[at];
  // A command typed out in full is sent by Enter, as it is; Tab still completes it.
  if (!option || (key.key === 'Enter' && menu.kind === 'command' && option.label === `/${menu.query}`)) {
    return 'pass';
  }
  return { take: option };
}

function marked(text: string, indexes: readonly number[], offset = 0): ReactNode {
  if (indexes.length === 0) return text;
  const hits = new Set(indexes.map((index) => index + offset));
  const parts: ReactNode[] = [];
  let run = '';
  let runHit = false;
  const flush = (index: number) => {
    if (!run) return;
    parts.push(runHit ? <mark key={index}>{run}</mark> : run);
    run = '';
  };
  [...text].forEach((char, index) => {
    const hit = hits.has(index);
    if (hit !== runHit) {
      flush(index);
      runHit = hit;
    }
    run += char;
  });
  flush(text.length);
  return parts;
}

/** Commands whose name matches the query, best first; all of them, in the CLI's order, for none. */
export function commandMatches(commands: readonly SlashCommand[], query: string): Option[] {
  const toOption = (command: SlashCommand, indexes: readonly number[] = []): Option => ({
    key: command.name,
    label: `/${command.name}`,
    shown: ['/', marked(command.name, indexes)],
    hint: command.argumentHint || undefined,
    description: command.description || undefined,
    insert: `/${command.name}`,
  });
  if (!query) return commands.slice(0, 100).map((command) => toOption(command));
  return fuzzysort
    .go(query, commands, { key: 'name', limit: 50, threshold: 0 })
    .map((result) => toOption(result.obj, result.indexes));
}

/** The folder's matches for the query, from main: the latest answer, with the query it answers. */
function useFileMatches(
  conversationId: string | null,
  query: string,
): Answer<{ conversationId: string; query: string }, { matches: FileMatch[]; truncated: boolean }> | null {
  const answer = useLatestAnswer(
    conversationId ? { conversationId, query } : null,
    JSON.stringify([conversationId, query]),
    async (question) => {
      const { matches, truncated } = await useStore
        .getState()
        .findFiles(question.conversationId, question.query);
      return { matches, truncated };
    },
  );
  // Another conversation's folder has other files.
  return answer?.question.conversationId === conversationId ? answer : null;
}

/**
 * The files the menu shows for what is typed: main's answer for it, or, while that is on its way, those of the
 * last answer that match it too (best first, as main would put them), so that the menu never offers a match
 * for a query that is no longer the one typed, and never goes blank at each key.
 */
export function fileOptions(answered: string, matches: readonly FileMatch[], query: string): Option[] {
  if (answered === query) return matches.map((match) => fileOption(match.path, match.indexes));
  if (!query) return matches.map((match) => fileOption(match.path, []));
  return fuzzysort
    .go(query, matches, { key: 'path', threshold: 0 })
    .map((result) => fileOption(result.obj.path, result.indexes));
}

function fileOption(path: string, indexes: readonly number[]): Option {
  return { key: path, label: path, shown: marked(path, indexes), insert: mention(path) };
}
