import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ChangesView, FileDiff } from '../../../shared/ipc';
import { closedPanel } from '../state/changes';
import type { ChangesPanel, RevertQuestion } from '../state/types';
import { ChangesPanelView, FIRST_FILE_ROWS, type PanelActions } from './ChangesPanel';
import { DiffView } from './DiffView';

/**
 * The Changes panel as it renders from its state: each changed file a list item with its path, status,
 * counts, the steps that changed it and its "Revert <path>" button; the Turn filter's steps; the revert
 * question; and the diff, unified or side by side, binary, symlink and submodule, virtualized.
 */

const none = () => undefined;
const on: PanelActions = {
  close: none,
  retry: none,
  pick: none,
  scope: none,
  select: none,
  layout: none,
  revert: none,
  overwrite: none,
  cancel: none,
  confirm: none,
};

const view: ChangesView = {
  state: { kind: 'on' },
  root: '/work/app',
  inRepository: true,
  repositoryState: 'a rebase',
  steps: [
    { kind: 'turn', step: 1, turn: 1, prompt: 'Add a parser', uuid: 'u1', at: 1, files: 2 },
    { kind: 'turn', step: 2, turn: 2, prompt: 'Format everything', uuid: 'u2', at: 2, files: 2 },
    {
      kind: 'revert',
      step: 3,
      to: 'the start of turn 2',
      paths: ['src/app.ts'],
      at: 3,
      files: 1,
      undone: false,
    },
    { kind: 'undo', step: 4, undoes: 3, paths: ['src/app.ts'], at: 4, files: 1 },
  ],
  step: null,
  files: [
    {
      path: 'src/app.ts',
      from: null,
      status: 'modified',
      kind: 'file',
      added: 12,
      removed: 3,
      steps: [
        { step: 1, causes: [{ tool: 'Edit', command: null }] },
        { step: 2, causes: [{ tool: 'Bash', command: 'npm run fmt' }] },
      ],
      changedSince: true,
    },
    {
      path: 'assets/logo.png',
      from: null,
      status: 'added',
      kind: 'file',
      added: null,
      removed: null,
      steps: [{ step: 2, causes: [{ tool: null, command: null }] }],
      changedSince: false,
    },
    {
      path: 'src/new-name.ts',
      from: 'src/old-name.ts',
      status: 'renamed',
      kind: 'file',
      added: 0,
      removed: 0,
      steps: [{ step: 1, causes: [{ tool: 'Bash', command: 'git mv src/old-name.ts src/new-name.ts' }] }],
      changedSince: false,
    },
    {
      path: 'link',
      from: null,
      status: 'added',
      kind: 'symlink',
      added: null,
      removed: null,
      steps: [],
      changedSince: false,
    },
  ],
  notes: ['Files .gitignore leaves out are not tracked.', 'Files .gitignore leaves out are not tracked.'],
};

const panel = (patch: Partial<ChangesPanel> = {}): ChangesPanel => ({
  ...closedPanel,
  open: true,
  view,
  total: view.files.length,
  ...patch,
});

const render = (state: ChangesPanel) =>
  renderToStaticMarkup(<ChangesPanelView id="changes-c1" panel={state} layout="unified" on={on} />);

/** The text of each list item of the "Changed files" list. */
function rows(html: string): string[] {
  const list = /<ul class="changes-files"[^>]*>([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((match) =>
    match[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

const optionsOf = (html: string) =>
  [...html.matchAll(/<option value="(\d*)"[^>]*>([^<]*)<\/option>/g)].map((match) => [match[1], match[2]]);

describe('the Changes panel', () => {
  it('is a region named Changes listing each file with its status, counts and the steps that changed it', () => {
    const html = render(panel());
    expect(html).toMatch(/<section[^>]*aria-label="Changes"/);
    expect(html).toContain('aria-label="Changed files"');
    expect(rows(html)).toEqual([
      'src/app.ts Revert modified +12 −3 Changed since the last turn turn 1 “Add a parser” · Edit turn 2 “Format everything” · Bash: npm run fmt',
      'assets/logo.png Revert added binary turn 2 “Format everything” · not by Claude’s tools',
      'src/new-name.ts Revert renamed from src/old-name.ts +0 −0 turn 1 “Add a parser” · Bash: git mv src/old-name.ts src/new-name.ts',
      'link Revert added, symlink',
    ]);
    // Each row's revert button is named with its path.
    expect(html).toContain('aria-label="Revert src/app.ts"');
    expect(html).toContain('aria-label="Revert assets/logo.png"');
  });

  it('draws a screenful of a thousand files first, and says all of them changed', () => {
    const many = Array.from({ length: 1000 }, (_, index) => ({
      ...view.files[0]!,
      path: `src/file-${String(index).padStart(4, '0')}.ts`,
    }));
    const html = render(panel({ view: { ...view, files: many }, total: many.length }));
    expect(html).toContain('1,000 files changed since the conversation’s start.');
    const listed = rows(html);
    // The rest come in the frames after it (changes.e2e.ts sees all of them listed).
    expect(listed).toHaveLength(FIRST_FILE_ROWS);
    expect(listed[0]).toMatch(/^src\/file-0000\.ts /);
  });

  it('says which state the repository is in, and each note once', () => {
    const html = render(panel());
    expect(html).toContain('The repository is in the middle of a rebase.');
    expect(html.split('Files .gitignore leaves out are not tracked.')).toHaveLength(2);
  });

  it('lists every step in the Turn filter, and offers the revert that fits the step picked', () => {
    const all = render(panel());
    expect(all).toMatch(/<label class="changes-turn">Turn<select/);
    expect(optionsOf(all)).toEqual([
      ['', 'All turns'],
      ['1', 'Turn 1: Add a parser'],
      ['2', 'Turn 2: Format everything'],
      ['3', 'Revert: src/app.ts to the start of turn 2'],
      ['4', 'Undo of revert 3: src/app.ts'],
    ]);
    expect(all).not.toContain('Revert this turn');
    expect(all).toContain('3 files changed since the conversation’s start.'.replace('3', '4'));

    const turn = render(panel({ step: 2, view: { ...view, step: 2 } }));
    expect(turn).toContain('>Revert this turn</button>');
    expect(turn).toContain('4 files changed in turn 2.');
    expect(turn).not.toContain('Undo this revert');

    const revert = render(panel({ step: 3, view: { ...view, step: 3 } }));
    expect(revert).toContain('>Undo this revert</button>');
    expect(revert).not.toContain('Revert this turn');
  });

  it('says why changes are off, or that the first snapshot is being taken', () => {
    // Main's reasons are whole sentences: shown as they are, said once.
    const off = render(
      panel({ view: { ...view, state: { kind: 'off', reason: 'Changes are off: git is not installed.' } } }),
    );
    expect(off).toContain('Changes are off: git is not installed.');
    expect(off.match(/Changes are off/g)).toHaveLength(1);
    expect(render(panel({ view: { ...view, state: { kind: 'starting' } } }))).toContain(
      'Taking the first snapshot of the folder…',
    );
  });

  it('shows an error inline, with the last view kept and a way to try again', () => {
    const html = render(panel({ error: 'The conversation has ended.' }));
    expect(html).toContain('The changes could not be read: The conversation has ended.');
    expect(html).toContain('>Try again</button>');
    expect(rows(html)).toHaveLength(4);
    expect(render(panel({ view: null, error: 'Timed out' }))).toContain('role="alert"');
  });

  it('asks before a revert: a dialog listing what changes, flagging files changed since, with Revert', () => {
    const question: RevertQuestion = {
      target: { kind: 'step', step: 2 },
      preview: {
        to: 'the start of turn 2',
        files: [
          { path: 'src/app.ts', action: 'restore', changedSince: true },
          { path: 'made-by-bash.txt', action: 'delete', changedSince: false },
          { path: 'gone.txt', action: 'create', changedSince: false },
        ],
      },
      overwriteChanged: false,
      error: null,
      busy: false,
    };
    const html = render(panel({ step: 2, revert: question }));
    expect(html).toMatch(/<dialog[^>]*aria-modal="true"/);
    expect(html).toContain('Revert turn 2?');
    expect(html).toContain('Back to the start of turn 2.');
    expect(html).toContain(
      '<code>made-by-bash.txt</code> <span class="muted">deleted (it did not exist then)</span>',
    );
    expect(html).toContain('<code>gone.txt</code> <span class="muted">made again</span>');
    expect(html).toMatch(/<code>src\/app.ts<\/code>.*?Changed since the last turn/);
    // Overwriting what was changed by hand is off until the user ticks it.
    expect(html).toMatch(/<input type="checkbox"\/>Overwrite the file changed/);
    expect(html).toMatch(/<button type="button" class="button-primary">Revert<\/button>/);

    const waiting = render(panel({ revert: { ...question, preview: null, busy: true } }));
    expect(waiting).toContain('Checking what would change…');
    expect(waiting).toMatch(/<button type="button" class="button-primary" disabled="">Revert<\/button>/);
  });

  it('says what the last revert did', () => {
    expect(render(panel({ reverted: 'Reverted 1 file to the start of turn 2.' }))).toContain(
      'Reverted 1 file to the start of turn 2.',
    );
  });
});

/** The rows the diff drew, each as its text. */
const diffRows = (html: string) =>
  [...html.matchAll(/<div class="changes-diff-row ([^"]*)"[^>]*>([\s\S]*?)<\/div>/g)].map((match) => ({
    kind: match[1],
    text: match[2]!.replace(/<[^>]+>/g, '|').replace(/\|+/g, '|'),
  }));

const textDiff: FileDiff = {
  kind: 'text',
  path: 'src/app.ts',
  cut: null,
  hunks: [
    {
      oldStart: 1,
      oldLines: 3,
      newStart: 1,
      newLines: 3,
      header: 'function main',
      lines: [' const a = 1;', '-const b = 2;', '+const b = 3;', ' const c = 4;'],
    },
  ],
};

const renderDiff = (diff: FileDiff, layout: 'unified' | 'split' = 'unified') =>
  renderToStaticMarkup(<DiffView diff={diff} layout={layout} onLayout={none} />);

describe('the diff', () => {
  it('unified: one row per line with its numbers, the hunk header first, highlighted', () => {
    const html = renderDiff(textDiff);
    expect(diffRows(html).map((row) => row.kind)).toEqual([
      'changes-diff-hunk',
      'changes-diff-kept',
      'changes-diff-removed',
      'changes-diff-added',
      'changes-diff-kept',
    ]);
    expect(html).toContain('@@ -1,3 +1,3 @@ function main');
    expect(diffRows(html)[2]!.text).toBe('|2|-|const| b = |2|;|');
    // The chat's highlighter, by the file's extension.
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toMatch(/aria-pressed="true"[^>]*>Unified</);
  });

  it('side by side: the removed line beside the line that took its place', () => {
    const html = renderDiff(textDiff, 'split');
    const rows = diffRows(html);
    expect(rows).toHaveLength(4);
    expect(rows[2]!.text).toBe('|2|-|const| b = |2|;|2|+|const| b = |3|;|');
    expect(html).toMatch(
      /changes-diff-side-removed">2<\/span><code class="changes-diff-text hljs changes-diff-side-removed">.*?2.*?<span class="changes-diff-number changes-diff-side-added">2<\/span>/,
    );
    expect(html).toMatch(/aria-pressed="true"[^>]*>Side by side</);
  });

  it('draws only a window of a 100,000-line diff', () => {
    const lines = Array.from({ length: 100_000 }, (_, index) => `+line ${index}`);
    const html = renderDiff({
      kind: 'text',
      path: 'big.txt',
      cut: 'Only the first 100,000 lines are shown.',
      hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 100_000, header: '', lines }],
    });
    const drawn = diffRows(html).length;
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(100);
    // The whole diff's height, so the scroll bar is the whole diff's.
    expect(html).toContain('height:2000020px');
    expect(html).toContain('Only the first 100,000 lines are shown.');
  });

  it('shows a binary file by its sizes, a link by its targets and a submodule by its commits', () => {
    expect(renderDiff({ kind: 'binary', path: 'a.png', before: 12_288, after: 14_336 })).toContain(
      'Binary file, 12 KB → 14 KB',
    );
    expect(renderDiff({ kind: 'binary', path: 'a.png', before: null, after: 300 })).toContain(
      'Binary file, none → 300 bytes',
    );
    expect(renderDiff({ kind: 'symlink', path: 'a', before: 'a', after: 'b' })).toContain(
      'Symbolic link: a → b',
    );
    expect(
      renderDiff({ kind: 'submodule', path: 'lib', before: 'abc1234ffff', after: 'def5678eeee' }),
    ).toContain('Submodule: abc1234 → def5678');
  });
});

describe('the Changes panel of a worktree conversation', () => {
  it('offers "Against <base>" first, then the conversation\'s own changes, as the view says', () => {
    const base = { branch: 'main', commit: 'abc1234' };
    const html = render(panel({ view: { ...view, base, scope: 'base' } }));
    expect(html).toMatch(/role="radiogroup" aria-label="Show"/);
    expect(html).toMatch(
      /<input type="radio"[^>]*checked=""[^>]*\/>Against main<\/label><label><input type="radio"[^>]*\/>This conversation&#x27;s changes/,
    );
    // Against the base, there are no steps to pick.
    expect(html).toMatch(/<div class="changes-controls" hidden="">/);
    const own = render(panel({ view: { ...view, base, scope: 'conversation' } }));
    expect(own).toMatch(/<input type="radio"[^>]*checked=""[^>]*\/>This conversation/);
    expect(own).not.toContain('hidden=""');
  });

  it('has no toggle outside a worktree', () => {
    expect(render(panel())).not.toContain('aria-label="Show"');
  });
});
