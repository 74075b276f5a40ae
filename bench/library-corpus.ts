import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  linkSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * The library benchmark's corpus: CLI session files in the shape claude 2.1.332 writes them (the entry
 * fields of shared/__fixtures__/cli-session.jsonl, a real recording; the turn layout of
 * e2e/fixtures/session-files.ts), generated from a fixed seed:
 *
 * - 1,000 sessions of 10^9 bytes together, sizes log-normal (median ~0.3 MB, a few of 20–50 MB), in 12 folders
 *   and many git branches, a few with a custom or AI title;
 * - turns of a prompt, attachments, api-request lines, thinking, text, and tool calls with their results
 *   (Read with whole file contents, Bash, Grep, Glob, Edit with the original file, Write, Task), each result
 *   also in `toolUseResult` as the CLI keeps it;
 * - images (base64, in prompts with their api-request-blob copy, and in Read results), which the index must
 *   leave out; Bash outputs of several MB on one line in the largest sessions;
 * - subagents' files under `<session>/subagents/agent-*.jsonl` (isSidechain: true);
 * - sessions started over the last year (more of them lately), each on one of five models (one the pricing
 *   table does not know; a subagent often on Haiku), each API message with its own usage, repeated with its
 *   id and request id on every content block's line as the CLI writes it, for the Usage view's figures;
 * - plus one session of 10^8 bytes, the newest of all, titled BIG_SESSION_TITLE.
 *
 * It is written once into a cache folder (os.tmpdir()/byre-bench-library, or $BENCH_LIBRARY_CORPUS) and
 * reused while its manifest names the same generator: a digest of this file's text, so that any change to
 * how the corpus is made writes it again, without anyone having to remember a version. A second, small config folder
 * (`ui/`) holds the big session (hard-linked) and a few small ones, for the browser-host measurement.
 */

/** This file's text, digested: the corpus in the cache is reused only if the same generator wrote it. */
export const CORPUS_GENERATOR = createHash('sha256')
  .update(readFileSync(import.meta.filename))
  .digest('hex')
  .slice(0, 16);
export const BIG_SESSION_TITLE = 'Bench: the 100 MB session';

/** BENCH_LIBRARY_SCALE (e.g. 0.05) makes a smaller corpus, for trying the benchmark out; figures then say so. */
export const CORPUS_SCALE = Number(process.env.BENCH_LIBRARY_SCALE ?? 1) || 1;

/** How big a corpus is: its sessions and their bytes together, and the big session beside them. */
export interface CorpusSize {
  sessions: number;
  totalMb: number;
  bigMb: number;
}

/** Today's corpus: 1,000 sessions of 1 GB and the 100 MB one (all scaled by BENCH_LIBRARY_SCALE). */
export const DEFAULT_CORPUS: CorpusSize = {
  sessions: Math.max(20, Math.round(1000 * CORPUS_SCALE)),
  totalMb: 1000 * CORPUS_SCALE,
  bigMb: 100 * CORPUS_SCALE,
};

/** A heavy user's: five times as many sessions and bytes, the same 100 MB session. */
export const CORPUS_5G: CorpusSize = { sessions: 5000, totalMb: 5000, bigMb: 100 };

/** "1,000 sessions, 1 GB (+ 100 MB)": how the figures name the corpus they were measured on. */
export function corpusSizeLabel(size: CorpusSize): string {
  const gb = (mb: number) => (mb >= 1000 ? `${Number((mb / 1000).toFixed(2))} GB` : `${mb} MB`);
  return `${size.sessions.toLocaleString('en-US')} sessions, ${gb(size.totalMb)} (+ ${gb(size.bigMb)})`;
}
const UI_SMALL_SESSIONS = 15;
const SEED = 0x5eed_b1e;
/** The seed of the messages' models and usage (class Tokens), apart from the one of the words and sizes. */
const TOKENS_SEED = 0x70c3_5eed;
/** How old a session's start is: between two hours and a year. */
const SESSION_AGE_MIN_MS = 2 * 3600_000;
const SESSION_AGE_MAX_MS = 365 * 24 * 3600_000;

export interface CorpusManifest {
  /** CORPUS_GENERATOR of the code that wrote it. */
  generator: string;
  scale: number;
  /** The size it was asked for (its real bytes are sessionBytes and big.bytes). */
  size: CorpusSize;
  /** ISO time the corpus was written. */
  createdAt: string;
  generateSeconds: number;
  /** HOME and CLAUDE_CONFIG_DIR of the full corpus. */
  home: string;
  configDir: string;
  /** HOME of the small corpus for the browser host (its config folder is `<uiHome>/.claude`). */
  uiHome: string;
  uiSessions: number;
  /** Top-level session files (1,000 + the big one). */
  sessions: number;
  /** Bytes of the 1,000 sessions' top-level files. */
  sessionBytes: number;
  subagentFiles: number;
  subagentBytes: number;
  imageBlocks: number;
  /** Lines of 1 MB or more, and the longest line. */
  linesOver1Mb: number;
  maxLineBytes: number;
  lines: number;
  folders: number;
  branches: number;
  customTitles: number;
  big: { sessionId: string; path: string; bytes: number; title: string; cwd: string };
  /** 50 queries of one to three words, every word in the corpus's indexed text. */
  queries: string[];
  /** A few other queries for warming up. */
  warmupQueries: string[];
  /** A piece of base64 image data that is in the corpus: a search for it must find nothing. */
  imageProbe: string;
}

/**
 * The cache folder of a corpus of this size: each size has its own, so that a 5 GB run never reuses or
 * overwrites the 1 GB corpus. $BENCH_LIBRARY_CORPUS names the default size's folder only.
 */
export function corpusRoot(size: CorpusSize = DEFAULT_CORPUS): string {
  const isDefault =
    size.sessions === DEFAULT_CORPUS.sessions &&
    size.totalMb === DEFAULT_CORPUS.totalMb &&
    size.bigMb === DEFAULT_CORPUS.bigMb;
  if (isDefault && process.env.BENCH_LIBRARY_CORPUS) return process.env.BENCH_LIBRARY_CORPUS;
  const big = size.bigMb === 100 ? '' : `-big${size.bigMb}mb`;
  return join(tmpdir(), `byre-bench-library-${size.sessions}s-${size.totalMb}mb${big}`);
}

/** The corpus, generated first if the cache folder does not hold a complete one by this generator. */
export function ensureCorpus(
  log: (line: string) => void,
  size: CorpusSize = DEFAULT_CORPUS,
): { manifest: CorpusManifest; generated: boolean } {
  const root = corpusRoot(size);
  const manifestPath = join(root, 'manifest.json');
  if (existsSync(manifestPath)) {
    try {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as CorpusManifest;
      if (
        manifest.generator === CORPUS_GENERATOR &&
        manifest.size?.sessions === size.sessions &&
        manifest.size.totalMb === size.totalMb &&
        manifest.size.bigMb === size.bigMb &&
        existsSync(manifest.big.path)
      ) {
        return { manifest, generated: false };
      }
    } catch {
      // Rewritten below.
    }
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const manifest = generate(root, size, log);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, generated: true };
}

// ---------------------------------------------------------------------------------------------------
// Randomness

/** A seeded generator (mulberry32): the same corpus on every run. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32 */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Log-uniform between min and max. */
  logUniform(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }
  hex(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.next() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** Acklam's approximation of the normal distribution's inverse. */
function probit(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  if (p > 1 - low) return -probit(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

// ---------------------------------------------------------------------------------------------------
// Words

const COMMON = (
  'the a to of and in is it that for on with as this be are was by not or at from but have an they we you ' +
  'can if will all would there their what so up out about which when make like time just know take into ' +
  'your good some could them see other than then now look only come its over think also back after use two ' +
  'how our work first well way even new want because any these give day most us should before where still ' +
  'again every right since without between while through both each same different small large fast slow ' +
  'change check keep start stop read write open close find move'
).split(' ');

const TECH = (
  'function error test build cache index buffer stream worker session query schema migration deploy release ' +
  'config server client request response timeout retry handler router parser token commit branch merge ' +
  'review bundle module import export type interface async await promise callback event listener render ' +
  'component state store reducer hook effect layout column table cursor page offset limit batch queue shard ' +
  'replica lock mutex thread process memory disk folder path trace metric alert database transaction ' +
  'rollback snapshot checksum encoding payload header socket endpoint latency throughput benchmark fixture ' +
  'assertion coverage regression dependency package version lockfile compiler linter formatter typecheck ' +
  'pipeline container cluster namespace secret permission credential certificate webhook scheduler cron ' +
  'sidebar tooltip viewport scroll virtualized placeholder debounce throttle serializer validator'
).split(' ');

const VERBS = (
  'load save parse render rebalance flush compute resolve fetch merge split build apply normalize validate ' +
  'serialize hydrate evict schedule reconcile migrate index collect format encode decode measure compact ' +
  'retry throttle debounce expand collapse hash sign verify restore prune'
).split(' ');

const NOUNS = (
  'Session Index Worker Buffer Shard Weight Cache Token Router Parser Queue Stream Frame Layout Column Cursor ' +
  'Budget Ledger Invoice Tenant Account Payload Header Socket Endpoint Metric Alert Snapshot Checksum Record ' +
  'Entry Batch Page Offset Window Pane Tab Sidebar Message Thread Reply Prompt Tool Result Transcript Branch ' +
  'Commit Folder Path Config Setting Schema Migration Replica Lock Timer Clock Region Zone Node Edge Graph ' +
  'Tree Leaf Root Bucket Blob Chunk Block Line Column Range Span Marker Highlight Query Filter Sort Group'
).split(' ');

const PROJECTS = [
  { cwd: '/home/dev/src/byre', weight: 14 },
  { cwd: '/home/dev/src/ledger-service', weight: 10 },
  { cwd: '/home/dev/src/shard-router', weight: 9 },
  { cwd: '/home/dev/src/web-frontend', weight: 12 },
  { cwd: '/home/dev/src/infra/terraform', weight: 5 },
  { cwd: '/home/dev/src/data-pipeline', weight: 8 },
  { cwd: '/home/dev/work/acme/billing.api', weight: 7 },
  { cwd: '/home/dev/work/acme/mobile_app', weight: 6 },
  { cwd: '/home/dev/src/byre-wt/feature-search', weight: 4 },
  { cwd: '/home/dev/notes', weight: 3 },
  { cwd: '/home/dev/src/experiments/fts-trigram', weight: 4 },
  { cwd: '/home/dev/src/dotfiles', weight: 2 },
];

const BRANCH_KINDS = ['feature', 'fix', 'chore', 'refactor', 'spike'];

/** The CLI's folder name for a cwd. */
export function projectFolderName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

class Words {
  /** Identifiers and sentences that went into indexed text, to draw queries from. */
  readonly seenIdentifiers: string[] = [];
  readonly seenSentences: string[] = [];
  /** Off while a subagent's file is written: the index leaves those out. */
  recording = true;

  constructor(private readonly random: Random) {}

  identifier(): string {
    const r = this.random;
    const name = `${r.pick(VERBS)}${r.pick(NOUNS)}${r.chance(0.6) ? r.pick(NOUNS) : ''}`;
    return name;
  }

  typeName(): string {
    return `${this.random.pick(NOUNS)}${this.random.pick(NOUNS)}`;
  }

  word(): string {
    const roll = this.random.next();
    if (roll < 0.68) return this.random.pick(COMMON);
    if (roll < 0.94) return this.random.pick(TECH);
    return this.identifier();
  }

  sentence(min = 6, max = 18, record = false): string {
    const count = this.random.int(min, max);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(this.word());
    const first = words[0] ?? 'the';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    const text = `${words.join(' ')}.`;
    if (record) this.remember(text, words);
    return text;
  }

  private remember(text: string, words: string[]): void {
    if (!this.recording) return;
    if (this.seenSentences.length < 4000 && this.random.chance(0.05)) this.seenSentences.push(text);
    if (this.seenIdentifiers.length < 4000) {
      for (const word of words) if (/[a-z][A-Z]/.test(word)) this.seenIdentifiers.push(word);
    }
  }

  paragraph(sentences = this.random.int(2, 5), record = false): string {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(this.sentence(6, 18, record));
    return out.join(' ');
  }

  /** Prose of about `chars` characters. */
  prose(chars: number, record = false): string {
    const out: string[] = [];
    let length = 0;
    while (length < chars) {
      const paragraph = this.paragraph(undefined, record);
      out.push(paragraph);
      length += paragraph.length + 2;
    }
    return out.join('\n\n');
  }

  /** A reply in markdown: paragraphs, a list, now and then a code block. */
  markdown(chars: number): string {
    const r = this.random;
    const parts: string[] = [];
    let length = 0;
    while (length < chars) {
      const roll = r.next();
      let part: string;
      if (roll < 0.55) part = this.paragraph(undefined, true);
      else if (roll < 0.8) {
        const items: string[] = [];
        for (let i = r.int(2, 6); i > 0; i--)
          items.push(`- \`${this.identifier()}\`: ${this.sentence(5, 12, true)}`);
        part = items.join('\n');
      } else part = `\`\`\`ts\n${this.codeLines(r.int(3, 14)).join('\n')}\n\`\`\``;
      parts.push(part);
      length += part.length + 2;
    }
    return parts.join('\n\n');
  }

  codeLines(count: number): string[] {
    const r = this.random;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      const roll = r.next();
      const indent = '  '.repeat(r.int(0, 3));
      if (roll < 0.1)
        lines.push(
          `import { ${this.typeName()} } from './${r.pick(NOUNS).toLowerCase()}-${r.pick(NOUNS).toLowerCase()}';`,
        );
      else if (roll < 0.2)
        lines.push(
          `export function ${this.identifier()}(${r.pick(NOUNS).toLowerCase()}: ${this.typeName()}): ${this.typeName()} {`,
        );
      else if (roll < 0.45)
        lines.push(
          `${indent}const ${this.identifier()} = await ${this.identifier()}(${r.pick(NOUNS).toLowerCase()}, ${r.int(0, 9999)});`,
        );
      else if (roll < 0.55)
        lines.push(`${indent}if (!${this.identifier()}) throw new Error('${this.sentence(4, 9)}');`);
      else if (roll < 0.7) lines.push(`${indent}// ${this.sentence(5, 14)}`);
      else if (roll < 0.8)
        lines.push(`${indent}return ${this.identifier()}.${r.pick(VERBS)}(${r.pick(TECH)});`);
      else if (roll < 0.88) lines.push(`${indent}}`);
      else
        lines.push(
          `${indent}${this.identifier()}.${r.pick(TECH)} = ${r.chance(0.5) ? r.int(0, 500) : `'${r.pick(TECH)}'`};`,
        );
    }
    return lines;
  }

  /** A source file of about `bytes` bytes. */
  sourceFile(bytes: number): string {
    const lines: string[] = [];
    let length = 0;
    while (length < bytes) {
      const chunk = this.codeLines(20);
      for (const line of chunk) {
        lines.push(line);
        length += line.length + 1;
      }
    }
    return lines.join('\n');
  }

  logLine(clock: number): string {
    const r = this.random;
    const level = r.pick(['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN ', 'ERROR']);
    return `${new Date(clock).toISOString()} ${level} [${r.pick(TECH)}-${r.int(0, 7)}] ${this.sentence(4, 12)} id=${r.hex(12)} took=${r.int(1, 900)}ms`;
  }

  testLine(): string {
    const r = this.random;
    return r.chance(0.93)
      ? ` ✓ ${this.identifier()} ${this.sentence(3, 8).toLowerCase()} (${r.int(1, 300)} ms)`
      : ` ✗ ${this.identifier()} ${this.sentence(3, 8).toLowerCase()}\n   AssertionError: expected ${r.int(0, 99)} to be ${r.int(0, 99)}`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Writing

class LineWriter {
  private readonly fd: number;
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;
  lines = 0;
  longLines = 0;
  maxLine = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(entry: unknown): void {
    const line = `${JSON.stringify(entry)}\n`;
    const size = Buffer.byteLength(line);
    this.bytes += size;
    this.lines += 1;
    if (size >= 1e6) this.longLines += 1;
    this.maxLine = Math.max(this.maxLine, size);
    this.parts.push(line);
    this.pending += line.length;
    if (this.pending > 4 * 1024 * 1024) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.pending = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

interface Project {
  cwd: string;
  folder: string;
  /** Its folder in the CLI's projects folder. */
  folderPath: string;
  /** Source files the sessions of this project read and edit. */
  files: { path: string; content: string }[];
}

interface Stats {
  lines: number;
  imageBlocks: number;
  linesOver1Mb: number;
  maxLineBytes: number;
  subagentFiles: number;
  subagentBytes: number;
}

/**
 * Models a session runs on, with their shares: four the pricing table knows, and the recording's own, which it
 * does not (its tokens are counted "unpriced").
 */
const MODELS: [string, number][] = [
  ['claude-opus-4-5-20251101', 0.34],
  ['claude-sonnet-4-5-20250929', 0.34],
  ['claude-opus-4-1-20250805', 0.08],
  ['claude-haiku-4-5-20251001', 0.08],
  ['claude-opus-5-5', 0.16],
];
const SUBAGENT_MODEL = 'claude-haiku-4-5-20251001';
/** The CLI's system prompt and tools, read from the cache by every request after a session's first. */
const SYSTEM_TOKENS = 14_208;
/** Roughly how many bytes of a session file one token of its context takes (JSON and repeated results). */
const BYTES_PER_TOKEN = 6;
const CONTEXT_TOKENS = 190_000;

/**
 * Each API message's model and `usage`, from a generator of its own, so that the words, sizes and times of
 * the corpus are drawn as they were before messages had varied usage. The figures follow a session's
 * growing context: what was read before comes from the cache, what was added since is written to it.
 */
class Tokens {
  constructor(private readonly random: Random) {}

  model(): string {
    let roll = this.random.next();
    for (const [model, share] of MODELS) {
      roll -= share;
      if (roll <= 0) return model;
    }
    return MODELS[0]?.[0] ?? 'claude-opus-4-5-20251101';
  }

  subagentModel(parent: string): string {
    return this.random.chance(0.5) ? SUBAGENT_MODEL : parent;
  }

  /** Most sessions cache for 5 minutes; some for an hour. */
  hourCache(): boolean {
    return this.random.chance(0.15);
  }

  requestId(): string {
    return `req_${this.random.hex(24)}`;
  }

  /** A message's usage: `cached` tokens of context read, `added` new ones since the last request written. */
  usage(cached: number, added: number, hourCache: boolean): Record<string, unknown> {
    const r = this.random;
    const write = Math.round(added * (0.8 + 0.4 * r.next()));
    const input = r.chance(0.05) ? r.int(100, 6000) : r.int(1, 12);
    const output = r.logUniform(30, 4000);
    return {
      input_tokens: input,
      cache_creation_input_tokens: write,
      cache_read_input_tokens: cached,
      output_tokens: output,
      output_tokens_details: { thinking_tokens: r.chance(0.4) ? Math.round(output * r.next() * 0.6) : 0 },
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: 'standard',
      cache_creation: {
        ephemeral_1h_input_tokens: hourCache ? write : 0,
        ephemeral_5m_input_tokens: hourCache ? 0 : write,
      },
      inference_geo: '',
      iterations: [],
      speed: 'standard',
      fallback_credit: null,
    };
  }
}

const BETAS = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27',
  'per-turn-control-2026-07-01',
  'mid-conversation-tool-changes-2026-07-01',
  'thinking-token-count-2026-05-13',
  'advanced-tool-use-2025-11-20',
  'effort-2025-11-24',
  'thinking-display-updates-2026-08-18',
];

interface SessionPlan {
  sessionId: string;
  project: Project;
  branch: string;
  /** The model its messages (and its requests) name. */
  model: string;
  /** Its cache writes last an hour rather than 5 minutes. */
  hourCache: boolean;
  start: number;
  target: number;
  customTitle: string | null;
  aiTitle: boolean;
  /** Bash outputs of several MB on one line, at these fractions of the target. */
  hugeLinesAt: number[];
  /** A word to plant in one prompt, at this fraction of the target. */
  needle: { word: string; at: number } | null;
}

class SessionWriter {
  private parent: string | null = null;
  clock: number;
  private request = 0;
  private promptIndex = 0;
  private readonly out: LineWriter;
  private pendingHuge: number[];
  private needle: { word: string; at: number } | null;
  /** The file's size at the last request: what was written since is the next request's new context. */
  private bytesAtRequest = 0;

  constructor(
    private readonly plan: SessionPlan,
    private readonly random: Random,
    private readonly words: Words,
    private readonly pools: Pools,
    private readonly tokens: Tokens,
    private readonly stats: Stats,
    path: string,
    private readonly sidechain: { agentId: string } | null = null,
  ) {
    this.clock = plan.start;
    this.out = new LineWriter(path);
    this.pendingHuge = [...plan.hugeLinesAt];
    this.needle = plan.needle;
  }

  get bytes(): number {
    return this.out.bytes;
  }

  private tick(min = 1, max = 30): string {
    this.clock += this.random.int(min * 1000, max * 1000);
    return new Date(this.clock).toISOString();
  }

  private common() {
    return {
      userType: 'external',
      entrypoint: 'cli',
      cwd: this.plan.project.cwd,
      sessionId: this.plan.sessionId,
      version: '2.1.332',
      gitBranch: this.plan.branch,
      ...(this.sidechain ? { agentId: this.sidechain.agentId } : {}),
    };
  }

  private chain(entry: Record<string, unknown>, tickRange: [number, number] = [1, 20]): string {
    const uuid = this.random.uuid();
    const timestamp = this.tick(...tickRange);
    const { type, ...rest } = entry;
    this.write({
      parentUuid: this.parent,
      isSidechain: this.sidechain !== null,
      ...rest,
      type,
      uuid,
      timestamp,
      ...this.common(),
    });
    this.parent = uuid;
    return uuid;
  }

  private write(entry: Record<string, unknown>): void {
    this.out.write(entry);
  }

  private noteImage(): void {
    this.stats.imageBlocks += 1;
  }

  close(): void {
    this.out.close();
    this.stats.lines += this.out.lines;
    this.stats.linesOver1Mb += this.out.longLines;
    this.stats.maxLineBytes = Math.max(this.stats.maxLineBytes, this.out.maxLine);
    utimesSync(this.out.path, new Date(this.clock), new Date(this.clock));
  }

  /** Turns until the file reaches its target; then the closing lines. */
  writeSession(): void {
    const plan = this.plan;
    while (this.out.bytes < plan.target) this.turn(plan.target - this.out.bytes);
    // A session that ended before its needle's place gets one more short turn with it.
    if (this.needle) this.turn(0);
    if (plan.aiTitle)
      this.write({
        type: 'ai-title',
        aiTitle: this.words.sentence(3, 7).slice(0, -1),
        sessionId: plan.sessionId,
      });
    if (plan.customTitle)
      this.write({ type: 'custom-title', customTitle: plan.customTitle, sessionId: plan.sessionId });
    this.write({
      type: 'cost-state',
      sessionId: plan.sessionId,
      totalCostUSD: Number((this.random.next() * 4).toFixed(5)),
      totalAPIDuration: this.random.int(1000, 900_000),
      totalDuration: this.clock - plan.start,
      startTime: plan.start,
      hasUnknownModelCost: false,
    });
  }

  /** A subagent's file: its prompt, a few tool rounds, its answer. */
  writeSubagent(prompt: string, target: number): string {
    this.chain({ type: 'user', message: { role: 'user', content: prompt } });
    while (this.out.bytes < target) this.round(target - this.out.bytes, false);
    const answer = this.words.markdown(this.random.int(300, 2500));
    this.assistant([{ type: 'text', text: answer }], 'end_turn');
    return answer;
  }

  private turn(remaining: number): void {
    const r = this.random;
    const plan = this.plan;
    const quick = remaining < 24_000;
    let prompt = r.chance(0.3)
      ? `${this.words.sentence(5, 16, true)} ${this.words.sentence(4, 12, true)}`
      : this.words.sentence(4, 22, true);
    if (this.needle && this.out.bytes >= this.needle.at * plan.target) {
      prompt = `${prompt} Also look at ${this.needle.word} while you are there.`;
      this.needle = null;
    }
    this.write({
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: this.tick(5, 600),
      sessionId: plan.sessionId,
      content: prompt,
    });
    this.write({
      type: 'queue-operation',
      operation: 'dequeue',
      timestamp: this.tick(0, 1),
      sessionId: plan.sessionId,
    });
    const image = !quick && r.chance(0.03) ? this.pools.image(r.logUniform(20_000, 600_000), r) : null;
    const content = image
      ? [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
          { type: 'text', text: prompt },
        ]
      : prompt;
    const promptId = r.uuid();
    this.chain({
      type: 'user',
      promptId,
      message: { role: 'user', content },
      ...(image ? { imagePasteIds: [1] } : {}),
      permissionMode: 'default',
      promptSource: 'cli',
      sentAtMs: this.clock,
      rowSource: 'local',
      turnOrigin: 'cli',
      turnPosition: { promptIndex: this.promptIndex++, turnIndex: 1 },
    });
    if (image) {
      this.noteImage();
      this.chain({
        type: 'user',
        promptId,
        message: {
          role: 'user',
          content: [
            {
              type: 'text',
              text: `[Image: source: /tmp/claude-1000/${plan.project.folder}/${plan.sessionId}/images/1.png]`,
            },
          ],
        },
        isMeta: true,
        turnCompanion: true,
        rowSource: 'local',
      });
      this.noteImage();
      this.write({
        type: 'api-request-blob',
        sessionId: plan.sessionId,
        hash: r.hex(64),
        message: {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
            { type: 'text', text: `${prompt}\n` },
          ],
        },
      });
    }
    for (let i = r.int(1, quick ? 1 : 3); i > 0; i--)
      this.chain({ type: 'attachment', ...this.pools.attachment(r), renderedRole: 'system' }, [0, 0]);
    if (!quick) {
      const rounds = 1 + Math.min(12, Math.floor(-Math.log(1 - r.next()) * 3));
      for (let i = 0; i < rounds; i++) this.round(remaining - this.out.bytes, true);
    }
    this.assistant(
      [{ type: 'text', text: this.words.markdown(quick ? r.int(80, 600) : r.int(200, 3000)) }],
      'end_turn',
    );
    this.write({
      type: 'last-prompt',
      lastPrompt: prompt.slice(0, 200),
      leafUuid: this.parent,
      sessionId: plan.sessionId,
    });
  }

  private apiRequest(): string {
    const r = this.random;
    const id = r.uuid();
    this.write({
      type: 'api-request',
      sessionId: this.plan.sessionId,
      id,
      timestamp: this.tick(0, 2),
      version: '2.1.332',
      querySource: this.sidechain ? 'agent:custom' : 'repl_main_thread',
      shapeHash: r.hex(64),
      params: {
        model: this.plan.model,
        betas: BETAS,
        max_tokens: 128000,
        thinking: { type: 'adaptive', display: 'updates' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'medium' },
      },
      thread: { type: 'none' },
      echoWireToolInputs: false,
      keep: r.int(0, 400),
      tail: [r.hex(64), r.hex(64)],
      cacheControl: [
        { path: ['system', 0], value: { type: 'ephemeral' } },
        { path: ['messages', r.int(1, 300), 'content', 0], value: { type: 'ephemeral' } },
      ],
      requestDigest: r.hex(64),
    });
    return id;
  }

  private assistant(blocks: Record<string, unknown>[], stop: string): void {
    this.request += 1;
    const requestRef = this.apiRequest();
    const messageId = `msg_${this.random.hex(24)}`;
    // One response: every block's line repeats its usage and its request id, as the CLI writes them.
    const requestId = this.tokens.requestId();
    const context = Math.min(CONTEXT_TOKENS, SYSTEM_TOKENS + this.out.bytes / BYTES_PER_TOKEN);
    const added = Math.min(CONTEXT_TOKENS, (this.out.bytes - this.bytesAtRequest) / BYTES_PER_TOKEN);
    const cached = this.bytesAtRequest === 0 ? SYSTEM_TOKENS : Math.round(Math.max(0, context - added));
    this.bytesAtRequest = this.out.bytes;
    const usage = this.tokens.usage(cached, added, this.plan.hourCache);
    blocks.forEach((block, index) => {
      this.chain(
        {
          type: 'assistant',
          message: {
            id: messageId,
            type: 'message',
            role: 'assistant',
            model: this.plan.model,
            content: [block],
            stop_reason: stop,
            stop_sequence: null,
            usage,
            stop_details: null,
          },
          apiBlockIndex: index,
          requestId,
          requestRef,
          requestedModel: this.plan.model,
          promptCacheRequested: '5m',
          effort: 'medium',
          perTurnEffort: 'medium',
          madeBy: 'model',
        },
        [1, 40],
      );
    });
  }

  /** One request: thinking, maybe a few words, 1–3 tool calls; then their results. */
  private round(remaining: number, mainThread: boolean): void {
    const r = this.random;
    const blocks: Record<string, unknown>[] = [];
    if (r.chance(0.4))
      blocks.push({ type: 'thinking', thinking: this.words.prose(r.int(100, 2000)), signature: r.hex(88) });
    if (r.chance(0.6)) blocks.push({ type: 'text', text: this.words.sentence(5, 25, true) });
    const calls: ToolCall[] = [];
    for (let i = r.chance(0.25) ? r.int(2, 3) : 1; i > 0; i--)
      calls.push(this.toolCall(remaining, mainThread));
    for (const call of calls)
      blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
    this.assistant(blocks, 'tool_use');
    const source = this.parent;
    for (const call of calls) {
      const result = call.result();
      this.chain(
        {
          type: 'user',
          message: {
            role: 'user',
            content: [
              { tool_use_id: call.id, type: 'tool_result', content: result.content, is_error: false },
            ],
          },
          toolUseResult: result.toolUseResult,
          sourceToolAssistantUUID: source,
          permissionDecision: { decision: 'accept', source: 'config', reasonType: 'rule' },
        },
        [0, 20],
      );
    }
  }

  private toolCall(remaining: number, mainThread: boolean): ToolCall {
    const r = this.random;
    const id = `toolu_${r.hex(24)}`;
    const files = this.plan.project.files;
    const roll = r.next();
    const huge = this.pendingHuge[0];
    if (huge !== undefined && this.out.bytes >= huge * this.plan.target) {
      this.pendingHuge.shift();
      const size = r.int(2_000_000, 6_000_000);
      return this.bash(
        id,
        `npm run test:integration -- --reporter verbose 2>&1 | tee run.log`,
        this.pools.log(size, r),
      );
    }
    if (roll < 0.34) {
      const file = r.pick(files);
      if (r.chance(0.03)) {
        const data = this.pools.image(r.logUniform(30_000, 500_000), r);
        const path = `${this.plan.project.cwd}/docs/screenshots/${r.pick(NOUNS).toLowerCase()}-${r.int(1, 99)}.png`;
        return {
          id,
          name: 'Read',
          input: { file_path: path },
          result: () => {
            this.noteImage();
            this.noteImage();
            return {
              content: [{ type: 'image', source: { type: 'base64', data, media_type: 'image/png' } }],
              toolUseResult: {
                type: 'image',
                file: { base64: data, type: 'image/png', originalSize: Math.round((data.length * 3) / 4) },
              },
            };
          },
        };
      }
      return {
        id,
        name: 'Read',
        input: { file_path: file.path },
        result: () => {
          const numbered = numberLines(file.content);
          const lineCount = numbered.count;
          return {
            content: numbered.text,
            toolUseResult: {
              type: 'text',
              file: {
                filePath: file.path,
                content: file.content,
                numLines: lineCount,
                startLine: 1,
                totalLines: lineCount,
              },
            },
          };
        },
      };
    }
    if (roll < 0.64) {
      const kind = r.next();
      if (kind < 0.35) {
        const lines: string[] = [];
        for (let i = r.int(3, 60); i > 0; i--) lines.push(this.words.testLine());
        lines.push(`\n Test Files  ${r.int(1, 40)} passed\n      Tests  ${r.int(10, 900)} passed`);
        return this.bash(
          id,
          `npx vitest run ${r.pick(files).path.replace(/\.ts$/, '.test.ts')}`,
          lines.join('\n'),
        );
      }
      if (kind < 0.55) {
        const big = remaining > 200_000 && r.chance(0.15);
        return this.bash(
          id,
          `tail -n ${big ? 2000 : 80} logs/${r.pick(TECH)}.log`,
          this.pools.log(big ? r.int(8_000, 80_000) : r.int(300, 6_000), r),
        );
      }
      if (kind < 0.75) {
        const lines: string[] = [];
        for (let i = r.int(2, 25); i > 0; i--)
          lines.push(
            `${r.chance(0.5) ? ' M' : '??'} ${r.pick(files).path.slice(this.plan.project.cwd.length + 1)}`,
          );
        return this.bash(id, 'git status --short', lines.join('\n'));
      }
      const ident = this.words.identifier();
      const lines: string[] = [];
      for (let i = r.int(1, 30); i > 0; i--) {
        lines.push(
          `${r.pick(files).path.slice(this.plan.project.cwd.length + 1)}:${r.int(1, 900)}:  ${this.words.codeLines(1)[0] ?? ''} ${ident}`,
        );
      }
      return this.bash(id, `grep -rn "${ident}" src`, lines.join('\n'));
    }
    if (roll < 0.74) {
      const pattern = this.words.identifier();
      const matches = Array.from({ length: r.int(1, 40) }, () => r.pick(files).path);
      return {
        id,
        name: 'Grep',
        input: { pattern, path: this.plan.project.cwd, output_mode: 'files_with_matches' },
        result: () => ({
          content: `Found ${matches.length} files\n${matches.join('\n')}`,
          toolUseResult: { mode: 'files_with_matches', filenames: matches, numFiles: matches.length },
        }),
      };
    }
    if (roll < 0.79) {
      const matches = Array.from({ length: r.int(1, 60) }, () => r.pick(files).path);
      return {
        id,
        name: 'Glob',
        input: { pattern: `src/**/*${r.pick(NOUNS).toLowerCase()}*.ts` },
        result: () => ({
          content: matches.join('\n'),
          toolUseResult: {
            filenames: matches,
            durationMs: r.int(1, 80),
            numFiles: matches.length,
            truncated: false,
          },
        }),
      };
    }
    if (roll < 0.94) {
      const file = r.pick(files);
      const lines = file.content.split('\n');
      const at = r.int(0, Math.max(0, lines.length - 8));
      const oldString = lines.slice(at, at + r.int(1, 8)).join('\n');
      const newString = `${oldString}\n${this.words.codeLines(r.int(1, 6)).join('\n')}`;
      return {
        id,
        name: 'Edit',
        input: { file_path: file.path, old_string: oldString, new_string: newString, replace_all: false },
        result: () => ({
          content: `The file ${file.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numberLines(newString, at + 1).text}`,
          toolUseResult: {
            filePath: file.path,
            oldString,
            newString,
            originalFile: file.content,
            structuredPatch: [
              {
                oldStart: at + 1,
                oldLines: oldString.split('\n').length,
                newStart: at + 1,
                newLines: newString.split('\n').length,
                lines: newString.split('\n').map((line) => `+${line}`),
              },
            ],
            userModified: false,
            replaceAll: false,
          },
        }),
      };
    }
    if (roll < 0.97 || !mainThread) {
      const path = `${this.plan.project.cwd}/src/${r.pick(NOUNS).toLowerCase()}/${r.pick(NOUNS).toLowerCase()}.ts`;
      const content = this.words.sourceFile(r.logUniform(500, 12_000));
      return {
        id,
        name: 'Write',
        input: { file_path: path, content },
        result: () => ({
          content: `File created successfully at: ${path}`,
          toolUseResult: { type: 'create', filePath: path, content, structuredPatch: [] },
        }),
      };
    }
    // A subagent: its own file under <session>/subagents/, and its answer as the tool's result.
    const agentId = r.hex(17);
    const prompt = this.words.prose(r.int(200, 1200));
    const description = this.words.sentence(3, 6).slice(0, -1);
    return {
      id,
      name: 'Task',
      input: { description, prompt, subagent_type: 'general-purpose' },
      result: () => {
        const dir = join(this.plan.project.folderPath, this.plan.sessionId, 'subagents');
        mkdirSync(dir, { recursive: true });
        const path = join(dir, `agent-${agentId}.jsonl`);
        const sub = new SessionWriter(
          {
            ...this.plan,
            model: this.tokens.subagentModel(this.plan.model),
            start: this.clock,
            target: 0,
            hugeLinesAt: [],
            needle: null,
            customTitle: null,
            aiTitle: false,
          },
          this.random,
          this.words,
          this.pools,
          this.tokens,
          this.stats,
          path,
          { agentId },
        );
        this.words.recording = false;
        const answer = sub.writeSubagent(prompt, r.logUniform(10_000, 400_000));
        this.words.recording = true;
        this.stats.subagentFiles += 1;
        this.stats.subagentBytes += sub.bytes;
        sub.close();
        this.clock = Math.max(this.clock, sub.clock);
        return {
          content: [{ type: 'text', text: answer }],
          toolUseResult: {
            status: 'completed',
            prompt,
            agentId,
            content: [{ type: 'text', text: answer }],
            totalDurationMs: r.int(5_000, 600_000),
            totalTokens: r.int(1_000, 90_000),
            totalToolUseCount: r.int(1, 40),
          },
        };
      },
    };
  }

  private bash(id: string, command: string, output: string): ToolCall {
    return {
      id,
      name: 'Bash',
      input: { command, description: this.words.sentence(3, 7).slice(0, -1) },
      result: () => ({
        content: output,
        toolUseResult: {
          stdout: output,
          stderr: '',
          interrupted: false,
          isImage: false,
          noOutputExpected: false,
        },
      }),
    };
  }
}

interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result: () => { content: unknown; toolUseResult: unknown };
}

function numberLines(text: string, first = 1): { text: string; count: number } {
  const lines = text.split('\n');
  return {
    text: lines.map((line, index) => `${String(index + first).padStart(6)}\t${line}`).join('\n'),
    count: lines.length,
  };
}

/** Text made once and drawn from many times: system reminders, log text, image data. */
class Pools {
  private readonly logText: string;
  private readonly imageData: string;
  private readonly attachments: Record<string, unknown>[];
  /** A piece of the first image written: a search for it must find nothing. */
  probe: string | undefined;

  constructor(random: Random, words: Words) {
    const logLines: string[] = [];
    let length = 0;
    let clock = Date.UTC(2026, 10, 1);
    while (length < 2_500_000) {
      const line = words.logLine((clock += random.int(1, 4000)));
      logLines.push(line);
      length += line.length + 1;
    }
    this.logText = logLines.join('\n');
    const bytes = Buffer.alloc(3_000_000);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(Math.floor(random.next() * 0x100000000), i);
    this.imageData = bytes.toString('base64');
    this.attachments = [];
    for (let i = 0; i < 24; i++) {
      const reminder = `<system-reminder>\n${words.prose(random.int(300, 3500))}\n</system-reminder>`;
      this.attachments.push(
        i % 3 === 0
          ? { attachment: { type: 'date', date: '2026-11-30' } }
          : {
              attachment: {
                type: 'environment',
                snapshot: { isGitRepo: true, platform: 'linux', shell: 'bash' },
              },
              rendered: [{ content: reminder }],
            },
      );
    }
  }

  /** Base64 PNG-looking data of about `chars` characters (random bytes after a PNG signature). */
  image(chars: number, random: Random): string {
    const start = random.int(0, this.imageData.length - chars - 1) & ~3;
    const data = `iVBORw0KGgoAAAANSUhEUgAA${this.imageData.slice(start, start + chars)}`;
    this.probe ??= data.slice(1000, 1024);
    return data;
  }

  log(chars: number, random: Random): string {
    if (chars <= this.logText.length) {
      const start = random.int(0, this.logText.length - chars);
      return this.logText.slice(start, start + chars);
    }
    return this.logText.repeat(Math.ceil(chars / this.logText.length)).slice(0, chars);
  }

  attachment(random: Random): Record<string, unknown> {
    return random.pick(this.attachments);
  }
}

// ---------------------------------------------------------------------------------------------------
// The corpus

function generate(root: string, size: CorpusSize, log: (line: string) => void): CorpusManifest {
  const SESSIONS = size.sessions;
  const TOTAL_BYTES = size.totalMb * 1e6;
  const BIG_SESSION_BYTES = size.bigMb * 1e6;
  const started = performance.now();
  const random = new Random(SEED);
  const words = new Words(random);
  const pools = new Pools(random, words);
  const tokens = new Tokens(new Random(TOKENS_SEED));
  const home = join(root, 'full');
  const configDir = join(home, '.claude');
  const projectsDir = join(configDir, 'projects');
  const projects: Project[] = PROJECTS.map(({ cwd }) => {
    const folder = projectFolderName(cwd);
    const folderPath = join(projectsDir, folder);
    mkdirSync(folderPath, { recursive: true });
    const files = Array.from({ length: 60 }, () => {
      const roll = random.next();
      const size =
        roll < 0.7
          ? random.logUniform(800, 8_000)
          : roll < 0.95
            ? random.logUniform(8_000, 40_000)
            : random.logUniform(40_000, 150_000);
      const dir = random.pick(['src', 'src/lib', 'src/server', 'src/ui', 'test', 'scripts']);
      return {
        path: `${cwd}/${dir}/${random.pick(NOUNS).toLowerCase()}-${random.pick(NOUNS).toLowerCase()}.ts`,
        content: words.sourceFile(size),
      };
    });
    return { cwd, folder, folderPath, files };
  });
  const totalWeight = PROJECTS.reduce((sum, project) => sum + project.weight, 0);
  const pickProject = (): Project => {
    let roll = random.next() * totalWeight;
    for (const [index, project] of PROJECTS.entries()) {
      roll -= project.weight;
      if (roll <= 0) return projects[index] as Project;
    }
    return projects[0] as Project;
  };

  // Log-normal sizes (σ 1.5), scaled to the total, assigned to sessions in random order.
  const raw = Array.from({ length: SESSIONS }, (_, i) =>
    // The median follows the mean session size (1 MB at the default size), so every size has the same shape.
    Math.max(
      6_000,
      Math.exp(12.69 + Math.log(TOTAL_BYTES / SESSIONS / 1e6) + 1.5 * probit((i + 0.5) / SESSIONS)),
    ),
  );
  const scale = TOTAL_BYTES / raw.reduce((sum, size) => sum + size, 0);
  const sizes = raw.map((size) => size * scale);
  for (let i = sizes.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [sizes[i], sizes[j]] = [sizes[j] as number, sizes[i] as number];
  }
  const hugeThreshold = [...sizes].sort((a, b) => b - a)[7] ?? Infinity;

  const branches = new Set<string>();
  const stats: Stats = {
    lines: 0,
    imageBlocks: 0,
    linesOver1Mb: 0,
    maxLineBytes: 0,
    subagentFiles: 0,
    subagentBytes: 0,
  };
  const now = Date.now();
  const needles = [
    'quokkaLedgerReconcile',
    'zanzibarShardFence',
    'marmaladeCursorDrift',
    'obsidianTokenHarbor',
  ];
  const needleSessions = new Set([17, 333, 612, 901].map((i) => Math.floor((i * SESSIONS) / 1000)));
  let sessionBytes = 0;
  let planned = 0;
  let customTitles = 0;
  const smallForUi: { path: string; folder: string; name: string }[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const project = pickProject();
    const branch = random.chance(0.35)
      ? 'main'
      : `${random.pick(BRANCH_KINDS)}/${random.pick(NOUNS).toLowerCase()}-${random.pick(TECH)}`;
    branches.add(branch);
    const size = sizes[i] as number;
    planned += size;
    // What earlier sessions wrote over their targets is taken off this one.
    const target = Math.max(4_000, planned - sessionBytes);
    const customTitle = random.chance(0.03) ? `${words.sentence(2, 5).slice(0, -1)} (renamed)` : null;
    if (customTitle) customTitles += 1;
    const plan: SessionPlan = {
      sessionId: random.uuid(),
      project,
      branch,
      model: tokens.model(),
      hourCache: tokens.hourCache(),
      // Over a year, more of them lately (the square of a uniform draw): "all time" has a year of days, the
      // last 30 days about 30% of the sessions, today a few.
      start: now - SESSION_AGE_MIN_MS - (SESSION_AGE_MAX_MS - SESSION_AGE_MIN_MS) * random.next() ** 2,
      target,
      customTitle,
      aiTitle: random.chance(0.1),
      hugeLinesAt: size >= hugeThreshold ? [0.3 + random.next() * 0.4] : [],
      needle: needleSessions.has(i)
        ? { word: needles[[...needleSessions].indexOf(i)] as string, at: random.next() * 0.9 }
        : null,
    };
    const path = join(project.folderPath, `${plan.sessionId}.jsonl`);
    const writer = new SessionWriter(plan, random, words, pools, tokens, stats, path);
    writer.writeSession();
    sessionBytes += writer.bytes;
    writer.close();
    if (target < 200_000 && smallForUi.length < UI_SMALL_SESSIONS)
      smallForUi.push({ path, folder: project.folder, name: `${plan.sessionId}.jsonl` });
    if ((i + 1) % 100 === 0) {
      log(
        `library corpus: ${i + 1}/${SESSIONS} sessions, ${(sessionBytes / 1e6).toFixed(0)} MB (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }

  // The big session: the newest of all, with a title to find it by; a needle far from its end.
  const bigProject = projects[0] as Project;
  const bigPlan: SessionPlan = {
    sessionId: random.uuid(),
    project: bigProject,
    branch: 'main',
    model: MODELS[0]?.[0] ?? 'claude-opus-4-5-20251101',
    hourCache: false,
    start: now - 6 * 24 * 3600_000,
    target: BIG_SESSION_BYTES,
    customTitle: BIG_SESSION_TITLE,
    aiTitle: false,
    hugeLinesAt: [0.2, 0.5, 0.8],
    needle: { word: 'pelicanBudgetLattice', at: 0.1 },
  };
  const bigPath = join(bigProject.folderPath, `${bigPlan.sessionId}.jsonl`);
  const bigWriter = new SessionWriter(bigPlan, random, words, pools, tokens, stats, bigPath);
  bigWriter.writeSession();
  const bigBytes = bigWriter.bytes;
  bigWriter.close();
  // Newest of all, whatever its turns' clock said.
  const newest = new Date(now - 60_000);
  utimesSync(bigPath, newest, newest);
  log(`library corpus: the ${(bigBytes / 1e6).toFixed(0)} MB session written`);

  // The browser host's small corpus: the big session and a few small ones, hard-linked (copied if need be).
  const uiHome = join(root, 'ui');
  const uiProjects = join(uiHome, '.claude', 'projects');
  const link = (from: string, folder: string, name: string) => {
    const dir = join(uiProjects, folder);
    mkdirSync(dir, { recursive: true });
    try {
      linkSync(from, join(dir, name));
    } catch {
      copyFileSync(from, join(dir, name));
      const { mtime } = statSync(from);
      utimesSync(join(dir, name), mtime, mtime);
    }
  };
  link(bigPath, bigProject.folder, `${bigPlan.sessionId}.jsonl`);
  for (const small of smallForUi) link(small.path, small.folder, small.name);
  writeFileSync(join(uiHome, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));

  // Queries: words that went into indexed text (prompts, replies, tool inputs).
  const queries = makeQueries(random, words, [...needles, 'pelicanBudgetLattice']);
  const warmupQueries = ['checksum', 'render sidebar', 'flushQueue', 'latency', 'parse header token'];
  const manifest: CorpusManifest = {
    generator: CORPUS_GENERATOR,
    scale: CORPUS_SCALE,
    size,
    createdAt: new Date().toISOString(),
    generateSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    home,
    configDir,
    uiHome,
    uiSessions: smallForUi.length + 1,
    sessions: SESSIONS + 1,
    sessionBytes,
    subagentFiles: stats.subagentFiles,
    subagentBytes: stats.subagentBytes,
    imageBlocks: stats.imageBlocks,
    linesOver1Mb: stats.linesOver1Mb,
    maxLineBytes: stats.maxLineBytes,
    lines: stats.lines,
    folders: projects.length,
    branches: branches.size + 1,
    customTitles: customTitles + 1,
    big: {
      sessionId: bigPlan.sessionId,
      path: bigPath,
      bytes: bigBytes,
      title: BIG_SESSION_TITLE,
      cwd: bigProject.cwd,
    },
    queries,
    warmupQueries,
    imageProbe: pools.probe ?? 'iVBORw0KGgoAAAANSUhEUgAA',
  };
  return manifest;
}

/**
 * 50 queries: 12 common words, 10 whole identifiers, 10 pieces of identifiers, 5 rare words (each in one
 * message), 8 of two words and 5 of three words taken from one sentence that was written.
 */
function makeQueries(random: Random, words: Words, needles: string[]): string[] {
  const queries: string[] = [];
  const common = [...TECH.filter((word) => word.length >= 5), ...COMMON.filter((word) => word.length >= 5)];
  for (let i = 0; i < 12; i++) queries.push(random.pick(common));
  const identifiers = words.seenIdentifiers;
  for (let i = 0; i < 10; i++) queries.push(random.pick(identifiers));
  for (let i = 0; i < 10; i++) {
    const identifier = random.pick(identifiers);
    const length = random.int(5, Math.min(10, identifier.length - 1));
    const start = random.int(1, identifier.length - length);
    queries.push(identifier.slice(start, start + length));
  }
  queries.push(...needles.slice(0, 5));
  const fromSentence = (count: number) => {
    for (;;) {
      const sentence = random.pick(words.seenSentences);
      const candidates = [...new Set(sentence.replace(/[.`:]/g, '').split(' '))].filter(
        (word) => word.length >= 4,
      );
      if (candidates.length < count) continue;
      const picked: string[] = [];
      while (picked.length < count) {
        const word = random.pick(candidates);
        if (!picked.includes(word)) picked.push(word);
      }
      return picked.join(' ').toLowerCase();
    }
  };
  for (let i = 0; i < 8; i++) queries.push(fromSentence(2));
  for (let i = 0; i < 5; i++) queries.push(fromSentence(3));
  return queries;
}
