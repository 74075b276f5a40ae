import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/web-host';

/**
 * The command palette (Ctrl/Cmd+K) and the shortcuts sheet (Ctrl/Cmd+/), in Chromium through the browser
 * host, with conversations made before the app started.
 */

const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });
const paletteBox = (page: Page) =>
  palette(page).getByRole('combobox', { name: 'Search actions and conversations' });

test.use({
  history: {
    sessions: [
      { file: { turns: [{ prompt: 'Migrate the billing tables', reply: 'The migration is written.' }] } },
      { file: { turns: [{ prompt: 'Why is the cache cold?', reply: 'It is cleared at every deploy.' }] } },
    ],
  },
});

test('the palette opens a conversation by its title', async ({ page }) => {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeEnabled();
  await composer.press('ControlOrMeta+k');
  await expect(palette(page)).toBeVisible();
  await expect(paletteBox(page)).toBeFocused();
  // Actions and conversations together; typing narrows both.
  await expect(palette(page).getByRole('option', { name: 'New conversation', exact: true })).toBeVisible();
  await paletteBox(page).fill('billing');
  const option = palette(page).getByRole('option', { name: 'Migrate the billing tables' });
  await expect(option).toHaveAttribute('aria-selected', 'true');
  await expect(palette(page).getByRole('option', { name: 'Why is the cache cold?' })).toHaveCount(0);
  await paletteBox(page).press('Enter');
  await expect(palette(page)).toBeHidden();
  await expect(page.getByRole('tab', { name: 'Migrate the billing tables' })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByRole('article', { name: 'Claude' })).toContainText('The migration is written.');

  // By the mouse, and an action: Escape closes it and leaves things as they were.
  await page.keyboard.press('ControlOrMeta+k');
  await paletteBox(page).fill('cache cold');
  await palette(page).getByRole('option', { name: 'Why is the cache cold?' }).click();
  await expect(page.getByRole('tab', { name: 'Why is the cache cold?' })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.keyboard.press('ControlOrMeta+k');
  await paletteBox(page).fill('zzz-nothing');
  await expect(palette(page).getByRole('status')).toHaveText('Nothing matches “zzz-nothing”.');
  await page.keyboard.press('Escape');
  await expect(palette(page)).toBeHidden();
  await expect(page.getByRole('tab')).toHaveCount(3);
  // "Close this conversation" closes the open tab as Ctrl/Cmd+W does (nothing at stake: no question).
  await page.keyboard.press('ControlOrMeta+k');
  await paletteBox(page).fill('close this');
  await paletteBox(page).press('Enter');
  await expect(page.getByRole('tab')).toHaveCount(2);
  await expect(page.getByRole('tab', { name: 'Why is the cache cold?' })).toHaveCount(0);
});

test('the palette runs actions, and Ctrl/Cmd+/ lists the shortcuts', async ({ page }) => {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeEnabled();
  await page.keyboard.press('ControlOrMeta+k');
  await paletteBox(page).fill('new conv');
  await paletteBox(page).press('Enter');
  await expect(page.getByRole('heading', { name: 'New conversation' })).toBeVisible();

  await page.keyboard.press('ControlOrMeta+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByRole('region', { name: 'Anywhere' })).toContainText('Open the command palette');
  await expect(sheet.getByRole('region', { name: 'Composer' })).toContainText('Mention a file of the folder');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  // The palette can open it too.
  await page.keyboard.press('ControlOrMeta+k');
  await paletteBox(page).fill('shortcuts');
  await paletteBox(page).press('Enter');
  await expect(sheet).toBeVisible();
  await sheet.getByRole('button', { name: 'Close' }).click();
  await expect(sheet).toBeHidden();
});
