import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { toolResults } from './fake-model/server';
import { finished, log, send } from './fixtures/chat-page';
import { expect, test } from './fixtures/web-host';

/**
 * The CLI's rarer lines as the user meets them in Chromium (shared/protocol-kinds.md): the marker where
 * /compact compacted the conversation, from the real CLI; a local slash command's output under the command,
 * from a saved transcript, since the pinned CLI writes no local_command_output for the commands tried here
 * (/context, /cost, /usage, /mcp, /release-notes, /status, /hooks, /doctor, /model, /config, …).
 */

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });

test('marks where /compact compacted the conversation, with the summary Claude goes on from', async ({
  page,
  webHost,
}) => {
  webHost.world.fake.enqueue(
    { blocks: [{ type: 'text', text: 'Hello to you.' }] },
    { blocks: [{ type: 'text', text: '<summary>The user said hello; Claude answered.</summary>' }] },
  );
  await send(page, 'hello');
  await expect(finished(page)).toHaveCount(1);
  await send(page, '/compact');
  const marker = log(page).getByRole('note', {
    name: /^Conversation compacted \(manual · \d+k? → \d+(\.\d)?k? tokens\)$/,
  });
  await expect(marker).toBeVisible();
  await marker.getByText('Summary Claude goes on from').click();
  await expect(marker).toContainText('The user said hello; Claude answered.');
  // /compact's own "Compacted" is the marker's to say.
  await expect(
    log(page)
      .getByRole('note')
      .filter({ hasText: /^Compacted$/ }),
  ).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('compact-marker.png') });
});

test('shows a local command’s output under the command, in a saved conversation', async ({
  page,
  webHost,
}) => {
  const sessionId = randomUUID();
  const prompt = randomUUID();
  const line = (dir: 'send' | 'recv', msg: object) => JSON.stringify({ dir, msg });
  const base = { session_id: sessionId, uuid: randomUUID() };
  const transcript = [
    line('send', {
      type: 'control_request',
      request_id: 'r1',
      request: { subtype: 'initialize', hooks: {} },
    }),
    line('send', {
      type: 'user',
      message: { role: 'user', content: '/voice' },
      parent_tool_use_id: null,
      session_id: '',
      uuid: prompt,
    }),
    line('recv', {
      type: 'system',
      subtype: 'init',
      cwd: webHost.world.cwd,
      model: 'claude-opus-5-5',
      tools: [],
      mcp_servers: [],
      permissionMode: 'default',
      claude_code_version: '2.1.332',
      ...base,
    }),
    line('recv', {
      type: 'system',
      subtype: 'local_command_output',
      content: `## Voice mode\n\nVoice mode is **off**. ${'A long line of output that wraps at narrow widths. '.repeat(6)}`,
      session_id: sessionId,
      uuid: randomUUID(),
    }),
    line('recv', {
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 0,
      duration_ms: 3,
      total_cost_usd: 0,
      usage: {},
      session_id: sessionId,
      uuid: randomUUID(),
    }),
  ];
  // The library watches Byre's transcripts folder: a transcript written now is listed.
  const folder = join(webHost.dataDir, 'transcripts');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `2026-12-01T10-00-00-000Z-${sessionId}.jsonl`), `${transcript.join('\n')}\n`);

  await sidebar(page)
    .getByRole('button', { name: /\/voice/ })
    .click();
  const output = log(page).getByRole('region', { name: 'Output of /voice' });
  await expect(output).toBeVisible();
  await expect(output.getByRole('heading', { name: 'Voice mode' })).toBeVisible();
  await expect(output.locator('strong')).toHaveText('off');
  // Not a line Byre could not read.
  await expect(log(page)).not.toContainText('Byre skipped a line');

  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize({ width: 640, height: 700 });
    await page.screenshot({ path: test.info().outputPath(`command-output-${theme}-640.png`) });
  }
  const box = await output.boundingBox();
  expect(box!.width).toBeLessThanOrEqual(640);
});

test.describe('a folder with a hook and a deny rule', () => {
  test.use({
    folderFiles: {
      '.claude/settings.json': JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo checked-the-prompt' }] }] },
        permissions: { deny: ['Bash(rm:*)'] },
      }),
    },
  });

  test('shows the hook run as one line with its output on expand, and the denial at its tool call', async ({
    page,
    webHost,
  }) => {
    const { world } = webHost;
    await page
      .getByRole('dialog', { name: 'Trust this folder?' })
      .getByRole('button', { name: 'Trust', exact: true })
      .click();
    world.fake.enqueue({
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'rm -rf build', description: 'Clean up' } },
      ],
    });
    world.fake.when((request) => toolResults(request).length > 0, {
      blocks: [{ type: 'text', text: 'It was denied.' }],
    });
    await send(page, 'clean up');
    await expect(finished(page)).toHaveCount(1);

    const hook = log(page).getByRole('group', { name: 'UserPromptSubmit hook' });
    const line = hook.getByRole('button', { name: /Hook UserPromptSubmit · success/ });
    await expect(line).toHaveAttribute('aria-expanded', 'false');
    await line.click();
    await expect(hook).toContainText('checked-the-prompt');

    const card = log(page).getByRole('region', { name: /Bash tool call/ });
    await expect(card.getByRole('note')).toHaveText('Denied by a permission rule.');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize({ width: 640, height: 700 });
      await page.screenshot({ path: test.info().outputPath(`hook-and-denial-${theme}-640.png`) });
      await hook.scrollIntoViewIfNeeded();
      await hook.screenshot({ path: test.info().outputPath(`hook-line-${theme}-640.png`) });
    }
  });
});
