import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../e2e/fake-model/server';
import type { InvokeResponse } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * The MCP servers of a conversation through the backend the UI talks to, against the real CLI and a small
 * stdio MCP server of the test's own (e2e/fake-mcp), configured in the user scope of the test's HOME: the
 * user disables and enables one (mcp_toggle), and reconnects one that failed (mcp_reconnect).
 */

const FAKE_MCP = join(import.meta.dirname, '..', '..', 'e2e', 'fake-mcp', 'stdio-server.mjs');

let harness: BackendHarness;

beforeEach(async () => {
  harness = await openBackend({ dontAsk: true });
});

afterEach(() => harness.dispose());

/** User-scope MCP servers in the test HOME's ~/.claude.json, each the fake server with these arguments. */
function configureServers(servers: Record<string, string[]>): void {
  const file = join(harness.world.home, '.claude.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, args]) => [
      name,
      { type: 'stdio', command: process.execPath, args: [FAKE_MCP, ...args] },
    ]),
  );
  writeFileSync(file, JSON.stringify(config));
}

type Server = InvokeResponse<'mcpStatus'>['servers'][number];

/** Asks the CLI for the servers until `name` is in the state `check` wants (servers connect in the background). */
async function serverOnce(conversationId: string, name: string, check: (server: Server) => boolean) {
  let found: Server | undefined;
  await expect
    .poll(
      async () => {
        const { servers } = await harness.invoke('mcpStatus', { conversationId });
        found = servers.find((server) => server.name === name);
        return found !== undefined && check(found);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return found!;
}

/**
 * Whether a request to the model offers the tool: a server's tools are deferred (not alwaysLoad), so the CLI
 * names them in its system text for ToolSearch rather than in `tools`.
 */
const offers = (request: RecordedRequest, tool: string): boolean =>
  JSON.stringify(request.body).includes(tool);

const results = (conversationId: string) =>
  harness
    .eventsOf(conversationId)
    .filter((event) => event.kind === 'message' && event.message.type === 'result').length;

describe('MCP servers you can act on', () => {
  it('Disable takes a server and its tools away from Claude; Enable brings them back', async () => {
    configureServers({ fake: [] });
    const { conversationId } = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const connected = await serverOnce(conversationId, 'fake', (server) => server.status === 'connected');
    expect(connected).toMatchObject({ tools: ['ping'], builtIn: false, error: null });

    await harness.invoke('mcpToggle', { conversationId, serverName: 'fake', enabled: false });
    expect(await serverOnce(conversationId, 'fake', () => true)).toMatchObject({ status: 'disabled' });
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Without it.' }] });
    await harness.invoke('send', { conversationId, text: 'first' });
    await harness.when(() => results(conversationId) === 1);
    const without = harness.world.fake.requests.filter((request) => request.stream).at(-1)!;
    expect(offers(without, 'mcp__fake__ping')).toBe(false);

    await harness.invoke('mcpToggle', { conversationId, serverName: 'fake', enabled: true });
    const back = await serverOnce(conversationId, 'fake', (server) => server.status === 'connected');
    expect(back.tools).toEqual(['ping']);
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'With it.' }] });
    await harness.invoke('send', { conversationId, text: 'second' });
    await harness.when(() => results(conversationId) === 2);
    const withIt = harness.world.fake.requests.filter((request) => request.stream).at(-1)!;
    expect(offers(withIt, 'mcp__fake__ping')).toBe(true);
  });

  it('Reconnect connects a server that failed, once what made it fail is fixed', async () => {
    const marker = join(harness.world.home, 'fake-mcp-ready');
    configureServers({ flaky: ['--fail-until', marker] });
    const { conversationId } = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const failed = await serverOnce(conversationId, 'flaky', (server) => server.status === 'failed');
    // Its error, as the panel shows it.
    expect(failed).toMatchObject({ tools: [], error: expect.stringMatching(/\S/) });

    writeFileSync(marker, '');
    await harness.invoke('mcpReconnect', { conversationId, serverName: 'flaky' });
    const connected = await serverOnce(conversationId, 'flaky', (server) => server.status === 'connected');
    expect(connected).toMatchObject({ tools: ['ping'], error: null });
  });

  it('says why when the server named is not one the CLI has', async () => {
    const { conversationId } = await harness.invoke('startConversation', { cwd: harness.world.cwd });
    const answer = await harness.backend.invoke('mcpReconnect', { conversationId, serverName: 'nowhere' });
    expect(answer).toMatchObject({ ok: false, error: { message: expect.stringContaining('nowhere') } });
  });
});
