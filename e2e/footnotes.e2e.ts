import { claude, finished, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * Footnotes in replies go to their note within the same message, and back: two replies that each number a
 * footnote 1 do not send the reader to the other's note, and no footnote link opens a tab or changes the
 * page's address.
 */

test('a footnote reference goes to its note in the same message, and the note back to it', async ({
  page,
  webHost,
}) => {
  webHost.world.fake.enqueue(
    { blocks: [{ type: 'text', text: 'First claim.[^1]\n\n[^1]: The first source.' }] },
    { blocks: [{ type: 'text', text: 'Second claim.[^1]\n\n[^1]: The second source.' }] },
  );
  await send(page, 'one');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'two');
  await expect(finished(page)).toHaveCount(2);
  const address = page.url();

  const reply = claude(page).filter({ hasText: 'Second claim.' });
  await reply.getByRole('link', { name: '1', exact: true }).click();
  const note = reply.getByRole('listitem').filter({ hasText: 'The second source.' });
  await expect(note).toBeFocused();
  await expect(note).toBeInViewport();

  await note.getByRole('link', { name: 'Back to reference 1' }).click();
  await expect(reply.getByRole('link', { name: '1', exact: true })).toBeFocused();

  // The first reply's footnote is its own.
  const earlier = claude(page).filter({ hasText: 'First claim.' });
  await earlier.getByRole('link', { name: '1', exact: true }).click();
  await expect(earlier.getByRole('listitem').filter({ hasText: 'The first source.' })).toBeFocused();
  expect(page.url()).toBe(address);
  expect(page.context().pages()).toHaveLength(1);
});
