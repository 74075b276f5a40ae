import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { Locator, Page } from '@playwright/test';
import { imageBlocks, type RecordedRequest } from './fake-model/server';
import { expect, test } from './fixtures/web-host';

/**
 * Images in a turn, in Chromium through the browser host, against the real CLI and the fake model. The fake
 * model's request log is the proof of what the model received.
 */

interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

async function png(name: string, width: number, height: number, color: string): Promise<TestFile> {
  const buffer = await sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
  return { name, mimeType: 'image/png', buffer };
}

/** Dispatches a real drop event whose DataTransfer carries these files. */
async function dropFiles(page: Page, target: Locator, files: TestFile[]): Promise<void> {
  const payload = files.map((file) => ({
    name: file.name,
    type: file.mimeType,
    data: file.buffer.toString('base64'),
  }));
  const dataTransfer = await page.evaluateHandle((entries) => {
    const transfer = new DataTransfer();
    for (const entry of entries) {
      const bytes = Uint8Array.from(atob(entry.data), (char) => char.charCodeAt(0));
      transfer.items.add(new File([bytes], entry.name, { type: entry.type }));
    }
    return transfer;
  }, payload);
  await target.dispatchEvent('dragenter', { dataTransfer });
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const attached = (page: Page) => page.getByRole('list', { name: 'Attached images' }).getByRole('img');

/** The content blocks of the last user message the model received. */
function lastUserContent(request: RecordedRequest): { type: string; text?: string }[] {
  const body = request.body as {
    messages: { role: string; content: string | { type: string; text?: string }[] }[];
  };
  const last = body.messages.filter((entry) => entry.role === 'user').at(-1);
  return typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
}

test('sends two dropped PNGs, byte for byte, before the text', async ({ page, webHost }) => {
  const red = await png('red.png', 40, 30, '#ff0000');
  const blue = await png('blue.png', 30, 40, '#0000ff');
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'A red one and a blue one.' }] });

  const conversation = page.getByRole('log', { name: 'Conversation' });
  await dropFiles(page, conversation, [red, blue]);
  await expect(attached(page)).toHaveCount(2);
  await expect(attached(page).nth(0)).toHaveAttribute('alt', 'red.png');
  await expect(attached(page).nth(1)).toHaveAttribute('alt', 'blue.png');
  await message(page).fill('What colours are these?');
  await message(page).press('Enter');

  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('A red one and a blue one.');
  const request = webHost.world.fake.messageRequests()[0]!;
  expect(imageBlocks(request)).toEqual([
    { media_type: 'image/png', data: red.buffer.toString('base64') },
    { media_type: 'image/png', data: blue.buffer.toString('base64') },
  ]);
  const content = lastUserContent(request);
  expect(content.slice(0, 3).map((block) => block.type)).toEqual(['image', 'image', 'text']);
  expect(content[2]!.text).toContain('What colours are these?');
  // Sent: the composer is empty again and the message shows its images.
  await expect(attached(page)).toHaveCount(0);
  const sent = page
    .getByRole('article', { name: 'You' })
    .getByRole('list', { name: 'Images' })
    .getByRole('img');
  await expect(sent).toHaveCount(2);
  await expect(sent.first()).toBeVisible();
});

test('sends a pasted image', async ({ page, webHost }) => {
  const green = await png('pasted.png', 24, 24, '#00ff00');
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Green.' }] });
  await message(page).focus();
  await page.evaluate((data) => {
    const transfer = new DataTransfer();
    const bytes = Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
    transfer.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
    const box = document.querySelector('textarea[aria-label="Message"]');
    box?.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
    );
  }, green.buffer.toString('base64'));
  await expect(attached(page)).toHaveCount(1);
  // An image alone is a message: no text needed.
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Green.');
  expect(imageBlocks(webHost.world.fake.messageRequests()[0]!)).toEqual([
    { media_type: 'image/png', data: green.buffer.toString('base64') },
  ]);
});

test('a paste that carries an image and text attaches the image and pastes the text at the caret', async ({
  page,
  webHost,
}) => {
  const green = await png('pasted.png', 24, 24, '#00ff00');
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Captioned.' }] });
  await message(page).fill('See: ');
  await message(page).press('End');
  await page.evaluate((data) => {
    const transfer = new DataTransfer();
    const bytes = Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
    transfer.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
    transfer.setData('text/plain', 'the green square');
    const box = document.querySelector('textarea[aria-label="Message"]');
    box?.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
    );
  }, green.buffer.toString('base64'));
  await expect(attached(page)).toHaveCount(1);
  await expect(message(page)).toHaveValue('See: the green square');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Captioned.');
  expect(JSON.stringify(webHost.world.fake.messageRequests()[0]?.body)).toContain('See: the green square');
});

test('sends an image picked with the file chooser, and opens it at full size once sent', async ({
  page,
  webHost,
}) => {
  const picked = await png('picked.png', 50, 20, '#ffaa00');
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Orange.' }] });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach image' }).click();
  await (await chooser).setFiles(picked);
  await expect(attached(page)).toHaveCount(1);
  await message(page).fill('and this?');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Orange.');
  expect(imageBlocks(webHost.world.fake.messageRequests()[0]!)).toEqual([
    { media_type: 'image/png', data: picked.buffer.toString('base64') },
  ]);

  await page.getByRole('button', { name: 'Open image 1 at full size' }).click();
  const dialog = page.getByRole('dialog', { name: 'Image at full size' });
  await expect(dialog.getByRole('img')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('refuses a text file named .png, saying why, and keeps the text and the other image', async ({
  page,
  webHost,
}) => {
  const good = await png('good.png', 20, 20, '#123456');
  const fake: TestFile = {
    name: 'notes.png',
    mimeType: 'image/png',
    buffer: Buffer.from('just some notes\n'),
  };
  await message(page).fill('keep this text');
  const conversation = page.getByRole('log', { name: 'Conversation' });
  await dropFiles(page, conversation, [good]);
  await expect(attached(page)).toHaveCount(1);
  await dropFiles(page, conversation, [fake]);

  await expect(page.getByRole('alert')).toContainText('notes.png is not a PNG, JPEG, GIF or WebP image.');
  await expect(attached(page)).toHaveCount(1);
  await expect(attached(page).first()).toHaveAttribute('alt', 'good.png');
  await expect(message(page)).toHaveValue('keep this text');
  expect(webHost.world.fake.messageRequests()).toHaveLength(0);
});

test('scales a 6000×4000 JPEG down before sending it', async ({ page, webHost }) => {
  // Noise, which JPEG cannot make small: random pixels (quick to make, as sharp's own noise is not).
  const big = await sharp(randomBytes(6000 * 4000 * 3), { raw: { width: 6000, height: 4000, channels: 3 } })
    .jpeg({ quality: 20 })
    .toBuffer();
  // As it is, the API would refuse it: over 5 MB encoded, and larger than the model works at.
  expect(Math.ceil(big.length / 3) * 4).toBeGreaterThan(5 * 1024 * 1024);
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Noisy.' }] });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach image' }).click();
  await (await chooser).setFiles({ name: 'huge.jpg', mimeType: 'image/jpeg', buffer: big });
  await expect(attached(page)).toHaveCount(1);
  await message(page).fill('what is this?');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Noisy.');

  const [received] = imageBlocks(webHost.world.fake.messageRequests()[0]!);
  expect(received?.media_type).toBe('image/jpeg');
  const bytes = Buffer.from(received!.data, 'base64');
  const { width, height } = await sharp(bytes).metadata();
  expect({ width, height }).toEqual({ width: 1568, height: 1045 });
  expect(received!.data.length).toBeLessThanOrEqual(5 * 1024 * 1024);
  expect(bytes.length).toBeLessThan(big.length);
});

test('a reloaded page loads a sent image by reference, not inline', async ({ page, webHost }) => {
  // Noise, so the PNG is tens of kilobytes: big enough to go by reference.
  const pixels = randomBytes(160 * 120 * 3);
  const noisy: TestFile = {
    name: 'noise.png',
    mimeType: 'image/png',
    buffer: await sharp(pixels, { raw: { width: 160, height: 120, channels: 3 } })
      .png()
      .toBuffer(),
  };
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Static.' }] });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach image' }).click();
  await (await chooser).setFiles(noisy);
  await message(page).fill('what is this?');
  await message(page).press('Enter');
  await expect(page.getByRole('article', { name: 'Claude' })).toContainText('Static.');

  await page.reload();
  const shown = page
    .getByRole('article', { name: 'You' })
    .getByRole('list', { name: 'Images' })
    .getByRole('img');
  await expect(shown).toHaveCount(1);
  await expect(shown).toHaveAttribute('src', /^\/images\/[0-9a-f]{64}/);
  // It loaded: the browser decoded the image at its size.
  await expect.poll(() => shown.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(160);
});
