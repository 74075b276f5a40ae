import { describe, it, expect, vi } from 'vitest';
import { ByreMcpServer, type ByreToolHost } from './mcp';

function server() {
  const host = { setTitle: vi.fn<ByreToolHost['setTitle']>(), notify: vi.fn<ByreToolHost['notify']>() };
  return { host, mcp: new ByreMcpServer(host, '0.1.0') };
}

function call(mcp: ByreMcpServer, name: string, args?: Record<string, unknown>, id = 7) {
  return mcp.handle({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, ...(args ? { arguments: args } : {}), _meta: { 'claudecode/toolUseId': 'toolu_1' } },
  });
}

describe('ByreMcpServer', () => {
  it('answers initialize (id 0) echoing the protocol version and naming itself byre', () => {
    const { mcp } = server();
    const response = mcp.handle({
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'claude-code', version: '2.1.332' },
      },
      jsonrpc: '2.0',
      id: 0,
    });
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'byre', version: '0.1.0' },
      },
    });
  });

  it('answers a notification with an empty result and no id', () => {
    const { mcp } = server();
    expect(mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      jsonrpc: '2.0',
      result: {},
    });
    expect(
      mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }),
    ).toEqual({ jsonrpc: '2.0', result: {} });
  });

  it('lists set_title and notify with JSON-schema input schemas', () => {
    const { mcp } = server();
    const response = mcp.handle({ method: 'tools/list', jsonrpc: '2.0', id: 1 });
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 1 });
    const tools = (
      response.result as { tools: { name: string; description: string; inputSchema: unknown }[] }
    ).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['set_title', 'notify']);
    for (const tool of tools) expect(tool.description.length).toBeGreaterThan(20);
    expect(tools[0]!.inputSchema).toMatchObject({
      type: 'object',
      properties: { title: { type: 'string', minLength: 1, maxLength: 120 } },
      required: ['title'],
    });
    expect(tools[1]!.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' }, title: { type: 'string' } },
      required: ['message'],
    });
    // JSON-serializable as sent over the control channel.
    expect(JSON.parse(JSON.stringify(tools))).toEqual(tools);
  });

  it('set_title calls the host with the trimmed title and returns text content', () => {
    const { mcp, host } = server();
    expect(call(mcp, 'set_title', { title: '  Fix the flaky build  ' })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'Title set to "Fix the flaky build".' }] },
    });
    expect(host.setTitle).toHaveBeenCalledExactlyOnceWith('Fix the flaky build');
  });

  it('notify passes the message, and the title only when given', () => {
    const { mcp, host } = server();
    const first = call(mcp, 'notify', { message: 'Tests finished', title: 'Done' });
    expect(first.result).toEqual({ content: [{ type: 'text', text: expect.any(String) }] });
    call(mcp, 'notify', { message: 'Need your input' });
    expect(host.notify.mock.calls).toEqual([
      [{ message: 'Tests finished', title: 'Done' }],
      [{ message: 'Need your input' }],
    ]);
  });

  it.each([
    ['an empty title', 'set_title', { title: '   ' }],
    ['a title that is too long', 'set_title', { title: 'x'.repeat(121) }],
    ['a missing title', 'set_title', {}],
    ['a title that is not a string', 'set_title', { title: 42 }],
    ['no arguments', 'notify', undefined],
  ])('answers %s with an isError tool result, not a JSON-RPC error', (_name, tool, args) => {
    const { mcp, host } = server();
    const response = call(mcp, tool, args);
    expect(response.error).toBeUndefined();
    expect(response).toMatchObject({
      id: 7,
      result: { isError: true, content: [{ type: 'text', text: expect.stringContaining(tool) }] },
    });
    expect(host.setTitle).not.toHaveBeenCalled();
    expect(host.notify).not.toHaveBeenCalled();
  });

  it('answers an unknown tool with an isError result naming it', () => {
    const { mcp } = server();
    expect(call(mcp, 'delete_everything', {})).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { isError: true, content: [{ type: 'text', text: 'Unknown tool: delete_everything' }] },
    });
  });

  it('answers an unknown method with -32601 and the same id', () => {
    const { mcp } = server();
    expect(mcp.handle({ jsonrpc: '2.0', id: 'abc', method: 'resources/list' })).toEqual({
      jsonrpc: '2.0',
      id: 'abc',
      error: { code: -32601, message: expect.stringContaining('resources/list') },
    });
  });

  it('answers ping, and a message that is not JSON-RPC with -32600', () => {
    const { mcp } = server();
    expect(mcp.handle({ jsonrpc: '2.0', id: 3, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    expect(mcp.handle({ id: 4, method: 'ping' })).toMatchObject({ id: null, error: { code: -32600 } });
  });
});
