import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { Lexer } from 'marked';
import {
  createContext,
  memo,
  useContext,
  useEffect,
  useId,
  useMemo,
  useReducer,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
} from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import type { Element as HastElement, Root as HastRoot } from 'hast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { inElectron } from '../host/api';
import { useStore } from '../state/store';
import { CopyButton } from '../ui/CopyButton';
import { createRation } from './render-ration';

/**
 * Markdown for streamed replies: GFM, highlighted code, sanitized HTML. The text is split into top-level
 * blocks with marked's block lexer and each block is rendered once: while a reply streams, only its last
 * block is lexed and rendered again. An unclosed code fence is still a code block, so half a fence renders
 * as code.
 */

// One processor for the whole app: building one (and registering highlight.js's languages) per render
// costs more than rendering. Raw HTML is dropped by remark-rehype; sanitize then strips unsafe URLs and
// attributes, and highlighting only adds its own class names to what survived.
/**
 * An image in a reply that points elsewhere is not loaded (that would tell its server the reply was read,
 * and from where): it becomes a link the reader can follow, saying it is an image. Runs before sanitize,
 * whose own rules then allow an image source only as a data URL, should one get past.
 */
type HastParent = HastRoot | HastElement;

function rehypeRemoteImagesAsLinks() {
  const visit = (node: HastParent) => {
    node.children = node.children.map((child) => {
      if (child.type !== 'element') return child;
      if (child.tagName === 'img') {
        const src = typeof child.properties.src === 'string' ? child.properties.src.trim() : '';
        // Anything but an inline image is fetched from somewhere: `//host/x`, `https:/host/x` and the like
        // included (browsers resolve them).
        if (src !== '' && !/^data:image\//i.test(src)) {
          const alt =
            typeof child.properties.alt === 'string' && child.properties.alt ? child.properties.alt : src;
          return {
            type: 'element',
            tagName: 'em',
            properties: {},
            children: [
              { type: 'text', value: 'Image not loaded: ' },
              {
                type: 'element',
                tagName: 'a',
                properties: { href: src, title: src },
                children: [{ type: 'text', value: alt }],
              },
            ],
          };
        }
      }
      visit(child);
      return child;
    });
  };
  return (tree: HastRoot) => visit(tree);
}

const SANITIZE_SCHEMA = {
  ...defaultSchema,
  // remark-rehype already prefixes the only ids Markdown makes (footnotes'), and raw HTML is dropped: a
  // second prefix would leave every footnote link pointing at an id that is not there.
  clobberPrefix: '',
  // An empty list would allow every protocol (hast-util-sanitize checks none then).
  protocols: { ...defaultSchema.protocols, src: ['data'] },
};

const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype)
  .use(rehypeRemoteImagesAsLinks)
  .use(rehypeSanitize, SANITIZE_SCHEMA)
  .use(rehypeHighlight, { detect: false })
  .freeze();

/** The language a highlighted code block was fenced with (`language-ts` on its `code`), if any. */
function fencedLanguage(node: HastElement | undefined): string | null {
  const code = node?.children.find((child): child is HastElement => child.type === 'element');
  const classes = code?.properties.className;
  if (!Array.isArray(classes)) return null;
  for (const name of classes) {
    if (typeof name === 'string' && name.startsWith('language-')) return name.slice('language-'.length);
  }
  return null;
}

/** A code block with its language and a button that copies it. */
function CodeBlock({ language, children }: { language: string | null; children: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-language">{language ?? 'text'}</span>
        <CopyButton label="Copy code" text={() => pre.current?.textContent ?? ''} />
      </div>
      <pre ref={pre}>{children}</pre>
    </div>
  );
}

/**
 * The message a footnote lives in. Rendered blocks are cached by their source and every message numbers
 * its footnotes from 1, so the ids Markdown makes are scoped at render time by the message's own prefix:
 * two messages' `fn-1` are two ids, and a footnote link finds its note in its own message.
 */
const FootnoteScope = createContext('');

const scopedId = (scope: string, id: unknown): string | undefined =>
  typeof id === 'string' && id !== '' ? `${scope}${id}` : undefined;

/** Moves to an in-page target (a footnote or its back-reference) without touching the address bar. */
function goToAnchor(scope: string, href: string): void {
  const target = document.getElementById(`${scope}${decodeURIComponent(href.slice(1))}`);
  if (!target) return;
  // A note is a list item and a back-reference's target a link; either takes focus so the keyboard follows.
  if (!target.matches('a[href], button, input, textarea, select')) target.tabIndex = -1;
  target.scrollIntoView({ block: 'nearest' });
  target.focus({ preventScroll: true });
}

function Link({ href, id, children, ...rest }: ComponentProps<'a'>) {
  const scope = useContext(FootnoteScope);
  const describedBy = rest['aria-describedby'];
  if (href?.startsWith('#')) {
    // An in-page link stays in the page: a new tab would open without the browser host's token.
    return (
      <a
        href={`#${scope}${href.slice(1)}`}
        {...rest}
        id={scopedId(scope, id)}
        aria-describedby={scopedId(scope, describedBy)}
        onClick={(event) => {
          event.preventDefault();
          goToAnchor(scope, href);
        }}
      >
        {children}
      </a>
    );
  }
  return (
    <a
      href={href}
      {...rest}
      id={scopedId(scope, id)}
      target="_blank"
      rel="noreferrer noopener"
      onClick={(event) => {
        // In Electron the click asks main to open the system browser; a plain browser opens a tab itself.
        if (!inElectron() || !href) return;
        event.preventDefault();
        if (/^https?:\/\//i.test(href)) void useStore.getState().openLink(href);
      }}
    >
      {children}
    </a>
  );
}

/** A footnote (`li`) and the footnotes' heading (`h2`), their ids scoped to the message. */
function ScopedItem({ id, ...rest }: ComponentProps<'li'>) {
  return <li {...rest} id={scopedId(useContext(FootnoteScope), id)} />;
}

function ScopedHeading({ id, ...rest }: ComponentProps<'h2'>) {
  return <h2 {...rest} id={scopedId(useContext(FootnoteScope), id)} />;
}

const components: Partial<Components> = {
  pre: ({ node, children }) => <CodeBlock language={fencedLanguage(node)}>{children}</CodeBlock>,
  a: ({ node: _node, ...props }) => <Link {...props} />,
  li: ({ node: _node, ...props }) => <ScopedItem {...props} />,
  h2: ({ node: _node, ...props }) => <ScopedHeading {...props} />,
};

/** Rendered blocks by their source, so a row that scrolls back into view does not parse again. */
const rendered = new Map<string, ReactNode>();
const RENDERED_MAX = 2_000;

/**
 * `keep` false: a block still growing (the last of a streaming reply) is not kept. Each frame brings a new
 * version of it that nothing will draw again; kept, they would push out the finished blocks and leave
 * their trees for the collector in the middle of the stream.
 */
function renderBlock(source: string, keep = true): ReactNode {
  const cached = rendered.get(source);
  if (cached !== undefined) return cached;
  const tree = processor.runSync(processor.parse(source));
  const node = toJsxRuntime(tree, {
    Fragment,
    jsx,
    jsxs,
    components,
    ignoreInvalidStyle: true,
    passKeys: true,
    passNode: true,
  });
  if (!keep) return node;
  if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value as string);
  rendered.set(source, node);
  return node;
}

/** Enough of each kind of block that the parser, GFM and the highlighter have all run once. */
const WARM_UP_SAMPLE = [
  '# A heading with *emphasis*, **strong**, `code` and a [link](https://example.com)',
  '- a list\n- [x] with a task\n\n1. and numbers',
  '> a quote',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '```ts\nconst answer: number = 42;\n```',
].join('\n\n');

/**
 * Renders a sample once, uncached, while the app is idle: the first reply would otherwise pay for
 * compiling the whole Markdown pipeline (tens of ms in the frame it appears in).
 */
export function warmUpMarkdown(): void {
  for (const block of splitBlocks(WARM_UP_SAMPLE)) {
    toJsxRuntime(processor.runSync(processor.parse(block)), {
      Fragment,
      jsx,
      jsxs,
      components,
      passKeys: true,
      passNode: true,
    });
  }
}

/**
 * Renders the blocks of `text` into the cache ahead of need (rows about to scroll into view), one block at a
 * time while `timeLeft()` (ms) has room for the next, by a rough estimate of its cost. Returns false if it
 * stopped before the end. A block too big for any idle period is left to be rendered when it is shown:
 * waiting for room it will never have would hold up every row after it.
 */
export function prepareMarkdown(text: string, timeLeft: () => number): boolean {
  for (const block of splitCached(text)) {
    if (rendered.has(block)) continue;
    const estimate = estimatedRenderMs(block);
    if (estimate > LONGEST_PREPARED_MS) continue;
    if (timeLeft() < estimate) return false;
    renderBlock(block);
  }
  return true;
}

/** An idle period lasts at most 50 ms (the browser's cap); a block is prepared only if it fits well inside. */
const LONGEST_PREPARED_MS = 40;

/** About what rendering a block costs on a slow machine: micromark parses a few hundred characters a ms. */
function estimatedRenderMs(block: string): number {
  return 1 + block.length / 300;
}

/** Splits of whole texts, so a row prepared ahead (or scrolled back to) does not lex its text again. */
const splits = new Map<string, string[]>();
const SPLITS_MAX = 500;

function splitCached(text: string): string[] {
  let blocks = splits.get(text);
  if (!blocks) {
    blocks = splitBlocks(text);
    if (splits.size >= SPLITS_MAX) splits.delete(splits.keys().next().value as string);
    splits.set(text, blocks);
  }
  return blocks;
}

const FRAME_MS = 16;

/**
 * While the reader scrolls, rendering Markdown gets 6 ms of each frame (see render-ration.ts); a block past
 * that shows its plain text until a later frame has room for it, a few frames on once the scroll slows.
 */
const ration = createRation({
  budgetMs: 6,
  frameMs: FRAME_MS,
  scrollingMs: 150,
  now: () => performance.now(),
});

/** Called for each scroll event the reader makes in the conversation. */
export const noteScrolling = (): void => ration.noteScrolling();

/** The block rendered, or undefined if it has to wait for a frame with room (shown as plain text till then). */
function renderBlockWithin(source: string, rationed: boolean, growing: boolean): ReactNode | undefined {
  const cached = rendered.get(source);
  if (cached !== undefined) return cached;
  return ration.run(() => renderBlock(source, !growing), rationed);
}

/** A block's text as it was written, in the place its rendering will take, until that is rendered. */
function PlainBlock({ source }: { source: string }) {
  const fence = /^ {0,3}(`{3,}|~{3,})[^\n]*\n([\s\S]*?)(?:\n {0,3}\1\s*)?$/.exec(source.trimEnd());
  if (fence) {
    return (
      <pre>
        <code>{fence[2]}</code>
      </pre>
    );
  }
  return <p className="md-plain">{source.trim()}</p>;
}

const Block = memo(function Block({ source, streaming }: { source: string; streaming: boolean }) {
  // Once a block was left for later, its next renders are rationed too: the blocks left in one frame are
  // rendered over the following frames, not all in one.
  const [attempts, retry] = useReducer((count: number) => count + 1, 0);
  // The last block of a reply still coming grows with each frame: not kept until it is finished.
  const node = renderBlockWithin(source, attempts > 0, streaming);
  const deferred = node === undefined;
  useEffect(() => {
    if (!deferred) return;
    if (typeof window.requestIdleCallback !== 'function') {
      const timer = window.setTimeout(retry, FRAME_MS);
      return () => window.clearTimeout(timer);
    }
    const handle = window.requestIdleCallback(retry, { timeout: 500 });
    return () => window.cancelIdleCallback(handle);
  }, [deferred, attempts]);
  return (
    <div className={streaming ? 'md-block md-streaming' : 'md-block'}>
      {deferred ? <PlainBlock source={source} /> : node}
    </div>
  );
});

/** Top-level blocks of `text`; blank lines stay with the block before them, so blocks join back to text. */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (const token of new Lexer({ gfm: true }).blockTokens(text)) {
    if (token.type === 'space' && blocks.length > 0) blocks[blocks.length - 1] += token.raw;
    else blocks.push(token.raw);
  }
  return blocks;
}

/**
 * Splits a growing text, lexing again only from its last block: the blocks before it cannot change when
 * text is appended (a setext underline or a list item can only join the block right before them).
 */
function splitGrowing(previous: { text: string; blocks: string[] } | null, text: string): string[] {
  if (!previous || previous.blocks.length < 2 || !text.startsWith(previous.text)) return splitBlocks(text);
  const stable = previous.blocks.slice(0, -1);
  const offset = stable.reduce((sum, block) => sum + block.length, 0);
  return [...stable, ...splitBlocks(text.slice(offset))];
}

/**
 * A line that is a whole link reference definition (`[docs]: https://… "Title"`: a destination with no space
 * in it, and at most a title after it) or starts a footnote's (`[^1]: …`). `[ERROR]: connection refused` is
 * neither: it is text.
 */
const DEFINITION =
  /^ {0,3}\[(?:(\^[^\]\n]+)\]:[ \t]*\S|([^\]\n^][^\]\n]*)\]:[ \t]*(?:<[^>\n]*>|[^\s<]\S*)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$)/;
/**
 * A reference's label: brackets with no bracket inside (CommonMark allows none unescaped). Excluding `[`
 * keeps the search linear: a line of `[[[[…` is read once, not once from each bracket to its end.
 */
const REFERENCE = /\[(\^?[^[\]\n]+)\]/g;

/** How CommonMark matches labels: any case, runs of white space as one. */
const labelKey = (label: string): string => label.trim().replace(/\s+/g, ' ').toLowerCase();

/** What one block defines and refers to, read once per block, not at each streamed word of a reply. */
interface BlockReferences {
  /** Its definitions by label, each as written (a footnote with its indented lines), the first of a label. */
  definitions: Map<string, string>;
  /** The labels it refers to, in order. */
  references: string[];
  /** It holds nothing but definitions (and blank or indented lines). */
  onlyDefinitions: boolean;
}

const readBlocks = new Map<string, BlockReferences>();
const READ_BLOCKS_MAX = 2_000;

function referencesOf(block: string): BlockReferences {
  const known = readBlocks.get(block);
  if (known) return known;
  const definitions = new Map<string, string>();
  // A block of definitions starts with one; the rest are text, whatever their later lines look like.
  if (DEFINITION.test(block.split('\n', 1)[0] ?? '')) {
    let current: string | null = null;
    for (const line of block.split('\n')) {
      const start = DEFINITION.exec(line);
      const label = start?.[1] ?? start?.[2];
      if (label) {
        // A footnote goes on over the indented lines after it; a link definition is one line.
        const key = labelKey(label);
        current = definitions.has(key) || !key.startsWith('^') ? null : key;
        if (!definitions.has(key)) definitions.set(key, line);
      } else if (current && /^\s+\S/.test(line)) {
        definitions.set(current, `${definitions.get(current)}\n${line}`);
      } else if (line.trim()) {
        current = null;
      }
    }
  }
  const read: BlockReferences = {
    definitions,
    references: [...block.matchAll(REFERENCE)].map((match) => labelKey(match[1] ?? '')),
    onlyDefinitions:
      definitions.size > 0 &&
      block.split('\n').every((line) => !line.trim() || DEFINITION.test(line) || /^\s/.test(line)),
  };
  readBlocks.set(block, read);
  if (readBlocks.size > READ_BLOCKS_MAX) readBlocks.delete(readBlocks.keys().next().value ?? '');
  return read;
}

/**
 * Each block as it is rendered: a block that uses a reference-style link or a footnote defined in another
 * block gets those definitions after it (they render nothing, or its footnotes), since each block is parsed
 * alone. A block of footnotes that other blocks carry that way is not shown again ('').
 */
export function withReferences(blocks: readonly string[]): string[] {
  const read = blocks.map(referencesOf);
  const definitions = new Map<string, { text: string; block: number }>();
  read.forEach((block, index) => {
    for (const [key, text] of block.definitions) {
      if (!definitions.has(key)) definitions.set(key, { text, block: index });
    }
  });
  if (definitions.size === 0) return [...blocks];
  const carried = new Set<string>();
  const sources = blocks.map((block, index) => {
    const needed: string[] = [];
    for (const key of read[index]?.references ?? []) {
      const definition = definitions.get(key);
      if (!definition || definition.block === index || needed.includes(definition.text)) continue;
      needed.push(definition.text);
      carried.add(key);
    }
    return needed.length > 0 ? `${block.trimEnd()}\n\n${needed.join('\n\n')}\n` : block;
  });
  // A block holding only definitions that went with the blocks using them has nothing left to show.
  return sources.map((source, index) => {
    const own = [...definitions].filter(([, definition]) => definition.block === index);
    const onlyCarried =
      read[index]?.onlyDefinitions === true && own.length > 0 && own.every(([key]) => carried.has(key));
    return onlyCarried ? '' : source;
  });
}

/**
 * `streaming`: the text is a reply still coming; its last block shows the cursor, and is not kept in the
 * cache of rendered blocks until it is finished. The cursor is on that block alone: a class on the whole
 * reply would have the style of every block worked out again when it ends.
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  // Information from the previous render, kept the way React documents for it.
  const [split, setSplit] = useState(() => ({ text, blocks: splitCached(text) }));
  let blocks = split.blocks;
  if (split.text !== text) {
    blocks = splitGrowing(split, text);
    setSplit({ text, blocks });
  }
  // Only a text with a definition in it needs its blocks to know of one another; drawn again with the same
  // text (the row re-rendered), the blocks are the same and so are their sources.
  const defines = text.includes(']:');
  const sources = useMemo(() => (defines ? withReferences(blocks) : blocks), [defines, blocks]);
  const scope = `m${useId().replace(/:/g, '')}-`;
  return (
    <FootnoteScope.Provider value={scope}>
      <div className="markdown">
        {sources.map((source, index) =>
          source === '' ? null : (
            <Block key={index} source={source} streaming={streaming && index === sources.length - 1} />
          ),
        )}
      </div>
    </FootnoteScope.Provider>
  );
}
