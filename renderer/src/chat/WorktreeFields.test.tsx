import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { WorktreeChoices } from '../../../shared/ipc';
import { WorktreeFields, worktreeStart, type FolderAnswer, type WorktreeValues } from './WorktreeFields';

/**
 * The new-conversation form's "In a new worktree" as it renders: offered only for a folder in a repository
 * (otherwise disabled, the reason beside it), and once ticked the base branch (the current one first and
 * picked, or a detached HEAD's commit), the name, the first message, what runs first; and what Start asks,
 * or why it waits: a ticked box never starts a conversation without its worktree.
 */

const repository: WorktreeChoices = {
  available: true,
  repository: '/repo',
  branches: ['main', 'develop'],
  current: 'main',
  head: '0123456789abcdef',
  setupCommand: 'npm ci',
  notes: [],
  submodules: [{ path: 'vendor/lib', url: 'https://example.com/lib.git' }],
};
const off: WorktreeValues = { on: false, base: '', name: '', firstMessage: '' };
const none = () => undefined;

const render = (choices: WorktreeChoices | null, values: WorktreeValues = off, folder = '/repo') =>
  renderToStaticMarkup(<WorktreeFields folder={folder} choices={choices} values={values} onChange={none} />);

/** The checkbox's own tag. */
const checkbox = (html: string) => /<input type="checkbox"[^>]*>/.exec(html)?.[0] ?? '';

describe('"In a new worktree" in the new-conversation form', () => {
  it('is disabled outside a repository, with the reason beside it', () => {
    const html = render({ available: false, reason: 'This folder is not in a git repository.' });
    const box = checkbox(html);
    expect(box).toContain('disabled');
    const described = /aria-describedby="([^"]+)"/.exec(box)?.[1];
    expect(described).toBeTruthy();
    expect(html).toContain(`id="${described}"`);
    expect(html).toContain('This folder is not in a git repository.');
    expect(html).not.toContain('Base branch');
  });

  it('is disabled while the folder is being asked about, and with no folder', () => {
    expect(checkbox(render(null))).toContain('disabled');
    expect(render(null)).toContain('Checking whether this folder is in a git repository…');
    expect(render(repository, off, ' ')).toContain('Choose a folder in a git repository first.');
  });

  it('is enabled in a repository, its fields hidden until it is ticked', () => {
    const html = render(repository);
    expect(checkbox(html)).not.toContain('disabled');
    expect(html).not.toContain('Base branch');
  });

  it('ticked, offers the branches with the current one picked, the name, the first message and the setup', () => {
    const html = render(repository, { ...off, on: true });
    expect(html).toContain('Base branch');
    expect(html).toMatch(/<option value="main" selected="">main<\/option><option value="develop">/);
    expect(html).toContain('Worktree name');
    expect(html).toContain('placeholder="Made from the first message"');
    expect(html).toContain('First message');
    expect(html).toContain('Runs first: <code>npm ci</code>');
    expect(html).toContain('Change in Settings');
    // Its submodules are listed with where each comes from, and fetched only when ticked.
    expect(html).toContain(
      '<code>vendor/lib</code> from <code class="worktree-submodule-url">https://example.com/lib.git</code>',
    );
    expect(html).toMatch(/<input type="checkbox"\/>Fetch its submodules into the worktree/);
    expect(render({ ...repository, submodules: [] }, { ...off, on: true })).not.toContain('submodules');
  });

  it('offers a detached HEAD its commit, by its short hash', () => {
    const html = render({ ...repository, current: null, setupCommand: '', notes: [] }, { ...off, on: true });
    expect(html).toContain('<option value="0123456789abcdef" selected="">0123456 (detached HEAD)</option>');
    expect(html).not.toContain('Runs first');
  });

  it('stays ticked, and can be unticked, while the folder is asked about or when it cannot have one', () => {
    const checking = render(null, { ...off, on: true });
    expect(checkbox(checking)).toContain('checked');
    expect(checkbox(checking)).not.toContain('disabled');
    expect(checking).toContain('Checking whether this folder is in a git repository…');
    const refused = render(
      { available: false, reason: 'This folder is not in a git repository.' },
      { ...off, on: true },
    );
    expect(checkbox(refused)).toContain('checked');
    expect(checkbox(refused)).not.toContain('disabled');
    expect(refused).toContain('This folder is not in a git repository.');
    expect(refused).not.toContain('Base branch');
  });
});

describe('what Start asks for the worktree', () => {
  const answered: FolderAnswer = { folder: '/repo', choices: repository };
  const ticked: WorktreeValues = { ...off, on: true, firstMessage: 'Fix it' };

  it('asks main for the base picked, the name and the first message, only when ticked', () => {
    expect(worktreeStart(off, '/repo', answered)).toEqual({ ready: true, options: {} });
    expect(worktreeStart(off, '/elsewhere', null)).toEqual({ ready: true, options: {} });
    expect(worktreeStart({ ...off, on: true }, '/repo', answered)).toEqual({
      ready: true,
      options: { worktree: { base: 'main' } },
    });
    expect(worktreeStart({ ...off, on: true, submodules: true }, '/repo', answered)).toEqual({
      ready: true,
      options: { worktree: { base: 'main', submodules: true } },
    });
    expect(
      worktreeStart(
        { on: true, base: 'develop', name: ' fix-login ', firstMessage: 'Fix it' },
        ' /repo ',
        answered,
      ),
    ).toEqual({
      ready: true,
      options: { worktree: { base: 'develop', name: 'fix-login' }, firstMessage: 'Fix it' },
    });
  });

  it('waits, saying so, while the folder as typed has not been answered for', () => {
    expect(worktreeStart(ticked, '/repo', null)).toEqual({
      ready: false,
      waiting: 'Checking the folder for a worktree…',
    });
    // The answer in hand is for the folder before the last edit.
    expect(worktreeStart(ticked, '/repo/other', answered)).toEqual({
      ready: false,
      waiting: 'Checking the folder for a worktree…',
    });
  });

  it('never starts without the worktree when the folder cannot have one', () => {
    const refused = worktreeStart(ticked, '/tmp', {
      folder: '/tmp',
      choices: { available: false, reason: 'This folder is not in a git repository.' },
    });
    expect(refused).toEqual({
      ready: false,
      waiting: 'No worktree can be made here: untick “In a new worktree” to start in the folder itself.',
    });
    expect(worktreeStart(ticked, ' ', null)).toMatchObject({ ready: false });
  });
});
