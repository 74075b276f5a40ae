import type { CliMessage, JsonObject } from '../../shared/protocol';

/**
 * The decode fast path for the lines that make up nearly all of a stream: text, thinking, input_json and
 * signature deltas, and `system/thinking_tokens`. It checks by hand the few fields their schemas in
 * shared/protocol.ts require and returns the parsed object itself, typed: zod's loose objects would copy
 * every key of it. A line it does not vouch for, a hot kind that fails the check included, is left to zod,
 * which accepts or rejects it and says why. fast-decode.test.ts fuzzes this against the schemas: for the
 * hot kinds both must accept the same lines, with equal results.
 */
export function fastDecode(line: JsonObject): CliMessage | undefined {
  if (!isRecord(line) || typeof line.session_id !== 'string' || typeof line.uuid !== 'string')
    return undefined;
  if (line.type === 'stream_event') return isHotStreamEvent(line) ? (line as CliMessage) : undefined;
  if (line.type === 'system' && line.subtype === 'thinking_tokens') {
    return optionalNumber(line.estimated_tokens) && optionalNumber(line.estimated_tokens_delta)
      ? (line as CliMessage)
      : undefined;
  }
  return undefined;
}

function isHotStreamEvent(line: JsonObject): boolean {
  const parent = line.parent_tool_use_id;
  if (parent !== null && typeof parent !== 'string') return false;
  const event = line.event;
  if (!isRecord(event) || event.type !== 'content_block_delta' || !isNumber(event.index)) return false;
  const delta = event.delta;
  if (!isRecord(delta)) return false;
  switch (delta.type) {
    case 'text_delta':
      return typeof delta.text === 'string';
    case 'thinking_delta':
      return typeof delta.thinking === 'string';
    case 'input_json_delta':
      return typeof delta.partial_json === 'string';
    case 'signature_delta':
      return typeof delta.signature === 'string';
    default:
      return false;
  }
}

/**
 * An object zod's looseObject would pass on unchanged. Zod leaves out an own `__proto__` key (JSON.parse
 * makes one from `"__proto__":…`), so such an object is left to zod for the results to stay equal.
 */
function isRecord(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__')
  );
}

/** As z.number(): finite (JSON.parse turns 1e999 into Infinity, which zod refuses). */
function isNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function optionalNumber(value: unknown): boolean {
  return value === undefined || isNumber(value);
}
