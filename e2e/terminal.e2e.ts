import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { imageBlocks, lastUserText } from './fake-model/server';
import { seedInteractiveCli } from './fixtures/cli-env';
import { expect, test } from './fixtures/web-host';

/**
 * A Terminal conversation in Chromium through the browser host: the real interactive CLI in a PTY, drawn by
 * xterm.js in the tab. It draws, takes the keys typed into it, fits its size to the window (the CLI redraws
 * at the new width), follows the theme, and says what it bills to.
 */

// The CLI's own "Don't ask" warning would stand before its prompt; the app's default asks.
test.use({ permissionMode: 'default', extraSettings: { defaultLane: 'stream' } });

/** The terminal's rows as the screen shows them (xterm's DOM renderer, or its accessible rows). */
const rows = (page: Page) => page.getByTestId('terminal-screen').locator('.xterm-rows');

async function startTerminal(page: Page, cwd: string): Promise<void> {
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(cwd);
  await form.getByLabel('Runs in').selectOption('terminal');
  await expect(form.getByText('counts against your plan’s limits')).toBeVisible();
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('banner').getByText('Terminal · Plan limits')).toBeVisible();
  // The CLI's prompt is drawn.
  await expect(rows(page)).toContainText('for shortcuts');
}

test('draws the real CLI, takes keys, fits the window and follows the theme', async ({ page, webHost }) => {
  const { world } = webHost;
  seedInteractiveCli(world.home, [world.cwd], world.env.ANTHROPIC_API_KEY ?? '');
  world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello from the plan lane.' }] });
  await page.setViewportSize({ width: 1280, height: 800 });
  await startTerminal(page, world.cwd);
  await expect(page.getByRole('tab', { name: /work/ })).toHaveCount(2);

  await page.getByTestId('terminal-screen').click();
  await page.keyboard.type('hello there');
  await page.keyboard.press('Enter');
  const request = await world.fake.waitForRequest((r) => lastUserText(r).includes('hello there'));
  expect(String(request.headers['user-agent'])).toContain('(external, cli)');
  await expect(rows(page)).toContainText('Hello from the plan lane.');

  // Narrower: the CLI is told the new size and draws its rule across it, not across the old width.
  const wide = await rows(page).locator('div').first().boundingBox();
  await page.setViewportSize({ width: 640, height: 800 });
  await expect
    .poll(async () => (await rows(page).locator('div').first().boundingBox())?.width ?? 0)
    .toBeLessThan((wide?.width ?? 0) * 0.7);
  await expect(rows(page)).toContainText('Hello from the plan lane.');

  // The theme: the screen's background is the app's, light then dark.
  const background = () =>
    page
      .getByTestId('terminal-screen')
      .locator('.xterm-scrollable-element')
      .evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect
    .poll(background)
    .toBe(await page.locator('.terminal-frame').evaluate((el) => getComputedStyle(el).backgroundColor));
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(background).not.toBe(light);
  await expect
    .poll(background)
    .toBe(await page.locator('.terminal-frame').evaluate((el) => getComputedStyle(el).backgroundColor));

  // Images pasted into the terminal reach the CLI as it takes them from a terminal: by their paths, which it
  // shows as [Image #1] and [Image #2]; text that came with them follows; the model gets both images.
  const square = (colour: string) =>
    sharp({ create: { width: 24, height: 24, channels: 3, background: colour } })
      .png()
      .toBuffer();
  const [green, red] = await Promise.all([square('#00ff00'), square('#ff0000')]);
  await transferInto(
    page,
    'paste',
    [
      { name: 'green.png', type: 'image/png', data: green.toString('base64') },
      { name: 'red.png', type: 'image/png', data: red.toString('base64') },
    ],
    'which colours',
  );
  await expect(rows(page)).toContainText('[Image #2]');
  await expect(rows(page)).toContainText('which colours');
  world.fake.enqueue({ blocks: [{ type: 'text', text: 'Green and red.' }] });
  await page.keyboard.press('Enter');
  const withImages = await world.fake.waitForRequest((r) => lastUserText(r).includes('which colours'));
  expect(imageBlocks(withImages)).toEqual([
    { media_type: 'image/png', data: green.toString('base64') },
    { media_type: 'image/png', data: red.toString('base64') },
  ]);
  await expect(rows(page)).toContainText('Green and red.');

  // A dropped file that is no image is refused in words, and nothing is pasted.
  await transferInto(page, 'drop', [{ name: 'notes.txt', type: 'text/plain', data: btoa('just text') }]);
  await expect(page.getByRole('alert')).toContainText('Not pasted into the terminal: notes.txt');
  await expect(rows(page)).not.toContainText('[Image #3]');
});

/** Dispatches a paste (into the terminal's input) or a drop (on its screen) whose DataTransfer holds files (and text). */
async function transferInto(
  page: Page,
  kind: 'paste' | 'drop',
  files: { name: string; type: string; data: string }[],
  text = '',
): Promise<void> {
  await page.evaluate(
    ({ kind, files, text }) => {
      const transfer = new DataTransfer();
      if (text) transfer.setData('text/plain', text);
      for (const file of files) {
        const bytes = Uint8Array.from(atob(file.data), (char) => char.charCodeAt(0));
        transfer.items.add(new File([bytes], file.name, { type: file.type }));
      }
      const screen = document.querySelector('[data-testid="terminal-screen"]');
      const target = kind === 'paste' ? screen?.querySelector('textarea') : screen;
      const event =
        kind === 'paste'
          ? new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true })
          : new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true });
      target?.dispatchEvent(event);
    },
    { kind, files, text },
  );
}
