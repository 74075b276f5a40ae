import { describe, expect, it } from 'vitest';
import { containsAll, markMatches, occurrences, parseQuery, snippetAround } from './query';

const [S, E] = ['[', ']'];

describe('parseQuery', () => {
  it('looks words up by their trigrams, each quoted for FTS5', () => {
    expect(parseQuery('  abcd  say"hi  ')).toEqual({
      terms: ['abcd', 'say"hi'],
      match: '"abc" AND "bcd" AND "say" AND "ay""" AND "y""h" AND """hi"',
      words: '"abcd" AND "say" AND "hi"',
    });
  });

  it('uses a few trigrams spread over a long word, and none for short words', () => {
    const { match } = parseQuery('parseConfigFileFromDisk');
    expect(match?.split(' AND ')).toHaveLength(8);
    expect(match?.startsWith('"par"')).toBe(true);
    expect(match?.endsWith('"isk"')).toBe(true);
    expect(parseQuery('go 5%')).toEqual({ terms: ['go', '5%'], match: null, words: '"go" AND "5"' });
    expect(parseQuery('Foo.BAR(').words).toBe('"foo" AND "bar"');
    expect(parseQuery('(%)').words).toBeNull();
    expect(parseQuery('').terms).toEqual([]);
  });
});

describe('titles', () => {
  it('match when every word is there, in any case', () => {
    expect(containsAll('Lexer Rewrite', ['rewrite', 'LEX'])).toBe(true);
    expect(containsAll('Lexer Rewrite', ['parser'])).toBe(false);
  });

  it('count occurrences, ignoring case', () => {
    expect(occurrences('foo bar foo foofoo', 'FOO')).toBe(4);
    expect(occurrences('aaaa', 'aa')).toBe(2);
  });

  it('mark every match, the longest word first', () => {
    expect(markMatches('Lexer lex rewrite', ['lex', 'lexer'], S, E)).toBe('[Lexer] [lex] rewrite');
    expect(markMatches('a (b) c', ['(b)'], S, E)).toBe('a [(b)] c');
  });
});

describe('snippetAround', () => {
  it('keeps a short text whole, on one line', () => {
    expect(snippetAround('find [the]\nbug', S, E)).toBe('find [the] bug');
  });

  it('cuts a long text around the first match, at spaces, with ellipses', () => {
    const before = 'word '.repeat(40);
    const after = ' tail'.repeat(80);
    const snippet = snippetAround(`${before}[needle]${after}`, S, E);
    expect(snippet.startsWith('…word')).toBe(true);
    expect(snippet.endsWith('tail…')).toBe(true);
    expect(snippet).toContain('[needle]');
    expect(snippet.length).toBeLessThan(220);
  });

  it('never leaves a marked match open', () => {
    const marked = `${'a'.repeat(150)} [${'m'.repeat(100)}] rest`;
    const snippet = snippetAround(marked, S, E);
    expect(snippet.split('[').length).toBe(snippet.split(']').length);
  });
});
