import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/web-host';

/**
 * The Usage view in Chromium through the browser host, over sessions written in the CLI's format with
 * known models and tokens: the chart, the folder table, the totals, the range and the grouping, a folder
 * filter, a day's conversations, and a top conversation opening in the library. The figures asserted are
 * worked out here by hand from the sessions, at the pricing table's rates (Sonnet 4.x $3/$15, Haiku 4.5+
 * $1/$5, Opus 4.5+ $5/$25 per million input/output tokens).
 */

const LEDGER = '/srv/projects/accounting/a-rather-long-folder-name-for-the-ledger-service';
const MINUTE = 60_000;
const DAY = 86_400_000;
// Made a couple of minutes before the test; Refactor and Ledger today, Migrate three days before.
const recent = new Date(Date.now() - 2 * MINUTE);
const older = new Date(Date.now() - 3 * DAY);

test.use({
  history: {
    sessions: [
      {
        file: {
          start: recent,
          model: 'claude-sonnet-4-5-20250929',
          usage: { input_tokens: 2000, output_tokens: 1000 },
          turns: [
            { prompt: 'Refactor the billing module', reply: 'Split it in two.' },
            { prompt: 'And the tests?', reply: 'They pass.' },
          ],
        },
      },
      {
        file: {
          cwd: LEDGER,
          start: recent,
          model: 'claude-haiku-4-5-20251001',
          usage: { input_tokens: 10_000, output_tokens: 2000 },
          turns: [{ prompt: 'Reconcile the ledger', reply: 'It balances.' }],
        },
      },
      {
        file: {
          start: older,
          model: 'claude-opus-4-5-20251101',
          usage: { input_tokens: 1000, output_tokens: 1000 },
          turns: [{ prompt: 'Migrate the schema', reply: 'Migrated.' }],
        },
      },
    ],
  },
});

const usage = (page: Page) => page.getByRole('region', { name: 'Usage' });
const folderTable = (page: Page) => usage(page).getByRole('table', { name: 'Usage by folder' });
const totals = (page: Page) => usage(page).getByRole('region', { name: 'Totals' });
const localDay = (date: Date) => date.toDateString();

/** A figure of the totals, by its term ("Input" → "15k"). */
function total(page: Page, term: string) {
  return totals(page)
    .locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
    .locator('dd');
}

test('the Usage view adds up the sessions by day, folder and model, and opens the costliest', async ({
  page,
  world,
}) => {
  await page.getByRole('button', { name: 'Usage' }).click();
  await expect(usage(page)).toBeVisible();

  // 30 days: all three. 15k in + 5k out; $0.042 + $0.02 + $0.03, estimated from the table.
  const chart = usage(page).getByRole('img', { name: 'Usage by day' });
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAccessibleDescription(/^30 days: 20k tokens, \$0\.09 estimated/);
  await expect(total(page, 'Input')).toHaveText('15k');
  await expect(total(page, 'Output')).toHaveText('5k');
  await expect(total(page, 'Conversations')).toHaveText('3');

  // Two folders, the costlier first: the test's folder (Refactor + Migrate) $0.072, the ledger $0.02.
  const rows = folderTable(page).locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(
    rows.nth(0).getByRole('button', { name: `${world.cwd}: show only this folder` }),
  ).toBeVisible();
  await expect(rows.nth(0).getByRole('cell')).toHaveText(['2', '5k', '3k', '0', '0', '$0.07 estimated']);
  await expect(rows.nth(1).getByRole('cell')).toHaveText(['1', '10k', '2k', '0', '0', '$0.02 estimated']);
  // Sorted by input instead, most first: the ledger leads.
  await folderTable(page).getByRole('button', { name: 'Input' }).click();
  await expect(rows.nth(0).getByRole('button', { name: `${LEDGER}: show only this folder` })).toBeVisible();

  // A day of the chart lists its conversations.
  await usage(page)
    .getByRole('button', { name: /tokens$/ })
    .first()
    .click();
  const dayList = usage(page).getByRole('region', { name: /^Conversations on / });
  await expect(dayList.getByRole('button', { name: /Migrate the schema/ })).toBeVisible();
  await dayList.getByRole('button', { name: "Close the day's conversations" }).click();

  // Today: only what was made today (the two recent ones, unless midnight came between).
  await usage(page).getByRole('combobox', { name: 'Range' }).selectOption({ label: 'Today' });
  const today = [recent, recent, older].filter((start) => localDay(start) === localDay(new Date()));
  await expect(total(page, 'Conversations')).toHaveText(String(today.length));
  await usage(page).getByRole('combobox', { name: 'Range' }).selectOption({ label: '30 days' });
  await expect(total(page, 'Conversations')).toHaveText('3');

  // By model: one bar per model, the costliest (Sonnet, $0.042) first.
  await usage(page).getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Model' });
  const models = usage(page).getByRole('list', { name: 'Usage by model' }).getByRole('listitem');
  await expect(models).toHaveCount(3);
  await usage(page).getByRole('group', { name: 'Measure' }).getByRole('button', { name: 'Cost' }).click();
  await expect(models.first()).toContainText('sonnet-4-5');
  await expect(models.first()).toContainText('$0.04');
  await usage(page).getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Day' });

  // A folder filter: only the ledger's conversation is counted, until it is lifted.
  await folderTable(page)
    .getByRole('button', { name: `${LEDGER}: show only this folder` })
    .click();
  await expect(usage(page).getByText(/^Only /)).toContainText(
    'a-rather-long-folder-name-for-the-ledger-service',
  );
  await expect(rows).toHaveCount(1);
  await expect(total(page, 'Conversations')).toHaveText('1');
  await expect(total(page, 'Input')).toHaveText('10k');
  await usage(page)
    .getByRole('button', { name: /^Show every folder/ })
    .click();
  await expect(rows).toHaveCount(2);

  // The costliest conversation first among the top ones; it opens in place of the view.
  const top = usage(page).getByRole('region', { name: 'Most expensive conversations' }).getByRole('button');
  await expect(top).toHaveCount(3);
  await expect(top.first()).toContainText('Refactor the billing module');
  await top.first().click();
  await expect(usage(page)).toHaveCount(0);
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByRole('article', { name: 'You' }).first()).toContainText(
    'Refactor the billing module',
  );
  await expect(log.getByRole('article', { name: 'Claude' }).last()).toContainText('They pass.');

  // The shortcut opens it again, and Escape leaves it.
  await page.keyboard.press('Control+Shift+U');
  await expect(usage(page)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(usage(page)).toHaveCount(0);
});
