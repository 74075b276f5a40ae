import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { Gate, type ScriptedReply } from './fake-model/server';
import { claude, finished, log, send, yourMessage } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * Worktrees in Chromium through the browser host, against the real CLI and the fake model, in a real git
 * repository: a conversation started in a new worktree from a chosen base, its place in the sidebar under
 * its repository (branch, state, files changed, ahead of its base), "Merge into <base>" and "Remove
 * worktree", with the main checkout's `git status` unchanged throughout.
 */

test.use({
  folderIsRepository: true,
  folderFiles: { 'README.md': '# app\n', 'src/app.ts': 'export const answer = 41;\n' },
});

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@t',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

const tool = (name: string, input: Record<string, unknown>): ScriptedReply => ({
  blocks: [{ type: 'tool_use', name, input }],
});
const text = (words: string): ScriptedReply => ({ blocks: [{ type: 'text', text: words }] });

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });

/** A `develop` branch with a file `main` lacks, so that a worktree based on it can be told apart. */
function addDevelopBranch(cwd: string): void {
  git(cwd, 'checkout', '--quiet', '-b', 'develop');
  execFileSync('sh', ['-c', "printf 'from develop\\n' > develop.txt"], { cwd });
  git(cwd, 'add', 'develop.txt');
  git(cwd, 'commit', '--quiet', '-m', 'develop');
  git(cwd, 'checkout', '--quiet', 'main');
}

/** Starts a conversation in a new worktree named `name` from `base`, with its first message. */
async function startInWorktree(
  page: Page,
  cwd: string,
  options: { base: string; name: string; first: string; mode?: string },
) {
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByRole('textbox', { name: 'Working folder' }).fill(cwd);
  if (options.mode) await form.getByRole('combobox', { name: 'Permission mode' }).selectOption(options.mode);
  const inWorktree = form.getByRole('checkbox', { name: 'In a new worktree' });
  await expect(inWorktree).toBeEnabled();
  await inWorktree.check();
  await form.getByRole('combobox', { name: 'Base branch' }).selectOption(options.base);
  await form.getByRole('textbox', { name: 'Worktree name' }).fill(options.name);
  await form.getByRole('textbox', { name: 'First message' }).fill(options.first);
  await form.getByRole('button', { name: 'Start' }).click();
}

test('starts in a new worktree from a chosen base, lists it under its repository with its state, and merges it into the base', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  addDevelopBranch(cwd);
  const statusBefore = git(cwd, 'status', '--porcelain');
  const worktree = join(cwd, '.claude', 'worktrees', 'greeting');
  const gate = new Gate();
  fake.enqueue(tool('Write', { file_path: join(worktree, 'greeting.txt'), content: 'hello\n' }), {
    blocks: [{ type: 'text', text: 'Wrote the greeting file for you.' }],
    hold: { after: 2, until: gate },
  });
  await startInWorktree(page, cwd, { base: 'develop', name: 'greeting', first: 'write a greeting file' });

  // The header says where it runs: the worktree's branch and its base.
  const banner = page.getByRole('banner');
  await expect(banner).toContainText('⎇ greeting → develop');
  await expect(yourMessage(page, 'write a greeting file')).toBeVisible();
  // The sidebar lists it under its repository (one heading, the repository's) while it runs.
  const rows = sidebar(page).getByRole('button');
  const row = rows.filter({ hasText: 'write a greeting file' });
  await expect(row).toContainText('Running');
  await expect(row).toContainText('⎇ greeting');
  await expect(sidebar(page).getByRole('heading')).toHaveText([/^work/]);

  // A second worktree conversation that asks before acting: it waits for the user.
  fake.enqueue(tool('Bash', { command: 'echo hi > asked.txt', description: 'write a file' }), text('Done.'));
  await startInWorktree(page, cwd, { base: 'main', name: 'asking', first: 'run a command', mode: 'default' });
  const asking = rows.filter({ hasText: 'run a command' });
  await expect(asking).toContainText('Waiting for you');
  await expect(asking).toContainText('⎇ asking');
  await expect(sidebar(page).getByRole('heading')).toHaveText([/^work/]);

  // The first one ends.
  gate.release();
  await expect(row).toContainText('Done');
  await expect(row).toContainText('1 file');
  await row.click();
  await expect(finished(page)).toHaveCount(1);
  await expect(claude(page).last()).toContainText('Wrote the greeting file');

  // The worktree has the base's files and Claude's; the main checkout has neither, and its status is as it was.
  expect(readFileSync(join(worktree, 'greeting.txt'), 'utf8')).toBe('hello\n');
  expect(existsSync(join(worktree, 'develop.txt'))).toBe(true);
  expect(existsSync(join(cwd, 'greeting.txt'))).toBe(false);
  expect(git(cwd, 'status', '--porcelain')).toBe(statusBefore);

  // Merge into develop, committing what is uncommitted first.
  await banner.getByRole('button', { name: 'Worktree' }).click();
  await page.getByRole('menuitem', { name: 'Merge into develop' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('greeting.txt');
  await expect(dialog.getByRole('textbox', { name: 'Commit message' })).not.toHaveValue('');
  // This machine's git has no name or email for commits: the dialog says how to give one, and nothing moved.
  const developBefore = git(cwd, 'rev-parse', 'develop');
  await dialog.getByRole('button', { name: 'Merge' }).click();
  await expect(dialog.getByRole('alert')).toContainText('git does not know who commits are by');
  expect(git(cwd, 'rev-parse', 'develop')).toBe(developBefore);
  writeFileSync(join(webHost.world.home, '.gitconfig'), '[user]\n\tname = Tester\n\temail = t@example.com\n');
  await dialog.getByRole('button', { name: 'Merge' }).click();
  await expect(dialog).toContainText('Merged');
  expect(git(cwd, 'show', 'develop:greeting.txt')).toBe('hello\n');
  expect(git(cwd, 'status', '--porcelain')).toBe(statusBefore);
  expect(git(cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  // Merged: nothing is ahead of the base any more, and nothing is uncommitted.
  await expect(row).toContainText('0 files');
});

test('removes a worktree after asking, and keeps its conversation in the library', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  const statusBefore = git(cwd, 'status', '--porcelain');
  const worktree = join(cwd, '.claude', 'worktrees', 'notes');
  fake.enqueue(
    tool('Write', { file_path: join(worktree, 'notes.txt'), content: 'a note\n' }),
    text('Wrote the notes.'),
  );
  await startInWorktree(page, cwd, { base: 'main', name: 'notes', first: 'write some notes' });
  await expect(finished(page)).toHaveCount(1);

  await page.getByRole('banner').getByRole('button', { name: 'Worktree' }).click();
  await page.getByRole('menuitem', { name: 'Remove worktree' }).click();
  const dialog = page.getByRole('dialog');
  // It says what would be lost.
  await expect(dialog).toContainText('notes.txt');
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => existsSync(worktree)).toBe(false);
  // The branch stays (not ticked), the main checkout is as it was.
  expect(git(cwd, 'branch', '--list', 'notes').trim()).toContain('notes');
  expect(git(cwd, 'status', '--porcelain')).toBe(statusBefore);
  // The conversation is still listed under its first prompt, and opens read-only with Resume.
  await expect(sidebar(page).getByRole('button', { name: /write some notes/ })).toBeVisible();
  await expect(
    page.getByText('Its worktree was removed. Resume makes it again from its branch notes'),
  ).toBeVisible();

  // Resume makes the worktree again from its branch, and the conversation carries on there.
  fake.enqueue(text('Back in the worktree.'));
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect.poll(() => existsSync(worktree)).toBe(true);
  await expect(page.getByRole('banner')).toContainText('⎇ notes → main');
  await send(page, 'carry on');
  await expect(claude(page).last()).toContainText('Back in the worktree.');
  expect(git(cwd, 'status', '--porcelain')).toBe(statusBefore);
});

test('runs the repository’s setup command from Settings in a new worktree before the first message, and again when asked', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await page.keyboard.press('ControlOrMeta+Comma');
  const settings = page.getByRole('dialog', { name: 'Settings' });
  // Fails the first time it runs in a worktree, and leaves a mark each time.
  const ready = join(webHost.world.home, 'setup-ready');
  const command = `echo installing >> setup-ran.txt; test -e ${ready}`;
  await settings.getByRole('combobox', { name: 'Repository folder' }).fill(cwd);
  await settings.getByRole('textbox', { name: 'Command' }).fill(command);
  await settings.getByRole('button', { name: 'Add' }).click();
  await expect(settings.getByRole('textbox', { name: `Command for ${cwd}` })).toHaveValue(command);
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();

  fake.enqueue(text('Ready when you are.'));
  await startInWorktree(page, cwd, { base: 'main', name: 'setup', first: 'hello after setup' });
  const card = log(page).getByRole('group', { name: 'Setup' });
  await expect(card).toContainText(command);
  await expect(card).toContainText('exit 1');
  // The first message waits for it: the model has not been asked anything.
  await expect(yourMessage(page, 'hello after setup')).toBeVisible();
  await expect(
    page.getByText('The setup command failed: messages wait until you run it again'),
  ).toBeVisible();
  expect(fake.messageRequests()).toHaveLength(0);

  // Once what it looks for is there, Run again passes, and the first message goes.
  const worktree = join(cwd, '.claude', 'worktrees', 'setup');
  writeFileSync(ready, '');
  await card.last().getByRole('button', { name: 'Run again' }).click();
  await expect(log(page).getByRole('group', { name: 'Setup' }).last()).toContainText('exit 0');
  await expect(claude(page).last()).toContainText('Ready when you are.');
  expect(readFileSync(join(worktree, 'setup-ran.txt'), 'utf8')).toBe('installing\ninstalling\n');
});

test('lists a repository’s submodules with where each is fetched from, and fetches none unless ticked', async ({
  page,
  webHost,
}) => {
  const { cwd } = webHost.world;
  const modules = Array.from({ length: 12 }, (_, index) => [
    `[submodule "vendor/lib-${index}"]`,
    `\tpath = vendor/lib-${index}`,
    `\turl = https://git.example.com/${index === 3 ? `${'very-long-group-name/'.repeat(8)}` : ''}lib-${index}.git`,
  ]).flat();
  writeFileSync(join(cwd, '.gitmodules'), `${modules.join('\n')}\n`);
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByRole('textbox', { name: 'Working folder' }).fill(cwd);
  const inWorktree = form.getByRole('checkbox', { name: 'In a new worktree' });
  await expect(inWorktree).toBeEnabled();
  await inWorktree.check();
  const fetch = form.getByRole('checkbox', { name: 'Fetch its submodules into the worktree' });
  await expect(fetch).not.toBeChecked();
  await expect(form.getByRole('listitem').filter({ hasText: 'vendor/lib-0' })).toContainText(
    'from https://git.example.com/lib-0.git',
  );
  await expect(form.getByRole('listitem').filter({ hasText: 'vendor/lib-11' })).toHaveCount(1);
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1280, 640]) {
      await page.setViewportSize({ width, height: 800 });
      await fetch.scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath(`submodules-${theme}-${width}.png`) });
      const box = await form.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    }
  }
});
