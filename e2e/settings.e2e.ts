import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { processesWithHome } from './fixtures/cli-env';
import { expect, test } from './fixtures/web-host';

/**
 * The settings screen, in Chromium through the browser host: values are checked before anything is saved,
 * the claude program is tested for real, and what is saved takes effect in the window and in main.
 */

const settingsDialog = (page: Page) => page.getByRole('dialog', { name: 'Settings' });
const savedSettings = (dataDir: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;

async function openSettings(page: Page): Promise<void> {
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await page.keyboard.press('ControlOrMeta+Comma');
  await expect(settingsDialog(page).getByRole('button', { name: 'Save' })).toBeVisible();
}

test('refuses a claude program that is not there, with the reason, and saves nothing', async ({
  page,
  webHost,
}) => {
  await openSettings(page);
  const before = savedSettings(webHost.dataDir);
  const dialog = settingsDialog(page);
  await dialog.getByLabel('The claude program').fill('/nowhere/bin/claude');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    'Not saved. The claude program: There is no file at /nowhere/bin/claude.',
  );
  // Test says the same before anything is saved.
  await dialog.getByRole('button', { name: 'Test' }).click();
  await expect(dialog.getByText('Does not work: There is no file at /nowhere/bin/claude.')).toBeVisible();
  // A folder is not a program either; a size out of range is refused here before main is asked.
  await dialog.getByLabel('The claude program').fill(webHost.world.cwd);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    `Not saved. The claude program: ${webHost.world.cwd} is a folder, not the claude program.`,
  );
  await dialog.getByLabel('The claude program').fill('');
  await dialog.getByLabel('Longest side of an image sent (pixels)').fill('50');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    'Not saved. The image size limit is at least 200 pixels.',
  );
  expect(savedSettings(webHost.dataDir)).toEqual(before);

  // The program Byre found works, as `claude --version` says.
  await dialog.getByRole('button', { name: 'Test' }).click();
  await expect(dialog.getByText(/^Works: .+ is Claude Code 2\.1\.332/)).toBeVisible();
  await expect(dialog.getByText(webHost.dataDir, { exact: true })).toBeVisible();
});

test('saves the theme, which the window takes at once and keeps after a reload', async ({
  page,
  webHost,
}) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const background = () =>
    page.evaluate(() => getComputedStyle(document.body.parentElement!).backgroundColor);
  await expect.poll(background).toBe('rgb(251, 250, 248)');
  await openSettings(page);
  const dialog = settingsDialog(page);
  await dialog.getByRole('radiogroup', { name: 'Theme' }).getByLabel('Dark').check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect.poll(background).toBe('rgb(28, 27, 25)');
  expect(savedSettings(webHost.dataDir)).toMatchObject({ theme: 'dark' });
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await expect.poll(background).toBe('rgb(28, 27, 25)');
});

test('prompt suggestions can be switched off, and stay off', async ({ page, webHost }) => {
  await openSettings(page);
  const dialog = settingsDialog(page);
  const suggest = dialog.getByRole('checkbox', { name: 'Suggest a next prompt after each reply' });
  await expect(suggest).toBeChecked();
  await expect(suggest).toHaveAccessibleDescription(/one more short request to the model/);
  await suggest.uncheck();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(savedSettings(webHost.dataDir)).toMatchObject({ promptSuggestions: false });
  await page.reload();
  await openSettings(page);
  await expect(
    settingsDialog(page).getByRole('checkbox', { name: 'Suggest a next prompt after each reply' }),
  ).not.toBeChecked();
  await page.setViewportSize({ width: 640, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await settingsDialog(page).getByRole('group', { name: 'Suggestions' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('settings-suggestions-dark-640.png') });
});

test('the model and permission mode set here are what a new conversation starts with', async ({
  page,
  webHost,
}) => {
  await openSettings(page);
  const dialog = settingsDialog(page);
  await dialog.getByLabel('Model for new conversations').fill('haiku');
  await dialog.getByLabel('Permission mode for new conversations').selectOption({ label: 'Plan only' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(savedSettings(webHost.dataDir)).toMatchObject({
    defaultModel: 'haiku',
    defaultPermissionMode: 'plan',
  });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByLabel('Permission mode')).toHaveValue('plan');
  await page.getByRole('button', { name: 'Start' }).click();
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Planned.' }] });
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('make a plan');
  await composer.press('Enter');
  await expect(
    page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Claude' }),
  ).toContainText('Planned.');
  // Byre launched the new conversation's CLI with the model (the first conversation's without one); the
  // fake model cannot tell, as the CLI maps names to the models it knows.
  expect(processesWithHome(webHost.world.home, '--model=haiku')).toHaveLength(1);
  expect(processesWithHome(webHost.world.home, '--model')).toHaveLength(1);
});

test('an ssh config file set here is where the hosts of "Where" come from; one that is not there is refused', async ({
  page,
  webHost,
}) => {
  const config = join(webHost.world.home, 'work-hosts.conf');
  writeFileSync(config, 'Host buildbox gpu-*\n  HostName 10.0.0.7\nHost lab\n');
  await openSettings(page);
  const dialog = settingsDialog(page);
  await dialog.getByLabel('ssh config file').fill(join(webHost.world.home, 'nothing.conf'));
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    `Not saved. The ssh config file: there is no file ${join(webHost.world.home, 'nothing.conf')}.`,
  );
  await dialog.getByLabel('ssh config file').fill(config);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(savedSettings(webHost.dataDir)).toMatchObject({ sshConfigFile: config });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'New conversation' }).click();
  await expect(page.getByRole('combobox', { name: 'Where' }).getByRole('option')).toHaveText([
    'This computer',
    'buildbox',
    'lab',
    'Other…',
  ]);
});
