import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { ScriptedReply } from './fake-model/server';
import { claude, finished, send, you } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * The Changes panel in Chromium through the browser host, against the real CLI and the fake model, in a real
 * git repository: every file two turns changed, the shell command's file included, with the turn and tool
 * that changed it; the Turn filter; a file's diff; a revert asked about first; a hand edit flagged and kept;
 * and Rewind's "Conversation and files" putting back what a command changed.
 */

test.use({
  folderIsRepository: true,
  folderFiles: { 'src/app.ts': 'export const answer = 41;\n', 'data.txt': 'version 1\n' },
});

const BASH = "printf 'made\\n' > made-by-bash.txt";
const tool = (name: string, input: Record<string, unknown>): ScriptedReply => ({
  blocks: [{ type: 'tool_use', name, input }],
});
const text = (words: string): ScriptedReply => ({ blocks: [{ type: 'text', text: words }] });

const panel = (page: Page) => page.getByRole('region', { name: 'Changes' });
const files = (page: Page) => panel(page).getByRole('list', { name: 'Changed files' }).getByRole('listitem');
const row = (page: Page, path: string) => files(page).filter({ has: page.getByText(path, { exact: true }) });

test('lists what each turn changed, shell commands included, filters by turn and reverts a file', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  const app = join(cwd, 'src', 'app.ts');
  fake.enqueue(
    tool('Read', { file_path: app }),
    tool('Edit', { file_path: app, old_string: 'answer = 41', new_string: 'answer = 42' }),
    tool('Bash', { command: BASH, description: 'make a file' }),
    text('Fixed the answer and made a file.'),
    tool('Write', { file_path: join(cwd, 'notes.txt'), content: 'first note\n' }),
    text('Wrote the notes.'),
  );
  await send(page, 'fix the answer');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'write some notes');
  await expect(finished(page)).toHaveCount(2);

  await page.getByRole('button', { name: 'Changes' }).click();
  await expect(files(page)).toHaveCount(3);
  await expect(row(page, 'made-by-bash.txt')).toContainText(`turn 1 “fix the answer” · Bash: ${BASH}`);
  await expect(row(page, 'src/app.ts')).toContainText('turn 1 “fix the answer” · Edit');
  await expect(row(page, 'src/app.ts')).toContainText('+1 −1');
  await expect(row(page, 'notes.txt')).toContainText('turn 2 “write some notes” · Write');

  // One turn: only what it changed.
  const turn = panel(page).getByRole('combobox', { name: 'Turn' });
  await turn.selectOption({ label: 'Turn 2: write some notes' });
  await expect(files(page)).toHaveCount(1);
  await expect(files(page)).toContainText('notes.txt');
  await turn.selectOption({ label: 'Turn 1: fix the answer' });
  await expect(files(page)).toHaveCount(2);

  // A file's diff.
  await row(page, 'src/app.ts').getByText('src/app.ts', { exact: true }).click();
  const diff = panel(page).getByRole('region', { name: 'Diff of src/app.ts' });
  await expect(diff).toContainText('answer = 41');
  await expect(diff).toContainText('answer = 42');

  // Reverting the command's file asks first, then deletes it (it did not exist at the turn's start).
  await row(page, 'made-by-bash.txt').getByRole('button', { name: 'Revert made-by-bash.txt' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('made-by-bash.txt');
  expect(existsSync(join(cwd, 'made-by-bash.txt'))).toBe(true);
  await dialog.getByRole('button', { name: 'Revert' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => existsSync(join(cwd, 'made-by-bash.txt'))).toBe(false);
  // The revert is a step of its own, which the filter lists.
  await expect(turn.locator('option', { hasText: 'Revert: made-by-bash.txt' })).toHaveCount(1);
  // The other files are as the turns left them.
  expect(readFileSync(app, 'utf8')).toBe('export const answer = 42;\n');
  expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('first note\n');
});

test('a turn that changed 300 files lists them all, a screenful first, and the last one opens its diff', async ({
  page,
  webHost,
}) => {
  const { fake } = webHost.world;
  fake.enqueue(
    tool('Bash', {
      command:
        // No process per file: seq pads the numbers itself.
        'mkdir -p many && for i in $(seq -w 1 300); do echo "line $i" > many/file-$i.txt; done',
      description: 'make many files',
    }),
    text('Made three hundred files.'),
  );
  await send(page, 'make many files');
  await expect(finished(page)).toHaveCount(1);

  await page.getByRole('button', { name: 'Changes' }).click();
  await expect(panel(page)).toContainText('300 files changed');
  // The rest follow the first screenful within a few frames.
  await expect(files(page)).toHaveCount(300);
  const last = row(page, 'many/file-300.txt');
  await last.scrollIntoViewIfNeeded();
  await last.getByText('many/file-300.txt', { exact: true }).click();
  await expect(panel(page).getByRole('region', { name: 'Diff of many/file-300.txt' })).toContainText(
    'line 300',
  );
  // Opened again: what it had at once, then the folder as it is now.
  await page.getByRole('button', { name: 'Close changes' }).click();
  await page.getByRole('button', { name: 'Changes' }).click();
  await expect(files(page)).toHaveCount(300);
  await expect(panel(page).getByRole('list', { name: 'Changed files' })).toHaveAttribute(
    'aria-busy',
    'false',
  );
});

test('flags a file changed by hand since the last turn, and a revert leaves it unless told', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  const notes = join(cwd, 'notes.txt');
  fake.enqueue(tool('Write', { file_path: notes, content: 'by Claude\n' }), text('Wrote the notes.'));
  await send(page, 'write some notes');
  await expect(finished(page)).toHaveCount(1);
  writeFileSync(notes, 'by Claude\nand by hand\n');

  await page.getByRole('button', { name: 'Changes' }).click();
  await expect(row(page, 'notes.txt')).toContainText('Changed since the last turn');
  await row(page, 'notes.txt').getByRole('button', { name: 'Revert notes.txt' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Changed since the last turn');
  const overwrite = dialog.getByRole('checkbox');
  await expect(overwrite).not.toBeChecked();
  await dialog.getByRole('button', { name: 'Revert' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel(page)).toContainText(
    'Nothing was reverted: notes.txt changed since the last turn, and was left as it is.',
  );
  expect(readFileSync(notes, 'utf8')).toBe('by Claude\nand by hand\n');
  // Still flagged: keeping it did not make the hand edit Claude's.
  await expect(row(page, 'notes.txt')).toContainText('Changed since the last turn');

  // Told to, it goes back to the start: the file did not exist then.
  await row(page, 'notes.txt').getByRole('button', { name: 'Revert notes.txt' }).click();
  await expect(dialog).toContainText('Changed since the last turn');
  await dialog.getByRole('checkbox').check();
  await dialog.getByRole('button', { name: 'Revert' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => existsSync(notes)).toBe(false);
});

test('Rewind "Conversation and files" puts back what a shell command changed', async ({ page, webHost }) => {
  const { fake, cwd } = webHost.world;
  const data = join(cwd, 'data.txt');
  fake.enqueue(
    tool('Bash', { command: "printf 'version 2\\n' > data.txt", description: 'update the data' }),
    text('Updated the data.'),
  );
  await send(page, 'update the data');
  await expect(claude(page).last()).toContainText('Updated the data.');
  expect(readFileSync(data, 'utf8')).toBe('version 2\n');

  const first = you(page).first();
  await first.hover();
  await first.getByRole('button', { name: 'Rewind' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind' });
  const list = dialog.getByRole('list', { name: 'Files to restore' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByRole('listitem')).toContainText('data.txt');
  await expect(list.getByRole('listitem')).toContainText('changed by a command');
  await dialog.getByRole('button', { name: 'Conversation and files' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => readFileSync(data, 'utf8')).toBe('version 1\n');
  // The message is back in the composer, to send again as a new branch.
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('update the data');
});
