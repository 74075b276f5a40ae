import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { FIRST_SCREEN_DATA_ID, FIRST_SCREEN_ROWS, pageWithFirstScreen } from '../shared/first-screen';
import type { ByreApi } from '../shared/ipc';
import { lastUserText } from './fake-model/server';
import { runInTerminal } from './fixtures/cli-env';
import type { SessionTurn } from './fixtures/session-files';
import { expect, test } from './fixtures/web-host';

/**
 * The library in Chromium through the browser host: past conversations, made by the real CLI in a
 * "terminal" (`claude -p`) or written in its file format, listed, opened, searched, resumed and exported.
 */

type Byre = { byre: ByreApi };

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation' });
const row = (page: Page, title: string | RegExp) => sidebar(page).getByRole('button', { name: title });

/** A long saved conversation: turn n asks about "topic n"; one turn, far up, mentions the needle. */
function longConversation(count: number, needleAt: number, needle: string): SessionTurn[] {
  return Array.from({ length: count }, (_, index) => ({
    prompt: index === 0 ? 'Plan the storage layer' : `Question ${index} about topic ${index}`,
    reply:
      index === needleAt
        ? `The function to change is ${needle}, in the storage module.`
        : `Answer ${index}: nothing unusual about topic ${index}.`,
  }));
}

test.describe('with two conversations made in a terminal', () => {
  test.use({
    history: {
      sessions: [
        { terminal: 'Is the build green?', reply: 'The build is green.' },
        { terminal: 'When is lunch?', reply: 'Lunch is at noon.' },
      ],
    },
  });

  test('lists them by their first prompt and opens one read-only', async ({ page, webHost }) => {
    await expect(row(page, /Is the build green\?/)).toBeVisible();
    await expect(row(page, /When is lunch\?/)).toBeVisible();
    // Grouped under their folder.
    await expect(sidebar(page).getByRole('heading', { name: /work/ })).toBeVisible();

    await row(page, /Is the build green\?/).click();
    await expect(log(page).getByRole('article', { name: 'You' })).toContainText('Is the build green?');
    await expect(log(page).getByRole('article', { name: 'Claude' })).toContainText('The build is green.');
    await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
    // Read-only until resumed: there is nothing to type in.
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
    // The row says it is open now; clicking it again switches to its tab rather than opening another.
    await expect(row(page, /Is the build green\?/).getByRole('img', { name: 'Open in a tab' })).toBeVisible();
    await page.getByRole('tab').first().click();
    await row(page, /Is the build green\?/).click();
    await expect(page.getByRole('tab', { name: 'Is the build green?' })).toHaveCount(1);
    await expect(page.getByRole('tab', { name: 'Is the build green?' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(webHost.world.fake.messageRequests()).toHaveLength(2);
  });

  test('the browser host’s page holds none of them: only the socket, with the token, reads the library', async ({
    page,
    webHost,
  }) => {
    await expect(row(page, /Is the build green\?/)).toBeVisible();
    // What any program on this computer gets at the address without the token: the app as built.
    const served = await (await fetch(`${webHost.origin}/app/`)).text();
    expect(served).not.toContain('Is the build green?');
    expect(served).not.toContain('When is lunch?');
    expect(served).toContain('<div id="root"></div>');
  });

  test('the first screen Electron draws into its page shows their rows before the app’s code has loaded, where the app then draws them', async ({
    page: first,
    browser,
    webHost,
  }) => {
    // Electron's app:// page (main/hosts/index.ts) is the built page with the first screen drawn in
    // (shared/first-screen.ts), from the rows the host keeps; here the same first screen is made from the
    // rows the library lists, in the browser host's own page.
    await expect(row(first, /Is the build green\?/)).toBeVisible();
    // The index done, so that no "Indexing…" line comes above the rows after the app takes over.
    await expect(sidebar(first).getByText(/^Indexing/)).toHaveCount(0);
    const listed = await first.evaluate(async (limit) => {
      const result = await (globalThis as unknown as Byre).byre.libraryList({ limit });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.rows;
    }, FIRST_SCREEN_ROWS);

    // The first screen as Electron's page holds it, put into this page's root as the parser reaches it (a
    // page answered by a test's route, rather than by the host, may not open a socket to 127.0.0.1).
    const drawnPage = pageWithFirstScreen('<html><body><div id="root"></div></body></html>', {
      rows: listed,
      theme: 'system',
      now: Date.now(),
    });
    const [, markup = '', data = ''] =
      /<div id="root">([\s\S]*)<\/div><script type="application\/json" id="[^"]+">([\s\S]*)<\/script>/.exec(
        drawnPage,
      ) ?? [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(
      ({ markup, data, id }) => {
        new MutationObserver((_, observer) => {
          const root = document.getElementById('root');
          if (!root) return;
          observer.disconnect();
          root.innerHTML = markup;
          const block = document.createElement('script');
          block.type = 'application/json';
          block.id = id;
          block.textContent = data;
          root.after(block);
        }).observe(document, { childList: true, subtree: true });
      },
      { markup, data, id: FIRST_SCREEN_DATA_ID },
    );
    // The app's start held back: what shows meanwhile is the drawn first screen.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/boot-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(webHost.url);
    const drawn = page.locator('.app-first-screen');
    await expect(drawn.locator('.library-row-title')).toHaveText(['When is lunch?', 'Is the build green?']);
    // Seen, not usable: nothing in it can be clicked, focused or heard by a screen reader yet.
    await expect(drawn).toHaveAttribute('inert', '');
    await expect(row(page, /When is lunch\?/)).toHaveCount(0);
    const places = () =>
      page.locator('.library-row-title').evaluateAll((titles) =>
        titles.map((title) => ({
          text: title.textContent,
          box: title.getBoundingClientRect().toJSON() as object,
        })),
      );
    const before = await places();

    release();
    await expect(row(page, /When is lunch\?/)).toBeVisible();
    await expect(drawn).toHaveCount(0);
    // The same rows in the same places: nothing moved when the app took over.
    expect(await places()).toEqual(before);
    await row(page, /Is the build green\?/).click();
    await expect(log(page).getByRole('article', { name: 'Claude' })).toContainText('The build is green.');
    // The page's script policy refused nothing (the rows' data block runs nothing).
    expect(errors).toEqual([]);
    await page.close();
  });

  test('resumes one, and the model gets its history', async ({ page, webHost }) => {
    const fake = webHost.world.fake;
    await row(page, /When is lunch\?/).click();
    await page.getByRole('button', { name: 'Resume' }).click();
    const message = page.getByRole('textbox', { name: 'Message' });
    await expect(message).toBeEnabled();
    fake.enqueue({ blocks: [{ type: 'text', text: 'You asked about lunch.' }] });
    await message.fill('What did I ask before?');
    await message.press('Enter');
    await expect(log(page).getByRole('article', { name: 'Claude' }).last()).toContainText(
      'You asked about lunch.',
    );
    // The history stayed on screen, and it went to the model with the new question.
    await expect(log(page).getByRole('article', { name: 'You' }).first()).toContainText('When is lunch?');
    const last = fake.messageRequests().at(-1)!;
    expect(lastUserText(last)).toContain('What did I ask before?');
    expect(JSON.stringify(last.body)).toContain('When is lunch?');
    expect(JSON.stringify(last.body)).toContain('Lunch is at noon.');

    // Reloaded, the tab shows the history from before the resume as well as what came after it.
    await page.reload();
    await expect(log(page).getByRole('article', { name: 'Claude' }).last()).toContainText(
      'You asked about lunch.',
    );
    await expect(log(page).getByRole('article', { name: 'You' }).first()).toContainText('When is lunch?');
    await expect(log(page).getByRole('article', { name: 'Claude' }).first()).toContainText(
      'Lunch is at noon.',
    );
    await expect(log(page).getByRole('article', { name: 'You' })).toHaveCount(2);
  });

  test('exports one as Markdown', async ({ page, webHost }) => {
    await row(page, /Is the build green\?/).click();
    await expect(log(page).getByRole('article', { name: 'Claude' })).toContainText('The build is green.');
    await page.getByRole('button', { name: 'Export' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Markdown' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const markdown = readFileSync(await file.path(), 'utf8');
    expect(markdown).toContain('Is the build green?');
    expect(markdown).toContain('The build is green.');
    expect(markdown).toMatch(/\*\*You\*\*/);
    expect(markdown).toMatch(/\*\*Claude\*\*/);
    // Fetched straight from the host, once, by an address that is not the token.
    expect(file.url()).toContain('/downloads/');
    expect(file.url()).not.toContain(webHost.token);
    expect((await page.request.get(file.url())).status()).toBe(404);
  });
});

test('a conversation made in a terminal while the app runs appears without a reload', async ({
  page,
  webHost,
}) => {
  await expect(sidebar(page)).toBeVisible();
  await expect(row(page, /Where are the logs\?/)).toHaveCount(0);
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'In /var/log.' }] });
  await runInTerminal(webHost.world, 'Where are the logs?');
  await expect(row(page, /Where are the logs\?/)).toBeVisible();
});

test('a search left in the box finds a conversation made after it was typed', async ({ page, webHost }) => {
  await expect(sidebar(page)).toBeVisible();
  const box = sidebar(page).getByRole('searchbox', { name: 'Search conversations' });
  await box.pressSequentially('rotated logs');
  await expect(sidebar(page).getByText('No conversations mention “rotated logs”.')).toBeVisible();
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'They are rotated logs under /var/log.' }] });
  await runInTerminal(webHost.world, 'Where do the rotated logs go?');
  // Asked again as the library took it in, with nothing typed.
  const hit = sidebar(page).getByRole('button', { name: /Where do the rotated logs go\?/ });
  await expect(hit).toBeVisible();
  await expect(sidebar(page).getByRole('list', { name: 'Search results' })).toHaveAttribute(
    'aria-busy',
    'false',
  );
});

test.describe('with a long saved conversation', () => {
  const needle = 'rebalanceShardWeights';
  test.use({
    history: {
      sessions: [{ file: { turns: longConversation(400, 30, needle), gitBranch: 'storage-work' } }],
    },
  });

  test('search finds a message far up and opens the conversation at it, highlighted', async ({ page }) => {
    await expect(row(page, /Plan the storage layer/)).toBeVisible();
    // A piece of an identifier is enough.
    await sidebar(page).getByRole('searchbox', { name: 'Search conversations' }).fill('ShardWeigh');
    const hit = sidebar(page).getByRole('button', { name: /Plan the storage layer/ });
    await expect(hit).toContainText(needle);
    await expect(hit.locator('mark')).toHaveText(/ShardWeigh/i);
    await hit.click();

    const target = log(page).getByRole('article', { name: 'Claude' }).filter({ hasText: needle });
    await expect(target).toBeVisible();
    await expect(page.getByRole('searchbox', { name: 'Find in conversation' })).toHaveValue('ShardWeigh');
    // Exactly: the sidebar's "Indexing 1 of 1 conversations" may be showing too.
    await expect(page.getByText('1 of 1', { exact: true })).toBeVisible();
    await expect.poll(() => currentHighlight(page)).toBe('shardweigh');
  });

  test('searches as each key is typed, and keeps the answer to the last one', async ({ page }) => {
    await expect(row(page, /Plan the storage layer/)).toBeVisible();
    const box = sidebar(page).getByRole('searchbox', { name: 'Search conversations' });
    await box.pressSequentially(needle);
    const results = sidebar(page).getByRole('list', { name: 'Search results' });
    await expect(results).toHaveAttribute('aria-busy', 'false');
    const hit = sidebar(page).getByRole('button', { name: /Plan the storage layer/ });
    await expect(hit.locator('mark').first()).toHaveText(needle);
    // One key more that nothing holds: the answer follows the box, not an earlier query.
    await box.press('End');
    await box.pressSequentially('Zq');
    await expect(sidebar(page).getByText(`No conversations mention “${needle}Zq”.`)).toBeVisible();
    await box.press('Backspace');
    await box.press('Backspace');
    await expect(hit.locator('mark').first()).toHaveText(needle);
  });

  test('find in conversation reaches messages that are not rendered', async ({ page }) => {
    await row(page, /Plan the storage layer/).click();
    await expect(log(page).getByRole('article', { name: 'Claude' }).last()).toContainText('Answer 399');
    // Loaded, but far above what the list has rendered.
    await expect(log(page).getByText('Answer 385:')).toHaveCount(0);
    await log(page).click();
    await page.keyboard.press('Control+f');
    const find = page.getByRole('searchbox', { name: 'Find in conversation' });
    await expect(find).toBeFocused();
    await find.fill('topic 385');
    await expect(page.getByText(/^1 of \d+$/)).toBeVisible();
    await expect(
      log(page).getByRole('article', { name: 'You' }).filter({ hasText: 'topic 385' }),
    ).toBeVisible();
    await expect.poll(() => currentHighlight(page)).toBe('topic 385');
    await find.press('Escape');
    await expect(find).toHaveCount(0);
  });
});

/** The text under the find bar's current-match highlight, lowercased. */
function currentHighlight(page: Page): Promise<string> {
  return page.evaluate(() => {
    const current = CSS.highlights.get('find-current');
    const range = current ? [...current.keys()][0] : undefined;
    return range instanceof Range ? range.toString().toLowerCase() : '';
  });
}
