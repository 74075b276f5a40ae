import { claude, log, send, you } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * A long open conversation reaches a reloaded page as its last screenful; earlier messages come from main
 * page by page as the user scrolls up. Pages hold 2 messages here, so three turns make three. Each answer is
 * several screens tall: a last page barely taller than the view has its top within reach at the bottom, and
 * the page before it is fetched at once (as it should be for a person), which is not what this test is about.
 */

test.use({ hostEnv: { BYRE_PAGE_MESSAGES: '2' } });

const paragraph = (turn: string) =>
  Array.from(
    { length: 40 },
    (_, line) => `Answer ${turn}, line ${line}: ${'words to fill the screen '.repeat(6)}`,
  ).join('\n\n');

test('a reloaded page shows the end of a long conversation, and earlier pages as the user scrolls up', async ({
  page,
  webHost,
}) => {
  const turns = ['one', 'two', 'three'];
  webHost.world.fake.enqueue(
    ...turns.map((turn) => ({ blocks: [{ type: 'text' as const, text: paragraph(turn) }] })),
  );
  for (const turn of turns) {
    await send(page, `turn ${turn}`);
    await expect(claude(page).last()).toContainText(`Answer ${turn}, line 39`);
  }

  await page.reload();
  await expect(claude(page).last()).toContainText('Answer three, line 39');
  // Only the last page came with the page: the first turn waits above.
  await expect(you(page).first()).not.toContainText('turn one');
  await expect(
    log(page).getByRole('status').filter({ hasText: 'Scroll up for earlier messages' }),
  ).toBeAttached();

  // Scrolling up brings the pages before it, in order, until the first.
  await expect(async () => {
    await log(page).evaluate((element) => element.scrollTo({ top: 0 }));
    await expect(you(page).first()).toContainText('turn one', { timeout: 1_000 });
    await expect(claude(page).first()).toContainText('Answer one, line 0', { timeout: 1_000 });
  }).toPass();
  await expect(log(page).getByRole('status').filter({ hasText: 'earlier messages' })).toHaveCount(0);

  // The conversation goes on where it was.
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Fourth answer.' }] });
  await send(page, 'turn four');
  await expect(async () => {
    await log(page).evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    await expect(claude(page).last()).toContainText('Fourth answer.', { timeout: 1_000 });
  }).toPass();
});
