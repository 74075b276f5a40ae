import type { Page } from '@playwright/test';
import { finished, resetPattern, send } from './fixtures/chat-page';
import { cliAddingLines, expect, test } from './fixtures/web-host';

/**
 * Plan limits in Chromium through the browser host. No run here produces `rate_limit_event` (cli-facts 16),
 * so the CLI is the real one behind a wrapper that adds, after each result, the lines a subscription
 * account gets (in `SDKRateLimitEvent`'s shape): the weekly window at 40%, the 5-hour one reached. The
 * header shows both, the banner keeps a message for the reset (after a reload too) and gives it back when
 * cancelled, and the Usage view shows the windows, the pacing and this window's conversations.
 */

const HOUR = 3600;
const now = Math.round(Date.now() / 1000);
const fiveHourResets = now + 3 * HOUR;

test.use({
  hostEnv: {
    ...cliAddingLines([
      {
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'allowed',
          rateLimitType: 'seven_day',
          utilization: 0.4,
          resetsAt: now + 4 * 24 * HOUR,
        },
      },
      {
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'rejected',
          rateLimitType: 'five_hour',
          utilization: 1,
          resetsAt: fiveHourResets,
        },
      },
    ]),
  },
});

const clock = resetPattern(fiveHourResets);
const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const keep = (page: Page) => page.getByRole('button', { name: 'Send when the limit resets' });
const kept = (page: Page) => page.getByRole('status').filter({ hasText: 'Will send at' });

test('the header shows both windows, and a message is kept for the reset until cancelled', async ({
  page,
}) => {
  await send(page, 'Start the migration');
  await expect(finished(page)).toHaveCount(1);

  const limits = page.getByRole('status', { name: 'Usage limits' });
  await expect(limits).toContainText(new RegExp(`5-hour limit: 100% · resets ${clock}`));
  await expect(limits).toContainText(/Weekly limit: 40% · resets \w{3} /);
  const reached = page.getByRole('alert').filter({ hasText: 'limit reached' });
  await expect(reached).toContainText(new RegExp(`5-hour limit reached · you can continue at ${clock}`));
  // Nothing to keep while the composer is empty.
  await expect(keep(page)).toHaveCount(0);

  await message(page).fill('Carry on with the migration');
  await keep(page).click();
  await expect(kept(page)).toContainText(new RegExp(`Will send at ${clock} · in (3 h|2 h \\d+ min)`));
  await expect(kept(page)).toContainText('Carry on with the migration');
  await expect(message(page)).toHaveValue('');

  // Kept in main: a reload shows it waiting still.
  await page.reload();
  await expect(kept(page)).toContainText('Carry on with the migration');

  // Cancelled, it goes back into the empty composer, and the limit's banner offers to keep it again.
  await kept(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(kept(page)).toHaveCount(0);
  await expect(message(page)).toHaveValue('Carry on with the migration');
  await expect(keep(page)).toBeVisible();
});

test('the Usage view shows the windows, their pacing, and this window by conversation', async ({ page }) => {
  await send(page, 'Start the migration');
  await expect(finished(page)).toHaveCount(1);

  await page.getByRole('button', { name: 'Usage' }).click();
  const section = page.getByRole('region', { name: 'Usage' }).getByRole('region', { name: 'Plan limits' });
  await expect(section.getByRole('meter', { name: '5-hour limit used' })).toHaveAttribute(
    'aria-valuenow',
    '100',
  );
  await expect(section.getByRole('meter', { name: 'Weekly limit used' })).toHaveAttribute(
    'aria-valuenow',
    '40',
  );
  await expect(section).toContainText(new RegExp(`The 5-hour limit is reached; it resets ${clock}`));
  // 40% three days into seven: at that rate the week's end comes first.
  await expect(section).toContainText('At this rate the weekly limit is not reached before it resets');
  // The one conversation used all of this window so far.
  const shares = section.getByRole('region', { name: 'This 5-hour window, by conversation' });
  const share = shares.getByRole('button', { name: /Start the migration/ });
  await expect(share).toContainText('100%');
  await share.click();
  await expect(page.getByRole('region', { name: 'Usage' })).toHaveCount(0);
});
