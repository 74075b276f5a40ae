import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { finished, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * The conversation header in Chromium through the browser host: with a long title and folder it keeps to one
 * row at 1024 px and two at 640, and every action in it is still there by name, the less used ones in its
 * "More actions" menu, which the keyboard works.
 */

const LONG_TITLE = 'Refactor the billing module so invoices are generated in the background every night';

/** A conversation in a deeply nested folder, titled at length by Claude. */
async function longConversation(page: Page, cwd: string, fake: { enqueue: (...replies: object[]) => void }) {
  const deep = join(cwd, 'a-rather-long-folder-name', 'with-more-nesting-inside-it', 'and-a-long-project');
  mkdirSync(deep, { recursive: true });
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(deep);
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
  fake.enqueue(
    { blocks: [{ type: 'tool_use', name: 'mcp__byre__set_title', input: { title: LONG_TITLE } }] },
    { blocks: [{ type: 'text', text: 'Titled.' }] },
  );
  await send(page, 'hello');
  await expect(finished(page)).toHaveCount(1);
  await expect(page.getByRole('banner').getByRole('heading', { level: 1 })).toHaveText(LONG_TITLE);
}

/** The header's controls, each to be seen and used by name. */
function controls(header: Locator): Locator[] {
  return [
    header.getByRole('meter', { name: 'Context' }),
    header.getByRole('combobox', { name: 'Model' }),
    header.getByRole('combobox', { name: 'Permission mode' }),
    header.getByRole('button', { name: 'MCP servers' }),
    header.getByRole('button', { name: 'Conversation settings' }),
    header.getByRole('button', { name: 'More actions' }),
  ];
}

/** How many rows the header's title and controls take: tops more than half a control's height apart. */
async function rowsOf(header: Locator): Promise<number> {
  const title = await header.locator('.conversation-title').boundingBox();
  const boxes = [title!];
  for (const control of controls(header)) {
    await expect(control).toBeVisible();
    boxes.push((await control.boundingBox())!);
  }
  const middles = boxes.map((box) => box.y + box.height / 2).sort((a, b) => a - b);
  let rows = 1;
  for (let index = 1; index < middles.length; index++) {
    if (middles[index]! - middles[index - 1]! > 15) rows++;
  }
  return rows;
}

test('with a long title and folder the header is one row at 1024 px and two at 640', async ({
  page,
  webHost,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await longConversation(page, webHost.world.cwd, webHost.world.fake);
  const header = page.getByRole('banner').filter({ has: page.getByRole('combobox', { name: 'Model' }) });
  expect(await rowsOf(header)).toBe(1);
  // No taller than its title (two lines) and padding: nothing wrapped below it.
  const title = (await header.locator('.conversation-title').boundingBox())!;
  expect((await header.boundingBox())!.height).toBeLessThanOrEqual(title.height + 24);

  await page.setViewportSize({ width: 640, height: 700 });
  await expect.poll(() => rowsOf(header)).toBe(2);
  const button = (await header.getByRole('button', { name: 'MCP servers' }).boundingBox())!;
  expect((await header.boundingBox())!.height).toBeLessThanOrEqual(title.height + button.height + 32);
});

test('"More actions" opens a menu the keyboard works, and exports the conversation', async ({
  page,
  webHost,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'The build is green.' }] });
  await send(page, 'Is the build green?');
  await expect(finished(page)).toHaveCount(1);

  const more = page.getByRole('button', { name: 'More actions' });
  await expect(more).toHaveAttribute('title', 'More actions');
  await more.click();
  const menu = page.getByRole('menu', { name: 'More actions' });
  const markdown = menu.getByRole('menuitem', { name: 'Export as Markdown' });
  const jsonl = menu.getByRole('menuitem', { name: 'Export as JSONL' });
  const terminal = menu.getByRole('menuitem', { name: 'Continue in the Terminal lane' });
  await expect(markdown).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(jsonl).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(terminal).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(markdown).toBeFocused();
  await page.keyboard.press('End');
  await expect(terminal).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(more).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(markdown).toBeFocused();
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.md$/);
  const text = readFileSync(await file.path(), 'utf8');
  expect(text).toContain('Is the build green?');
  expect(text).toContain('The build is green.');
  await expect(menu).toBeHidden();
});
