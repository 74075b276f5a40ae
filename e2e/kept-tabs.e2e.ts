import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { CliWorld } from './fixtures/cli-env';
import { claude, send } from './fixtures/chat-page';
import { stopProcess, waitForAddress } from './fixtures/host-process';
import { expect, test, WEB_HOST_ENTRY } from './fixtures/web-host';

/**
 * Tabs back after a restart: the browser host stopped and started again on the same data folder reopens
 * the tabs that were open, in their order, the open one open, as saved conversations with Resume, each
 * with its unsent draft; reloading the page then brings back the same tabs, not a second set.
 */

interface Host {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startHost(world: CliWorld, dataDir: string, folder: string[]): Promise<Host> {
  const child = spawn(process.execPath, [WEB_HOST_ENTRY, '--port', '0', ...folder], {
    env: { ...world.env, BYRE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = await waitForAddress(child, () => output, 60_000);
  return { child, url, output: () => output };
}

async function openPage(browser: Browser, host: Host): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(host.url);
  await page.waitForURL(/\/app\//);
  return page;
}

const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });

test('tabs back after a restart: in order, the open one open, with Resume and their drafts', async ({
  browser,
  world,
}) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'byre-kept-tabs-'));
  writeFileSync(
    join(dataDir, 'settings.json'),
    JSON.stringify({ defaultPermissionMode: 'bypassPermissions' }),
  );
  const second = join(world.cwd, 'second');
  mkdirSync(second);
  const hosts: Host[] = [];
  try {
    world.fake.enqueue(
      { blocks: [{ type: 'text', text: 'Answer one.' }] },
      { blocks: [{ type: 'text', text: 'Answer two.' }] },
    );
    const first = await startHost(world, dataDir, [world.cwd]);
    hosts.push(first);
    let page = await openPage(browser, first);
    await send(page, 'first conversation');
    await expect(claude(page)).toContainText('Answer one.');
    await message(page).fill('draft one');

    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByLabel('Working folder').fill(second);
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.locator('.cwd')).toHaveText(second);
    await send(page, 'second conversation');
    await expect(claude(page)).toContainText('Answer two.');
    await message(page).fill('draft two');
    // The first tab is the open one when Byre quits.
    await page.getByRole('tab').first().click();
    await expect(claude(page)).toContainText('Answer one.');
    await expect(message(page)).toHaveValue('draft one');
    await page.close();
    await stopProcess(first.child);
    expect(existsSync(join(dataDir, 'tabs.json'))).toBe(true);

    // Started again, with no folder to open: only the tabs that were open.
    const again = await startHost(world, dataDir, []);
    hosts.push(again);
    page = await openPage(browser, again);
    const tabs = page.getByRole('tab');
    await expect(tabs).toHaveCount(2);
    await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('log', { name: 'Conversation' })).toContainText('Answer one.');
    await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();

    // A reload does not reopen them a second time.
    await page.reload();
    await expect(page.getByRole('log', { name: 'Conversation' })).toContainText('Answer one.');
    await expect(tabs).toHaveCount(2);

    // The unsent message shows until it is resumed, then waits in the composer.
    await expect(page.getByRole('note', { name: 'Not yet sent' })).toHaveText('Not yet sent: draft one');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(message(page)).toHaveValue('draft one');
    await tabs.nth(1).click();
    await expect(page.getByRole('log', { name: 'Conversation' })).toContainText('Answer two.');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(message(page)).toHaveValue('draft two');
    await expect(tabs).toHaveCount(2);
  } finally {
    for (const host of hosts) await stopProcess(host.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
