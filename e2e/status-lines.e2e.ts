import { Gate } from './fake-model/server';
import { claude, finished, log, resetPattern, send } from './fixtures/chat-page';
import { cliAddingLines, expect, test } from './fixtures/web-host';

/**
 * What the CLI says beside the chat, in Chromium against the real CLI: the next prompt it suggests, in the
 * empty message box, and the list its newer task tools build, above the composer. (Rate limits and login
 * status cannot be had from the CLI here; RateLimit.test.tsx and the reducer's tests cover them.)
 */

test('offers the suggested next prompt in the empty box: Tab takes it, and it goes when a turn starts', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  fake.suggestNext('run the tests');
  const box = page.getByRole('textbox', { name: 'Message' });
  // The CLI asks for a suggestion after each turn but the first.
  await send(page, 'hello');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'make the parser');
  await expect(finished(page)).toHaveCount(2);
  await expect(box).toHaveAttribute('placeholder', /^run the tests/);
  await expect(box).toHaveValue('');

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 640, height: 720 });
    await page.screenshot({ path: `test-results/screens/suggestion-${scheme}-640.png` });
  }
  await box.press('Tab');
  await expect(box).toHaveValue('run the tests');
  await expect(box).toBeFocused();
  // Emptied again, the box offers it again; anything typed is the user's own.
  await box.fill('');
  await expect(box).toHaveAttribute('placeholder', /^run the tests/);
  await box.pressSequentially('no');
  await expect(box).toHaveValue('no');

  const rest = new Gate();
  fake.enqueue({
    blocks: [{ type: 'text', text: 'Doing something else now.' }],
    hold: { after: 1, until: rest },
  });
  await send(page, 'something else');
  await expect(claude(page).last()).toContainText('Doing');
  await expect(box).not.toHaveAttribute('placeholder', /run the tests/);
  // With no suggestion, Tab leaves the box as it would anyway.
  await box.press('Tab');
  await expect(box).not.toBeFocused();
  rest.release();
  await expect(finished(page)).toHaveCount(3);
});

test.describe('with the task tools', () => {
  // The pinned CLI offers TaskCreate and TaskUpdate in place of TodoWrite with this set (an API key alone does not).
  test.use({ hostEnv: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' } });

  test('shows the list TaskCreate and TaskUpdate build, as the todo checklist', async ({ page, webHost }) => {
    const rest = new Gate();
    webHost.world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'TaskCreate',
            input: { subject: 'Write the parser', description: 'A parser', activeForm: 'Writing the parser' },
          },
        ],
      },
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'TaskCreate',
            input: { subject: 'Test the parser', description: 'Its tests', activeForm: 'Testing the parser' },
          },
        ],
      },
      { blocks: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }] },
      { blocks: [{ type: 'text', text: 'Working on it.' }], hold: { after: 1, until: rest } },
    );
    await send(page, 'plan the parser');
    const panel = page.getByRole('region', { name: 'Todo list' });
    await expect(panel).toContainText('0 of 2 done');
    await expect(panel.getByRole('listitem')).toHaveText([
      /In progress: Writing the parser$/,
      /To do: Test the parser$/,
    ]);
    // Each call's card is one line saying what it did to which task, not its JSON.
    const creates = log(page).getByRole('region', { name: 'TaskCreate tool call' });
    await expect(creates).toHaveCount(2);
    await expect(creates.first().getByRole('button').first()).toContainText('Write the parser');
    const update = log(page).getByRole('region', { name: 'TaskUpdate tool call' });
    await expect(update.getByRole('button').first()).toContainText('#1 → in progress');
    await expect(log(page)).not.toContainText('"taskId"');
    await page.setViewportSize({ width: 640, height: 720 });
    await page.screenshot({ path: 'test-results/screens/tasks-light-640.png' });
    rest.release();
    await expect(finished(page)).toHaveCount(1);
  });
});

test.describe('with a subscription account near and then at its limit', () => {
  const inThreeHours = Math.round(Date.now() / 1000) + 3 * 3600;
  test.use({
    hostEnv: {
      ...cliAddingLines([
        {
          type: 'rate_limit_event',
          rate_limit_info: {
            status: 'rejected',
            rateLimitType: 'five_hour',
            utilization: 1,
            resetsAt: inThreeHours,
          },
        },
        {
          type: 'auth_status',
          isAuthenticating: false,
          output: [],
          error: 'OAuth token has expired. Please obtain a new token or refresh your existing token.',
        },
      ]),
    },
  });

  test('says so in the header, says when it can go on, and says how to log in', async ({ page }) => {
    await send(page, 'hello');
    await expect(finished(page)).toHaveCount(1);
    // The account's windows, as the header shows them once one is reported: the 5-hour one in full.
    const limit = page.getByRole('status', { name: 'Usage limits' });
    const resets = resetPattern(inThreeHours);
    await expect(limit).toHaveAttribute('title', new RegExp(`^5-hour limit: 100% · resets ${resets}$`));
    await expect(limit.getByText(new RegExp(`^5-hour limit: 100% · resets ${resets}$`))).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'limit reached' })).toHaveText(
      new RegExp(`^5-hour limit reached · you can continue at ${resets}$`),
    );
    const login = page.getByRole('alert').filter({ hasText: 'not logged in' });
    await expect(login).toContainText('OAuth token has expired');
    await expect(login).toContainText('Run claude in a terminal');
    // Not a line Byre could not read.
    await expect(log(page)).not.toContainText('Byre skipped a line');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 640]) {
        await page.setViewportSize({ width, height: 720 });
        await page.screenshot({ path: `test-results/screens/rate-limit-${scheme}-${width}.png` });
      }
    }
  });
});
