import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { decodingLineSink, type DecodedSink } from '../main/claude/decode';
import { LineSplitter } from '../main/claude/lines';
import { Session } from '../main/claude/session';
import { decodeCliMessage, type CliMessage, type JsonObject } from '../shared/protocol';
import { libraryVerdicts, measureLibrary } from './library';
import { lineKind, metaPath, recordStream, type StreamMeta } from './record';
import { measureRewindSwitch } from './rewind';
import { median } from './ui-harness';
import { measureUiLongConversation } from './ui-long-conversation';
import { measureUiStreaming } from './ui-streaming';

/**
 * `npm run bench`: throughput of the driver's decode pipeline on a ≥ 50 MB recorded stream of the real
 * CLI's stdout, then the UI in Chromium through the browser host (a fast streamed reply; a 10,000-message
 * conversation), then the library over a 1.1 GB corpus of session files (bench/library.ts), then switching
 * branches in a conversation of 20 (bench/rewind.ts). Each
 * measurement is a function returning named figures; all are merged into one JSON object printed last.
 * MB = 10^6 bytes. Timed figures are the median of several runs after a warm-up; the UI figures are from one
 * run each.
 *
 * `npm run bench -- <name>…` runs only the measurements whose names start with one of the names (e.g.
 * `npm run bench -- library`); the recorded stream is only loaded if one of them needs it.
 */

const BENCH_DIR = import.meta.dirname;
const STREAM_PATH = process.env.BENCH_STREAM ?? join(BENCH_DIR, 'data', 'stream.jsonl');
const FAKE_CLI = join(BENCH_DIR, 'fake-cli.mjs');
const CHUNK_BYTES = 64 * 1024;
const DECODE_GOAL = 0.5;

type Figure = number | string;
type Figures = Record<string, Figure>;

interface Context {
  streamPath: string;
  bytes: Buffer;
  meta: StreamMeta;
  /** Non-empty lines in the file. */
  lines: number;
  /** Figures of the measurements that already ran, for ratios. */
  figures: Figures;
}

interface Measurement {
  name: string;
  /** It does not use the recorded stream (the context's stream fields are then empty). */
  standalone?: boolean;
  run(context: Context): Promise<Figures> | Figures;
  /** PASS/FAIL lines for the measurement's goals, printed after its figures. */
  verdicts?(figures: Figures): string[];
}

// ---------------------------------------------------------------------------------------------------
// Helpers

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/** Median wall time in ms of `runs` runs after `warmups` untimed ones. */
async function timeMedian(warmups: number, runs: number, fn: () => Promise<void> | void): Promise<number> {
  for (let i = 0; i < warmups; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

function rates(prefix: string, ms: number, bytes: number, lines: number): Figures {
  return {
    [`${prefix}_mb_s`]: round(bytes / 1e6 / (ms / 1000)),
    [`${prefix}_lines_s`]: Math.round(lines / (ms / 1000)),
    [`${prefix}_ms`]: round(ms),
  };
}

function numberFigure(figures: Figures, name: string): number | undefined {
  const value = figures[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Splits a buffer into lines (without the newline), calling `each` with the byte range. */
function forEachLine(bytes: Buffer, each: (start: number, end: number) => void): void {
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl === -1) break;
    if (nl > start) each(start, nl);
    start = nl + 1;
  }
  if (start < bytes.length) each(start, bytes.length);
}

/** A dispatch like Session's: a switch on message.type that touches each message. */
class Dispatcher {
  readonly counts = new Map<string, number>();
  touched = 0;

  dispatch(message: CliMessage): void {
    switch (message.type) {
      case 'control_response':
        this.touched += message.response.request_id.length;
        break;
      case 'control_request':
        this.touched += message.request.subtype.length;
        break;
      case 'control_cancel_request':
        this.touched += message.request_id.length;
        break;
      case 'command_lifecycle':
        this.touched += message.state.length;
        break;
      case 'result':
        this.touched += message.num_turns;
        break;
      case 'stream_event':
        this.touched += message.event.type.length;
        break;
      case 'assistant':
        this.touched += message.message.content.length;
        break;
      case 'user':
        this.touched += typeof message.message.content === 'string' ? 1 : message.message.content.length;
        break;
      case 'system':
        this.touched += message.subtype.length;
        break;
      case 'tool_progress':
        this.touched += message.elapsed_time_seconds;
        break;
    }
    this.counts.set(message.type, (this.counts.get(message.type) ?? 0) + 1);
  }
}

interface DecodeOutcome {
  dispatcher: Dispatcher;
  raw: number;
  bad: number;
  badKinds: Map<string, number>;
}

function byreDecode(bytes: Buffer): DecodeOutcome {
  const outcome: DecodeOutcome = { dispatcher: new Dispatcher(), raw: 0, bad: 0, badKinds: new Map() };
  const sink: DecodedSink = {
    message: (message) => outcome.dispatcher.dispatch(message),
    raw: (line) => {
      outcome.raw++;
      const kind = lineKind(line);
      outcome.badKinds.set(kind, (outcome.badKinds.get(kind) ?? 0) + 1);
    },
    bad: () => outcome.bad++,
  };
  const splitter = new LineSplitter(decodingLineSink(sink));
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
    splitter.push(bytes.subarray(offset, Math.min(offset + CHUNK_BYTES, bytes.length)));
  }
  splitter.end();
  return outcome;
}

/** The environment for a fake CLI child: no loader flags inherited from tsx. */
function childEnv(streamPath: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'NODE_OPTIONS') env[key] = value;
  }
  env.BENCH_STREAM = streamPath;
  return env;
}

// ---------------------------------------------------------------------------------------------------
// Measurements

const streamInfo: Measurement = {
  name: 'stream',
  run: ({ bytes, lines, meta }) => ({
    stream_mb: round(bytes.length / 1e6),
    lines,
    stream_copies: meta.copies,
    recorded_with: meta.recordedWith,
  }),
};

const baselineJsonParse: Measurement = {
  name: 'baseline_json_parse',
  async run({ bytes, lines }) {
    let sink = 0;
    const ms = await timeMedian(1, 5, () => {
      forEachLine(bytes, (start, end) => {
        const value = JSON.parse(bytes.toString('utf8', start, end)) as { type?: unknown };
        if (value.type) sink++;
      });
    });
    if (sink === 0) throw new Error('baseline parsed nothing');
    return rates('baseline_json_parse', ms, bytes.length, lines);
  },
};

const byreDecodeMeasurement: Measurement = {
  name: 'byre_decode',
  async run({ bytes, lines, figures }) {
    const first = byreDecode(bytes);
    const ms = await timeMedian(1, 5, () => {
      byreDecode(bytes);
    });
    const out: Figures = {
      ...rates('byre_decode', ms, bytes.length, lines),
      byre_decode_typed_lines: [...first.dispatcher.counts.values()].reduce((a, b) => a + b, 0),
      byre_decode_raw_lines: first.raw,
      byre_decode_bad_lines: first.bad,
    };
    if (first.badKinds.size > 0) {
      out.byre_decode_raw_kinds = [...first.badKinds.entries()].map(([k, n]) => `${k}:${n}`).join(', ');
    }
    const baseline = numberFigure(figures, 'baseline_json_parse_mb_s');
    const mine = numberFigure(out, 'byre_decode_mb_s');
    if (baseline !== undefined && mine !== undefined) {
      const ratio = mine / baseline;
      out.ratio_byre_vs_json_parse = round(ratio, 3);
      out.goal_decode_half_of_json_parse = ratio >= DECODE_GOAL ? 'pass' : 'fail';
    }
    return out;
  },
  verdicts: (figures) =>
    typeof figures.goal_decode_half_of_json_parse === 'string'
      ? [
          `${figures.goal_decode_half_of_json_parse === 'pass' ? 'PASS' : 'FAIL'}: byre_decode is ${figures.ratio_byre_vs_json_parse}× JSON.parse (goal ≥ ${DECODE_GOAL}×)`,
        ]
      : [],
};

/** Where byre_decode's time goes: framing alone, then JSON.parse, then the zod schema per line kind. */
const decodeBreakdown: Measurement = {
  name: 'decode_breakdown',
  async run({ bytes, lines }) {
    const splitterMs = await timeMedian(1, 3, () => {
      let n = 0;
      const splitter = new LineSplitter({
        line: (text) => {
          n += text.length;
        },
        oversized: () => undefined,
        truncated: () => undefined,
      });
      for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
        splitter.push(bytes.subarray(offset, Math.min(offset + CHUNK_BYTES, bytes.length)));
      }
      splitter.end();
      if (n === 0) throw new Error('splitter saw nothing');
    });
    // Parse once, then time schema validation alone, per line kind.
    const parsed: JsonObject[] = [];
    forEachLine(bytes, (start, end) =>
      parsed.push(JSON.parse(bytes.toString('utf8', start, end)) as JsonObject),
    );
    const kinds = parsed.map((line) => lineKind(line));
    const zodMs = await timeMedian(1, 3, () => {
      for (const line of parsed) decodeCliMessage(line);
    });
    // One pass timed per line, grouped by kind (timer overhead is included but shared evenly).
    const perKind = new Map<string, { ms: number; count: number }>();
    for (let i = 0; i < parsed.length; i++) {
      const line = parsed[i];
      const kind = kinds[i] ?? '?';
      if (!line) continue;
      const start = performance.now();
      decodeCliMessage(line);
      const took = performance.now() - start;
      const entry = perKind.get(kind) ?? { ms: 0, count: 0 };
      entry.ms += took;
      entry.count++;
      perKind.set(kind, entry);
    }
    const totalKindMs = [...perKind.values()].reduce((sum, entry) => sum + entry.ms, 0);
    const top = [...perKind.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 6)
      .map(
        ([kind, entry]) =>
          `${kind} ${round((100 * entry.ms) / totalKindMs)}% (${round((1000 * entry.ms) / entry.count, 2)} µs/line)`,
      )
      .join('; ');
    return {
      ...rates('splitter_only', splitterMs, bytes.length, lines),
      ...rates('zod_validate_only', zodMs, bytes.length, lines),
      zod_time_by_kind: top,
    };
  },
};

const sdkEndToEnd: Measurement = {
  name: 'sdk_end_to_end',
  async run({ streamPath, bytes, meta }) {
    const cwd = mkdtempSync(join(tmpdir(), 'byre-bench-'));
    let messages = 0;
    let note = '';
    const once = async (): Promise<void> => {
      let count = 0;
      const stream = query({
        prompt: 'bench',
        options: {
          pathToClaudeCodeExecutable: FAKE_CLI,
          executable: 'node',
          cwd,
          env: childEnv(streamPath),
          settingSources: [],
          mcpServersDelivery: 'argv',
          stderr: (text) => {
            note ||= `fake-cli stderr: ${text.trim().slice(0, 200)}`;
          },
        },
      });
      for await (const message of stream) {
        if (message.type) count++;
      }
      messages = count;
    };
    try {
      const ms = await timeMedian(1, 3, once);
      const out: Figures = { ...rates('sdk_end_to_end', ms, bytes.length, messages), sdk_messages: messages };
      if (messages !== meta.bodyLines) {
        note ||= `the SDK yielded ${messages} messages for ${meta.bodyLines} body lines`;
      }
      out.sdk_note =
        note ||
        'query() with pathToClaudeCodeExecutable=bench/fake-cli.mjs (run as `node fake-cli.mjs <args>`); ' +
          'timed from query() to the end of iteration';
      return out;
    } catch (error) {
      return { sdk_note: `the SDK could not be fed the stream: ${String(error)}` };
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  },
};

const byreEndToEnd: Measurement = {
  name: 'byre_end_to_end',
  async run({ streamPath, bytes, meta, figures }) {
    const cwd = mkdtempSync(join(tmpdir(), 'byre-bench-'));
    let messages = 0;
    const once = async (): Promise<void> => {
      let count = 0;
      const session = await Session.start({ cwd, env: childEnv(streamPath), cliPath: FAKE_CLI });
      const exited = new Promise<void>((done) => {
        session.on((event) => {
          if (event.kind === 'message') count++;
          else if (event.kind === 'exit') {
            if (event.error) console.log(`  byre_end_to_end: ${event.error.message}`);
            done();
          }
        });
      });
      session.send('bench');
      session.endInput();
      await exited;
      messages = count;
    };
    try {
      const ms = await timeMedian(1, 3, once);
      const out: Figures = {
        ...rates('byre_end_to_end', ms, bytes.length, messages),
        byre_end_to_end_messages: messages,
      };
      if (messages !== meta.bodyLines) {
        out.byre_end_to_end_note = `Session emitted ${messages} messages for ${meta.bodyLines} body lines`;
      }
      const sdk = numberFigure(figures, 'sdk_end_to_end_mb_s');
      const mine = numberFigure(out, 'byre_end_to_end_mb_s');
      if (sdk !== undefined && mine !== undefined) out.ratio_byre_vs_sdk = round(mine / sdk, 3);
      return out;
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  },
};

/** A UI measurement that fails to run reports why instead of ending the benchmark. */
async function uiFigures(prefix: string, measure: () => Promise<Figures>): Promise<Figures> {
  try {
    return await measure();
  } catch (error) {
    return {
      [`${prefix}_error`]: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '',
    };
  }
}

function verdict(figures: Figures, goal: string, text: string): string[] {
  const value = figures[goal];
  if (value !== 'pass' && value !== 'fail') return [];
  return [`${value === 'pass' ? 'PASS' : 'FAIL'}: ${text}`];
}

/** 2,000 text deltas a second for 10 s into the chat in Chromium (bench/ui-streaming.ts). */
const uiStreaming: Measurement = {
  name: 'ui_streaming',
  run: () => uiFigures('ui_streaming', measureUiStreaming),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_streaming_one_commit_per_frame',
      `at most ${figures.ui_streaming_commits_per_frame_max} DOM commits in a frame while streaming (goal ≤ 1)`,
    ),
    ...verdict(
      figures,
      'goal_streaming_no_task_over_50ms',
      `${figures.ui_streaming_tasks_over_50ms} tasks over 50 ms while streaming, longest ${figures.ui_streaming_longest_task_ms} ms (goal: none)`,
    ),
  ],
};

/** 10,000 assistant messages at once, then scrolling to the top (bench/ui-long-conversation.ts). */
const uiLongConversation: Measurement = {
  name: 'ui_long_conversation',
  run: () => uiFigures('ui_long', measureUiLongConversation),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_long_first_screen_under_1s',
      `10,000 messages on the first screen in ${figures.ui_long_first_screen_ms} ms (goal < 1000 ms)`,
    ),
    ...verdict(
      figures,
      'goal_long_scroll_no_dropped_frames',
      `${figures.ui_long_scroll_frames_dropped} + ${figures.ui_long_wheel_frames_dropped} frames dropped scrolling to the top by scrollTop + wheel (goal 0)`,
    ),
  ],
};

/** The library over 1,000 sessions of 1 GB plus one of 100 MB (bench/library.ts). */
const library: Measurement = {
  name: 'library',
  standalone: true,
  run: () => uiFigures('library', measureLibrary),
  verdicts: libraryVerdicts,
};

/** "Next branch" in a conversation of 1,000 messages and 20 branches (bench/rewind.ts). */
const rewind: Measurement = {
  name: 'rewind',
  standalone: true,
  run: () => uiFigures('rewind', measureRewindSwitch),
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_rewind_switch_branch_under_100ms',
      `"Next branch" to the branch painted in ${figures.rewind_switch_branch_ms} ms, 1,000 messages and 20 branches (goal < 100 ms)`,
    ),
};

/** In order; later ones may read earlier figures. Add new measurements here. */
const measurements: Measurement[] = [
  streamInfo,
  baselineJsonParse,
  byreDecodeMeasurement,
  decodeBreakdown,
  sdkEndToEnd,
  byreEndToEnd,
  uiStreaming,
  uiLongConversation,
  library,
  rewind,
];

const units: [RegExp, string][] = [
  [/_mb_s$/, 'MB/s'],
  [/_lines_s$/, 'lines/s'],
  [/_ms$/, 'ms'],
  [/_s$/, 's'],
  [/_mb$/, 'MB'],
  [/_kb$/, 'kB'],
  [/^ratio_/, '×'],
  [/_ratio$/, '×'],
];

function printFigure(name: string, value: Figure): void {
  const unit = units.find(([pattern]) => pattern.test(name))?.[1];
  console.log(`${name}: ${value}${unit ? ` ${unit}` : ''}`);
}

/** The recorded stream (recorded first if it is not there yet). */
async function streamContext(figures: Figures): Promise<Context> {
  const streamPath = resolve(STREAM_PATH);
  if (!existsSync(streamPath) || !existsSync(metaPath(streamPath))) await recordStream(streamPath);
  const meta = JSON.parse(readFileSync(metaPath(streamPath), 'utf8')) as StreamMeta;
  const bytes = readFileSync(streamPath);
  let lines = 0;
  forEachLine(bytes, () => lines++);
  return { streamPath, bytes, meta, lines, figures };
}

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const selected = names.length
    ? measurements.filter((measurement) => names.some((name) => measurement.name.startsWith(name)))
    : measurements;
  if (selected.length === 0) {
    throw new Error(
      `No measurement is named ${names.join(', ')}; there are ${measurements.map((m) => m.name).join(', ')}.`,
    );
  }
  const figures: Figures = {};
  const context: Context = selected.every((measurement) => measurement.standalone)
    ? { streamPath: '', bytes: Buffer.alloc(0), meta: {} as StreamMeta, lines: 0, figures }
    : await streamContext(figures);
  for (const measurement of selected) {
    const started = performance.now();
    const result = await measurement.run(context);
    for (const [name, value] of Object.entries(result)) {
      figures[name] = value;
      printFigure(name, value);
    }
    if (process.env.BENCH_VERBOSE) {
      console.log(`  (${measurement.name} took ${round((performance.now() - started) / 1000)} s)`);
    }
    for (const line of measurement.verdicts?.(figures) ?? []) console.log(line);
  }
  console.log(JSON.stringify(figures));
}

await main();
