import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { FileMatch } from '../../../shared/ipc';
import { LatestAnswer, type Answer } from '../ui/latest';
import { heldReplies, landed } from '../test-support/replies';
import { commandMatches, fileOptions, mention, menuKey, triggerAt } from './Completions';

describe('triggerAt', () => {
  it('asks for the command menu only while the first word, starting with /, is typed', () => {
    expect(triggerAt('/com', 4)).toEqual({ kind: 'command', query: 'com', start: 0, end: 4 });
    // The caret inside the word: the whole word is replaced.
    expect(triggerAt('/compact', 2)).toEqual({ kind: 'command', query: 'c', start: 0, end: 8 });
    expect(triggerAt('/compact now', 12)).toBeNull();
    expect(triggerAt('say /com', 8)).toBeNull();
  });

  it('asks for the file menu after an @ that starts a word', () => {
    expect(triggerAt('look at @src/ma', 15)).toEqual({ kind: 'file', query: 'src/ma', start: 8, end: 15 });
    expect(triggerAt('@', 1)).toEqual({ kind: 'file', query: '', start: 0, end: 1 });
    expect(triggerAt('mail me@example', 15)).toBeNull();
    expect(triggerAt('look at @src/main.ts and', 24)).toBeNull();
  });
});

describe('commandMatches', () => {
  const commands = [
    { name: 'compact', description: 'Keep a summary', argumentHint: '<instructions>' },
    { name: 'context', description: '', argumentHint: '' },
    { name: 'review', description: 'Review a pull request', argumentHint: '' },
  ];
  it('lists every command for an empty query and the fuzzy matches, best first, for a typed one', () => {
    expect(commandMatches(commands, '').map((option) => option.label)).toEqual([
      '/compact',
      '/context',
      '/review',
    ]);
    expect(commandMatches(commands, 'cmpt').map((option) => option.label)).toEqual(['/compact']);
    expect(commandMatches(commands, 'rev')[0]?.insert).toBe('/review');
  });
});

it('quotes a path with a space', () => {
  expect(mention('src/a.ts')).toBe('@src/a.ts');
  expect(mention('notes/gear ideas.md')).toBe('@"notes/gear ideas.md"');
});

describe('the @ menu while main answers', () => {
  const GEARBOX = { path: 'src/widgets/gearbox.ts', indexes: [12, 13, 14, 15] };
  const IDEAS = { path: 'notes/gear ideas.md', indexes: [6, 7, 8, 9] };
  const tab = { key: 'Tab', shiftKey: false };

  it('Tab takes the match shown while the answer to the last key is still on its way', async () => {
    const main = heldReplies<FileMatch[]>();
    const answers: Answer<string, FileMatch[]>[] = [];
    const latest = new LatestAnswer<string, FileMatch[]>((answer) => answers.push(answer));
    latest.ask('gear', main.answer);
    main.reply('gear', [GEARBOX, IDEAS]);
    await landed();
    // "idea" typed: its answer has not come yet, and the menu still has the one for "gear".
    latest.ask('gearidea', main.answer);
    await landed();
    const answered = answers.at(-1);
    if (!answered || !('value' in answered)) throw new Error('no answer shown');
    const options = fileOptions(answered.question, answered.value, 'gearidea');
    // The menu offers only what matches what is typed, and Tab takes it at once.
    expect(options.map((option) => option.label)).toEqual(['notes/gear ideas.md']);
    const menu = { kind: 'file' as const, query: 'gearidea', options, at: 0 };
    expect(menuKey(tab, menu)).toEqual({ take: options[0] });
    // The answer for "gearidea" then shows what it says, and Tab takes that.
    main.reply('gearidea', [IDEAS]);
    await landed();
    expect(answers.at(-1)).toEqual({ question: 'gearidea', value: [IDEAS] });
    const fresh = fileOptions('gearidea', [IDEAS], 'gearidea');
    expect(menuKey(tab, { ...menu, options: fresh })).toEqual({ take: fresh[0] });
  });

  it('shows main’s own order and marks for the query it answered', () => {
    const options = fileOptions('gear', [GEARBOX, IDEAS], 'gear');
    expect(options.map((option) => option.label)).toEqual(['src/widgets/gearbox.ts', 'notes/gear ideas.md']);
    expect(renderToStaticMarkup(<>{options[1]?.shown}</>)).toBe('notes/<mark>gear</mark> ideas.md');
    // Before any letter, everything matches: the last answer stays as it is, unmarked.
    expect(fileOptions('gear', [GEARBOX], '').map((option) => option.label)).toEqual([
      'src/widgets/gearbox.ts',
    ]);
  });

  it('Enter sends a command typed out in full; Tab completes it; arrows wrap', () => {
    const options = commandMatches([{ name: 'compact', description: '', argumentHint: '' }], 'compact');
    const menu = { kind: 'command' as const, query: 'compact', options, at: 0 };
    expect(menuKey({ key: 'Enter', shiftKey: false }, menu)).toBe('pass');
    expect(menuKey(tab, menu)).toEqual({ take: options[0] });
    expect(menuKey({ key: 'ArrowUp', shiftKey: false }, menu)).toEqual({ move: 0 });
    expect(menuKey(tab, { ...menu, options: [] })).toBe('pass');
  });
});
