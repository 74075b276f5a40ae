// A tiny MCP server over stdio for tests of what Byre does with a conversation's MCP servers: it speaks just
// enough JSON-RPC (initialize, tools/list, tools/call) for the real CLI to connect to it and call its tool.
// Its arguments make it misbehave the ways the tests need:
//   --fail-until <file>  exits at once with an error on stderr while <file> does not exist (a server that
//                        fails first and works after it is fixed: Reconnect's test)
//   --elicit             its tool "ask" asks the user through the client (elicitation/create) and returns
//                        what came back, as JSON text
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const failUntil = args.includes('--fail-until') ? args[args.indexOf('--fail-until') + 1] : undefined;
const elicits = args.includes('--elicit');

if (failUntil && !existsSync(failUntil)) {
  process.stderr.write(`fake-mcp: not ready (${failUntil} is missing)\n`);
  process.exit(1);
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
/** Requests this server sent the client, by id: what to do with each answer. */
const waiting = new Map();
let nextId = 1;

const tools = [
  {
    name: 'ping',
    description: 'Answers pong.',
    inputSchema: { type: 'object', properties: {} },
  },
  ...(elicits
    ? [
        {
          name: 'ask',
          description: 'Asks the user for their name and age through the client, and returns the answer.',
          inputSchema: { type: 'object', properties: {} },
        },
      ]
    : []),
];

function callTool(id, name) {
  if (name === 'ping') {
    send({ id, result: { content: [{ type: 'text', text: 'pong' }] } });
    return;
  }
  if (name === 'ask' && elicits) {
    const askId = nextId++;
    waiting.set(askId, (answer) =>
      send({ id, result: { content: [{ type: 'text', text: JSON.stringify(answer) }] } }),
    );
    send({
      id: askId,
      method: 'elicitation/create',
      params: {
        message: 'Who is asking?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Your name' },
            age: { type: 'integer', title: 'Age', minimum: 0 },
            subscribe: { type: 'boolean', title: 'Subscribe' },
            colour: { type: 'string', title: 'Colour', enum: ['red', 'green'] },
          },
          required: ['name'],
        },
      },
    });
    return;
  }
  send({ id, error: { code: -32602, message: `Unknown tool: ${name}` } });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.method === undefined) {
    // An answer to one of this server's own requests.
    const then = waiting.get(message.id);
    waiting.delete(message.id);
    then?.(message.result ?? { error: message.error });
    return;
  }
  if (message.id === undefined) return; // a notification
  switch (message.method) {
    case 'initialize':
      send({
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'fake-mcp', version: '1.0.0' },
        },
      });
      break;
    case 'ping':
      send({ id: message.id, result: {} });
      break;
    case 'tools/list':
      send({ id: message.id, result: { tools } });
      break;
    case 'tools/call':
      callTool(message.id, message.params?.name);
      break;
    default:
      send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
