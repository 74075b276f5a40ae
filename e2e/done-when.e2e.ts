import { join } from 'node:path';
import { finished, log, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * "Done when" in Chromium through the browser host, against the real CLI and the fake model: the user sets
 * the check in the conversation's settings, Claude stops, the check fails and its card says so, Claude goes
 * on, and the check passes.
 */

test('a failing check card, then the passing one, and the header shows the last result', async ({
  page,
  webHost,
}) => {
  const { fake, cwd } = webHost.world;
  fake.enqueue(
    { blocks: [{ type: 'text', text: 'I think it is done.' }] },
    {
      blocks: [
        { type: 'tool_use', name: 'Write', input: { file_path: join(cwd, 'done.txt'), content: 'yes\n' } },
      ],
    },
    { blocks: [{ type: 'text', text: 'Now done.txt exists.' }] },
  );

  const settings = page.getByRole('button', { name: 'Conversation settings' });
  await settings.click();
  const panel = page.getByRole('dialog', { name: 'Conversation settings' });
  const doneWhen = panel.getByRole('textbox', { name: 'Done when' });
  await expect(doneWhen).toBeFocused();
  await doneWhen.fill('test -f done.txt');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel).toBeHidden();
  await expect(settings).toBeFocused();

  await send(page, 'make done.txt');
  await expect(finished(page)).toHaveCount(1);

  const checks = log(page).getByRole('group', { name: 'Check' });
  await expect(checks).toHaveCount(2);
  await expect(checks.first()).toContainText('Failed');
  await expect(checks.first()).toContainText('test -f done.txt');
  await expect(checks.first()).toContainText('round 1 of 5');
  await expect(checks.first()).toContainText('exit 1');
  await expect(checks.last()).toContainText('Passed');
  await expect(checks.last()).toContainText('round 2 of 5');
  // Its feedback to Claude is the failed card, not a second notice.
  await expect(log(page)).not.toContainText('Stop hook feedback');
  await expect(
    page.getByRole('banner').getByRole('status').filter({ hasText: 'Check passed' }),
  ).toBeVisible();

  // The setting stays with the conversation: the panel opens with it.
  await settings.click();
  await expect(panel.getByRole('textbox', { name: 'Done when' })).toHaveValue('test -f done.txt');
});

test('"Commit as" refuses an invalid email with the reason; a new conversation shows the identity it commits as', async ({
  page,
  webHost,
}) => {
  await page.getByRole('button', { name: 'Conversation settings' }).click();
  const panel = page.getByRole('dialog', { name: 'Conversation settings' });
  await panel.getByRole('radio', { name: 'All folders' }).check();
  await panel.getByRole('textbox', { name: 'Commit name' }).fill('Byre Tester');
  await panel.getByRole('textbox', { name: 'Commit email' }).fill('not an email');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('alert')).toContainText('Enter an email address such as name@example.com.');
  await expect(panel).toBeVisible();

  await panel.getByRole('textbox', { name: 'Commit email' }).fill('tester@example.com');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel).toBeHidden();

  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(webHost.world.cwd);
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
  await expect(page.getByRole('banner')).toContainText('Commits as Byre Tester <tester@example.com>');
  // The first conversation's Claude was started before: it keeps what it was started with (none).
  await page.getByRole('tab').first().click();
  await expect(page.getByRole('tab').first()).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('banner')).toContainText(webHost.world.cwd);
  await expect(page.getByRole('banner')).not.toContainText('Commits as');
  await page.getByRole('tab').last().click();

  // The panel offers what was kept.
  await page.getByRole('button', { name: 'Conversation settings' }).click();
  await expect(panel.getByRole('radio', { name: 'All folders' })).toBeChecked();
  await expect(panel.getByRole('textbox', { name: 'Commit email' })).toHaveValue('tester@example.com');
});
