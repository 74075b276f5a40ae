import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastUserText, type RecordedRequest } from './fake-model/server';
import { claude, finished, log, send, you } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * Rewind and branches in Chromium through the browser host, against the real CLI and the fake model: rewind
 * a message, edit and send it (the fork starts then), switch between the branches, see them in the tree,
 * and restore files through the Rewind dialog after its preview.
 */

/** Every text of a request's messages, in order (what the model was shown). */
function texts(request: RecordedRequest): string {
  return JSON.stringify((request.body as { messages?: unknown } | undefined)?.messages ?? []);
}

test('rewinds a message, sends it edited as a new branch, and switches back to the original', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  fake.enqueue(
    { blocks: [{ type: 'text', text: 'First answer.' }] },
    { blocks: [{ type: 'text', text: 'Second answer.' }] },
    { blocks: [{ type: 'text', text: 'Answer to the edit.' }] },
  );
  await send(page, 'first question');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'second question');
  await expect(finished(page)).toHaveCount(2);

  const second = you(page).nth(1);
  await second.hover();
  await second.getByRole('button', { name: 'Rewind' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind' });
  // The dry run answers before anything can be done: no file was changed by these turns.
  await expect(dialog).toContainText('nothing to restore');
  await expect(dialog.getByRole('button', { name: 'Files only' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Conversation only' }).click();
  await expect(dialog).toBeHidden();

  // The view is the conversation before that message; the message is back in the composer to edit.
  await expect(you(page)).toHaveCount(1);
  await expect(claude(page)).toHaveCount(1);
  const box = page.getByRole('textbox', { name: 'Message' });
  await expect(box).toHaveValue('second question');
  const requestsBefore = fake.messageRequests().length;
  await box.fill('second question, edited');
  await box.press('Enter');
  await expect(claude(page).last()).toContainText('Answer to the edit.');

  // The fork's request carries the history before the rewound message, and nothing after it.
  const forkRequest = fake
    .messageRequests()
    .slice(requestsBefore)
    .find((request) => lastUserText(request).includes('second question, edited'));
  expect(forkRequest).toBeDefined();
  const shown = texts(forkRequest!);
  expect(shown).toContain('first question');
  expect(shown).toContain('First answer.');
  expect(shown).not.toContain('Second answer.');
  expect(shown).not.toMatch(/second question(?!, edited)/);

  const switcher = log(page).getByRole('group', { name: 'Branches here' });
  await expect(switcher).toContainText('Branch 2 of 2');
  await switcher.getByRole('button', { name: 'Previous branch' }).click();
  await expect(log(page)).toContainText('Second answer.');
  await expect(log(page)).not.toContainText('Answer to the edit.');
  await expect(log(page).getByRole('group', { name: 'Branches here' })).toContainText('Branch 1 of 2');

  const tree = page.getByRole('tree', { name: 'Branches' });
  await expect(tree.getByRole('treeitem')).toHaveCount(2);
  await expect(tree).toContainText('second question, edited');
  // Its count is what it holds now: the shared turn, the edited message and its answer.
  await expect(tree.getByRole('treeitem', { name: 'second question, edited' })).toContainText('4 messages');
  await tree.getByRole('treeitem', { name: 'second question, edited' }).click();
  await expect(log(page)).toContainText('Answer to the edit.');
  await expect(
    log(page).getByRole('group', { name: 'Branches here' }).getByRole('button', { name: 'Next branch' }),
  ).toBeDisabled();

  // The two side by side, from where they part, reached by keyboard: to the other branch, Tab, Enter.
  await tree.getByRole('treeitem', { name: 'second question, edited' }).focus();
  await page.keyboard.press('ArrowUp');
  await expect(tree.getByRole('treeitem', { name: 'first question' })).toBeFocused();
  await page.keyboard.press('Tab');
  const compareButton = tree.getByRole('button', { name: 'Compare with first question' });
  await expect(compareButton).toBeFocused();
  await page.keyboard.press('Enter');
  const compare = page.getByRole('region', { name: 'Compare branches' });
  await expect(compare).toContainText('Answer to the edit.');
  await expect(compare).toContainText('Second answer.');
  await expect(compare).not.toContainText('First answer.');
  await compare.getByRole('button', { name: 'Close comparison' }).click();
  await expect(log(page)).toContainText('Answer to the edit.');
  // Space presses it too.
  await compareButton.focus();
  await page.keyboard.press(' ');
  await expect(compare).toContainText('Second answer.');
  await compare.getByRole('button', { name: 'Close comparison' }).click();
});

test('restores files through the Rewind dialog after showing what would change', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  const cwd = webHost.world.cwd;
  const notes = join(cwd, 'notes.txt');
  const later = join(cwd, 'later.txt');
  fake.enqueue(
    { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: notes, content: 'one\n' } }] },
    { blocks: [{ type: 'text', text: 'Wrote notes.' }] },
    { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: later, content: 'two\n' } }] },
    { blocks: [{ type: 'text', text: 'Wrote later.' }] },
  );
  await send(page, 'write the notes');
  await expect(claude(page).last()).toContainText('Wrote notes.');
  await send(page, 'write another file');
  await expect(claude(page).last()).toContainText('Wrote later.');
  expect(readFileSync(later, 'utf8')).toBe('two\n');

  const second = you(page).nth(1);
  await second.hover();
  await second.getByRole('button', { name: 'Rewind' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind' });
  const list = dialog.getByRole('list', { name: 'Files to restore' });
  // Each file with the lines restoring it would add and remove: later.txt's one line goes.
  await expect(list.getByRole('listitem')).toHaveText([`${later} +0 −1`]);
  await expect(list).not.toContainText('notes.txt');
  // The preview changed nothing.
  expect(readFileSync(later, 'utf8')).toBe('two\n');

  await dialog.getByRole('button', { name: 'Files only' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: '1 file restored' })).toBeVisible();
  // The file made after that message is gone; the one from before it is as it was; the chat is unchanged.
  expect(existsSync(later)).toBe(false);
  expect(readFileSync(notes, 'utf8')).toBe('one\n');
  await expect(you(page)).toHaveCount(2);
});
