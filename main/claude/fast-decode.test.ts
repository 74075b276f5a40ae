import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeCliMessage, type CliMessage, type JsonObject } from '../../shared/protocol';
import { decodingLineSink, lineTextOf } from './decode';
import { fastDecode } from './fast-decode';

/**
 * Fuzzes the fast path against the zod schemas. For every line, recorded, built or mutated: a line the fast
 * path accepts is one zod accepts, with a deep-equal result; and a line of a hot kind that zod accepts, the
 * fast path accepts too. A line with an own `__proto__` key is left to zod by design (zod drops the key).
 */

const ROOT = join(import.meta.dirname, '../..');
const HOT_DELTAS: Record<string, string> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
  signature_delta: 'signature',
};

/** Deterministic: the same lines and mutations on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kinds the fast path must decide exactly as zod does, told apart without its code. */
function isHotKind(line: JsonObject): boolean {
  if (Object.hasOwn(line, '__proto__')) return false;
  if (line.type === 'system') return line.subtype === 'thinking_tokens';
  if (line.type !== 'stream_event' || !isObject(line.event) || Object.hasOwn(line.event, '__proto__'))
    return false;
  const delta = line.event.delta;
  return (
    line.event.type === 'content_block_delta' &&
    isObject(delta) &&
    !Object.hasOwn(delta, '__proto__') &&
    typeof delta.type === 'string' &&
    delta.type in HOT_DELTAS
  );
}

interface Tally {
  lines: number;
  hotAccepted: number;
  hotRejected: number;
  problems: string[];
}

function check(line: JsonObject, tally: Tally): void {
  tally.lines++;
  const zod = decodeCliMessage(line);
  const fast = fastDecode(line);
  const hot = isHotKind(line);
  if (hot) tally[zod.ok ? 'hotAccepted' : 'hotRejected']++;
  const text = () => JSON.stringify(line).slice(0, 400);
  if (fast && !zod.ok) tally.problems.push(`fast accepts, zod rejects: ${text()}`);
  else if (fast && zod.ok && !isDeepStrictEqual(fast, zod.message))
    tally.problems.push(`results differ: ${text()}`);
  else if (!fast && zod.ok && hot)
    tally.problems.push(`zod accepts a hot line the fast path refuses: ${text()}`);
  else if (fast && !hot) tally.problems.push(`fast path accepts a line that is not a hot kind: ${text()}`);
}

// ---------------------------------------------------------------------------------------------------
// Lines

function builtLines(random: () => number): JsonObject[] {
  const texts = [
    '',
    'Hello',
    ' world.\n\n',
    'naïve café — déjà vu ✓ 🎉',
    '{"command":"ls',
    '"quoted" \\ back',
  ];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const lines: JsonObject[] = [];
  for (let i = 0; i < 200; i++) {
    const base = { session_id: `session-${i % 3}`, uuid: `uuid-${i}` };
    const extra = random() < 0.5 ? { api_message_id: `msg_${i}` } : {};
    if (i % 5 === 4) {
      lines.push({
        type: 'system',
        subtype: 'thinking_tokens',
        ...(random() < 0.8 ? { estimated_tokens: Math.floor(random() * 5000) } : {}),
        ...(random() < 0.8 ? { estimated_tokens_delta: Math.floor(random() * 9) } : {}),
        ...base,
        ...(random() < 0.5 ? { user_message_uuid: `user-${i}` } : {}),
      });
      continue;
    }
    const deltaType = pick(Object.keys(HOT_DELTAS));
    lines.push({
      type: 'stream_event',
      event: {
        type: 'content_block_delta',
        index: pick([0, 1, 2, 7]),
        delta: { type: deltaType, [HOT_DELTAS[deltaType]!]: pick(texts) },
      },
      parent_tool_use_id: pick([null, null, 'toolu_01abc']),
      ...base,
      ...extra,
    });
  }
  return lines;
}

function fixtureLines(): JsonObject[] {
  const lines: JsonObject[] = [];
  for (const name of ['cli-session.jsonl', 'cli-compact.jsonl', 'transcript.jsonl']) {
    for (const text of readFileSync(join(ROOT, 'shared/__fixtures__', name), 'utf8').split('\n')) {
      if (!text) continue;
      const line = JSON.parse(text) as JsonObject;
      lines.push(isObject(line.msg) ? line.msg : line);
    }
  }
  return lines;
}

/** The head of the benchmark's recorded stream, when it is there (it is not in the repo). */
function recordedStreamLines(): JsonObject[] {
  const path = join(ROOT, 'bench/data/stream.jsonl');
  if (!existsSync(path)) return [];
  const buffer = Buffer.alloc(512 * 1024);
  const fd = openSync(path, 'r');
  const read = readSync(fd, buffer, 0, buffer.length, 0);
  closeSync(fd);
  const texts = buffer.toString('utf8', 0, read).split('\n');
  texts.pop();
  return texts.filter(Boolean).map((text) => JSON.parse(text) as JsonObject);
}

// ---------------------------------------------------------------------------------------------------
// Mutations

const ODD_VALUES: unknown[] = [
  null,
  undefined,
  0,
  -1,
  1.5,
  -0,
  Infinity,
  NaN,
  '',
  '0',
  'text',
  true,
  [],
  {},
  ['text'],
  { type: 'text_delta' },
];
const ODD_TAGS = [
  'stream_event',
  'system',
  'assistant',
  'result',
  'content_block_delta',
  'content_block_start',
  'message_delta',
  'text_delta',
  'thinking_delta',
  'input_json_delta',
  'signature_delta',
  'citations_delta',
  'thinking_tokens',
  'init',
  'TEXT_DELTA',
];
const ODD_KEYS = ['__proto__', 'constructor', 'toString', 'extra', 'type', 'text', 'index', 'delta', 'event'];

/** Every object in the line, with its path, the line itself first. */
function objectsIn(value: JsonObject): JsonObject[] {
  const found: JsonObject[] = [value];
  for (const item of Object.values(value)) {
    if (isObject(item)) found.push(...objectsIn(item));
    else if (Array.isArray(item))
      for (const entry of item) if (isObject(entry)) found.push(...objectsIn(entry));
  }
  return found;
}

/** Sets a key as JSON.parse would, `__proto__` included (plain assignment would set the prototype). */
function put(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mutate(line: JsonObject, random: () => number): JsonObject {
  const copy = structuredClone(line);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const times = 1 + Math.floor(random() * 3);
  for (let n = 0; n < times; n++) {
    // The hot lines' own objects (line, event, delta) are where the checks are: favour them.
    const objects = objectsIn(copy);
    const target =
      random() < 0.7 ? objects[Math.min(objects.length - 1, Math.floor(random() * 3))]! : pick(objects);
    const keys = Object.keys(target);
    const key = keys.length > 0 ? pick(keys) : 'type';
    const value = target[key];
    switch (Math.floor(random() * 9)) {
      case 0:
        Reflect.deleteProperty(target, key);
        break;
      case 1:
        put(target, key, structuredClone(pick(ODD_VALUES)));
        break;
      case 2:
        put(
          target,
          key,
          typeof value === 'number' ? String(value) : typeof value === 'string' ? value.length : [value],
        );
        break;
      case 3:
        put(target, key, pick(ODD_TAGS));
        break;
      case 4:
        // Wrong nesting: the value one level down, or a field moved up to the line.
        put(target, key, random() < 0.5 ? [value] : { [key]: value });
        break;
      case 5:
        if (isObject(value)) for (const [inner, item] of Object.entries(value)) put(copy, inner, item);
        else put(copy, key, value);
        break;
      case 6:
        put(target, pick(ODD_KEYS), structuredClone(pick([...ODD_VALUES, ...ODD_TAGS])));
        break;
      case 7:
        put(target, key, typeof value === 'number' ? pick([-value, value + 0.25, value * 1e308]) : null);
        break;
      default:
        put(target, `unknown_${n}`, structuredClone(value));
    }
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------------

describe('fastDecode against the zod schemas', () => {
  const sources: [string, JsonObject[]][] = [
    ['built lines of the hot kinds', builtLines(prng(1))],
    ['the shared fixtures', fixtureLines()],
    ['the recorded benchmark stream (when present)', recordedStreamLines()],
  ];

  it.each(sources)('agrees on %s and on mutations of them', (_name, lines) => {
    const random = prng(lines.length + 11);
    const tally: Tally = { lines: 0, hotAccepted: 0, hotRejected: 0, problems: [] };
    for (const line of lines) {
      check(line, tally);
      for (let i = 0; i < 25; i++) check(mutate(line, random), tally);
    }
    expect(tally.problems.slice(0, 10)).toEqual([]);
    if (lines.some(isHotKind)) {
      expect(tally.hotAccepted).toBeGreaterThan(lines.length / 10);
      expect(tally.hotRejected).toBeGreaterThan(lines.length / 10);
    }
  });

  it.each(sources)(
    "keeps a line's text as its message's JSON only where the decode kept it whole: %s",
    (_name, lines) => {
      const random = prng(lines.length + 17);
      let kept = 0;
      let checked = 0;
      for (const original of lines) {
        for (const line of [original, mutate(original, random), mutate(original, random)]) {
          const text = JSON.stringify(line);
          let decoded: CliMessage | undefined;
          decodingLineSink({ message: (message) => (decoded = message), raw: () => {}, bad: () => {} }).line(
            text,
          );
          if (!decoded) continue;
          checked++;
          const keptText = lineTextOf(decoded);
          if (keptText === undefined) continue;
          kept++;
          expect(keptText).toBe(text);
          // What the app would have written: the decoded message's own JSON.
          // (Up to the sign of a zero, which JSON.stringify does not write.)
          expect(canonical(JSON.parse(keptText))).toBe(canonical(decoded));
        }
      }
      if (checked > 0) expect(kept).toBeGreaterThan(checked / 2);
    },
  );

  it('does not keep the text of a line whose decode rewrote a block', () => {
    const text =
      '{"type":"assistant","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}';
    let decoded: CliMessage | undefined;
    decodingLineSink({ message: (message) => (decoded = message), raw: () => {}, bad: () => {} }).line(text);
    expect(decoded).toBeDefined();
    expect(lineTextOf(decoded as CliMessage)).toBeUndefined();
  });

  it('keeps the parsed object itself, unknown keys and all', () => {
    const text =
      '{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm","extra":[1]}},"parent_tool_use_id":"toolu_1","session_id":"s","uuid":"u","api_message_id":"m"}';
    const line = JSON.parse(text) as JsonObject;
    expect(fastDecode(line)).toBe(line);
    expect(JSON.stringify(fastDecode(line))).toBe(text);
  });

  it("keeps a line's text out of its message's keys and JSON, and out of a changed copy of it", () => {
    const text =
      '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}';
    let decoded: CliMessage | undefined;
    decodingLineSink({ message: (message) => (decoded = message), raw: () => {}, bad: () => {} }).line(text);
    const message = decoded as CliMessage;
    expect(lineTextOf(message)).toBe(text);
    expect(Object.keys(message)).toEqual(['type', 'event', 'parent_tool_use_id', 'session_id', 'uuid']);
    expect(Object.getOwnPropertySymbols({ ...message })).toEqual([]);
    expect(JSON.stringify(message)).toBe(text);
    // A copy that differs must be written from itself, not from the line it was copied from.
    const changed = { ...message, uuid: 'other' } as CliMessage;
    expect(lineTextOf(changed)).toBeUndefined();
    expect(lineTextOf(structuredClone(message))).toBeUndefined();
  });

  it('keeps the text of a hot line with a "__proto__" key deep inside: the object is the parsed line', () => {
    const text =
      '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u","extra":{"__proto__":{"x":1}}}';
    let decoded: CliMessage | undefined;
    decodingLineSink({ message: (message) => (decoded = message), raw: () => {}, bad: () => {} }).line(text);
    expect(lineTextOf(decoded as CliMessage)).toBe(text);
    expect(JSON.stringify(decoded)).toBe(text);
  });

  it.each([
    ['a float index', '1.5', true],
    ['a negative index', '-3', true],
    ['an index out of range of a double', '1e999', false],
    ['an index as a string', '"1"', false],
  ])('decides %s as zod does', (_name, index, accepted) => {
    const line = JSON.parse(
      `{"type":"stream_event","event":{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}`,
    ) as JsonObject;
    expect(decodeCliMessage(line).ok).toBe(accepted);
    expect(fastDecode(line) !== undefined).toBe(accepted);
  });

  it('leaves a line with a "__proto__" key to zod', () => {
    const line = JSON.parse(
      '{"type":"system","subtype":"thinking_tokens","session_id":"s","uuid":"u","__proto__":{"x":1}}',
    ) as JsonObject;
    expect(fastDecode(line)).toBeUndefined();
    expect(decodeCliMessage(line).ok).toBe(true);
  });
});

/** JSON with every object's keys in order: two values with the same canonical JSON are the same JSON. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1))) : item,
  );
}
