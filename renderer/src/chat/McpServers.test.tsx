import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { InvokeResponse } from '../../../shared/ipc';
import { McpPanel } from './McpServers';

/** The MCP panel as it renders: which of Disable, Enable and Reconnect each server offers. */

type Server = InvokeResponse<'mcpStatus'>['servers'][number];

const server = (name: string, status: string, extra: Partial<Server> = {}): Server => ({
  name,
  status,
  error: null,
  tools: [],
  builtIn: false,
  ...extra,
});

const render = (servers: Server[]) =>
  renderToStaticMarkup(
    <McpPanel
      id="panel"
      tabId="c1"
      reading={{ state: 'ready', servers }}
      onRetry={() => undefined}
      onChanged={() => Promise.resolve()}
    />,
  );

/** Each server's item in `html`, by name, and the labels of the buttons in it. */
function buttonsOf(html: string): Record<string, string[]> {
  const items = html.split('<li class="mcp-server">').slice(1);
  return Object.fromEntries(
    items.map((item) => [
      /<strong[^>]*>([^<]*)<\/strong>/.exec(item)![1],
      [...item.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((match) => match[1]),
    ]),
  );
}

describe('MCP servers panel', () => {
  it('offers Disable for a connected server, Enable for a disabled one, and Reconnect for a failed one', () => {
    const html = render([
      server('tracker', 'connected', { tools: ['open_issue'] }),
      server('search', 'disabled'),
      server('flaky', 'failed', { error: 'Connection closed' }),
    ]);
    expect(buttonsOf(html)).toEqual({
      tracker: ['Disable'],
      search: ['Enable'],
      flaky: ['Reconnect', 'Disable'],
    });
    // The failed server's error, in full, as before.
    expect(html).toContain('<pre class="mcp-error">Connection closed</pre>');
  });

  it("offers nothing to do with Byre's own server, which the app needs", () => {
    const html = render([server('byre', 'connected', { tools: ['set_title'], builtIn: true })]);
    expect(buttonsOf(html)).toEqual({ byre: [] });
  });

  it('names the server each button acts on for a screen reader', () => {
    const html = render([server('tracker', 'connected')]);
    const nameId = /<strong class="mcp-server-name" id="([^"]+)"/.exec(html)![1];
    expect(html).toContain(`aria-describedby="${nameId}"`);
  });
});
