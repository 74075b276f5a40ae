import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Page } from '@playwright/test';
import { Gate, imageBlocks } from './fake-model/server';
import { claude, finished, log, queueAndCancel, send, words } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * A reload (or a crash of the page) loses nothing the page showed: a reply still streaming, notices, a
 * message cancelled from the queue, each tab's unsent draft with its images, and which tab was open.
 */

const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const attached = (page: Page) => page.getByRole('list', { name: 'Attached images' }).getByRole('img');

async function newConversation(page: Page, cwd: string): Promise<void> {
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByLabel('Working folder').fill(cwd);
  await page.getByRole('button', { name: 'Start' }).click();
  await expect(page.locator('.cwd')).toHaveText(cwd);
}

test('a reload mid-reply shows the reply so far, which then streams on to its end', async ({
  page,
  webHost,
}) => {
  const rest = new Gate();
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: words(40) }],
    hold: { after: 6, until: rest },
  });
  await send(page, 'tell me forty words');
  await expect(claude(page)).toContainText('word5');

  await page.reload();
  await expect(claude(page)).toContainText('word5');
  await expect(claude(page)).not.toContainText('word6');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  await expect(finished(page)).toHaveCount(0);
  rest.release();
  await expect(claude(page)).toContainText('word39');
  await expect(finished(page)).toHaveCount(1);
  // The reply is one message, not the part from before the reload and the rest beside it.
  await expect(claude(page)).toHaveCount(1);
});

test('a reload keeps the notices and the messages cancelled from the queue', async ({ page, webHost }) => {
  const { world, dataDir } = webHost;
  // The first conversation's CLI has started (its transcript is there): nothing of it writes the folder anew.
  await expect
    .poll(() => existsSync(join(dataDir, 'transcripts')) && readdirSync(join(dataDir, 'transcripts')).length)
    .toBeGreaterThan(0);
  // Transcripts cannot be written from now on (as root, modes stop nothing: it is a file, not a folder).
  rmSync(join(dataDir, 'transcripts'), { recursive: true, force: true });
  writeFileSync(join(dataDir, 'transcripts'), 'not a folder');
  const second = join(world.cwd, 'second');
  mkdirSync(second);
  await newConversation(page, second);
  const notice = log(page).getByText(/cannot write this conversation.s transcript/);
  await expect(notice).toBeVisible();

  const firstReply = new Gate();
  world.fake.enqueue({ blocks: [{ type: 'text', text: words(30) }], hold: { after: 2, until: firstReply } });
  await send(page, 'the slow one');
  await expect(claude(page)).toContainText('word1');
  const queued = await queueAndCancel(page, 'please also do this later');

  await page.reload();
  await page.getByRole('tab', { name: /second/ }).click();
  await expect(notice).toBeVisible();
  await expect(queued).toContainText('Cancelled');
  await expect(queued.getByRole('button', { name: 'Send again' })).toBeVisible();
  firstReply.release();
  await expect(claude(page)).toContainText('word29');
  await expect(queued).toContainText('Cancelled');
});

test('a reload keeps each tab’s unsent draft, its text and images, and the tab that was open', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  // Noise, so that it is large enough for main to keep it by reference, not inline.
  const image = await sharp(randomBytes(64 * 48 * 3), { raw: { width: 64, height: 48, channels: 3 } })
    .png()
    .toBuffer();
  expect(image.toString('base64').length).toBeGreaterThan(4_096);
  await expect(page.getByRole('tab')).toHaveCount(1);
  await message(page).fill('half a thought about the red square');
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: image });
  await expect(attached(page)).toHaveCount(1);

  const second = join(world.cwd, 'second');
  mkdirSync(second);
  await newConversation(page, second);
  await message(page).fill('the other tab’s draft');
  const tabs = page.getByRole('tab');

  await page.reload();
  // The second tab was open, not the first.
  await expect(tabs).toHaveCount(2);
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  await expect(message(page)).toHaveValue('the other tab’s draft');
  await expect(attached(page)).toHaveCount(0);
  await tabs.first().click();
  await expect(message(page)).toHaveValue('half a thought about the red square');
  await expect(attached(page)).toHaveCount(1);
  await expect(attached(page).first()).toHaveAttribute('alt', 'red.png');
  // Its thumbnail loads from main, where it was kept.
  await expect
    .poll(() =>
      attached(page)
        .first()
        .evaluate((img: HTMLImageElement) => img.naturalWidth),
    )
    .toBe(64);

  // The image kept across the reload is the one that is sent.
  world.fake.enqueue({ blocks: [{ type: 'text', text: 'A red square.' }] });
  await message(page).press('Enter');
  await expect(claude(page)).toContainText('A red square.');
  expect(imageBlocks(world.fake.messageRequests().at(-1)!)).toEqual([
    { media_type: 'image/png', data: image.toString('base64') },
  ]);
});

test('when the connection drops and comes back, the page shows what happened meanwhile', async ({
  page,
  webHost,
}) => {
  // The page's socket goes through the test, which can cut it off as a network fault would: frames both
  // ways are dropped, then the socket is closed and the page reconnects.
  let cut: (() => void) | undefined;
  await page.routeWebSocket(/\/bridge/, (ws) => {
    const server = ws.connectToServer();
    let dropping = false;
    server.onMessage((frame) => {
      if (!dropping) ws.send(frame);
    });
    ws.onMessage((frame) => {
      if (!dropping) server.send(frame);
    });
    cut = () => {
      dropping = true;
      cut = () => void ws.close();
    };
  });
  await page.reload();
  const rest = new Gate();
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: words(40) }],
    hold: { after: 3, until: rest },
  });
  await send(page, 'tell me forty words');
  await expect(claude(page)).toContainText('word2');

  // Cut off: the rest of the reply is streamed, and never reaches the page; a draft is typed meanwhile.
  cut!();
  await message(page).fill('typed while it was cut off');
  rest.release();
  await expect.poll(() => webHost.world.fake.messageRequests().at(-1)?.finished).toBe(true);
  await expect(claude(page)).not.toContainText('word39');
  cut!();
  await expect(page.getByRole('status').filter({ hasText: 'Lost the connection to Byre' })).toBeVisible();

  // Back: the whole reply, the turn ended, and the draft still there.
  await expect(page.getByRole('status').filter({ hasText: 'Lost the connection to Byre' })).toBeHidden();
  await expect(claude(page)).toContainText('word39');
  await expect(finished(page)).toHaveCount(1);
  await expect(claude(page)).toHaveCount(1);
  await expect(message(page)).toHaveValue('typed while it was cut off');
  // Main was told the draft once the page was back: a reload finds it.
  await page.reload();
  await expect(message(page)).toHaveValue('typed while it was cut off');
});
