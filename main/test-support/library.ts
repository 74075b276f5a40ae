import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ForkRecord } from '../../shared/branches';
import { FORK_RECORDS_FILE } from '../data/fork-records';
import { LibraryIndex, type LibraryIndexOptions } from '../library/worker/library-index';

/**
 * Test fixtures for the library: session files shaped like the ones claude 2.1.332 and Byre write (see
 * a real CLI run against the fake model, and test-results/transcripts/), and a temporary world to hold them.
 */

export type Entry = Record<string, unknown>;

export interface SessionWorld {
  root: string;
  dataDir: string;
  configDir: string;
  projectsDir: string;
  transcriptsDir: string;
  /** Writes a CLI session file for `cwd` (in the CLI's encoded project folder) and returns its path. */
  writeCli(sessionId: string, entries: Entry[], cwd?: string): string;
  /** Writes one of Byre's transcripts and returns its path. */
  writeTranscript(name: string, lines: Entry[]): string;
  /** Writes Byre's `branches.json`: its records of forks, or any text (a damaged file). */
  writeForkRecords(forks: ForkRecord[] | string): void;
  open(options?: Partial<LibraryIndexOptions>): LibraryIndex;
  dispose(): void;
}

export const CWD = '/home/ada/work/parser';

export function createSessionWorld(): SessionWorld {
  const root = mkdtempSync(join(tmpdir(), 'byre-library-'));
  const dataDir = join(root, 'data');
  const configDir = join(root, 'claude');
  const projectsDir = join(configDir, 'projects');
  const transcriptsDir = join(dataDir, 'transcripts');
  const opened: LibraryIndex[] = [];
  return {
    root,
    dataDir,
    configDir,
    projectsDir,
    transcriptsDir,
    writeCli(sessionId, entries, cwd = CWD) {
      const folder = join(projectsDir, cwd.replace(/[^a-zA-Z0-9]/g, '-'));
      mkdirSync(folder, { recursive: true });
      const path = join(folder, `${sessionId}.jsonl`);
      writeFileSync(path, jsonl(entries));
      return path;
    },
    writeTranscript(name, lines) {
      mkdirSync(transcriptsDir, { recursive: true });
      const path = join(transcriptsDir, `${name}.jsonl`);
      writeFileSync(path, jsonl(lines));
      return path;
    },
    writeForkRecords(forks) {
      mkdirSync(dataDir, { recursive: true });
      const text = typeof forks === 'string' ? forks : JSON.stringify({ version: 1, forks });
      writeFileSync(join(dataDir, FORK_RECORDS_FILE), text);
    },
    open(options = {}) {
      // Two text shards whatever the machine, so that every test goes through more than one.
      const index = new LibraryIndex({ dataDir, configDir, textShardCount: 2, ...options });
      opened.push(index);
      return index;
    },
    dispose() {
      for (const index of opened.splice(0)) {
        try {
          void index.close();
        } catch {
          // Closed by the test already.
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export function jsonl(entries: Entry[]): string {
  return entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
}

export function append(path: string, entries: Entry[]): void {
  appendFileSync(path, jsonl(entries));
}

/** Scans, then steps until nothing is left to read. */
export function indexAll(index: LibraryIndex): void {
  index.scan();
  while (index.step()) {
    // Each step is bounded; keep going until the index is done.
  }
}

let clock = Date.parse('2026-11-30T10:00:00.000Z');
function nextTime(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

/** The CLI's session file, entry by entry. */
export const cli = {
  user(sessionId: string, content: unknown, extra: Entry = {}): Entry {
    return {
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content },
      uuid: randomUUID(),
      timestamp: nextTime(),
      userType: 'external',
      entrypoint: 'sdk-cli',
      cwd: CWD,
      sessionId,
      version: '2.1.332',
      gitBranch: 'main',
      ...extra,
    };
  },
  assistant(sessionId: string, content: unknown, extra: Entry = {}): Entry {
    return {
      parentUuid: null,
      isSidechain: false,
      message: {
        id: `msg_${randomUUID()}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-5-5',
        content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
        stop_reason: 'end_turn',
      },
      type: 'assistant',
      uuid: randomUUID(),
      timestamp: nextTime(),
      userType: 'external',
      entrypoint: 'sdk-cli',
      cwd: CWD,
      sessionId,
      version: '2.1.332',
      gitBranch: 'main',
      ...extra,
    };
  },
  queued(sessionId: string, content: string): Entry {
    return { type: 'queue-operation', operation: 'enqueue', timestamp: nextTime(), sessionId, content };
  },
  lastPrompt(sessionId: string, lastPrompt: string): Entry {
    return { type: 'last-prompt', lastPrompt, leafUuid: randomUUID(), sessionId };
  },
  customTitle(sessionId: string, customTitle: string): Entry {
    return { type: 'custom-title', customTitle, sessionId };
  },
  aiTitle(sessionId: string, aiTitle: string): Entry {
    return { type: 'ai-title', aiTitle, sessionId };
  },
  summary(summary: string, leafUuid: string): Entry {
    return { type: 'summary', summary, leafUuid };
  },
};

/**
 * Links entries into one chain as the CLI writes it: each entry with a uuid goes on from the one before
 * (from `parentUuid`, for the first), unless it names its parent already.
 */
export function linked(entries: Entry[], parentUuid: string | null = null): Entry[] {
  let parent = parentUuid;
  return entries.map((entry) => {
    if (typeof entry.uuid !== 'string') return entry;
    const withParent =
      entry.parentUuid === null || entry.parentUuid === undefined ? { ...entry, parentUuid: parent } : entry;
    parent = entry.uuid;
    return withParent;
  });
}

/** A note the CLI puts between a prompt and its answer, as an entry of the chain. */
export function attachment(sessionId: string, extra: Entry = {}): Entry {
  return {
    parentUuid: null,
    isSidechain: false,
    attachment: { type: 'date', date: '2026-11-30' },
    type: 'attachment',
    uuid: randomUUID(),
    timestamp: nextTime(),
    cwd: CWD,
    sessionId,
    ...extra,
  };
}

/** A plain conversation: a prompt and an answer. */
export function conversation(sessionId: string, prompt: string, answer: string, extra: Entry = {}): Entry[] {
  return [
    cli.queued(sessionId, prompt),
    cli.user(sessionId, prompt, extra),
    cli.assistant(sessionId, answer, extra),
    cli.lastPrompt(sessionId, prompt),
  ];
}

/** Byre's transcript of one CLI run, line by line. */
export const byre = {
  initialize(): Entry {
    return {
      dir: 'send',
      msg: { type: 'control_request', request_id: 'req_1', request: { subtype: 'initialize' } },
    };
  },
  send(sessionId: string, content: unknown, uuid = randomUUID()): Entry {
    return {
      dir: 'send',
      msg: {
        type: 'user',
        message: { role: 'user', content },
        parent_tool_use_id: null,
        session_id: sessionId,
        uuid,
      },
    };
  },
  init(sessionId: string, cwd = CWD): Entry {
    return {
      dir: 'recv',
      msg: {
        type: 'system',
        subtype: 'init',
        cwd,
        session_id: sessionId,
        tools: ['Bash'],
        model: 'claude-opus-5-5',
      },
    };
  },
  assistant(sessionId: string, content: unknown, uuid = randomUUID()): Entry {
    return {
      dir: 'recv',
      msg: {
        type: 'assistant',
        message: {
          id: `msg_${randomUUID()}`,
          role: 'assistant',
          content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
        },
        parent_tool_use_id: null,
        session_id: sessionId,
        uuid,
        timestamp: nextTime(),
      },
    };
  },
  toolResult(sessionId: string, toolUseId: string, output: string): Entry {
    return {
      dir: 'recv',
      msg: {
        type: 'user',
        message: {
          role: 'user',
          content: [{ tool_use_id: toolUseId, type: 'tool_result', content: output }],
        },
        parent_tool_use_id: null,
        session_id: sessionId,
        uuid: randomUUID(),
        timestamp: nextTime(),
      },
    };
  },
  setTitle(title: string): Entry {
    return {
      dir: 'recv',
      msg: {
        type: 'control_request',
        request_id: randomUUID(),
        request: {
          subtype: 'mcp_message',
          server_name: 'byre',
          message: {
            method: 'tools/call',
            params: { name: 'set_title', arguments: { title } },
            jsonrpc: '2.0',
            id: 2,
          },
        },
      },
    };
  },
  result(sessionId: string): Entry {
    return {
      dir: 'recv',
      msg: { type: 'result', subtype: 'success', session_id: sessionId, result: 'done' },
    };
  },
};

/** One run of Byre: initialize, a prompt, the CLI's init, an answer, the result. */
export function byreRun(sessionId: string, prompt: string, answer: string, cwd = CWD): Entry[] {
  return [
    byre.initialize(),
    byre.send(sessionId, prompt),
    byre.init(sessionId, cwd),
    byre.assistant(sessionId, answer),
    byre.result(sessionId),
  ];
}
