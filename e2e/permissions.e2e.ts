import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { toolResults } from './fake-model/server';
import { finished, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * Asking before acting in Chromium through the browser host, against the real CLI and the fake model: the app's
 * own default mode, in which each tool use that needs permission waits for a card's answer.
 */

test.use({ permissionMode: 'default' });

const cards = (page: Page) => page.getByRole('group', { name: 'Permission request' });

test('asks before running a command: Allow runs it, Deny sends the reason to Claude', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  fake.enqueue(
    {
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'touch yes.txt', description: 'make yes' } },
      ],
    },
    { blocks: [{ type: 'text', text: 'Made yes.txt.' }] },
    {
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'touch no.txt', description: 'make no' } },
      ],
    },
    { blocks: [{ type: 'text', text: 'I left no.txt alone.' }] },
  );
  await expect(page.getByRole('combobox', { name: 'Permission mode' })).toHaveValue('default');

  await send(page, 'make yes.txt');
  const card = cards(page);
  await expect(card).toHaveCount(1);
  await expect(card).toContainText('Bash');
  await expect(card).toContainText('touch yes.txt');
  await expect(card.getByRole('button', { name: 'Always allow' })).toBeVisible();
  // The tab says Claude needs the person, and for what, as a Terminal conversation's does.
  await expect(page.getByRole('tab')).toContainText(', needs you');
  await expect(page.getByRole('tab').locator('.tab-asking')).toHaveAttribute(
    'title',
    'Claude asks to use Bash: touch yes.txt',
  );
  // Its tooltip says what the turn is doing, in the words either lane gives.
  await expect(page.getByRole('tab')).toHaveAttribute('title', /· Working: Bash: touch yes\.txt$/);
  expect(existsSync(join(cwd, 'yes.txt'))).toBe(false);
  await card.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(finished(page)).toHaveCount(1);
  await expect(cards(page)).toHaveCount(0);
  expect(existsSync(join(cwd, 'yes.txt'))).toBe(true);
  await expect(page.getByRole('tab')).not.toHaveAttribute('title', /Working/);

  await send(page, 'make no.txt');
  await expect(cards(page)).toHaveCount(1);
  await cards(page)
    .getByRole('textbox', { name: 'Reason for Claude (optional)' })
    .fill('Not that file, please.');
  await cards(page).getByRole('button', { name: 'Deny' }).click();
  await expect(finished(page)).toHaveCount(2);
  await expect(cards(page)).toHaveCount(0);
  expect(existsSync(join(cwd, 'no.txt'))).toBe(false);
  const withResult = await fake.waitForRequest(
    (request) => toolResults(request).length > 0 && toolResults(request)[0]!.is_error,
  );
  expect(toolResults(withResult)[0]!.content).toContain('Not that file, please.');
});

test('the mode picker: "Don\'t ask" runs tools without a card, and the header says so while it is on', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  fake.enqueue(
    {
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'touch free.txt', description: 'make free' } },
      ],
    },
    { blocks: [{ type: 'text', text: 'Made free.txt.' }] },
  );
  const picker = page.getByRole('combobox', { name: 'Permission mode' });
  const marker = page.getByRole('note').filter({ hasText: "Don't ask" });
  await expect(picker).toHaveValue('default');
  await expect(marker).toHaveCount(0);
  await picker.selectOption({ label: "Don't ask" });
  await expect(picker).toHaveValue('bypassPermissions');
  await expect(marker).toBeVisible();
  await expect(marker).toContainText('without asking');

  await send(page, 'make free.txt');
  await expect(finished(page)).toHaveCount(1);
  expect(existsSync(join(cwd, 'free.txt'))).toBe(true);
  await expect(cards(page)).toHaveCount(0);

  await picker.selectOption({ label: 'Ask before acting' });
  await expect(picker).toHaveValue('default');
  await expect(marker).toBeHidden();
});

test('a new conversation starts in the mode chosen for it, which can become the default', async ({
  page,
  webHost,
}) => {
  await expect(page.getByRole('combobox', { name: 'Permission mode' })).toHaveValue('default');
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(webHost.world.cwd);
  await form.getByLabel('Permission mode').selectOption({ label: 'Accept edits' });
  await form.getByRole('checkbox', { name: 'Start new conversations in this mode' }).check();
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
  await expect(page.getByRole('combobox', { name: 'Permission mode' })).toHaveValue('acceptEdits');
  // Kept in the settings, and offered by the form from now on.
  await expect
    .poll(
      () => JSON.parse(readFileSync(join(webHost.dataDir, 'settings.json'), 'utf8')).defaultPermissionMode,
    )
    .toBe('acceptEdits');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(form.getByLabel('Permission mode')).toHaveValue('acceptEdits');
});

test('a tab with a long name keeps its "needs you" mark in view, at 640 px too', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  const long = join(cwd, `a-folder-whose-name-goes-on-${'and-on-'.repeat(10)}end`);
  mkdirSync(long);
  fake.enqueue(
    {
      blocks: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch x.txt', description: 'make x' } }],
    },
    { blocks: [{ type: 'text', text: 'Ran nothing.' }] },
  );
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByLabel('Working folder').fill(long);
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByRole('combobox', { name: 'Permission mode' }).selectOption('default');
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.locator('.cwd')).toHaveText(long);
  await send(page, 'run nothing');
  await expect(cards(page)).toHaveCount(1);
  const tab = page.getByRole('tab').filter({ hasText: 'a-folder-whose-name' });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1280, 640]) {
      await page.setViewportSize({ width, height: 800 });
      await tab.scrollIntoViewIfNeeded();
      const mark = tab.locator('.tab-asking');
      await expect(mark).toBeVisible();
      // In the tab bar's view, not scrolled or cut off under the button beside it, nor is its close button.
      const bar = (await page.getByRole('tablist', { name: 'Open conversations' }).boundingBox())!;
      const close = page.getByRole('button', { name: /^Close a-folder-whose-name/ });
      for (const box of [(await mark.boundingBox())!, (await close.boundingBox())!]) {
        expect(box.x).toBeGreaterThanOrEqual(bar.x);
        expect(box.x + box.width).toBeLessThanOrEqual(bar.x + bar.width + 0.5);
      }
      // The other tab stays in view too, its name cut short if need be.
      const other = (await page.getByRole('tab').filter({ hasText: 'work' }).boundingBox())!;
      expect(other.x).toBeGreaterThanOrEqual(bar.x);
      await page.screenshot({ path: test.info().outputPath(`tab-needs-you-${theme}-${width}.png`) });
    }
  }
  await cards(page).getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(finished(page)).toHaveCount(1);
});
