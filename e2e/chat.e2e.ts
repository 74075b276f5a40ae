import { lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { Gate, isSubagentRequest, lastUserText } from './fake-model/server';
import { processesWithHome } from './fixtures/cli-env';
import { finished, queueAndCancel, words } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * The chat window in Chromium through the browser host, against the real CLI and the fake model. Each test
 * types, clicks and reads the page as a person would.
 */

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

const log = (page: Page) => page.getByRole('log', { name: 'Conversation' });
const claude = (page: Page) => log(page).getByRole('article', { name: 'Claude' });
const you = (page: Page) => log(page).getByRole('article', { name: 'You' });

test('streams a reply that is seen growing, then whole', async ({ page, webHost }) => {
  const rest = new Gate();
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: words(40) }],
    hold: { after: 6, until: rest },
  });
  await send(page, 'tell me forty words');
  await expect(log(page).getByRole('article', { name: 'You' })).toHaveText(/tell me forty words/);
  // Part of the reply is on screen while the rest is still coming.
  await expect(claude(page)).toContainText('word5');
  await expect(claude(page)).not.toContainText('word6');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(0);
  // The tab says it is busy; with reduced motion asked for (as this suite does), its mark stays still.
  const spinner = page.getByRole('tab').locator('.tab-spinner');
  await expect(spinner).toBeVisible();
  expect(await spinner.evaluate((mark) => getComputedStyle(mark).animationName)).toBe('none');
  rest.release();
  await expect(claude(page)).toContainText('word39');
  await expect(log(page).getByLabel('Turn finished')).toBeVisible();
});

/** Every entry below `dir` that others could read: `path mode` for each. */
function readableByOthers(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) continue;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) found.push(...readableByOthers(path));
  }
  return found;
}

test('keeps what it writes private: its folders 0700 and its files 0600', async ({ page, webHost }) => {
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'A private reply.' }] });
  await send(page, 'something private');
  await expect(claude(page)).toContainText('A private reply.');
  // Transcripts, settings (written 0644 by the test before the host started), the library's databases.
  await expect.poll(() => readableByOthers(webHost.dataDir)).toEqual([]);
  expect(readdirSync(join(webHost.dataDir, 'transcripts')).length).toBeGreaterThan(0);
  expect(lstatSync(webHost.dataDir).mode & 0o777).toBe(0o700);
});

test('shows a Bash call as a card with its command and output', async ({ page, webHost }) => {
  webHost.world.fake.enqueue(
    {
      blocks: [
        { type: 'text', text: 'Let me run that.' },
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: 'echo byre-e2e-output', description: 'print a marker' },
        },
      ],
    },
    { blocks: [{ type: 'text', text: 'It printed the marker.' }] },
  );
  await send(page, 'run the marker command');
  const card = log(page).getByRole('region', { name: 'Bash tool call' });
  await expect(card).toContainText('print a marker');
  await expect(card).toContainText('$ echo byre-e2e-output');
  await expect(card.locator('.tool-output')).toHaveText('byre-e2e-output');
  await expect(card).toContainText('done');
  await expect(claude(page).last()).toContainText('It printed the marker.');
});

test('nests a subagent and its own tool calls inside the Agent card', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  fake.when(
    isSubagentRequest,
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: 'echo from-the-subagent', description: 'sub step' },
        },
      ],
    },
    { times: 1 },
  );
  fake.when(isSubagentRequest, { blocks: [{ type: 'text', text: 'Subagent report: done.' }] });
  fake.enqueue(
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'Agent',
          input: {
            description: 'inspect things',
            prompt: 'Run one command.',
            subagent_type: 'general-purpose',
            run_in_background: false,
          },
        },
      ],
    },
    { blocks: [{ type: 'text', text: 'The subagent finished.' }] },
  );
  await send(page, 'use a subagent');
  const agent = log(page).getByRole('region', { name: 'general-purpose tool call' });
  await expect(agent).toContainText('inspect things');
  const inner = agent.getByRole('article', { name: 'general-purpose' });
  await expect(inner.getByRole('region', { name: 'Bash tool call' })).toContainText('from-the-subagent');
  await expect(agent).toContainText('Subagent report: done.');
  await expect(claude(page).last()).toContainText('The subagent finished.');
  // The subagent's messages are inside the card, not loose in the conversation.
  await expect(log(page).getByRole('article', { name: 'general-purpose' })).toHaveCount(1);
});

test('stops a reply mid-stream, then takes another turn', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  // The reply holds after three words, so it is certainly still streaming when Stop is pressed.
  fake.enqueue(
    { blocks: [{ type: 'text', text: words(60) }], hold: { after: 3, until: new Gate() } },
    { blocks: [{ type: 'text', text: 'Yes, still here.' }] },
  );
  await send(page, 'a long story please');
  await expect(claude(page)).toContainText('word2');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(log(page).getByLabel('Turn stopped')).toContainText('Stopped.');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
  // One marker for the stop, not the CLI's "interrupted" note and a "(stopped)" under the reply as well.
  await expect(log(page).getByText('Interrupted.')).toHaveCount(0);
  await expect(log(page).getByText('(stopped)')).toHaveCount(0);
  await expect(log(page).getByRole('alert')).toHaveCount(0);
  await expect(claude(page)).toContainText('word2');
  await expect(claude(page)).not.toContainText('word3');
  // The fake hears the CLI hang up in its own time, which may come after the page shows it stopped.
  await fake.waitForFinished(fake.messageRequests()[0]!);
  expect(fake.messageRequests()[0]!.closedEarly).toBe(true);

  await send(page, 'are you still there?');
  await expect(claude(page).last()).toContainText('Yes, still here.');
});

test('when the host goes away mid-reply, the page says so and shows nothing as still streaming', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  fake.enqueue({ blocks: [{ type: 'text', text: words(60) }], hold: { after: 3, until: new Gate() } });
  await send(page, 'a long story please');
  await expect(claude(page)).toContainText('word2');
  await expect(claude(page)).toHaveAttribute('aria-busy', 'true');
  const exited = new Promise((resolve) => webHost.process.once('exit', resolve));
  webHost.process.kill('SIGKILL');
  await exited;
  await expect(page.getByRole('status').filter({ hasText: 'Lost the connection to Byre' })).toBeVisible();
  await expect(claude(page)).toHaveAttribute('aria-busy', 'false');
  await expect(page.getByLabel('Status: disconnected')).toBeVisible();
  await expect(page.getByRole('tab').locator('.tab-spinner')).toHaveCount(0);
  // What had arrived is still there to read.
  await expect(claude(page)).toContainText('word2');
});

test('switches the model from the picker and uses it for the next turn', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  await send(page, 'first');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(1);
  const picker = page.getByRole('combobox', { name: 'Model' });
  await expect(picker).toHaveValue('default');
  await picker.selectOption({ label: 'Sonnet' });
  await expect(log(page).getByRole('note').last()).toContainText('Set model to');
  await expect(picker).toHaveValue('sonnet');

  await send(page, 'second');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(2);
  const requests = fake.messageRequests();
  expect(requests.at(-1)!.model).toMatch(/sonnet/);
  expect(requests[0]!.model).not.toMatch(/sonnet/);
});

test('shows a message sent meanwhile as queued, and cancels it', async ({ page, webHost }) => {
  const fake = webHost.world.fake;
  // The first reply holds after two words until the queued message has been cancelled.
  const firstReply = new Gate();
  fake.enqueue({ blocks: [{ type: 'text', text: words(30) }], hold: { after: 2, until: firstReply } });
  await send(page, 'the slow one');
  await expect(claude(page)).toContainText('word1');
  const queued = await queueAndCancel(page, 'please also do this later');
  firstReply.release();
  await expect(claude(page)).toContainText('word29');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(1);
  expect(
    fake.requests.some((request) => JSON.stringify(request.body).includes('please also do this later')),
  ).toBe(false);

  // Changed their mind again: the cancelled message can be sent as it was.
  fake.enqueue({ blocks: [{ type: 'text', text: 'Doing it now.' }] });
  await queued.getByRole('button', { name: 'Send again' }).click();
  await expect(claude(page).last()).toContainText('Doing it now.');
  expect(lastUserText(fake.messageRequests().at(-1)!)).toContain('please also do this later');
});

test('runs two conversations in two tabs at once', async ({ page, webHost }) => {
  const { world } = webHost;
  const second = join(world.cwd, 'second-project');
  mkdirSync(second);
  // Each reply holds after its first word until the test lets it go: both are open at the same time.
  const replyOne = new Gate();
  const replyTwo = new Gate();
  world.fake.when((request) => lastUserText(request).includes('tab one'), {
    blocks: [{ type: 'text', text: words(60, 'one') }],
    hold: { after: 1, until: replyOne },
  });
  world.fake.when((request) => lastUserText(request).includes('tab two'), {
    blocks: [{ type: 'text', text: words(60, 'two') }],
    hold: { after: 1, until: replyTwo },
  });

  await send(page, 'tab one');
  await expect(claude(page)).toContainText('one0');
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByLabel('Working folder').fill(second);
  await page.getByRole('button', { name: 'Start' }).click();
  await expect(page.locator('.cwd')).toHaveText(second);
  await send(page, 'tab two');
  // The second conversation streams while the first one's reply is still open.
  await expect(claude(page)).toContainText('two0');
  const one = await world.fake.waitForRequest((request) => lastUserText(request).includes('tab one'));
  expect(one.finished).toBe(false);

  // Each finishes on its own: the second first, while the first is shown and still waits.
  const tabs = page.getByRole('tab');
  await expect(tabs).toHaveCount(2);
  await tabs.first().click();
  await expect(claude(page)).toContainText('one0');
  await expect(tabs.nth(1)).not.toContainText('done');
  replyTwo.release();
  // The second's tab says its turn is done, until it is seen.
  await expect(tabs.nth(1)).toContainText(', done');
  expect(one.finished).toBe(false);
  await expect(claude(page)).not.toContainText('one59');
  await expect(tabs.first()).not.toContainText('done');
  await tabs.nth(1).click();
  await expect(claude(page)).toContainText('two59');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(1);
  await tabs.first().click();
  await expect(tabs.nth(1)).not.toContainText('done');
  replyOne.release();
  await expect(claude(page)).toContainText('one59');
  await expect(claude(page)).not.toContainText('two0');
});

test('quitting mid-turn leaves no process of the run behind: not the CLI, not the Bash it runs', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  world.fake.enqueue({
    blocks: [
      {
        type: 'tool_use',
        name: 'Bash',
        input: { command: 'tail -f /dev/null', description: 'follow nothing forever' },
      },
    ],
  });
  await send(page, 'wait for a long time');
  await expect
    .poll(() => processesWithHome(world.home, 'tail -f /dev/null').length, { timeout: 60_000 })
    .toBeGreaterThan(0);
  const exited = new Promise((resolve) => webHost.process.once('exit', resolve));
  webHost.process.kill('SIGTERM');
  expect(await exited).toBe(0);
  await expect.poll(() => processesWithHome(world.home), { timeout: 10_000 }).toEqual([]);
});

test('offers Resume when the CLI exits unexpectedly, and carries on', async ({ page, webHost }) => {
  const { world } = webHost;
  world.fake.enqueue(
    { blocks: [{ type: 'text', text: 'Remembered: 42.' }] },
    { blocks: [{ type: 'text', text: 'You said 42.' }] },
  );
  await send(page, 'remember 42');
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(1);
  killCli(world.home);
  const banner = page.getByRole('alert').filter({ hasText: 'Claude Code exited unexpectedly' });
  await expect(banner).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeDisabled();
  await banner.getByRole('button', { name: 'Resume' }).click();
  await expect(banner).toBeHidden();
  await send(page, 'what did I say?');
  await expect(claude(page).last()).toContainText('You said 42.');
  expect(JSON.stringify(world.fake.messageRequests().at(-1)!.body)).toContain('remember 42');
});

test('after a crash mid-reply, the message being answered is not called cancelled, and Send again waits for Resume', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  world.fake.enqueue(
    { blocks: [{ type: 'text', text: words(60) }], hold: { after: 3, until: new Gate() } },
    { blocks: [{ type: 'text', text: 'The second, answered at last.' }] },
  );
  await send(page, 'a long story please');
  await expect(claude(page)).toContainText('word2');
  await send(page, 'and a second thing');
  const second = you(page).filter({ hasText: 'and a second thing' });
  await expect(second.getByText('Queued', { exact: true })).toBeVisible();
  killCli(world.home);
  const banner = page.getByRole('alert').filter({ hasText: 'Claude Code exited unexpectedly' });
  await expect(banner).toBeVisible();
  // The first was being answered: its answer is cut, not cancelled. The second never ran.
  await expect(you(page).first().getByText('Cancelled', { exact: true })).toHaveCount(0);
  await expect(second.getByText('Cancelled', { exact: true })).toBeVisible();
  const again = second.getByRole('button', { name: 'Send again' });
  await expect(again).toBeDisabled();
  await banner.getByRole('button', { name: 'Resume' }).click();
  await expect(banner).toBeHidden();
  await expect(again).toBeEnabled();
  await again.click();
  await expect(claude(page).last()).toContainText('The second, answered at last.');
});

test('a reloaded page shows the open conversation as it stands, and starts no second CLI', async ({
  page,
  webHost,
}) => {
  const { world } = webHost;
  world.fake.enqueue(
    { blocks: [{ type: 'text', text: 'Noted: 42.' }] },
    { blocks: [{ type: 'text', text: 'Still 42.' }] },
  );
  await send(page, 'remember 42');
  await expect(claude(page)).toContainText('Noted: 42.');
  await page.reload();
  await expect(log(page).getByRole('article', { name: 'You' })).toContainText('remember 42');
  await expect(claude(page)).toContainText('Noted: 42.');
  expect(cliProcesses(world.home)).toHaveLength(1);
  await send(page, 'and now?');
  await expect(claude(page).last()).toContainText('Still 42.');
});

test('a fast scroll up a reloaded conversation ends with every reply in view formatted', async ({
  page,
  webHost,
}) => {
  // Replies long enough that each frame of the scroll brings a new one, none of them rendered yet after
  // the reload (every block differs): while the reader scrolls, their Markdown is rendered a few ms a frame.
  const reply = (turn: number) =>
    Array.from(
      { length: 12 },
      (_, n) =>
        `## Turn ${turn} part ${n}\n\nSome **bold** text ${turn}.${n}.\n\n- one ${turn}.${n}\n- two\n\n` +
        `\`\`\`js\nconst n = ${turn * 100 + n};\n\`\`\``,
    ).join('\n\n');
  const turns = Array.from({ length: 14 }, (_, n) => n + 1);
  webHost.world.fake.enqueue(
    ...turns.map((turn) => ({ blocks: [{ type: 'text' as const, text: reply(turn) }] })),
  );
  for (const turn of turns) {
    await send(page, `turn ${turn}`);
    await expect(claude(page).last()).toContainText(`Turn ${turn} part 11`);
  }
  await page.reload();
  await expect(claude(page).last()).toContainText('Turn 14 part 11');

  // Up by 1,500 px a frame for 12 frames, stopping halfway: the rows in view then were mounted mid-scroll.
  await log(page).evaluate(
    (element) =>
      new Promise<void>((resolve) => {
        let frames = 0;
        const step = () => {
          element.scrollTop -= 1_500;
          if (++frames < 12 && element.scrollTop > 0) requestAnimationFrame(step);
          else resolve();
        };
        requestAnimationFrame(step);
      }),
  );
  // Whatever was left as plain text during the scroll is formatted once it has stopped.
  await expect(log(page).locator('.md-plain')).toHaveCount(0);
  const shown = claude(page).first();
  await expect(shown.getByRole('heading', { name: /^Turn \d+ part \d+$/ }).first()).toBeVisible();
  await expect(shown.locator('strong').first()).toHaveText('bold');
  await expect(shown.locator('pre code.language-js').first()).toContainText(/const n = \d+;/);
});

test('explains how to log in when the API refuses the request', async ({ page, webHost }) => {
  webHost.world.fake.when(() => true, {
    error: { status: 403, type: 'permission_error', message: 'Invalid authentication credentials' },
  });
  await send(page, 'hello?');
  const alert = log(page).getByRole('alert');
  await expect(alert).toContainText('API Error: 403');
  await expect(alert).toContainText('Invalid authentication credentials');
  await expect(alert).toContainText('Run claude in a terminal and sign in');
  // Said once: not also as a reply from Claude above the failure.
  await expect(log(page).getByText(/Invalid authentication credentials/)).toHaveCount(1);
  await expect(log(page).getByText(/Run claude in a terminal and sign in/)).toHaveCount(1);
  await expect(claude(page)).toHaveCount(0);
  // The app still works: the composer is ready for the next message.
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
});

test.describe('without the CLI', () => {
  test.use({ hostEnv: { BYRE_CLAUDE_PATH: '/nonexistent/claude' } });

  test('says the CLI was not found and how to install it', async ({ page }) => {
    await expect(page.getByRole('heading', { name: 'Claude Code CLI not found' })).toBeVisible();
    await expect(page.getByText('npm install -g @anthropic-ai/claude-code').first()).toBeVisible();
    await page.getByText('Places Byre looked').click();
    await expect(page.getByRole('listitem').filter({ hasText: '/nonexistent/claude' })).toBeVisible();
    // It says that the variable points at nothing, and where.
    await expect(
      page.getByText('BYRE_CLAUDE_PATH points at /nonexistent/claude, where there is nothing').first(),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  });
});

/** The claude processes of this test: the ones whose HOME is this test's. */
const cliProcesses = (home: string): number[] => processesWithHome(home, '--input-format');

/** Kills this test's claude process, as a crash would. */
function killCli(home: string): void {
  const [pid] = cliProcesses(home);
  if (pid === undefined) throw new Error(`No claude process found for HOME=${home}`);
  process.kill(pid, 'SIGKILL');
}

test('refuses a folder that does not exist in the form, rather than opening a tab that cannot start', async ({
  page,
  webHost,
}) => {
  await expect(page.getByRole('tab')).toHaveCount(1);
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  const missing = `${webHost.world.cwd}/no-such-folder`;
  await form.getByLabel('Working folder').fill(missing);
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(form.getByRole('alert')).toContainText(`${missing} is not a folder, or does not exist.`);
  await expect(form.getByLabel('Working folder')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('tab')).toHaveCount(1);
  // Corrected, it starts.
  await form.getByLabel('Working folder').fill(webHost.world.cwd);
  await expect(form.getByRole('alert')).toHaveCount(0);
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
});

test('asks before closing a tab with an unsent message, and the closed conversation opens again from the list', async ({
  page,
  webHost,
}) => {
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Remember the lighthouse.' }] });
  await send(page, 'a conversation worth keeping');
  await expect(claude(page)).toContainText('Remember the lighthouse.');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('a thought not sent yet');

  await page.getByRole('button', { name: /^Close / }).click();
  const dialog = page.getByRole('dialog', { name: /^Close / });
  await expect(dialog).toContainText('You have a message you have not sent; closing discards it.');
  // Keeping it changes nothing.
  await dialog.getByRole('button', { name: 'Keep it open' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expect(box).toHaveValue('a thought not sent yet');

  // Escape keeps it too; closing closes.
  await page.getByRole('button', { name: /^Close / }).click();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('tab')).toHaveCount(1);
  await page.getByRole('button', { name: /^Close / }).click();
  await dialog.getByRole('button', { name: 'Close conversation' }).click();
  await expect(page.getByRole('tab')).toHaveCount(0);

  await page
    .getByRole('navigation', { name: 'Conversations' })
    .getByRole('button', { name: /a conversation worth keeping/ })
    .click();
  await expect(page.getByRole('tab')).toHaveCount(1);
  await expect(claude(page)).toContainText('Remember the lighthouse.');
});

test('closes a tab with nothing at stake without asking', async ({ page, webHost }) => {
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Done here.' }] });
  await send(page, 'quick question');
  await expect(claude(page)).toContainText('Done here.');
  // The reply's text shows before its turn ends; until then closing would stop it, and asks.
  await expect(log(page).getByLabel('Turn finished')).toHaveCount(1);
  await page.getByRole('button', { name: /^Close / }).click();
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test.describe('with a bad field in the settings file', () => {
  test.use({ extraSettings: { imageMaxLongSide: 'huge' }, permissionMode: 'plan' });

  test('says which setting could not be used, and keeps the others', async ({ page }) => {
    const alert = page.getByRole('alert').filter({ hasText: 'Some settings could not be used' });
    await expect(alert).toContainText('"imageMaxLongSide" is not valid');
    // The good field in the same file still holds: conversations start in Plan.
    await expect(page.getByRole('combobox', { name: 'Permission mode' })).toHaveValue('plan');
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await expect(alert).toHaveCount(0);
  });
});

test('Escape stops a running reply, from the composer or the log, and the composer has the focus', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  fake.enqueue(
    { blocks: [{ type: 'text', text: words(60) }], hold: { after: 3, until: new Gate() } },
    { blocks: [{ type: 'text', text: words(60, 'again') }], hold: { after: 3, until: new Gate() } },
  );
  const composer = page.getByRole('textbox', { name: 'Message' });
  await send(page, 'a long story please');
  await expect(claude(page)).toContainText('word2');
  await composer.press('Escape');
  await expect(log(page).getByLabel('Turn stopped')).toContainText('Stopped.');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
  await expect(composer).toBeFocused();

  await send(page, 'another one');
  await expect(claude(page).last()).toContainText('again2');
  await log(page).focus();
  await page.keyboard.press('Escape');
  await expect(log(page).getByLabel('Turn stopped')).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden();
  await expect(composer).toBeFocused();
});

test('Up in an empty composer brings back the last message sent', async ({ page, webHost }) => {
  webHost.world.fake.enqueue(
    { blocks: [{ type: 'text', text: 'First answer.' }] },
    { blocks: [{ type: 'text', text: 'Second answer.' }] },
  );
  const composer = page.getByRole('textbox', { name: 'Message' });
  await send(page, 'the first question');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'the second question');
  await expect(finished(page)).toHaveCount(2);
  await composer.press('ArrowUp');
  await expect(composer).toHaveValue('the second question');
  // With text in it, Up moves the caret as usual and recalls nothing.
  await composer.fill('draft');
  await composer.press('ArrowUp');
  await expect(composer).toHaveValue('draft');
});

test('copy puts a code block, or a whole message, on the clipboard; a code block shows its language', async ({
  page,
  webHost,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: 'Run this:\n\n```ts\nconst answer: number = 42;\n```\n\nThat is all.' }],
  });
  await send(page, 'show me code');
  const reply = claude(page).last();
  await expect(reply).toContainText('That is all.');
  await expect(reply.locator('.code-head')).toContainText('ts');

  await reply.getByRole('button', { name: 'Copy code' }).click();
  await expect(reply.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer: number = 42;\n');

  await reply.hover();
  await reply.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toBe('Run this:\n\n```ts\nconst answer: number = 42;\n```\n\nThat is all.');
  await you(page).last().getByRole('button', { name: 'Copy', exact: true }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('show me code');
});

test('the tabs by keyboard: arrows move, Enter opens, Ctrl+1 switches, Ctrl+W asks first, Escape gives the focus back', async ({
  page,
  webHost,
}) => {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByLabel('Working folder').fill(webHost.world.cwd);
  await page.getByRole('button', { name: 'Start' }).click();
  const tabs = page.getByRole('tab');
  await expect(tabs).toHaveCount(2);
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  // The open tab is the tab list's one stop; the panel is named by it.
  await expect(tabs.last()).toHaveAttribute('tabindex', '0');
  await expect(tabs.first()).toHaveAttribute('tabindex', '-1');
  await expect(page.getByRole('tabpanel')).toHaveAccessibleName(/work/);
  // Started: its composer, which takes the focus once the conversation is ready, has it.
  await expect(page.getByLabel('Status: idle')).toBeVisible();
  await expect(composer).toBeFocused();

  await tabs.last().focus();
  await page.keyboard.press('ArrowRight');
  await expect(tabs.first()).toBeFocused();
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  await expect(composer).toBeFocused();

  await page.keyboard.press('Control+2');
  await expect(tabs.last()).toHaveAttribute('aria-selected', 'true');
  await expect(composer).toBeFocused();
  await page.keyboard.press('Control+1');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');

  await composer.fill('not sent yet');
  await page.keyboard.press('Control+w');
  const dialog = page.getByRole('dialog', { name: /^Close/ });
  await expect(dialog).toContainText('You have a message you have not sent');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(tabs).toHaveCount(2);
  await expect(composer).toBeFocused();
  await expect(composer).toHaveValue('not sent yet');
});

test('scrolled up, streaming does not pull the view down; "Jump to latest" counts what came and goes back', async ({
  page,
  webHost,
}) => {
  const fake = webHost.world.fake;
  const rest = new Gate();
  fake.enqueue(
    { blocks: [{ type: 'text', text: words(900, 'long') }] },
    { blocks: [{ type: 'text', text: words(300, 'late') }], hold: { after: 2, until: rest } },
  );
  await send(page, 'a long answer');
  await expect(finished(page)).toHaveCount(1);
  await send(page, 'and another');
  await expect(claude(page).last()).toContainText('late1');

  // The reader scrolls up; the reply goes on below without moving the view.
  await log(page).evaluate((element) => (element.scrollTop = 0));
  const jump = page.getByRole('button', { name: 'Jump to latest' });
  await expect(jump).toBeVisible();
  rest.release();
  await expect(finished(page)).toHaveCount(2);
  await expect(jump).toContainText('new');
  expect(await log(page).evaluate((element) => element.scrollTop)).toBeLessThan(50);

  await jump.click();
  await expect(jump).toBeHidden();
  await expect(claude(page).last()).toContainText('late299');
  await expect(finished(page).last()).toBeInViewport();

  // Sending brings the new message into view even from up the log.
  fake.enqueue({ blocks: [{ type: 'text', text: 'Third.' }] });
  await log(page).evaluate((element) => (element.scrollTop = 0));
  await expect(jump).toBeVisible();
  await send(page, 'one more');
  await expect(claude(page).last()).toContainText('Third.');
  await expect(claude(page).last()).toBeInViewport();
  await expect(jump).toBeHidden();
});

test.describe('the composer menus', () => {
  test.use({
    folderFiles: {
      '.claude/commands/ship-docs.md':
        '---\ndescription: Build the docs and publish them\n---\nBuild the docs.\n',
      'src/widgets/gearbox.ts': 'export const gears = 5;\n',
      'src/widgets/wheel.ts': '',
      'notes/gear ideas.md': '',
    },
  });

  test('`/` lists the slash commands, with descriptions, and choosing one puts it in the message', async ({
    page,
  }) => {
    // The folder's own command is Claude Code's only once the folder is trusted.
    await page
      .getByRole('dialog', { name: 'Trust this folder?' })
      .getByRole('button', { name: 'Trust', exact: true })
      .click();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await expect(composer).toBeEnabled();
    await composer.fill('/');
    const menu = page.getByRole('listbox', { name: 'Slash commands' });
    // The CLI's own commands and the folder's, as it reported them when it started.
    await expect(menu.getByRole('option', { name: '/compact', exact: true })).toBeVisible();
    const project = menu.getByRole('option', { name: '/ship-docs', exact: true });
    await expect(project).toContainText('Build the docs and publish them');
    // Filtered as the user types; the best match is the active option, and Enter takes it.
    await composer.pressSequentially('shipd');
    await expect(menu.getByRole('option')).toHaveCount(1);
    await expect(project).toHaveAttribute('aria-selected', 'true');
    await composer.press('Enter');
    await expect(composer).toHaveValue('/ship-docs ');
    await expect(menu).toBeHidden();
    // By the mouse too; Escape closes the menu and keeps the text.
    await composer.fill('/comp');
    await menu.getByRole('option', { name: '/compact', exact: true }).click();
    await expect(composer).toHaveValue('/compact ');
    await expect(composer).toBeFocused();
    await composer.fill('/co');
    await expect(menu).toBeVisible();
    await composer.press('Escape');
    await expect(menu).toBeHidden();
    await expect(composer).toHaveValue('/co');
    // Closed for that word only: the next `/` opens it again.
    await composer.fill('');
    await composer.pressSequentially('/');
    await expect(menu).toBeVisible();
  });

  test('`@` lists the folder’s files, fuzzily, and inserts the chosen path', async ({ page }) => {
    // The folder carries a command of its own: asked about first; restricted, its files are still listed.
    await page
      .getByRole('dialog', { name: 'Trust this folder?' })
      .getByRole('button', { name: 'Open without its settings' })
      .click();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await expect(composer).toBeEnabled();
    await composer.fill('Look at @');
    const files = page.getByRole('listbox', { name: 'Files' });
    await expect(files.getByRole('option', { name: 'src/', exact: true })).toBeVisible();
    await composer.pressSequentially('gearbx');
    await expect(files.getByRole('option').first()).toHaveAccessibleName('src/widgets/gearbox.ts');
    await composer.press('Enter');
    await expect(composer).toHaveValue('Look at @src/widgets/gearbox.ts ');
    await expect(files).toBeHidden();
    // A path with a space is quoted; Tab takes the active match too.
    await composer.pressSequentially('and @gearidea');
    await expect(files.getByRole('option').first()).toHaveAccessibleName('notes/gear ideas.md');
    await composer.press('Tab');
    await expect(composer).toHaveValue('Look at @src/widgets/gearbox.ts and @"notes/gear ideas.md" ');
    await composer.pressSequentially('@nothing-like-this');
    await expect(page.getByRole('status').filter({ hasText: 'No file or folder matches' })).toBeVisible();
  });
});

test('the protocol inspector shows the lines behind a message, searchable, and copies them as JSONL', async ({
  page,
  webHost,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  webHost.world.fake.enqueue({ blocks: [{ type: 'text', text: 'The inspector reply.' }] });
  await send(page, 'show me the lines');
  const reply = claude(page).last();
  await expect(reply).toContainText('The inspector reply.');
  await expect(finished(page)).toHaveCount(1);
  await reply.hover();
  await reply.getByRole('button', { name: 'Show protocol lines' }).click();

  const panel = page.getByRole('complementary', { name: 'Protocol lines' });
  const recv = panel.getByRole('listitem', { name: 'recv assistant' });
  await expect(recv).toHaveCount(1);
  await expect(recv).toContainText('"text": "The inspector reply."');
  // Only what is behind the reply: not the prompt, not the init.
  await expect(panel.getByRole('listitem', { name: /system\/init/ })).toHaveCount(0);
  await expect(panel.getByRole('listitem', { name: /^send / })).toHaveCount(0);

  await panel.getByRole('button', { name: 'Copy as JSONL' }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const parsed = copied
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; message?: { content?: { text?: string }[] } });
  expect(parsed.map((line) => line.type)).toEqual(['assistant']);
  expect(parsed[0]?.message?.content?.[0]?.text).toBe('The inspector reply.');

  // The whole session, filtered by type and searched.
  await panel.getByRole('button', { name: 'Whole session' }).click();
  await expect(panel.getByRole('listitem', { name: 'recv system/init' })).toHaveCount(1);
  await expect(panel.getByRole('listitem', { name: 'send user' })).toContainText('show me the lines');
  await panel.getByRole('combobox', { name: 'Type of line' }).selectOption('result/success');
  await expect(panel.getByRole('listitem')).toHaveCount(1);
  await expect(panel.getByRole('listitem', { name: 'recv result/success' })).toBeVisible();
  await panel.getByRole('combobox', { name: 'Type of line' }).selectOption('');
  await panel.getByRole('searchbox', { name: 'Search lines' }).fill('show me the lines');
  await expect(panel.getByRole('listitem', { name: 'send user' })).toBeVisible();
  await expect(panel.getByRole('listitem', { name: 'recv system/init' })).toHaveCount(0);

  // A message of yours has its lines too: what Byre sent.
  const prompt = you(page).last();
  await prompt.hover();
  await prompt.getByRole('button', { name: 'Show protocol lines' }).click();
  await expect(panel.getByRole('button', { name: /Your message/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(panel.getByRole('listitem', { name: 'send user' })).toContainText('show me the lines');
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(panel).toBeHidden();
});

test('a thinking block says "Thinking…" while it runs and how long it took once done', async ({
  page,
  webHost,
}) => {
  const rest = new Gate();
  webHost.world.fake.enqueue({
    blocks: [
      { type: 'thinking', thinking: 'First I weigh the options carefully.' },
      { type: 'text', text: 'The considered answer.' },
    ],
    hold: { after: 2, until: rest },
  });
  await send(page, 'think it over');
  const thinking = claude(page).last().locator('.thinking').getByRole('button');
  await expect(thinking).toHaveText('Thinking…');
  rest.release();
  await expect(claude(page).last()).toContainText('The considered answer.');
  await expect(thinking).toHaveText(/^Thought for \d+ s$/);
  await thinking.click();
  await expect(claude(page).last()).toContainText('First I weigh the options carefully.');
  await expect(thinking).toHaveText('Hide thinking');
});

test('a todo list shows as a checklist that changes in place above the composer', async ({
  page,
  webHost,
}) => {
  const todos = (statuses: string[]) => ({
    todos: ['Write the parser', 'Test the parser', 'Document it'].map((content, index) => ({
      content,
      activeForm: `${content.replace(/^(\w+)/, (verb) => `${verb}ing`.replace(/eing$/, 'ing'))}`,
      status: statuses[index],
    })),
  });
  const rest = new Gate();
  webHost.world.fake.enqueue(
    {
      blocks: [{ type: 'tool_use', name: 'TodoWrite', input: todos(['in_progress', 'pending', 'pending']) }],
    },
    {
      blocks: [
        { type: 'tool_use', name: 'TodoWrite', input: todos(['completed', 'in_progress', 'pending']) },
      ],
    },
    { blocks: [{ type: 'text', text: 'Working through the list.' }], hold: { after: 1, until: rest } },
    {
      blocks: [
        { type: 'tool_use', name: 'TodoWrite', input: todos(['completed', 'completed', 'completed']) },
      ],
    },
    { blocks: [{ type: 'text', text: 'All done.' }] },
  );
  await send(page, 'plan the parser');
  const panel = page.getByRole('region', { name: 'Todo list' });
  await expect(panel).toContainText('1 of 3 done');
  await expect(panel.getByRole('listitem')).toHaveText([
    /Done: Write the parser$/,
    /In progress: Testing the parser$/,
    /To do: Document it$/,
  ]);
  // Each call's card shows the list it set, not its JSON.
  const cards = log(page).getByRole('region', { name: 'TodoWrite tool call' });
  await expect(cards).toHaveCount(2);
  await expect(cards.first()).toContainText('0 of 3 done');
  await expect(cards.first().getByRole('list')).toContainText('In progress: Writing the parser');
  await expect(log(page)).not.toContainText('"status"');
  // A reply that is only a tool call has Copy and Show protocol lines too, like every message.
  const toolOnly = claude(page).first();
  await expect(toolOnly.getByRole('button', { name: 'Copy', exact: true })).toBeAttached();
  await expect(toolOnly.getByRole('button', { name: 'Show protocol lines' })).toBeAttached();
  rest.release();
  await send(page, 'finish it');
  await expect(claude(page).last()).toContainText('All done.');
  // Everything done: the list leaves the space above the composer.
  await expect(panel).toBeHidden();
});

test('the composer grows with its text up to half the window, and keeps its height when Stop appears', async ({
  page,
  webHost,
}) => {
  await page.setViewportSize({ width: 1100, height: 800 });
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeEnabled();
  const form = page.locator('form.composer');
  const empty = (await composer.boundingBox())!.height;
  await composer.fill(Array.from({ length: 6 }, (_, index) => `line ${index}`).join('\n'));
  await expect.poll(async () => (await composer.boundingBox())!.height).toBeGreaterThan(empty + 40);
  await composer.fill(Array.from({ length: 80 }, (_, index) => `line ${index}`).join('\n'));
  await expect.poll(async () => (await composer.boundingBox())!.height).toBeGreaterThan(300);
  expect((await composer.boundingBox())!.height).toBeLessThanOrEqual(400);
  await composer.fill('');
  await expect.poll(async () => (await composer.boundingBox())!.height).toBe(empty);

  const rest = new Gate();
  webHost.world.fake.enqueue({
    blocks: [{ type: 'text', text: words(30) }],
    hold: { after: 3, until: rest },
  });
  const before = (await form.boundingBox())!.height;
  await send(page, 'a reply to stop');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  expect((await form.boundingBox())!.height).toBe(before);
  rest.release();
  await expect(finished(page)).toHaveCount(1);
});
