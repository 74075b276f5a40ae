/**
 * One file's diff in the Changes panel: a text diff unified or side by side, highlighted as the chat's code
 * is, and virtualized (rows of one fixed height, only those in sight drawn and highlighted) so a diff of
 * 100,000 lines scrolls as smoothly as one of ten. A binary file shows its sizes; a symbolic link its targets
 * and a submodule its commits, neither followed.
 */
import { useVirtualizer, type Rect } from '@tanstack/react-virtual';
import { memo, useMemo, useRef, type ReactNode } from 'react';
import type { FileDiff } from '../../../shared/ipc';
import type { DiffLayout } from '../state/types';
import { splitRows, unifiedRows, type Side, type SplitRow, type UnifiedRow } from './diff-rows';
import { highlightLine, languageOf } from './highlight';

/** Every row is this tall (px): lines never wrap, so the virtualizer needs no measuring. */
export const DIFF_ROW_HEIGHT = 20;
/** Lines longer than this are cut on screen, saying how much is left out. */
const LONGEST_SHOWN = 5_000;
/** Before the view is measured (and in a test), it draws rows for a window this tall. */
const FIRST_RECT: Rect = { width: 800, height: 600 };

export function DiffView(props: { diff: FileDiff; layout: DiffLayout; onLayout(layout: DiffLayout): void }) {
  const { diff, layout, onLayout } = props;
  if (diff.kind !== 'text') return <p className="changes-diff-plain">{describeOther(diff)}</p>;
  return (
    <div className="changes-diff">
      <div className="changes-diff-bar">
        <div role="group" aria-label="Diff layout" className="changes-layout">
          <button
            type="button"
            className="button-secondary"
            aria-pressed={layout === 'unified'}
            onClick={() => onLayout('unified')}
          >
            Unified
          </button>
          <button
            type="button"
            className="button-secondary"
            aria-pressed={layout === 'split'}
            onClick={() => onLayout('split')}
          >
            Side by side
          </button>
        </div>
      </div>
      {diff.cut && <p className="changes-note">{diff.cut}</p>}
      {diff.hunks.length === 0 ? (
        <p className="changes-diff-plain">No lines differ (only the file’s mode or its name changed).</p>
      ) : (
        <TextDiff diff={diff} layout={layout} />
      )}
    </div>
  );
}

/** What a diff that is not text says, in one line. */
export function describeOther(diff: Exclude<FileDiff, { kind: 'text' }>): string {
  switch (diff.kind) {
    case 'binary':
      return `Binary file, ${size(diff.before)} → ${size(diff.after)}`;
    case 'symlink':
      return `Symbolic link: ${diff.before ?? 'none'} → ${diff.after ?? 'none'}`;
    case 'submodule':
      return `Submodule: ${commit(diff.before)} → ${commit(diff.after)}`;
  }
}

function size(bytes: number | null): string {
  if (bytes === null) return 'none';
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ${units[unit]}`;
}

const commit = (id: string | null) => (id === null ? 'none' : id.slice(0, 7));

type TextFileDiff = Extract<FileDiff, { kind: 'text' }>;

function TextDiff({ diff, layout }: { diff: TextFileDiff; layout: DiffLayout }) {
  const language = useMemo(() => languageOf(diff.path), [diff.path]);
  const built = useMemo(
    () => (layout === 'split' ? splitRows(diff.hunks) : unifiedRows(diff.hunks)),
    [diff.hunks, layout],
  );
  const scroller = useRef<HTMLDivElement>(null);
  // Its rows are read from it at each render and none of its functions is handed to memoized code.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: built.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => DIFF_ROW_HEIGHT,
    overscan: 15,
    initialRect: FIRST_RECT,
  });
  // Unified, the view is as wide as its widest line (numbers, mark and text in `ch`) and scrolls sideways;
  // side by side, both sides fit the view, each cut at its edge (unified shows the rest).
  const width = 2 * built.digits + 6 + Math.min(built.widest, LONGEST_SHOWN);
  return (
    <div
      ref={scroller}
      className={`changes-diff-scroll changes-diff-${layout}`}
      role="region"
      aria-label={`Diff of ${diff.path}`}
      tabIndex={0}
      style={{ ['--digits' as string]: `${built.digits}ch` }}
    >
      <div
        className="changes-diff-rows"
        style={{
          height: virtualizer.getTotalSize(),
          width: layout === 'split' ? '100%' : `max(100%, ${width}ch)`,
        }}
      >
        {virtualizer.getVirtualItems().map((item) => {
          const row = built.rows[item.index];
          if (!row) return null;
          return (
            <div
              key={item.index}
              className={`changes-diff-row changes-diff-${rowClass(row)}`}
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {layout === 'split' ? (
                <SplitLine row={row as SplitRow} language={language} />
              ) : (
                <UnifiedLine row={row as UnifiedRow} language={language} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function rowClass(row: UnifiedRow | SplitRow): string {
  if (row.kind !== 'line') return row.kind;
  return row.mark === '+' ? 'added' : row.mark === '-' ? 'removed' : 'kept';
}

const UnifiedLine = memo(function UnifiedLine(props: { row: UnifiedRow; language: string | null }) {
  const { row, language } = props;
  if (row.kind !== 'line') return <span className="changes-diff-meta">{row.text}</span>;
  return (
    <>
      <span className="changes-diff-number">{row.old ?? ''}</span>
      <span className="changes-diff-number">{row.new ?? ''}</span>
      <span className="changes-diff-mark">{row.mark}</span>
      <code className="changes-diff-text hljs">{lineText(row.text, language)}</code>
    </>
  );
});

const SplitLine = memo(function SplitLine(props: { row: SplitRow; language: string | null }) {
  const { row, language } = props;
  if (row.kind !== 'pair') return <span className="changes-diff-meta">{row.text}</span>;
  return (
    <>
      <SideCells side={row.left} language={language} />
      <SideCells side={row.right} language={language} />
    </>
  );
});

function SideCells({ side, language }: { side: Side | null; language: string | null }) {
  const tone = side === null ? 'empty' : side.mark === '+' ? 'added' : side.mark === '-' ? 'removed' : 'kept';
  return (
    <>
      <span className={`changes-diff-number changes-diff-side-${tone}`}>{side?.number ?? ''}</span>
      <code className={`changes-diff-text hljs changes-diff-side-${tone}`}>
        {side && (
          <>
            <span className="changes-diff-mark">{side.mark === ' ' ? ' ' : side.mark}</span>
            {lineText(side.text, language)}
          </>
        )}
      </code>
    </>
  );
}

function lineText(text: string, language: string | null): ReactNode {
  if (text.length <= LONGEST_SHOWN) return highlightLine(text, language);
  return (
    <>
      {text.slice(0, LONGEST_SHOWN)}
      <span className="changes-diff-more">
        {' '}
        … {(text.length - LONGEST_SHOWN).toLocaleString('en')} more characters
      </span>
    </>
  );
}
