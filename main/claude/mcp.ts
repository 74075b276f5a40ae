import { z } from 'zod';
import type { JsonObject } from '../../shared/protocol';
import { BYRE_MCP_SERVER } from './launch';

/**
 * The in-process `byre` MCP server. The CLI reaches it through mcp_message control requests (type "sdk" in
 * --mcp-config); declared with alwaysLoad, its tools are in the model's prompt from the first turn.
 */

/** What the tools do in the app; the session turns these into events. */
export interface ByreToolHost {
  setTitle(title: string): void;
  notify(notification: { title?: string; message: string }): void;
}

interface ToolDefinition<Args extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  args: Args;
  run(args: z.infer<Args>, host: ByreToolHost): string;
}

function defineTool<Args extends z.ZodObject>(tool: ToolDefinition<Args>): ToolDefinition<z.ZodObject> {
  return tool as unknown as ToolDefinition<z.ZodObject>;
}

export const byreTools = [
  defineTool({
    name: 'set_title',
    title: 'Set title',
    description:
      'Name this conversation in the Byre app. Call it once the topic is clear, with a short title (a few words, no quotes), and again only if the topic changes.',
    args: z.object({ title: z.string().trim().min(1).max(120).describe('The conversation title') }),
    run({ title }, host) {
      host.setTitle(title);
      return `Title set to "${title}".`;
    },
  }),
  defineTool({
    name: 'notify',
    title: 'Notify',
    description:
      'Tell the user something that needs their attention while the Byre app may be in the background, such as a long task finishing or a question only they can answer. Keep it to one sentence.',
    args: z.object({
      message: z.string().trim().min(1).max(500).describe('What the user should know'),
      title: z.string().trim().min(1).max(80).optional().describe('A short heading'),
    }),
    run({ message, title }, host) {
      host.notify({ message, ...(title ? { title } : {}) });
      return 'The user has been notified.';
    },
  }),
];

const JsonRpcRequest = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

const ToolCallParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const SUPPORTED_PROTOCOL = '2025-06-18';

export class ByreMcpServer {
  readonly name = BYRE_MCP_SERVER;

  constructor(
    private readonly host: ByreToolHost,
    private readonly version: string,
  ) {}

  /** Answers one JSON-RPC message; notifications get an empty result, which the CLI waits for. */
  handle(message: JsonObject): JsonObject {
    const parsed = JsonRpcRequest.safeParse(message);
    if (!parsed.success) {
      return rpcError(null, -32600, 'Invalid JSON-RPC request');
    }
    const { id, method, params } = parsed.data;
    if (id === undefined) return { jsonrpc: '2.0', result: {} };
    switch (method) {
      case 'initialize': {
        const requested = typeof params?.protocolVersion === 'string' ? params.protocolVersion : undefined;
        return rpcResult(id, {
          protocolVersion: requested ?? SUPPORTED_PROTOCOL,
          capabilities: { tools: {} },
          serverInfo: { name: this.name, version: this.version },
        });
      }
      case 'ping':
        return rpcResult(id, {});
      case 'tools/list':
        return rpcResult(id, {
          tools: byreTools.map((tool) => ({
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: z.toJSONSchema(tool.args),
          })),
        });
      case 'tools/call':
        return rpcResult(id, this.callTool(params));
      default:
        return rpcError(id, -32601, `Method not found: ${method}`);
    }
  }

  private callTool(params: unknown): JsonObject {
    const call = ToolCallParams.safeParse(params);
    if (!call.success) return toolError('Invalid tools/call parameters.');
    const tool = byreTools.find((candidate) => candidate.name === call.data.name);
    if (!tool) return toolError(`Unknown tool: ${call.data.name}`);
    const args = tool.args.safeParse(call.data.arguments ?? {});
    if (!args.success) return toolError(`Invalid arguments for ${tool.name}: ${z.prettifyError(args.error)}`);
    return { content: [{ type: 'text', text: tool.run(args.data, this.host) }] };
  }
}

function rpcResult(id: string | number, result: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id, result };
}

function rpcError(id: string | number | null, code: number, message: string): JsonObject {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function toolError(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}
