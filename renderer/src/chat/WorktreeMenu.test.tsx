import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { WorktreeDraft, WorktreeStatus } from '../../../shared/ipc';
import { MergeDialogView, PullRequestDialogView, RemoveDialogView, type MergeForm } from './WorktreeMenu';

/**
 * The Worktree menu's dialogs as they render from their state: the merge's form and its three outcomes
 * (merged, conflicts with nothing changed, refused), the pull request's draft, its reason when gh cannot
 * work, and its link; and what a removal loses (uncommitted files, and the commits the base lacks if the
 * branch goes), and that it waits for Claude's turn to end and for what is uncommitted to be read afresh.
 */

const none = () => undefined;

const draft: WorktreeDraft = {
  status: {
    path: '/repo/.claude/worktrees/fix-login',
    repository: '/repo',
    name: 'fix-login',
    branch: 'fix-login',
    base: 'main',
    baseCommit: 'abc1234',
    createdAt: 1,
    removed: false,
    ahead: 2,
    behind: 0,
    filesChanged: 2,
    uncommitted: ['src/login.ts'],
    problem: null,
  },
  commitMessage: 'Fix the login form\n\nIt kept the old password.',
  title: 'Fix the login form',
  body: 'It kept the old password.',
  pullRequest: { ready: true, remote: 'origin' },
};
const form: MergeForm = { squash: false, message: draft.commitMessage, commitUncommitted: true };

const merge = (patch: Partial<Parameters<typeof MergeDialogView>[0]> = {}) =>
  renderToStaticMarkup(
    <MergeDialogView
      draft={draft}
      loadError={null}
      form={form}
      busy={false}
      outcome={null}
      error={null}
      onChange={none}
      onMerge={none}
      {...patch}
    />,
  );

/** The tag of the button whose text is `name`. */
const button = (html: string, name: string) =>
  new RegExp(`<button[^>]*>${name}</button>`).exec(html)?.[0] ?? '';

describe('the merge dialog', () => {
  it('is named for the base, with Merge or Squash, the drafted message and the uncommitted files', () => {
    const html = merge();
    expect(html).toMatch(/<dialog[^>]*aria-labelledby="([^"]+)"/);
    expect(html).toContain('Merge into main</h2>');
    expect(html).toMatch(/<input type="radio" name="merge-how" checked=""\/>Merge/);
    expect(html).toContain('Squash');
    expect(html).toContain('Commit message');
    expect(html).toContain('Fix the login form\n\nIt kept the old password.</textarea>');
    expect(html).toContain('<code>src/login.ts</code>');
    expect(html).toMatch(/<input type="checkbox" checked=""\/>Commit uncommitted changes first/);
    expect(button(html, 'Merge')).not.toContain('disabled');
  });

  it('is busy and disabled while merging', () => {
    const html = merge({ busy: true });
    const busy = button(html, 'Merging…');
    expect(busy).toContain('disabled');
    expect(busy).toContain('aria-busy="true"');
  });

  it('says what was merged, by its short hash', () => {
    const html = merge({ outcome: { merged: true, commit: '0123456789abcdef', base: 'main' } });
    expect(html).toContain('Merged into main as <code>0123456</code>.');
    expect(button(html, 'Merge')).toBe('');
  });

  it('lists the conflicting files and says nothing was changed', () => {
    const html = merge({ outcome: { merged: false, conflicts: ['src/a.ts', 'src/b.ts'] } });
    expect(html).toContain('role="alert"');
    expect(html).toContain('<code>src/a.ts</code>');
    expect(html).toContain('<code>src/b.ts</code>');
    expect(html).toContain('Nothing was changed: resolve these in the worktree and merge again.');
  });

  it('shows the refusal and keeps the form', () => {
    const html = merge({ error: 'main has local changes in /repo: commit or stash them first.' });
    expect(html).toContain('main has local changes in /repo: commit or stash them first.');
    expect(html).toContain('Commit message');
  });
});

describe('the pull request dialog', () => {
  const render = (patch: Partial<Parameters<typeof PullRequestDialogView>[0]> = {}) =>
    renderToStaticMarkup(
      <PullRequestDialogView
        draft={draft}
        loadError={null}
        title={draft.title}
        body={draft.body}
        busy={false}
        created={null}
        error={null}
        onChange={none}
        onCreate={none}
        onOpen={none}
        {...patch}
      />,
    );

  it('offers the drafted title and body', () => {
    const html = render();
    expect(html).toContain('value="Fix the login form"');
    expect(html).toContain('It kept the old password.</textarea>');
    expect(button(html, 'Create pull request')).not.toBe('');
  });

  it('says how to get gh instead, when it cannot work', () => {
    const reason =
      'GitHub CLI (gh) is not installed: get it from https://cli.github.com, then run gh auth login.';
    const html = render({ draft: { ...draft, pullRequest: { ready: false, reason } } });
    expect(html).toContain(reason);
    expect(button(html, 'Create pull request')).toBe('');
    expect(html).not.toContain('Title');
  });

  it('links the pull request made', () => {
    const url = 'https://github.com/o/r/pull/7';
    const html = render({ created: { url, output: url } });
    expect(html).toContain(`<a href="${url}">${url}</a>`);
  });
});

describe('the remove dialog', () => {
  const render = (patch: Partial<Parameters<typeof RemoveDialogView>[0]> = {}) =>
    renderToStaticMarkup(
      <RemoveDialogView
        status={draft.status}
        fresh={true}
        atWork={false}
        loadError={null}
        deleteBranch={false}
        busy={false}
        error={null}
        onDeleteBranch={none}
        onRemove={none}
        {...patch}
      />,
    );
  const status = (patch: Partial<WorktreeStatus>) => ({ ...draft.status, ...patch });

  it('lists what is uncommitted, with the branch kept unless ticked', () => {
    const html = render();
    expect(html).toContain('<code>src/login.ts</code>');
    expect(html).toMatch(/<input type="checkbox"\/>Also delete the branch fix-login/);
    expect(button(html, 'Remove')).not.toContain('disabled');
  });

  it('says how many commits deleting the branch loses, those its base lacks', () => {
    const html = render({ status: status({ uncommitted: [] }) });
    expect(html).toContain('Nothing is uncommitted.');
    expect(html).not.toContain('every change');
    expect(html).toContain('2 commits on fix-login are not in main.');
    expect(html).toMatch(
      /<input type="checkbox"\/>Also delete the branch fix-login and its 2 commits not in main<\/label>/,
    );
    const one = render({ status: status({ ahead: 1 }) });
    expect(one).toContain('1 commit on fix-login is not in main.');
    expect(one).toContain('Also delete the branch fix-login and its 1 commit not in main</label>');
  });

  it('says when the base has every commit of the branch', () => {
    const html = render({ status: status({ ahead: 0 }) });
    expect(html).toContain('Its commits are all in main.');
    expect(html).toMatch(/<input type="checkbox"\/>Also delete the branch fix-login<\/label>/);
  });

  it("counts a detached worktree's commits from the commit it was made from", () => {
    const html = render({ status: status({ base: null, baseCommit: '0123456789abcdef' }) });
    expect(html).toContain('2 commits on fix-login are not in 0123456, the commit it was made from.');
    expect(html).toContain('Also delete the branch fix-login and its 2 commits not in 0123456</label>');
  });

  it('says when the commits could not be counted, and that deleting may lose some', () => {
    const html = render({ status: status({ ahead: null, problem: 'Its base branch main is gone.' }) });
    expect(html).toContain(
      'How many commits on fix-login are not in main could not be counted. Its base branch main is gone.',
    );
    expect(html).toContain('Also delete the branch fix-login, and any commits on it not in main</label>');
  });

  it('cannot remove while Claude is at work in the conversation', () => {
    const html = render({ atWork: true });
    expect(html).toMatch(
      /role="alert">Claude is at work in this conversation: stop it before removing its worktree.</,
    );
    expect(button(html, 'Remove')).toContain('disabled');
    expect(render()).not.toContain('Claude is at work');
  });

  it('cannot remove until what is uncommitted has been read afresh', () => {
    const reading = render({ fresh: false });
    expect(reading).toContain('Reading what is uncommitted now…');
    expect(button(reading, 'Remove')).toContain('disabled');
    const failed = render({ fresh: false, loadError: 'The worktree could not be read.' });
    expect(failed).toMatch(/role="alert">The worktree could not be read.</);
    expect(button(failed, 'Remove')).toContain('disabled');
  });

  it('cannot remove before it knows what would be lost', () => {
    expect(button(render({ status: null }), 'Remove')).toContain('disabled');
    expect(render({ status: null, loadError: 'The worktree could not be read.' })).toContain(
      'The worktree could not be read.',
    );
  });
});
