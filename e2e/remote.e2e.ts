import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
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
