import { describe, expect, it } from 'vitest';
import { commandMatches, mention, triggerAt } from './Completions';

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
