import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { toolResults } from './fake-model/server';
import { claude, finished, send } from './fixtures/chat-page';
import type { CliWorld } from './fixtures/cli-env';
import { expect, test } from './fixtures/web-host';

/**
 * A conversation's own MCP servers in Chromium through the browser host, against the real CLI and the
 * tests' small stdio MCP server (e2e/fake-mcp) in the user scope of the test's HOME: Disable, Enable and
 * Reconnect in the MCP servers panel, and a server's question (MCP elicitation) answered in its card.
 */

const FAKE_MCP = join(import.meta.dirname, 'fake-mcp', 'stdio-server.mjs');

/** Adds the servers to the HOME's ~/.claude.json, then opens a conversation (whose CLI reads them). */
async function conversationWithServers(page: Page, world: CliWorld, servers: Record<string, string[]>) {
  const file = join(world.home, '.claude.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, args]) => [
      name,
      { type: 'stdio', command: process.execPath, args: [FAKE_MCP, ...args] },
    ]),
  );
  writeFileSync(file, JSON.stringify(config));
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Working folder').fill(world.cwd);
  await form.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByRole('tab')).toHaveCount(2);
}

test('Disable, Enable, and Reconnect of a server that failed, each shown in the panel', async ({
  page,
  webHost,
}) => {
  const marker = join(webHost.world.home, 'fake-mcp-ready');
  await conversationWithServers(page, webHost.world, { people: [], flaky: ['--fail-until', marker] });
  await page.getByRole('button', { name: 'MCP servers' }).click();
  const panel = page.getByRole('dialog', { name: 'MCP servers' });
  const people = panel.getByRole('listitem').filter({ has: page.getByText('people', { exact: true }) });
  const flaky = panel.getByRole('listitem').filter({ has: page.getByText('flaky', { exact: true }) });

  // The panel reads the servers again while they connect; the broken one fails, with its error.
  await expect(flaky).toContainText('failed');
  await expect(flaky.locator('.mcp-error')).toContainText('Connection closed');
  await expect(people).toContainText('connected');
  await expect(people.getByRole('button', { name: 'Reconnect' })).toHaveCount(0);

  writeFileSync(marker, '');
  await flaky.getByRole('button', { name: 'Reconnect' }).click();
  await expect(flaky).toContainText('connected');
  await expect(flaky.getByRole('list', { name: 'Tools of flaky' })).toContainText('ping');
  await expect(flaky.locator('.mcp-error')).toHaveCount(0);

  await people.getByRole('button', { name: 'Disable' }).click();
  await expect(people).toContainText('disabled');
  await people.getByRole('button', { name: 'Enable' }).click();
  await expect(people).toContainText('connected');
  await expect(people.getByRole('button', { name: 'Disable' })).toBeVisible();
});

test("a server's question is a form in its card, and Submit sends the answer back to the server", async ({
  page,
  webHost,
}) => {
  const { fake } = webHost.world;
  await conversationWithServers(page, webHost.world, { people: ['--elicit'] });
  // The server connects in the background; its tool is there once the panel says so.
  await page.getByRole('button', { name: 'MCP servers' }).click();
  await expect(page.getByRole('dialog', { name: 'MCP servers' })).toContainText('ask');
  await page.keyboard.press('Escape');

  fake.enqueue(
    { blocks: [{ type: 'tool_use', name: 'mcp__people__ask', input: {} }] },
    { blocks: [{ type: 'text', text: 'Nice to meet you.' }] },
  );
  await send(page, 'who am I?');
  const card = page.getByRole('group', { name: 'Who is asking?' });
  await expect(card).toContainText('people asks');
  await card.getByLabel('Your name (required)').fill('Ada');
  await card.getByLabel('Age').fill('36');
  await card.getByLabel('Subscribe').check();
  await card.getByLabel('Colour').selectOption('green');
  await card.getByRole('button', { name: 'Submit' }).click();
  await expect(card).toBeHidden();
  await expect(finished(page)).toHaveCount(1);
  await expect(claude(page).last()).toContainText('Nice to meet you.');
  const request = await fake.waitForRequest((candidate) => toolResults(candidate).length > 0);
  expect(JSON.parse(toolResults(request)[0]!.content)).toEqual({
    action: 'accept',
    content: { name: 'Ada', age: 36, subscribe: true, colour: 'green' },
  });
});
