import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Markdown, noteScrolling, prepareMarkdown, splitBlocks, withReferences } from './Markdown';

const render = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

describe('Markdown for streamed replies', () => {
  it('renders an unclosed code fence mid-stream as code, highlighted', () => {
    const html = render('Here it is:\n\n```ts\nconst answer = 42;\nfunction f(');
    expect(html).toMatch(/<pre><code class="[^"]*language-ts[^"]*">/);
    expect(html).toContain('hljs-keyword');
    expect(html).toContain('answer');
  });

  it('renders GFM tables and strikethrough', () => {
    const html = render('| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~');
    expect(html).toContain('<table>');
    expect(html).toContain('<td>2</td>');
    expect(html).toContain('<del>gone</del>');
  });

  it('loads no remote image: it becomes a link that says it is an image', () => {
    const html = render('Look: ![the chart](https://tracker.example/pixel.png?who=me)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<em>Image not loaded: <a href="https://tracker.example/pixel.png?who=me"');
    expect(html).toContain('>the chart</a></em>');
    // Without alt text the address itself is the link's text.
    expect(render('![](http://example.com/x.png)')).toContain('>http://example.com/x.png</a>');
    // Addresses a browser would still resolve to a remote server load nothing either.
    for (const src of ['//tracker.example/p.png', 'https:/x.example/p.png', 'HTTPS://x.example/p.png']) {
      const html = render(`![pixel](${src})`);
      expect(html, src).not.toContain('<img');
      expect(html, src).not.toContain('<link');
      expect(html, src).toContain('Image not loaded');
    }
  });

  it('never renders raw HTML or script links', () => {
    const html = render(
      '<img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n[click](javascript:alert(3))',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
  });

  it('prepares a reply ahead of need block by block, as far as its budget allows', () => {
    const text = '# Prepared ahead\n\nA paragraph with `code`.\n\n```js\nconst ahead = true;\n```\n';
    // Time for one block, then none.
    let left = 50;
    expect(prepareMarkdown(text, () => (left -= 25))).toBe(false);
    // No time: the blocks not rendered yet are still not.
    expect(prepareMarkdown(text, () => 0)).toBe(false);
    expect(prepareMarkdown(text, () => 50)).toBe(true);
    // Every block is rendered now: nothing is left to spend time on.
    expect(prepareMarkdown(text, () => 0)).toBe(true);
    const html = render(text);
    expect(html).toContain('<h1>Prepared ahead</h1>');
    expect(html).toContain('<code>code</code>');
    expect(html).toMatch(/<pre><code class="[^"]*language-js/);
  });

  it('leaves a block too big for any idle period to be rendered when shown, and prepares the rest', () => {
    const huge = `${'a very long paragraph of words '.repeat(1_000)}\n\n`;
    const text = `${huge}## After the long one\n`;
    // A full idle period (50 ms): the heading after the huge paragraph is prepared, not held up by it.
    expect(prepareMarkdown(text, () => 50)).toBe(true);
    // Nothing is left that idle time could prepare, though the huge paragraph was not rendered.
    expect(prepareMarkdown(text, () => 0)).toBe(true);
    expect(render(text)).toContain('<h2>After the long one</h2>');
  });

  it('shows blocks past the frame budget as their text while the reader scrolls, and formats them after', () => {
    // Each reading of the clock is 3 ms later: every block rendered costs at least that much.
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 3));
    const text = Array.from({ length: 6 }, (_, n) => `## Scrolled heading ${n}\n\nWith **bold** ${n}.`).join(
      '\n\n',
    );
    noteScrolling();
    const scrolling = render(text);
    expect(scrolling).toContain('<h2>Scrolled heading 0</h2>');
    // A later block is shown as what was written, in a paragraph, until there is time to render it.
    expect(scrolling).toMatch(/<p class="md-plain">(## Scrolled heading \d|With \*\*bold\*\* \d\.)<\/p>/);
    // Once the scrolling has stopped, a render formats every block.
    clock += 1_000;
    const still = render(text);
    expect(still).not.toContain('md-plain');
    expect(still).toContain('<h2>Scrolled heading 5</h2>');
    expect(still).toContain('<strong>bold</strong> 5.');
  });

  it('shows the cursor of a reply still coming after its last block only, and none once it has ended', () => {
    const text = 'First paragraph.\n\nSecond, still coming';
    const coming = renderToStaticMarkup(<Markdown text={text} streaming />);
    expect(coming.match(/md-streaming/g)).toHaveLength(1);
    expect(coming).toMatch(/<div class="md-block md-streaming"><p>Second, still coming<\/p><\/div><\/div>$/);
    expect(render(text)).not.toContain('md-streaming');
  });

  it('splits text into blocks so that only the last one changes while a reply streams', () => {
    const done = 'First paragraph.\n\n- a\n- b\n\n';
    const blocks = splitBlocks(`${done}Third is stream`);
    expect(blocks).toHaveLength(3);
    expect(splitBlocks(`${done}Third is streaming now`).slice(0, 2)).toEqual(blocks.slice(0, 2));
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('references across blocks', () => {
  it('resolves a reference-style link defined in a later block', () => {
    const html = render(
      'See [the docs][docs] first.\n\nThen carry on.\n\n[docs]: https://example.com/docs "The docs"',
    );
    expect(html).toContain('<a href="https://example.com/docs"');
    expect(html).not.toContain('[docs]');
    // The definition's own block, carried by the one using it, is not drawn (empty) as well.
    expect(html.match(/md-block/g)).toHaveLength(2);
  });

  it('shows a footnote with the paragraph that cites it, once', () => {
    const html = render('A bold claim.[^1]\n\n- a list\n- between\n\n[^1]: The source, page 4.');
    expect(html).toMatch(/href="#[^"]*user-content-fn-1"/);
    expect(html.match(/The source, page 4\./g)).toHaveLength(1);
    expect(html).not.toContain('[^1]');
  });

  it('finds a reference after stray brackets, and reads a line of nothing but brackets as text', () => {
    const html = render(
      '[[[ See [the docs] first.\n\nThen carry on.\n\n[the docs]: https://example.com/docs',
    );
    expect(html).toMatch(/\[\[\[ See <a href="https:\/\/example.com\/docs"[^>]*>the docs<\/a> first\./);
    // 50,000 of them, with a definition in the text: each bracket is looked at once, not once per bracket.
    const brackets = '['.repeat(50_000);
    const blocks = [`${brackets}\n\n`, '[docs]: https://example.com/docs\n\n', `See [docs]. ${brackets}`];
    expect(withReferences(blocks)).toEqual([
      blocks[0],
      '',
      `See [docs]. ${brackets}\n\n[docs]: https://example.com/docs\n`,
    ]);
  });

  it('resolves a reference-style link defined in an earlier block', () => {
    const html = render('[docs]: https://example.com/docs\n\nSee [docs] first.');
    expect(html).toMatch(/See <a href="https:\/\/example.com\/docs"[^>]*>docs<\/a> first\./);
  });

  it('leaves a text without definitions as it is', () => {
    expect(render('Just [brackets] here.\n\nAnd more.')).toContain('[brackets]');
    // Text that only looks like a definition stays where it is, as text.
    const html = render('[ERROR]: connection refused\n\nThe [ERROR] line above is the clue.');
    expect(html.indexOf('connection refused')).toBeLessThan(html.indexOf('is the clue'));
    expect(html.match(/connection refused/g)).toHaveLength(1);
  });
});

describe('footnotes', () => {
  const hrefs = (html: string) =>
    [...html.matchAll(/<a [^>]*href="#([^"]+)"/g)].map((match) => match[1] ?? '');
  const ids = (html: string) => [...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1] ?? '');

  it('links each reference to its note and each note back to its reference, in the page', () => {
    const html = render('A claim.[^1] Another.[^2]\n\n[^1]: First source.\n[^2]: Second source.');
    const links = hrefs(html);
    // Two references and two back-references, each pointing at an id the message has.
    expect(links).toHaveLength(4);
    for (const target of links) expect(ids(html)).toContain(target);
    // A footnote link opens no new tab (one would lack the browser host's token); a web link still does.
    expect(html).not.toMatch(/<a [^>]*href="#[^"]*"[^>]*target="_blank"/);
    expect(render('[docs](https://example.com/docs)')).toContain('target="_blank"');
  });

  it('gives two messages that each number a footnote 1 ids of their own', () => {
    const html = renderToStaticMarkup(
      <>
        <Markdown text={'First.[^1]\n\n[^1]: One.'} />
        <Markdown text={'Second.[^1]\n\n[^1]: Two.'} />
      </>,
    );
    const all = ids(html);
    expect(new Set(all).size).toBe(all.length);
    const [first, second] = html.split('Second.');
    for (const target of hrefs(first ?? '')) expect(ids(first ?? '')).toContain(target);
    for (const target of hrefs(second ?? '')) expect(ids(second ?? '')).toContain(target);
  });
});
