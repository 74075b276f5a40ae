import type { Page } from '@playwright/test';
import { toolResults, type RecordedRequest } from './fake-model/server';
import { finished, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * Questions and plans from Claude in Chromium through the browser host, against the real CLI and the fake
 * model: the question form (single choice, several, and Other) whose answers reach the model, and the plan
 * card both ways (keep planning with what to change, then approve), the header's mode picker following.
 */

test.use({ permissionMode: 'default' });

/** Where the screenshots looked at by hand go (not asserted: a person judges them). */
const SHOTS = process.env.BYRE_SHOTS_DIR;

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${SHOTS}/${name}-${scheme}.png`, fullPage: false });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const LONG = 'with a description long enough to wrap on a narrow window, '.repeat(3).trim();

test('the question form: a single choice, several, and Other reach Claude', async ({ page, webHost }) => {
  const { fake } = webHost.world;
  fake.enqueue(
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'AskUserQuestion',
          input: {
            questions: [
              {
                question: 'Which database should we use?',
                header: 'Database',
                options: [
                  { label: 'SQLite', description: 'One file, no server' },
                  { label: 'Postgres', description: LONG, preview: 'docker run -p 5432:5432 postgres:17' },
                ],
                multiSelect: false,
              },
              {
                question: 'Which features do you want?',
                header: 'Features',
                options: [
                  { label: 'Search', description: 'Full text' },
                  { label: 'Export', description: 'CSV and JSON' },
                  { label: 'Sync', description: 'Across devices' },
                ],
                multiSelect: true,
              },
              {
                question: 'What should the app be called?',
                header: 'Name',
                options: [
                  { label: 'Byre', description: 'A cowshed' },
                  { label: 'Barn', description: 'A bigger shed' },
                ],
                multiSelect: false,
              },
            ],
          },
        },
      ],
    },
    { blocks: [{ type: 'text', text: 'SQLite with search and export, called Shieling.' }] },
  );
  await page.setViewportSize({ width: 640, height: 900 });
  await send(page, 'plan the app');

  const form = page.getByRole('group', { name: 'Question from Claude' });
  await expect(form).toBeVisible();
  const database = form.getByRole('group', { name: 'Which database should we use?' });
  const features = form.getByRole('group', { name: 'Which features do you want?' });
  const name = form.getByRole('group', { name: 'What should the app be called?' });
  await expect(database).toContainText('Database');
  await expect(database).toContainText('One file, no server');

  // Arrows move without picking; the focused option shows its preview; Space picks.
  await database.getByRole('radio', { name: 'SQLite' }).focus();
  await expect(form.getByLabel('Preview')).toHaveCount(0);
  await page.keyboard.press('ArrowDown');
  await expect(database.getByRole('radio', { name: 'Postgres' })).toBeFocused();
  await expect(database.getByRole('radio', { name: 'Postgres' })).not.toBeChecked();
  await expect(database.getByLabel('Preview')).toHaveText('docker run -p 5432:5432 postgres:17');
  await shoot(page, 'question-card-640');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Space');
  await expect(database.getByRole('radio', { name: 'SQLite' })).toBeChecked();

  await features.getByRole('checkbox', { name: 'Search' }).check();
  await features.getByRole('checkbox', { name: 'Export' }).check();
  await name.getByRole('textbox', { name: 'Other' }).fill('Shieling');
  await expect(name.getByRole('radio', { name: 'Byre' })).not.toBeChecked();
  // Enter sends.
  await name.getByRole('textbox', { name: 'Other' }).press('Enter');

  const withAnswers = await fake.waitForRequest(
    (request: RecordedRequest) => toolResults(request).length > 0,
  );
  expect(toolResults(withAnswers)[0]).toMatchObject({ is_error: false });
  expect(toolResults(withAnswers)[0]!.content).toContain(
    '"Which database should we use?"="SQLite", "Which features do you want?"="Search, Export", "What should the app be called?"="Shieling"',
  );
  await expect(finished(page)).toHaveCount(1);
  await expect(form).toHaveCount(0);
  // The call shows what was asked and what was answered.
  const asked = page.getByRole('region', { name: 'Questions from Claude' });
  await expect(asked).toContainText('Which features do you want?');
  await expect(asked).toContainText('Search, Export');
  await expect(asked).toContainText('Shieling');
  await shoot(page, 'question-answered-640');
});

test('the plan card: keep planning with what to change, then approve in "Accept edits"', async ({
  page,
  webHost,
}) => {
  const { fake } = webHost.world;
  const exitPlan = (plan: string) => ({
    blocks: [{ type: 'tool_use' as const, name: 'ExitPlanMode', input: { plan } }],
  });
  fake.enqueue(
    exitPlan('## Plan\n\n1. Do A\n2. Do B'),
    exitPlan('## Plan\n\n1. Do A\n2. Do B\n3. Do C, which the user asked for'),
    { blocks: [{ type: 'text', text: 'Going ahead.' }] },
  );
  const picker = page.getByRole('combobox', { name: 'Permission mode' });
  await picker.selectOption({ label: 'Plan only' });
  await expect(picker).toHaveValue('plan');
  await send(page, 'plan it');

  const card = page.getByRole('group', { name: 'Plan from Claude' });
  await expect(card).toBeVisible();
  await expect(card.getByRole('heading', { name: 'Plan' })).toBeVisible();
  await expect(card.getByRole('listitem')).toHaveText(['Do A', 'Do B']);
  await shoot(page, 'plan-card');
  await page.setViewportSize({ width: 640, height: 900 });
  await shoot(page, 'plan-card-640');
  await card.getByRole('textbox', { name: 'What to change' }).fill('Add step C');
  await card.getByRole('textbox', { name: 'What to change' }).press('Enter');
  const kept = await fake.waitForRequest(
    (request: RecordedRequest) => toolResults(request).length > 0 && toolResults(request)[0]!.is_error,
  );
  expect(toolResults(kept)[0]!.content).toBe('Add step C');

  await expect(card.getByRole('listitem')).toHaveCount(3);
  await expect(picker).toHaveValue('plan');
  await card.getByRole('combobox', { name: 'Mode after approval' }).selectOption({ label: 'Accept edits' });
  await card.getByRole('button', { name: 'Approve plan' }).click();
  await expect(finished(page)).toHaveCount(1);
  await expect(card).toHaveCount(0);
  await expect(picker).toHaveValue('acceptEdits');
  // The first call shows the plan with what the user asked to change; the second, approved.
  const calls = page.getByRole('region', { name: 'Plan from Claude, as proposed' });
  await expect(calls).toHaveCount(2);
  await expect(calls.first()).toContainText('Add step C');
  await expect(calls.last()).toContainText('approved');
  await shoot(page, 'plan-answered-640');
});

test('Escape skips the questions, and Claude is told so', async ({ page, webHost }) => {
  const { fake } = webHost.world;
  fake.enqueue(
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'AskUserQuestion',
          input: {
            questions: [
              {
                question: 'Tabs or spaces?',
                header: 'Indent',
                options: [
                  { label: 'Tabs', description: '' },
                  { label: 'Spaces', description: '' },
                ],
                multiSelect: false,
              },
            ],
          },
        },
      ],
    },
    { blocks: [{ type: 'text', text: 'I will pick spaces.' }] },
  );
  await send(page, 'format it');
  const form = page.getByRole('group', { name: 'Question from Claude' });
  // From the card itself, an arrow goes to the first option.
  await form.focus();
  await page.keyboard.press('ArrowDown');
  await expect(form.getByRole('radio', { name: 'Tabs' })).toBeFocused();
  await page.keyboard.press('Escape');
  const skipped = await fake.waitForRequest((request: RecordedRequest) => toolResults(request).length > 0);
  expect(toolResults(skipped)[0]!.content).toContain('"Tabs or spaces?"="The user skipped this question."');
  await expect(finished(page)).toHaveCount(1);
  await expect(form).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Questions from Claude' })).toContainText('Tabs or spaces?');
});
