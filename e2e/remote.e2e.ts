import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { claude, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';
import { createRemoteWorld, REMOTE_ALIAS, type RemoteWorld, type TestSshd } from '../main/test-support/sshd';
import type { CliWorld } from './fixtures/cli-env';

/**
 * A conversation on another host, in Chromium through the browser host: the host comes from ~/.ssh/config
 * (the host's HOME is the test's), and runs behind the test's own sshd on 127.0.0.1, where the real CLI runs
 * under another HOME against the fake model.
 */

/** A remote for the test, its client config as the host's ~/.ssh/config (the host's HOME is the world's). */
async function remoteHost(world: CliWorld, config: (sshd: TestSshd) => string): Promise<RemoteWorld> {
  const remote = await createRemoteWorld(world.fake.url);
  const ssh = join(world.home, '.ssh');
  mkdirSync(ssh, { recursive: true });
  chmodSync(ssh, 0o700);
  copyFileSync(config(remote.sshd), join(ssh, 'config'));
  return remote;
}

/** Starts a conversation on the test's host, in `folder` there, from the new-conversation form. */
async function startOnHost(page: Page, folder: string): Promise<void> {
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('combobox', { name: 'Where' }).selectOption(REMOTE_ALIAS);
  await page.getByLabel('Working folder').fill(folder);
  await page.getByRole('button', { name: 'Start' }).click();
}

test('picks a host of the ssh config and a folder there, and the conversation runs on it', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  const remote = await remoteHost(world, (sshd) => sshd.configFile);
  try {
    await page.getByRole('button', { name: 'New conversation' }).click();
    const where = page.getByRole('combobox', { name: 'Where' });
    await expect(where.getByRole('option')).toHaveText(['This computer', REMOTE_ALIAS, 'Other…']);
    await where.selectOption(REMOTE_ALIAS);
    await expect(page.getByText(`on ${REMOTE_ALIAS}`)).toBeVisible();
    await page.getByLabel('Working folder').fill(remote.cwd);
    await page.getByRole('button', { name: 'Start' }).click();

    // Its tab says where it runs: two tabs of one folder name can be two machines.
    await expect(page.getByRole('tab', { selected: true })).toHaveAccessibleName(`work on ${REMOTE_ALIAS}`);
    const header = page.locator('.conversation-header');
    await expect(header.locator('.cwd')).toHaveText(remote.cwd);
    await expect(header.getByText(`on ${REMOTE_ALIAS}`, { exact: true })).toBeVisible();
    await expect(page.getByLabel('Status: idle')).toBeVisible();
    const command = "printf 'from the host\\n' > made-there.txt";
    world.fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'make a file' } }] },
      { blocks: [{ type: 'text', text: 'Answered from the host.' }] },
    );
    await send(page, 'where are you?');
    await expect(claude(page).last()).toContainText('Answered from the host.');
    // Its Changes are kept there, by git there: the command's file, with its diff, and a revert there.
    await header.getByRole('button', { name: 'Changes' }).click();
    const panel = page.getByRole('region', { name: 'Changes' });
    const files = panel.getByRole('list', { name: 'Changed files' }).getByRole('listitem');
    await expect(files).toHaveCount(1);
    await expect(files).toContainText(`turn 1 “where are you?” · Bash: ${command}`);
    await files.getByText('made-there.txt', { exact: true }).click();
    await expect(panel.getByRole('region', { name: 'Diff of made-there.txt' })).toContainText(
      'from the host',
    );
    await files.getByRole('button', { name: 'Revert made-there.txt' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => existsSync(join(remote.cwd, 'made-there.txt'))).toBe(false);
    await header.getByRole('button', { name: 'Changes' }).click();
    await expect(panel).toBeHidden();
    // The library lists it under the host, apart from this computer's conversations.
    await expect(
      page
        .getByRole('navigation', { name: 'Conversations' })
        .getByRole('heading', { name: /^byre-remote · 1$/ }),
    ).toBeVisible();

    // The host goes away: the conversation says so, with Resume, which works once it is back.
    remote.sshd.dropConnections();
    const lost = page.getByRole('alert').filter({ hasText: 'Connection lost' });
    await expect(lost).toContainText('Disconnected from the host.');
    await remote.sshd.restart();
    await lost.getByRole('button', { name: 'Resume' }).click();
    await expect(lost).toBeHidden();
    await expect(page.getByLabel('Status: idle')).toBeVisible();
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Back again.' }] });
    await send(page, 'still there?');
    await expect(claude(page).last()).toContainText('Back again.');

    // The next conversation there: the folder it ran in is offered, and the field completes over ssh.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('combobox', { name: 'Where' }).selectOption(REMOTE_ALIAS);
    const recent = page.locator('.recent').filter({ hasText: `Recent on ${REMOTE_ALIAS}` });
    await expect(recent.getByRole('button')).toHaveText([realpathSync(remote.cwd)]);
    await page.getByLabel('Working folder').fill(`${dirname(remote.cwd)}/wo`);
    await expect(page.locator('#remote-folders option')).toHaveAttribute('value', remote.cwd);
  } finally {
    await remote.dispose();
  }
});

test('an unknown host key is shown with its fingerprint, and the conversation starts once it is trusted', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  const remote = await remoteHost(world, (sshd) => sshd.unknownKeyConfigFile);
  try {
    await startOnHost(page, remote.cwd);
    const unknown = page.getByRole('alert').filter({ hasText: 'host key' });
    await expect(unknown.getByRole('heading')).toHaveText(`The host key of ${REMOTE_ALIAS} is not known`);
    await expect(unknown.getByRole('list', { name: 'Host key fingerprints' })).toHaveText(
      `${remote.sshd.fingerprint} (ssh-ed25519)`,
    );
    await unknown.getByRole('button', { name: 'Trust this key and connect' }).click();
    await expect(page.getByLabel('Status: idle')).toBeVisible();
    await expect(
      page.locator('.conversation-header').getByText(`on ${REMOTE_ALIAS}`, { exact: true }),
    ).toBeVisible();
  } finally {
    await remote.dispose();
  }
});

test('a host typed under Other… that is not one says why, in the tab', async ({ page }) => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('combobox', { name: 'Where' }).selectOption({ label: 'Other…' });
  await page.getByLabel('Host').fill('two words');
  await page.getByLabel('Working folder').fill('/srv/project');
  await page.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'is not a host' })).toBeVisible();
});

test('a folder on the host whose own settings run a hook is asked about first, from its files there', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  const remote = await remoteHost(world, (sshd) => sshd.configFile);
  const hook = 'touch prompt-submitted.marker';
  mkdirSync(join(remote.cwd, '.claude'));
  writeFileSync(
    join(remote.cwd, '.claude', 'settings.json'),
    JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }] } }),
  );
  const marker = join(remote.cwd, 'prompt-submitted.marker');
  try {
    await startOnHost(page, remote.cwd);
    const dialog = page.getByRole('dialog', { name: 'Trust this folder?' });
    await expect(dialog.getByText(`on ${REMOTE_ALIAS}`)).toBeVisible();
    await expect(dialog.getByText(`UserPromptSubmit: ${hook}`)).toBeVisible();
    // Escape opens it without them: nothing of them runs on the host.
    await page.keyboard.press('Escape');
    const off = page.getByRole('note').filter({ hasText: 'Folder settings off' });
    await expect(off).toBeVisible();
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello, untrusted.' }] });
    await send(page, 'hello');
    await expect(claude(page).filter({ hasText: 'Hello, untrusted.' })).toBeVisible();
    expect(existsSync(marker)).toBe(false);

    // Trusted from the header: Claude Code starts again there with them, and the hook runs on the host.
    await page.getByRole('button', { name: 'Trust folder…' }).click();
    await dialog.getByRole('button', { name: 'Trust', exact: true }).click();
    await expect(off).toBeHidden();
    world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello, trusted.' }] });
    await send(page, 'again');
    await expect(claude(page).filter({ hasText: 'Hello, trusted.' })).toBeVisible();
    expect(existsSync(marker)).toBe(true);
  } finally {
    await remote.dispose();
  }
});

test('a conversation in a new worktree of a repository on the host: offered from git there, listed with its state, and merged there', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  const remote = await remoteHost(world, (sshd) => sshd.configFile);
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: remote.cwd,
      encoding: 'utf8',
      env: { ...process.env, HOME: remote.home },
    });
  // Whose commits they are there: the host's own git settings.
  writeFileSync(join(remote.home, '.gitconfig'), '[user]\n\tname = Dev There\n\temail = dev@there.example\n');
  writeFileSync(join(remote.cwd, 'README.md'), '# on the host\n');
  git('init', '--quiet', '-b', 'main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'first');
  git('branch', 'develop');
  const statusBefore = git('status', '--porcelain');
  const top = realpathSync(remote.cwd);
  const worktree = join(top, '.claude', 'worktrees', 'greeting');
  try {
    world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: join(worktree, 'greeting.txt'), content: 'hello\n' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'Wrote the greeting there.' }] },
    );
    await page.getByRole('button', { name: 'New conversation' }).click();
    const form = page.getByRole('form', { name: 'New conversation' });
    await form.getByRole('combobox', { name: 'Where' }).selectOption(REMOTE_ALIAS);
    await form.getByLabel('Working folder').fill(remote.cwd);
    const inWorktree = form.getByRole('checkbox', { name: 'In a new worktree' });
    await expect(inWorktree).toBeEnabled();
    await inWorktree.check();
    // The host's branches, from git there.
    const base = form.getByRole('combobox', { name: 'Base branch' });
    await expect(base.getByRole('option')).toHaveText(['main', 'develop']);
    await base.selectOption('develop');
    await form.getByRole('textbox', { name: 'Worktree name' }).fill('greeting');
    await form.getByRole('textbox', { name: 'First message' }).fill('write a greeting file');
    await form.getByRole('button', { name: 'Start' }).click();

    const banner = page.getByRole('banner');
    await expect(banner).toContainText('⎇ greeting → develop');
    await expect(banner.getByText(`on ${REMOTE_ALIAS}`, { exact: true })).toBeVisible();
    await expect(claude(page).last()).toContainText('Wrote the greeting there.');
    expect(readFileSync(join(worktree, 'greeting.txt'), 'utf8')).toBe('hello\n');
    // Listed with its state as git there counts it.
    const row = page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button')
      .filter({ hasText: 'write a greeting file' });
    await expect(row).toContainText('⎇ greeting');
    await expect(row).toContainText('1 file');

    // Merged into develop there, what was uncommitted committed first.
    await banner.getByRole('button', { name: 'Worktree' }).click();
    await page.getByRole('menuitem', { name: 'Merge into develop' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('greeting.txt');
    await dialog.getByRole('button', { name: 'Merge' }).click();
    await expect(dialog).toContainText('Merged');
    expect(git('show', 'develop:greeting.txt')).toBe('hello\n');
    expect(git('log', '-1', '--format=%an', 'develop').trim()).toBe('Dev There');
    expect(git('status', '--porcelain')).toBe(statusBefore);
    await expect(row).toContainText('0 files');
  } finally {
    await remote.dispose();
  }
});
