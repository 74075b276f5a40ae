import { chmodSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createCliWorld } from '../e2e/fixtures/cli-env';
import { isSubagentRequest, toolResults, type ScriptedReply } from '../e2e/fake-model/server';
import { locateCli } from '../main/claude/locate';
import { Session } from '../main/claude/session';

/**
 * Records REAL stdout from the real claude CLI, driven through Byre's Session against the scripted fake
 * model, then builds the benchmark stream by repeating the recorded turns until it is large enough.
 *
 * Layout of the stream file: the head (the CLI's control_request lines and the control_response to
 * initialize, once), then the body (every other line) repeated, with uuids rewritten per copy.
 * A sidecar `<stream>.meta.json` says where the body starts and holds the initialize answer, for
 * fake-cli.mjs.
 */

export const MIN_STREAM_BYTES = 50 * 1024 * 1024;

export interface StreamMeta {
  /** Byte offset where the repeated body starts (after the head). */
  bodyOffset: number;
  bodyLines: number;
  totalLines: number;
  totalBytes: number;
  copies: number;
  sessionId: string;
  /** The inner `response` of the CLI's control_response to initialize, as recorded. */
  initializeResponse: Record<string, unknown>;
  recordedWith: string;
}

export function metaPath(streamPath: string): string {
  return streamPath.replace(/\.jsonl$/, '') + '.meta.json';
}

/** Deterministic prose: varied word lengths and punctuation, like a model's answer. */
function prose(words: number, seed: number): string {
  const vocabulary = (
    'the session driver reads each line from the pipe and decodes it once before dispatch so that ' +
    'every consumer sees a typed message; streaming deltas arrive quickly, often one word at a time, ' +
    'which makes per-line overhead matter far more than raw throughput. Consider `LineSplitter`, ' +
    'zod schemas, JSON.parse, back-pressure, buffers, UTF-8 (naïve café — déjà vu), stdout, stdin, ' +
    'control_request, tool_result, assistant, thinking, subagent, transcript, and the renderer.'
  ).split(/\s+/);
  let state = seed * 7919 + 17;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const word = vocabulary[state % vocabulary.length] ?? 'word';
    out.push(word);
    if (i % 23 === 22) out.push('\n\n');
  }
  return out.join(' ').replace(/ \n\n /g, '\n\n');
}

function bigSourceFile(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(`export const value${i} = compute(${i}, "item-${(i * 2654435761) % 100000}"); // row ${i}`);
  }
  return out.join('\n') + '\n';
}

function scriptTurns(fake: Awaited<ReturnType<typeof createCliWorld>>['fake'], cwd: string): string[] {
  // Subagent: one Bash call, then its final answer.
  fake.when(isSubagentRequest, (req): ScriptedReply => {
    if (toolResults(req).length === 0) {
      return {
        blocks: [
          { type: 'text', text: 'Listing the files first.' },
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'ls -la && seq 1 200', description: 'list files' },
          },
        ],
      };
    }
    return { blocks: [{ type: 'text', text: `Subagent report: ${prose(250, 9)}` }] };
  });
  const replies: ScriptedReply[] = [
    // Turn 1: a thinking block and a long answer streamed word by word.
    {
      blocks: [
        { type: 'thinking', thinking: prose(600, 1) },
        { type: 'text', text: prose(4000, 2) },
      ],
    },
    // Turn 2: Bash tool call and its result, then an answer.
    {
      blocks: [
        { type: 'text', text: 'Running the command.' },
        { type: 'tool_use', name: 'Bash', input: { command: 'seq 1 3000', description: 'count' } },
      ],
    },
    { blocks: [{ type: 'text', text: prose(1200, 3) }] },
    // Turn 3: Read of a large file, then an answer.
    {
      blocks: [
        { type: 'thinking', thinking: prose(150, 4) },
        { type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'big.ts') } },
      ],
    },
    { blocks: [{ type: 'text', text: prose(1500, 5) }] },
    // Turn 4: a foreground subagent, then an answer.
    {
      blocks: [
        {
          type: 'tool_use',
          name: 'Agent',
          input: {
            description: 'survey files',
            prompt: 'List the files and report.',
            subagent_type: 'general-purpose',
            run_in_background: false,
          },
        },
      ],
    },
    { blocks: [{ type: 'text', text: prose(800, 6) }] },
  ];
  fake.enqueue(...replies);
  return [
    'Explain how the driver works.',
    'Run the count.',
    'Read big.ts and summarise it.',
    'Survey files.',
  ];
}

/** Runs the real CLI through Session and returns its raw stdout lines. */
async function recordRawLines(): Promise<{ lines: string[]; version: string }> {
  const world = await createCliWorld();
  try {
    writeFileSync(join(world.cwd, 'big.ts'), bigSourceFile(1300));
    const prompts = scriptTurns(world.fake, world.cwd);
    const real = locateCli({ env: { PATH: '' } });
    const rawPath = join(world.home, 'stdout.jsonl');
    const wrapper = join(world.home, 'claude-tee');
    writeFileSync(wrapper, `#!/bin/sh\n"${real}" "$@" | tee -a "${rawPath}"\n`);
    chmodSync(wrapper, 0o755);

    const session = await Session.start({ cwd: world.cwd, env: world.env, cliPath: wrapper });
    let bad = 0;
    session.on((event) => {
      if (event.kind === 'raw') bad++;
    });
    for (const prompt of prompts) {
      const result = await session.send(prompt).result;
      console.log(`  recorded turn "${prompt}": ${result.subtype}, ${result.num_turns} model turn(s)`);
    }
    session.endInput();
    await session.exited;
    if (bad > 0) console.log(`  note: ${bad} recorded line(s) did not match Byre's schemas`);
    if (world.fake.pending() > 0) throw new Error(`${world.fake.pending()} scripted replies were not used`);
    const lines = readFileSync(rawPath, 'utf8')
      .split('\n')
      .filter((line) => line.trim().length > 0);
    return { lines, version: String(session.info.claude_code_version ?? 'unknown') };
  } finally {
    await world.dispose();
  }
}

/** type, system subtype, stream_event event type (and delta type). */
export function lineKind(line: Record<string, unknown>): string {
  const type = String(line.type);
  if (type === 'system' || type === 'result') return `${type}/${String(line.subtype)}`;
  if (type === 'control_request' || type === 'control_response') {
    const body = (line.request ?? line.response) as Record<string, unknown> | undefined;
    return `${type}/${String(body?.subtype)}`;
  }
  if (type === 'stream_event') {
    const event = line.event as Record<string, unknown> | undefined;
    const delta = event?.delta as Record<string, unknown> | undefined;
    return `stream_event/${String(event?.type)}${delta?.type ? `/${String(delta.type)}` : ''}`;
  }
  if (type === 'user' || type === 'assistant') {
    const message = line.message as { content?: unknown } | undefined;
    const content = message?.content;
    const first = Array.isArray(content) ? (content[0] as { type?: string } | undefined)?.type : 'string';
    return `${type}/${first ?? 'empty'}`;
  }
  return type;
}

export function lineMix(lines: string[]): Map<string, { count: number; bytes: number }> {
  const mix = new Map<string, { count: number; bytes: number }>();
  for (const text of lines) {
    const kind = lineKind(JSON.parse(text) as Record<string, unknown>);
    const entry = mix.get(kind) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += Buffer.byteLength(text) + 1;
    mix.set(kind, entry);
  }
  return mix;
}

export function printMix(title: string, mix: Map<string, { count: number; bytes: number }>): void {
  const total = [...mix.values()].reduce((sum, entry) => sum + entry.count, 0);
  console.log(title);
  for (const [kind, entry] of [...mix.entries()].sort((a, b) => b[1].count - a[1].count)) {
    const share = ((100 * entry.count) / total).toFixed(1).padStart(5);
    const avg = Math.round(entry.bytes / entry.count);
    console.log(`  ${String(entry.count).padStart(7)} ${share}%  avg ${String(avg).padStart(6)} B  ${kind}`);
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Records the CLI and writes the stream file (≥ MIN_STREAM_BYTES) and its meta sidecar. */
export async function recordStream(streamPath: string): Promise<StreamMeta> {
  console.log('Recording the real claude CLI through Session against the fake model…');
  const { lines, version } = await recordRawLines();
  const parsed = lines.map((text) => JSON.parse(text) as Record<string, unknown>);
  printMix(`Recorded ${lines.length} stdout lines (one session, 4 prompts); line mix:`, lineMix(lines));

  const isControl = (line: Record<string, unknown>): boolean =>
    line.type === 'control_request' || line.type === 'control_response';
  const head = lines.filter((_, i) => isControl(parsed[i] ?? {}));
  const body = lines.filter((_, i) => !isControl(parsed[i] ?? {}));
  const initLine = parsed.find((line) => {
    const response = line.response as { response?: { models?: unknown } } | undefined;
    return line.type === 'control_response' && response?.response?.models !== undefined;
  });
  const initializeResponse = (initLine?.response as { response?: Record<string, unknown> } | undefined)
    ?.response;
  if (!initializeResponse) throw new Error('The recording has no control_response to initialize.');
  const sessionId = String(parsed.find((line) => typeof line.session_id === 'string')?.session_id ?? '');

  mkdirSync(dirname(streamPath), { recursive: true });
  const headText = head.map((line) => `${line}\n`).join('');
  const bodyText = body.map((line) => `${line}\n`).join('');
  const bodyBytes = Buffer.byteLength(bodyText);
  const headBytes = Buffer.byteLength(headText);
  const copies = Math.ceil((MIN_STREAM_BYTES - headBytes) / bodyBytes);
  const fd = openSync(streamPath, 'w');
  try {
    writeSync(fd, headText);
    for (let copy = 0; copy < copies; copy++) {
      // Fresh uuids per copy (same length): the session id stays; every other uuid gets the copy number.
      const tag = copy.toString(16).padStart(4, '0');
      const text =
        copy === 0
          ? bodyText
          : bodyText.replace(UUID, (uuid) => (uuid === sessionId ? uuid : `${uuid.slice(0, 32)}${tag}`));
      writeSync(fd, text);
    }
  } finally {
    closeSync(fd);
  }
  const meta: StreamMeta = {
    bodyOffset: headBytes,
    bodyLines: body.length * copies,
    totalLines: head.length + body.length * copies,
    totalBytes: headBytes + bodyBytes * copies,
    copies,
    sessionId,
    initializeResponse,
    recordedWith: `claude ${version}`,
  };
  writeFileSync(metaPath(streamPath), JSON.stringify(meta));
  console.log(
    `Wrote ${streamPath}: ${(meta.totalBytes / 1e6).toFixed(1)} MB, ${meta.totalLines} lines ` +
      `(head ${head.length} control lines + ${copies} copies of ${body.length} body lines)`,
  );
  return meta;
}
