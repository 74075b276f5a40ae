import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { withInlineCode } from './MessageView';

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
