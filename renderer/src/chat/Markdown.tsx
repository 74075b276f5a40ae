import { marked } from 'marked';
import { memo, useMemo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

/**
 * Markdown for streamed replies: GFM, highlighted code, sanitized HTML. The text is split into top-level
 * blocks with marked's lexer and each block is memoized, so while a reply streams only its last block is
 * parsed again. An unclosed code fence is still a code block, so half a fence renders as code.
 */

const remarkPlugins = [remarkGfm];
// Sanitize first: highlighting then only adds its own class names to what survived.
const rehypePlugins = [rehypeSanitize, [rehypeHighlight, { detect: false, ignoreMissing: true }]] as const;

const components: Components = {
  a: ({ href, children }) => (
    <a
      href={href}
      target="_blank"
      rel="noreferrer noopener"
      onClick={(event) => {
        // In Electron the click asks main to open the system browser; a plain browser opens a tab itself.
        if (window.byre.host !== 'electron' || !href) return;
        event.preventDefault();
        if (/^https?:\/\//i.test(href)) void window.byre.openLink({ url: href });
      }}
    >
      {children}
    </a>
  ),
};

const Block = memo(function Block({ source }: { source: string }) {
  return (
    <ReactMarkdown
      remarkPlugins={remarkPlugins}
      rehypePlugins={rehypePlugins as unknown as Parameters<typeof ReactMarkdown>[0]['rehypePlugins']}
      components={components}
    >
      {source}
    </ReactMarkdown>
  );
});

export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (const token of marked.lexer(text, { gfm: true })) {
    if (token.type === 'space' && blocks.length > 0) {
      blocks[blocks.length - 1] += token.raw;
    } else {
      blocks.push(token.raw);
    }
  }
  return blocks;
}

export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitBlocks(text), [text]);
  return (
    <div className="markdown">
      {blocks.map((block, index) => (
        <Block key={index} source={block} />
      ))}
    </div>
  );
}
