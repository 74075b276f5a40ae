import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { WorktreeChoices } from '../../../shared/ipc';
import { WorktreeFields, worktreeStart, type WorktreeValues } from './WorktreeFields';

/**
 * The new-conversation form's "In a new worktree" as it renders: offered only for a folder in a repository
 * (otherwise disabled, the reason beside it), and once ticked the base branch (the current one first and
 * picked, or a detached HEAD's commit), the name, the first message, what runs first; and what Start asks.
 */

const repository: WorktreeChoices = {
  available: true,
  repository: '/repo',
  branches: ['main', 'develop'],
  current: 'main',
  head: '0123456789abcdef',
  setupCommand: 'npm ci',
  notes: ['It has submodules: they are initialised in the worktree.'],
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
    expect(html).toContain('It has submodules');
  });

  it('offers a detached HEAD its commit, by its short hash', () => {
    const html = render({ ...repository, current: null, setupCommand: '', notes: [] }, { ...off, on: true });
    expect(html).toContain('<option value="0123456789abcdef" selected="">0123456 (detached HEAD)</option>');
    expect(html).not.toContain('Runs first');
  });

  it('asks main for the base picked, the name and the first message, only when ticked', () => {
    expect(worktreeStart(off, repository)).toBeNull();
    expect(worktreeStart({ ...off, on: true }, repository)).toEqual({ worktree: { base: 'main' } });
    expect(
      worktreeStart({ on: true, base: 'develop', name: ' fix-login ', firstMessage: 'Fix it' }, repository),
    ).toEqual({ worktree: { base: 'develop', name: 'fix-login' }, firstMessage: 'Fix it' });
    // Ticked for a repository, then the folder changed to one that is not.
    expect(worktreeStart({ ...off, on: true }, { available: false, reason: 'No.' })).toBeNull();
  });
});
