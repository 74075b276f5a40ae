import { expect, test } from './fixtures/web-host';

const DAY = 86_400_000;
const MODELS = [
  'claude-sonnet-4-5-20250929',
  'claude-haiku-4-5-20251001',
  'claude-opus-4-5-20251101',
  'claude-opus-4-1-20250805',
  'claude-3-5-haiku-20241022',
  'claude-sonnet-4-20250514',
  'claude-opus-5-5',
  'some-custom-model-with-a-very-long-name-v2',
];
const FOLDERS = [
  undefined,
  '/srv/projects/accounting/a-rather-long-folder-name-for-the-ledger-service',
  '/home/someone/src/github.com/organisation/monorepo/packages/frontend-application-shell',
  '/tmp/x',
  '/work/api',
];
const sessions = Array.from({ length: 70 }, (_, i) => ({
  file: {
    ...(FOLDERS[i % FOLDERS.length] ? { cwd: FOLDERS[i % FOLDERS.length] } : {}),
    start: new Date(Date.now() - ((i * 5) % 360) * DAY - 120_000),
    model: MODELS[i % MODELS.length],
    usage: {
      input_tokens: 1000 + ((i * 7919) % 90_000),
      output_tokens: 200 + ((i * 104729) % 20_000),
      cache_read_input_tokens: (i * 31337) % 400_000,
      cache_creation_input_tokens: (i * 2711) % 30_000,
    },
    turns: [
      {
        prompt: `Conversation number ${i} about a rather long topic that goes on and on for a while`,
        reply: 'Ok.',
      },
    ],
  },
}));

test.use({ history: { sessions } });

test('shots', async ({ page }) => {
  test.setTimeout(240_000);
  await page.getByRole('button', { name: 'Usage' }).click();
  const usage = page.getByRole('region', { name: 'Usage' });
  await usage.getByRole('combobox', { name: 'Range' }).selectOption({ label: 'All time' });
  await expect(usage.getByRole('region', { name: 'Totals' })).toContainText('70');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 640]) {
      await page.setViewportSize({ width, height: 900 });
      await usage.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Day' });
      await page.waitForTimeout(300);
      await page.screenshot({ path: `/tmp/shots/usage-${scheme}-${width}.png`, fullPage: true });
      await usage
        .getByRole('button', { name: /tokens$/ })
        .nth(3)
        .hover();
      await page.screenshot({ path: `/tmp/shots/usage-tip-${scheme}-${width}.png` });
      await usage.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Model' });
      await page.screenshot({ path: `/tmp/shots/usage-model-${scheme}-${width}.png`, fullPage: true });
    }
  }
});
