import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodingLineSink, type DecodedSink } from '../main/claude/decode';
import { fastDecode } from '../main/claude/fast-decode';
import { LineSplitter } from '../main/claude/lines';
import { Session } from '../main/claude/session';
import { TranscriptWriter } from '../main/claude/transcript';
import { decodeCliMessage, type CliMessage, type JsonObject } from '../shared/protocol';
import { loadAgentSdk } from './agent-sdk';
import { measureChanges } from './changes';
import { runCompare } from './compare';
import { LIBRARY_1G, LIBRARY_5G, libraryVerdicts, measureLibrary, type LibraryCase } from './library';
import { DEFAULT_CORPUS } from './library-corpus';
import { lineKind, metaPath, recordStream, type StreamMeta } from './record';
import { measureFileSearch } from './file-search';
import { measureChangesPanel } from './changes-ui';
import { measureRewindSwitch } from './rewind';
import { measureRewindPreview } from './rewind-preview';
import { median } from './ui-harness';
import { measureUiLongConversation } from './ui-long-conversation';
import { measureReopen100mb } from './ui-reopen';
import { measureUiStreaming } from './ui-streaming';
import { measureUiTenStreaming } from './ui-ten-streaming';
import { measureUsageView, usageVerdicts } from './usage-ui';
import { measureWorktrees } from './worktrees';
import { measureTerminal } from './terminal';

/**
 * `npm run bench`: throughput of the driver's decode pipeline on a ≥ 50 MB recorded stream of the real
 * CLI's stdout, then the UI in Chromium through the browser host (a fast streamed reply; a 10,000-message
 * conversation), then the library over a 1.1 GB corpus of session files (bench/library.ts) and the Usage view
 * over it (bench/usage-ui.ts), then switching
 * branches in a conversation of 20 (bench/rewind.ts), and main's event loop while the Rewind dialog's preview
 * is worked out (bench/rewind-preview.ts), and making a worktree of a 10,000-file repository
 * (bench/worktrees.ts). Each
 * measurement is a function returning named figures; all are merged into one JSON object printed last.
 * MB = 10^6 bytes. Timed figures are the median of several runs after a warm-up; each decode figure is
 * timed in rounds alternating with bare JSON.parse, its ratio the median of the rounds' ratios. Each UI
 * figure is the median of 3 runs (its runs are listed beside it).
 *
 * `npm run bench -- <name>…` runs only the measurements whose names start with one of the names (e.g.
 * `npm run bench -- library`); the recorded stream is only loaded if one of them needs it. `library-5g`
 * (5,000 sessions, 5 GB) runs only when named in full: it takes many minutes. `--sessions N` and
 * `--total-mb N` give the `library` measurement a corpus of another size (cached apart, by its size).
 */

const BENCH_DIR = import.meta.dirname;
const STREAM_PATH = process.env.BENCH_STREAM ?? join(BENCH_DIR, 'data', 'stream.jsonl');
const FAKE_CLI = join(BENCH_DIR, 'fake-cli.mjs');
const CHUNK_BYTES = 64 * 1024;
/** Issue 45's goals: the bare decoder at least 0.6× JSON.parse, the real path (transcript, redaction) 0.5×. */
const BARE_DECODE_GOAL = 0.6;
const DECODE_GOAL = 0.5;
/** Timed rounds of each decode figure against its baseline, after a warm-up. */
const DECODE_ROUNDS = 7;
/** Every line on the real path is searched for it, as for a signed-in user (the recording has no email). */
const BENCH_EMAIL = 'bench.user@example.com';

type Figure = number | string;
type Figures = Record<string, Figure>;

interface Context {
  /** --sessions and --total-mb, if given. */
  options: Options;
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
  /** It runs only when named in full, never as part of a whole run or a shorter name's (it takes long). */
  onlyByName?: boolean;
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

/** Byre's decode path over the stream as the pipe delivers it; given a transcript, teeing lines as Session does. */
function byreDecode(bytes: Buffer, transcript?: TranscriptWriter): DecodeOutcome {
  const outcome: DecodeOutcome = { dispatcher: new Dispatcher(), raw: 0, bad: 0, badKinds: new Map() };
  const sink: DecodedSink = {
    message: (message, text) => {
      transcript?.record('recv', message, text);
      outcome.dispatcher.dispatch(message);
    },
    raw: (line, _problem, text) => {
      transcript?.record('recv', line, text);
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
  transcript?.close();
  return outcome;
}

/** The yardstick: bare JSON.parse of every line. */
function jsonParseBaseline(bytes: Buffer): void {
  let sink = 0;
  forEachLine(bytes, (start, end) => {
    const value = JSON.parse(bytes.toString('utf8', start, end)) as { type?: unknown };
    if (value.type) sink++;
  });
  if (sink === 0) throw new Error('baseline parsed nothing');
}

interface Interleaved {
  baselineMs: number;
  subjectMs: number;
  /** The median over rounds of baseline ms / subject ms: the subject's speed as a fraction of the baseline's. */
  ratio: number;
}

/**
 * Times a subject against the baseline in rounds, after an untimed run of each, alternating which goes
 * first (ABBA), so that the machine's drift and the other's garbage weigh on both alike.
 */
function timeAgainstBaseline(baseline: () => void, subject: () => void): Interleaved {
  const time = (fn: () => void): number => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };
  baseline();
  subject();
  const baselineTimes: number[] = [];
  const subjectTimes: number[] = [];
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    if (round % 2 === 0) {
      baselineTimes.push(time(baseline));
      subjectTimes.push(time(subject));
    } else {
      subjectTimes.push(time(subject));
      baselineTimes.push(time(baseline));
    }
  }
  return {
    baselineMs: median(baselineTimes),
    subjectMs: median(subjectTimes),
    ratio: median(baselineTimes.map((ms, round) => ms / (subjectTimes[round] ?? Infinity))),
  };
}

/** Per line kind, the share of `decode`'s time and its cost per line, for the six costliest kinds. */
function timeByKind(parsed: JsonObject[], kinds: string[], decode: (line: JsonObject) => unknown): string {
  // One pass timed per line (timer overhead is included but shared evenly).
  const perKind = new Map<string, { ms: number; count: number }>();
  for (const [i, line] of parsed.entries()) {
    const kind = kinds[i] ?? '?';
    const start = performance.now();
    decode(line);
    const took = performance.now() - start;
    const entry = perKind.get(kind) ?? { ms: 0, count: 0 };
    entry.ms += took;
    entry.count++;
    perKind.set(kind, entry);
  }
  const totalMs = [...perKind.values()].reduce((sum, entry) => sum + entry.ms, 0);
  return [...perKind.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 6)
    .map(
      ([kind, entry]) =>
        `${kind} ${round((100 * entry.ms) / totalMs)}% (${round((1000 * entry.ms) / entry.count, 2)} µs/line)`,
    )
    .join('; ');
}

/** A transcript writer into `dir` that redacts the account email, as the app's is for a signed-in user. */
function benchTranscript(dir: string, name: string): TranscriptWriter {
  const writer = new TranscriptWriter(join(dir, `${name}.jsonl`));
  writer.redact(BENCH_EMAIL);
  return writer;
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

/** Byre's decode path (framing, validation, dispatch) against bare JSON.parse of the same lines, in rounds. */
const byreDecodeMeasurement: Measurement = {
  name: 'byre_decode',
  run({ bytes, lines }) {
    const first = byreDecode(bytes);
    const timed = timeAgainstBaseline(
      () => jsonParseBaseline(bytes),
      () => byreDecode(bytes),
    );
    const out: Figures = {
      ...rates('baseline_json_parse', timed.baselineMs, bytes.length, lines),
      ...rates('byre_decode', timed.subjectMs, bytes.length, lines),
      byre_decode_typed_lines: [...first.dispatcher.counts.values()].reduce((a, b) => a + b, 0),
      byre_decode_raw_lines: first.raw,
      byre_decode_bad_lines: first.bad,
    };
    if (first.badKinds.size > 0) {
      out.byre_decode_raw_kinds = [...first.badKinds.entries()].map(([k, n]) => `${k}:${n}`).join(', ');
    }
    out.ratio_byre_vs_json_parse = round(timed.ratio, 3);
    out.goal_decode_bare_of_json_parse = timed.ratio >= BARE_DECODE_GOAL ? 'pass' : 'fail';
    return out;
  },
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_decode_bare_of_json_parse',
      `byre_decode is ${figures.ratio_byre_vs_json_parse}× JSON.parse (goal ≥ ${BARE_DECODE_GOAL}×)`,
    ),
};

/** The app's real path: Byre's decode with the transcript writer (redacting), against JSON.parse, in rounds. */
const decodeRealPath: Measurement = {
  name: 'decode_real_path',
  run({ bytes, lines }) {
    const dir = mkdtempSync(join(tmpdir(), 'byre-bench-'));
    let runs = 0;
    try {
      const timed = timeAgainstBaseline(
        () => jsonParseBaseline(bytes),
        () => byreDecode(bytes, benchTranscript(dir, `run-${runs++}`)),
      );
      return {
        ...rates('decode_real_path', timed.subjectMs, bytes.length, lines),
        decode_real_path_transcript_mb: round(statSync(join(dir, 'run-0.jsonl')).size / 1e6),
        decode_real_path_vs_json_parse: round(timed.ratio, 3),
        goal_decode_real_path_half_of_json_parse: timed.ratio >= DECODE_GOAL ? 'pass' : 'fail',
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_decode_real_path_half_of_json_parse',
      `decode with the transcript writer and redaction is ${figures.decode_real_path_vs_json_parse}× JSON.parse (goal ≥ ${DECODE_GOAL}×)`,
    ),
};

/**
 * Where the real path's time goes: framing alone; validation alone (zod alone, and Byre's: the fast path,
 * else zod), in total and per line kind; the transcript writer alone.
 */
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
    // Parse once, then time each stage alone.
    const texts: string[] = [];
    forEachLine(bytes, (start, end) => texts.push(bytes.toString('utf8', start, end)));
    const parsed = texts.map((text) => JSON.parse(text) as JsonObject);
    const kinds = parsed.map((line) => lineKind(line));
    const validate = (line: JsonObject): unknown => fastDecode(line) ?? decodeCliMessage(line);
    const zodMs = await timeMedian(1, 3, () => {
      for (const line of parsed) decodeCliMessage(line);
    });
    const validateMs = await timeMedian(1, 3, () => {
      for (const line of parsed) validate(line);
    });
    const dir = mkdtempSync(join(tmpdir(), 'byre-bench-'));
    let runs = 0;
    try {
      const transcriptMs = await timeMedian(1, 3, () => {
        const writer = benchTranscript(dir, `run-${runs++}`);
        for (const [i, line] of parsed.entries()) writer.record('recv', line, texts[i]);
        writer.close();
      });
      return {
        ...rates('splitter_only', splitterMs, bytes.length, lines),
        ...rates('zod_validate_only', zodMs, bytes.length, lines),
        ...rates('validate_only', validateMs, bytes.length, lines),
        ...rates('transcript_only', transcriptMs, bytes.length, lines),
        zod_time_by_kind: timeByKind(parsed, kinds, decodeCliMessage),
        validate_time_by_kind: timeByKind(parsed, kinds, validate),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const sdkEndToEnd: Measurement = {
  name: 'sdk_end_to_end',
  async run({ streamPath, bytes, meta }) {
    const cwd = mkdtempSync(join(tmpdir(), 'byre-bench-'));
    let messages = 0;
    let note = '';
    const { query } = await loadAgentSdk();
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
          stderr: (text: string) => {
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
      return { sdk_end_to_end_error: `the SDK could not be fed the stream: ${String(error)}` };
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
  verdicts: (figures) =>
    (
      [
        ['streaming', 'ui_streaming', 'text'],
        ['thinking', 'ui_thinking', 'thinking with thinking_tokens, into 10,000 messages'],
      ] as const
    ).flatMap(([goal, prefix, what]) => [
      ...verdict(
        figures,
        `goal_${goal}_one_commit_per_frame`,
        `at most ${figures[`${prefix}_commits_per_frame_max`]} React commits in a frame while streaming ${what} (goal ≤ 1)`,
      ),
      ...verdict(
        figures,
        `goal_${goal}_no_task_over_50ms`,
        `${figures[`${prefix}_tasks_over_50ms`]} tasks over 50 ms while streaming ${what}, longest ${figures[`${prefix}_longest_task_ms`]} ms (goal: none)`,
      ),
      ...verdict(
        figures,
        `goal_${goal}_host_eld_p99_under_20ms`,
        `host event-loop delay p99 ${figures[`${prefix}_host_eld_p99_ms`]} ms while streaming ${what} (goal < 20 ms)`,
      ),
    ]),
};

/** Ten conversations streaming at once, one on screen (bench/ui-ten-streaming.ts). */
const uiTenStreaming: Measurement = {
  name: 'ui_ten_streaming',
  standalone: true,
  run: () => uiFigures('ui_ten', measureUiTenStreaming),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_ten_one_commit_per_frame',
      `at most ${figures.ui_ten_commits_per_frame_max} React commits in a frame while ten conversations stream at once (runs ${figures.ui_ten_commits_per_frame_max_runs ?? figures.ui_ten_commits_per_frame_max}) (goal ≤ 1)`,
    ),
    ...verdict(
      figures,
      'goal_ten_no_task_over_50ms',
      `${figures.ui_ten_tasks_over_50ms} tasks over 50 ms while ten stream, longest ${figures.ui_ten_longest_task_ms} ms (goal: none, in every run)`,
    ),
    ...verdict(
      figures,
      'goal_ten_host_eld_p99_under_20ms',
      `host event-loop delay p99 ${figures.ui_ten_host_eld_p99_ms} ms while ten stream (runs ${figures.ui_ten_host_eld_p99_ms_runs ?? figures.ui_ten_host_eld_p99_ms}) (goal < 20 ms, in every run)`,
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
    ...verdict(
      figures,
      'goal_long_load_host_eld_p99_under_20ms',
      `host event-loop delay p99 ${figures.ui_long_load_host_eld_p99_ms} ms while 10,000 messages arrive (goal < 20 ms)`,
    ),
    ...verdict(
      figures,
      'goal_open_10k_first_screen_under_1s',
      `a 10,000-message conversation reopened to its first screen in ${figures.open_10k_first_screen_ms} ms (goal < 1000 ms)`,
    ),
    ...verdict(
      figures,
      'goal_open_10k_host_eld_p99_under_20ms',
      `host event-loop delay p99 ${figures.open_10k_host_eld_p99_ms} ms while reopening it (goal < 20 ms)`,
    ),
  ],
};

/** A library case as a measurement: an error anywhere is the case's, named with its prefix. */
function libraryMeasurement(
  name: string,
  pick: (options: Options) => LibraryCase,
  onlyByName = false,
): Measurement {
  let chosen: LibraryCase | undefined;
  return {
    name,
    standalone: true,
    onlyByName,
    run: ({ options }) => {
      const libraryCase = pick(options);
      chosen = libraryCase;
      return uiFigures(libraryCase.prefix, () => measureLibrary(libraryCase));
    },
    verdicts: (figures) => (chosen ? libraryVerdicts(chosen, figures) : []),
  };
}

/**
 * The library over 1,000 sessions of 1 GB plus one of 100 MB (bench/library.ts); with --sessions or
 * --total-mb, over a corpus of that size instead (its figures keep their names and say the size).
 */
const library = libraryMeasurement('library', (options) =>
  options.sessions === undefined && options.totalMb === undefined
    ? LIBRARY_1G
    : {
        ...LIBRARY_1G,
        size: {
          ...DEFAULT_CORPUS,
          sessions: options.sessions ?? DEFAULT_CORPUS.sessions,
          totalMb: options.totalMb ?? DEFAULT_CORPUS.totalMb,
        },
      },
);

/** The same over 5,000 sessions of 5 GB plus the 100 MB one, with the issue's goals at that size. */
const library5g = libraryMeasurement('library-5g', () => LIBRARY_5G, true);

/** The Usage view over the same corpus, in Chromium: first paint cold and warm, range and grouping (bench/usage-ui.ts). */
const usageView: Measurement = {
  name: 'usage_view',
  standalone: true,
  run: () => uiFigures('usage_view', measureUsageView),
  verdicts: usageVerdicts,
};

/** A conversation built from a 100 MB transcript, reopened by a page reload (bench/ui-reopen.ts). */
const uiReopen: Measurement = {
  name: 'ui_reopen',
  standalone: true,
  run: () => uiFigures('reopen_100mb', measureReopen100mb),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_reopen_100mb_under_1s',
      `a conversation of ${figures.reopen_100mb_transcript_mb} MB reopened to its first screen in ${figures.reopen_100mb_first_screen_ms} ms (goal < 1000 ms)`,
    ),
    ...verdict(
      figures,
      'goal_reopen_100mb_host_under_250mb',
      `the host holds ${figures.reopen_100mb_host_rss_mb} MB after reopening it (goal < 250 MB)`,
    ),
  ],
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

/** The Rewind dialog's per-file preview of 50 changed 1 MB files, with main's event loop free (bench/rewind-preview.ts). */
const rewindPreview: Measurement = {
  name: 'rewind_preview',
  standalone: true,
  run: () => uiFigures('rewind_preview', measureRewindPreview),
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_rewind_preview_host_eld_p99_under_20ms',
      `host event-loop delay p99 ${figures.rewind_preview_host_eld_p99_ms} ms (idle loop beside it ${figures.rewind_preview_idle_loop_eld_p99_ms} ms; ${figures.rewind_preview_on_main_host_eld_p99_ms} ms with the diffs on main) while previewing a rewind of ${figures.rewind_preview_files} changed 1 MB files (goal < 20 ms)`,
    ),
};

/** The `@` picker's file list and fuzzy queries in a repository of 100,000 files (bench/file-search.ts). */
const fileSearch: Measurement = {
  name: 'file_search',
  standalone: true,
  run: () => uiFigures('file_search', measureFileSearch),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_file_search_query_under_50ms',
      `each query over ${figures.file_search_repo_files} files answered in ${figures.file_search_query_median_ms} ms (median), ${figures.file_search_query_p95_ms} ms (p95) once warm; the first round's slowest ${figures.file_search_cold_round_max_ms} ms (goal p95 < 50 ms)`,
    ),
    ...verdict(
      figures,
      'goal_file_search_first_list_under_2s',
      `the first list of the folder took ${figures.file_search_first_list_ms} ms (goal < 2000 ms)`,
    ),
  ],
};

/** Snapshots of a 10,000-file repository as turns change 3 files, and main's loop meanwhile (bench/changes.ts). */
const changes: Measurement = {
  name: 'changes',
  standalone: true,
  run: () => uiFigures('changes', measureChanges),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_changes_snapshot_under_300ms',
      `a snapshot of ${figures.changes_repo_files} files with 3 changed took ${figures.changes_snapshot_ms} ms (git status alone, the floor: ${figures.changes_git_status_floor_ms} ms) (goal < 300 ms)`,
    ),
    ...verdict(
      figures,
      'goal_changes_event_loop_p99_under_20ms',
      `host event-loop delay p99 ${figures.changes_event_loop_p99_ms} ms while snapshots ran back to back (the floor: this loop idle ${figures.changes_idle_loop_p99_ms} ms, an idle process beside it meanwhile ${figures.changes_beside_loop_p99_ms} ms) (goal < 20 ms)`,
    ),
  ],
};

/** The Changes panel opened on 1,000 changed files and 100,000 diff lines, in Chromium (bench/changes-ui.ts). */
const changesPanel: Measurement = {
  name: 'changes_panel',
  standalone: true,
  run: () => uiFigures('changes_panel', measureChangesPanel),
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_changes_panel_first_paint_under_300ms',
      `the Changes panel listed ${figures.changes_panel_files} changed files (${figures.changes_panel_diff_lines} diff lines) ${figures.changes_panel_first_paint_ms} ms after its button was clicked, the list read now (goal < 300 ms)`,
    ),
};

/** A conversation's worktree made in a repository of 10,000 files, no setup command (bench/worktrees.ts). */
const worktrees: Measurement = {
  name: 'worktrees',
  standalone: true,
  run: () => uiFigures('worktrees', measureWorktrees),
  verdicts: (figures) =>
    verdict(
      figures,
      'goal_worktree_create_under_2s',
      `a worktree of a repository of ${figures.worktree_repo_files} files made in ${figures.worktree_create_ms} ms (median; runs ${figures.worktree_create_runs_ms} ms; git worktree add alone, the floor: ${figures.worktree_git_add_floor_ms} ms) (goal < 2000 ms)`,
    ),
};

/** The Terminal lane: a key's echo, 10 MB of output, ten conversations open (bench/terminal.ts). */
const terminal: Measurement = {
  name: 'terminal',
  standalone: true,
  run: () => uiFigures('terminal', measureTerminal),
  verdicts: (figures) => [
    ...verdict(
      figures,
      'goal_terminal_echo_within_16ms',
      `a key's echo in the real CLI p50 ${figures.terminal_echo_cli_p50_ms} ms, p95 ${figures.terminal_echo_cli_p95_ms} ms; cat in the same PTY and terminal (the floor) p50 ${figures.terminal_echo_cat_floor_p50_ms} ms, p95 ${figures.terminal_echo_cat_floor_p95_ms} ms (goal: within 16 ms of the floor)`,
    ),
    ...verdict(
      figures,
      'goal_terminal_flood_within_2x',
      `10 MB through the terminal in ${figures.terminal_flood_10mb_ms} ms (runs ${figures.terminal_flood_10mb_runs_ms}); xterm.js alone (the floor) ${figures.terminal_flood_xterm_floor_ms} ms: ${figures.terminal_flood_ratio}× (goal ≤ 2×)`,
    ),
    ...verdict(
      figures,
      'goal_terminal_flood_host_eld_p99_under_20ms',
      `host event-loop delay p99 ${figures.terminal_flood_host_eld_p99_ms} ms while 10 MB went through (goal < 20 ms)`,
    ),
  ],
};

/** In order; later ones may read earlier figures. Add new measurements here. */
const measurements: Measurement[] = [
  streamInfo,
  byreDecodeMeasurement,
  decodeRealPath,
  decodeBreakdown,
  sdkEndToEnd,
  byreEndToEnd,
  uiStreaming,
  uiTenStreaming,
  uiLongConversation,
  library,
  library5g,
  usageView,
  uiReopen,
  rewind,
  rewindPreview,
  fileSearch,
  changes,
  changesPanel,
  worktrees,
  terminal,
];

const units: [RegExp, string][] = [
  [/_mb_s$/, 'MB/s'],
  [/_lines_s$/, 'lines/s'],
  [/_ms$/, 'ms'],
  [/_s$/, 's'],
  [/_mb$/, 'MB'],
  [/_kb$/, 'kB'],
  [/^ratio_/, '×'],
  [/_vs_json_parse$/, '×'],
  [/_ratio$/, '×'],
];

function printFigure(name: string, value: Figure): void {
  const unit = units.find(([pattern]) => pattern.test(name))?.[1];
  console.log(`${name}: ${value}${unit ? ` ${unit}` : ''}`);
}

/** The recorded stream (recorded first if it is not there yet). */
async function streamContext(figures: Figures): Promise<Omit<Context, 'options'>> {
  const streamPath = resolve(STREAM_PATH);
  if (!existsSync(streamPath) || !existsSync(metaPath(streamPath))) await recordStream(streamPath);
  const meta = JSON.parse(readFileSync(metaPath(streamPath), 'utf8')) as StreamMeta;
  const bytes = readFileSync(streamPath);
  let lines = 0;
  forEachLine(bytes, () => lines++);
  return { streamPath, bytes, meta, lines, figures };
}

interface Options {
  sessions?: number;
  totalMb?: number;
}

/** The measurements' names and the options among the arguments; an option it does not know is an error. */
function parseArguments(args: string[]): { names: string[]; options: Options } {
  const names: string[] = [];
  const options: Options = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('-')) {
      names.push(arg);
      continue;
    }
    const [flag = '', inline] = arg.split('=', 2);
    const text = inline ?? args[++i];
    const value = Number(text);
    if (flag !== '--sessions' && flag !== '--total-mb') {
      throw new Error(`Unknown option ${flag}: the bench takes --sessions N and --total-mb N (for library).`);
    }
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`${flag} wants a whole number of at least 1, not ${text ?? 'nothing'}.`);
    }
    if (flag === '--sessions') options.sessions = value;
    else options.totalMb = value;
  }
  return { names, options };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === 'compare') {
    // The guard (bench/compare.ts): its measurements run as in a whole run, then it compares.
    let measured: Figures = {};
    const code = await runCompare(
      args.slice(1),
      async (names) => {
        measured = await runMeasurements(
          measurements.filter((measurement) => names.includes(measurement.name)),
          {},
        );
        return measured;
      },
      benchErrors,
    );
    // A measurement that could not run fails the guard too, whatever its figures.
    process.exitCode = code === 0 && benchErrors(measured).length === 0 ? 0 : 1;
    return;
  }
  const { names, options } = parseArguments(args);
  const selected = names.length
    ? measurements.filter((measurement) =>
        names.some((name) =>
          measurement.onlyByName ? measurement.name === name : measurement.name.startsWith(name),
        ),
      )
    : measurements.filter((measurement) => !measurement.onlyByName);
  if (selected.length === 0) {
    throw new Error(
      `No measurement is named ${names.join(', ')}; there are ${measurements.map((m) => m.name).join(', ')}, and compare.`,
    );
  }
  await runMeasurements(selected, options);
}

/** Runs the measurements in order, printing each figure and verdict, then all as JSON; errors set the exit code. */
async function runMeasurements(selected: Measurement[], options: Options): Promise<Figures> {
  const figures: Figures = {};
  const context: Context = selected.every((measurement) => measurement.standalone)
    ? { options, streamPath: '', bytes: Buffer.alloc(0), meta: {} as StreamMeta, lines: 0, figures }
    : { options, ...(await streamContext(figures)) };
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
  // A measurement that could not run reports why (uiFigures) and the others still run, but the whole
  // `npm run bench` fails: a benchmark that errors is never a quiet success. FAIL lines do not: a goal
  // missed is a figure, measured.
  const errors = benchErrors(figures);
  if (errors.length > 0) {
    console.error(`bench: ${errors.length} measurement(s) went wrong:`);
    for (const error of errors) console.error(`  ${error}`);
    process.exitCode = 1;
  }
  return figures;
}

/**
 * What went wrong, one line each: a measurement's `*_error`, the runs of one that failed (`*_failed_runs`,
 * its figure then the median of fewer runs), and a number that is not one (NaN from a run that never
 * reported), which would otherwise be printed as if it were measured.
 */
function benchErrors(figures: Figures): string[] {
  return Object.entries(figures).flatMap(([name, value]) => {
    if (name.endsWith('_error') || name.endsWith('_failed_runs')) return [`${name}: ${value}`];
    if (typeof value === 'number' && !Number.isFinite(value)) return [`${name}: not measured (${value})`];
    return [];
  });
}

await main();
