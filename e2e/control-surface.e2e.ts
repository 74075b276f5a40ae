import { Gate, isSubagentRequest, type ScriptedReply } from './fake-model/server';
import { processesWithHome } from './fixtures/cli-env';
import { finished, log, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * The conversation's control surface in Chromium through the browser host, against the real CLI and the fake
 * model: what a turn cost, how full the context is and what fills it, the MCP servers, background work and its
 * Stop, and an API request the CLI retries.
 */

test('after a turn: what it cost, the context meter and its breakdown, and the MCP servers', async ({
  page,
  webHost,
}) => {
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: 'Hello there.' }],
    usage: { input_tokens: 1200, output_tokens: 30 },
  });
  await send(page, 'hello');
  await expect(finished(page)).toHaveCount(1);
  await expect(finished(page)).toContainText(
    /\$\S+ · \S+ · [\d,]+ in · [\d,]+ out · [\d,]+ cache read · [\d,]+ cache write/,
  );
  await expect(page.getByRole('banner')).toContainText(/\$\S+ total/);

  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toHaveAttribute('aria-valuenow', /^[1-9]\d*$/);
  await expect(meter).toHaveAttribute('aria-valuetext', /^\S+ of \S+ tokens \(\d+%\)$/);
  await meter.click();
  const breakdown = page.getByRole('dialog', { name: 'Context breakdown' });
  await expect(breakdown.getByRole('rowheader', { name: 'System prompt' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(breakdown).toBeHidden();

  const mcpButton = page.getByRole('button', { name: 'MCP servers' });
  await mcpButton.click();
  const servers = page.getByRole('dialog', { name: 'MCP servers' });
  // Byre's own in-process server, as the CLI reports it.
  await expect(servers.getByRole('listitem').filter({ hasText: 'byre' }).first()).toContainText('connected');
  await page.keyboard.press('Escape');
  await expect(servers).toBeHidden();
  await expect(mcpButton).toBeFocused();
});

test('near the limit the meter warns, and Compact sends /compact', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  // The CLI counts the context from what the API says the last request used.
  fake.enqueue(
    {
      blocks: [{ type: 'text', text: 'A long answer.' }],
      usage: { input_tokens: 950_000, output_tokens: 30 },
    },
    { blocks: [{ type: 'text', text: 'Summary: we said hello.' }] },
  );
  await send(page, 'hello');
  await expect(finished(page)).toHaveCount(1);
  const meter = page.getByRole('meter', { name: 'Context' });
  await expect(meter).toContainText(/Context \d+% full/);
  await page.getByRole('button', { name: 'Compact' }).click();
  await expect(finished(page)).toHaveCount(2);
  await expect(log(page).getByRole('article', { name: 'You' }).last()).toContainText('/compact');
  // Read again after the compacting turn: what was said is now a short summary.
  await expect(meter).not.toContainText('full');
  await expect(page.getByRole('button', { name: 'Compact' })).toBeHidden();
});

test('a command in the background is listed while it runs, and Stop ends it', async ({ page, webHost }) => {
  const { fake, home } = webHost.world;
  fake.enqueue(
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: 'sleep 120', description: 'wait a long time', run_in_background: true },
        },
      ],
    },
    { blocks: [{ type: 'text', text: 'It runs in the background.' }] },
  );
  await send(page, 'wait a long time in the background');
  await expect(finished(page)).toHaveCount(1);
  const tasks = page.getByRole('region', { name: 'Background tasks' });
  await expect(tasks.getByRole('listitem')).toHaveCount(1);
  await expect(tasks).toContainText('sleep 120');
  await expect.poll(() => processesWithHome(home, 'sleep').length).toBeGreaterThan(0);

  await tasks.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(tasks).toBeHidden();
  await expect.poll(() => processesWithHome(home, 'sleep').length).toBe(0);
});

test('while the API is overloaded the turn says it is retrying, then the reply comes', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  // Every request fails until the test has seen the retry: however slow the machine, it cannot be missed.
  let overloaded = true;
  fake.when((request) => overloaded && request.stream, {
    error: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  });
  fake.enqueue({ blocks: [{ type: 'text', text: 'Back again.' }] });
  await send(page, 'hello?');
  const retrying = page.getByRole('status').filter({ hasText: /^Retrying \(\d+ of \d+\)/ });
  await expect(retrying).toBeVisible();
  await expect(retrying).toContainText('overloaded');

  overloaded = false;
  await expect(log(page).getByRole('article', { name: 'Claude' })).toContainText('Back again.');
  await expect(retrying).toBeHidden();
  await expect(finished(page)).toHaveCount(1);
});

/** A turn that starts a general-purpose subagent in the background to count files, and says so. */
const countInTheBackground: ScriptedReply[] = [
  {
    blocks: [
      {
        type: 'tool_use',
        name: 'Agent',
        input: {
          description: 'count files',
          prompt: 'Count the files.',
          subagent_type: 'general-purpose',
          run_in_background: true,
        },
      },
    ],
  },
  { blocks: [{ type: 'text', text: 'It counts in the background.' }] },
];

test('a subagent in the background is stopped from its card', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  // The subagent's reply holds, so it certainly still runs when Stop is pressed.
  const rest = new Gate();
  fake.when(
    isSubagentRequest,
    { blocks: [{ type: 'text', text: 'Counting the files one by one.' }], hold: { after: 2, until: rest } },
    { times: 1 },
  );
  fake.enqueue(...countInTheBackground);
  await send(page, 'count the files in the background');
  await expect(finished(page)).toHaveCount(1);
  const card = log(page).getByRole('region', { name: 'general-purpose tool call' });
  const tasks = page.getByRole('region', { name: 'Background tasks' });
  await expect(tasks).toContainText('count files');
  await card.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(tasks).toBeHidden();
  await expect(card.getByRole('button', { name: 'Stop', exact: true })).toBeHidden();
  await expect(card).toContainText('stopped');
  rest.release();
});

test("a background subagent's card shows its work live while it runs", async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  const rest = new Gate();
  fake.when(
    isSubagentRequest,
    {
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'echo counted-7-files', description: 'count' } },
      ],
    },
    { times: 1 },
  );
  fake.when(
    isSubagentRequest,
    { blocks: [{ type: 'text', text: 'There are seven files.' }], hold: { after: 1, until: rest } },
    { times: 1 },
  );
  fake.enqueue(...countInTheBackground);
  await send(page, 'count the files in the background');
  await expect(finished(page)).toHaveCount(1);
  const card = log(page).getByRole('region', { name: 'general-purpose tool call' });
  // While it still runs, what it has done so far is in its card.
  await expect(card.getByRole('region', { name: 'Bash tool call' })).toContainText('counted-7-files');
  await expect(card.locator('.tool-status').first()).toContainText('running');
  const tasks = page.getByRole('region', { name: 'Background tasks' });
  await expect(tasks.getByRole('button', { name: 'general-purpose: count files' })).toBeVisible();
  rest.release();
  await expect(card).toContainText('There are seven files.');
  await expect(tasks).toBeHidden();
});
