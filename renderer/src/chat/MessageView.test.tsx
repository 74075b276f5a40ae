import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { thoughtFor, withInlineCode } from './MessageView';

const render = (text: string) => renderToStaticMarkup(<>{withInlineCode(text)}</>);

describe('notices', () => {
  it('show `backticked` spans as code, and text around them as it is', () => {
    expect(render('Run `npm test` in `/work/app` first')).toBe(
      'Run <code>npm test</code> in <code>/work/app</code> first',
    );
    // An unpaired backtick, or a span across lines, stays as written.
    expect(render('a ` lone one')).toBe('a ` lone one');
    expect(render('`one\ntwo`')).toBe('`one\ntwo`');
  });
});

describe('thinking', () => {
  it('says how long, rounded, in seconds then minutes', () => {
    expect(thoughtFor(12.4)).toBe('Thought for 12 s');
    expect(thoughtFor(0.2)).toBe('Thought for 1 s');
    expect(thoughtFor(125)).toBe('Thought for 2 min 5 s');
    expect(thoughtFor(120)).toBe('Thought for 2 min');
    expect(thoughtFor(undefined)).toBe('Thought');
  });
});
