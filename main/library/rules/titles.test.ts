import { describe, expect, it } from 'vitest';
import { MATCH_END, MATCH_START } from '../../../shared/library';
import { chooseTitle, cleanTitle, cutTo, promptOffer, UNTITLED } from './titles';

describe('chooseTitle', () => {
  const all = {
    rename: 'My name for it',
    setTitle: 'Parser bug hunt',
    customTitle: 'cli rename',
    aiTitle: 'AI title',
    summary: 'A summary',
    firstPrompt: 'help me find the parser bug',
    commandFallback: '/model',
  };

  it('takes the first rule that has something, in order', () => {
    expect(chooseTitle(all)).toBe('My name for it');
    expect(chooseTitle({ ...all, rename: null })).toBe('Parser bug hunt');
    expect(chooseTitle({ ...all, rename: null, setTitle: null })).toBe('cli rename');
    expect(chooseTitle({ ...all, rename: null, setTitle: null, customTitle: null })).toBe('AI title');
    expect(chooseTitle({ firstPrompt: 'p', summary: 'A summary', aiTitle: null })).toBe('A summary');
    expect(chooseTitle({ firstPrompt: 'help me', commandFallback: '/model' })).toBe('help me');
    expect(chooseTitle({ commandFallback: '/model' })).toBe('/model');
  });

  it('skips blank candidates and says "Untitled conversation" when nothing is left', () => {
    expect(chooseTitle({ rename: '   ', setTitle: '\n', firstPrompt: 'real' })).toBe('real');
    expect(chooseTitle({})).toBe(UNTITLED);
  });

  it('puts a title on one line, without snippet markers, cut to 200 characters', () => {
    expect(cleanTitle('two\n  lines')).toBe('two lines');
    expect(cleanTitle(`a${MATCH_START}b${MATCH_END}c`)).toBe('abc');
    expect(cleanTitle('x'.repeat(300))).toBe(`${'x'.repeat(200)}…`);
  });
});

describe('promptOffer', () => {
  it('offers a plain prompt, on one line', () => {
    expect(promptOffer({ content: 'help me\nfind the bug' })).toEqual({ prompt: 'help me find the bug' });
    expect(promptOffer({ content: [{ type: 'text', text: 'from blocks' }] })).toEqual({
      prompt: 'from blocks',
    });
  });

  it('offers nothing for tool results, meta lines and compact summaries', () => {
    expect(promptOffer({ content: [{ type: 'tool_result', tool_use_id: 't', content: 'hi' }] })).toEqual({});
    expect(promptOffer({ isMeta: true, content: 'Caveat: the messages below…' })).toEqual({});
    expect(promptOffer({ isCompactSummary: true, content: 'This session is being continued…' })).toEqual({});
  });

  it('offers only the name of a slash command, and skips command output and interruptions', () => {
    expect(
      promptOffer({
        content:
          '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>',
      }),
    ).toEqual({ command: '/model' });
    expect(
      promptOffer({ content: '<local-command-stdout>Set model to opus</local-command-stdout>' }),
    ).toEqual({});
    expect(promptOffer({ content: '[Request interrupted by user]' })).toEqual({});
    expect(promptOffer({ content: '[Request interrupted by user for tool use]' })).toEqual({});
    expect(promptOffer({ content: '<system-reminder>\nx\n</system-reminder>' })).toEqual({});
  });

  it('keeps a bash input as "! command"', () => {
    expect(promptOffer({ content: '<bash-input>ls -la</bash-input>' })).toEqual({ prompt: '! ls -la' });
  });

  it('takes a later text block when the first is a reminder', () => {
    const content = [
      { type: 'text', text: '<system-reminder>x</system-reminder>' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'text', text: 'what is in this picture?' },
    ];
    expect(promptOffer({ content })).toEqual({ prompt: 'what is in this picture?' });
  });

  it('unfolds pasted text and cuts a long prompt to 200 characters', () => {
    const pasted = 'see <pasted_content id="a1b2">\nthe pasted body\n</pasted_content id="a1b2">';
    expect(promptOffer({ content: pasted })).toEqual({ prompt: 'see the pasted body' });
    const long = promptOffer({ content: 'word '.repeat(100) }).prompt!;
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(201);
  });
});

describe('cutTo', () => {
  it('never splits a surrogate pair', () => {
    const cut = cutTo(`${'a'.repeat(9)}😀😀`, 10);
    expect(cut).toBe(`${'a'.repeat(9)}…`);
  });
});
