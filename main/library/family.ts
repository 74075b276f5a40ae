import { buildFamily, shortText, type ChainEntry, type FamilySession } from '../../shared/branches/family';
import type { Family, ForkRecord } from '../../shared/branches';
import { chainParent, emptyFacts, readEntry, type FileFacts } from './rules/entries';
import { eachLine, type LibraryFs } from '../disk/files';
import { isRecord, record, text, timestamp, type JsonRecord } from './rules/json';

/**
 * A family of branches, read from its sessions' files: each file is streamed entry by entry, keeping only
 * what the branch model needs of each (uuid, parent, role, a short text, time), and the model
 * (shared/branches/family.ts) puts them together with Byre's records. Between reads of a few megabytes it
 * yields, so the worker answers other requests while a long file is read.
 */

/** A session of the family, as the index knows it. */
export interface MemberSource {
  sessionId: string;
  title: string;
  resumable: boolean;
  lastActive: number;
  /** The CLI's session file, if it is there: it holds every entry with its parent. */
  cliFile: string | null;
  /** Byre's transcripts of it, oldest first: read when the CLI's file is gone. */
  transcripts: string[];
}

export interface FamilySource {
  /** The session whose family is wanted. */
  sessionId: string;
  sessions: MemberSource[];
  /** Byre's records of the forks among them. */
  records: ForkRecord[];
}

export async function readFamily(source: FamilySource, fs: LibraryFs): Promise<Family> {
  const sessions: FamilySession[] = [];
  let records = source.records;
  for (const member of source.sessions) {
    // Byre records a fork point as the uuid the app knew; where the file has it as a note between messages
    // (which the model does not see), the message it hangs off stands in for it.
    const chain = await readChain(fs, member);
    records = records.map((fork) =>
      fork.parentSessionId === member.sessionId
        ? { ...fork, forkPointUuid: chain.resolve(fork.forkPointUuid) }
        : fork,
    );
    sessions.push({
      sessionId: member.sessionId,
      title: member.title,
      resumable: member.resumable,
      lastActive: member.lastActive,
      entries: chain.entries,
      forkedFrom: chain.forkedFrom,
    });
  }
  return buildFamily(source.sessionId, sessions, records);
}

export interface Chain {
  entries: ChainEntry[];
  forkedFrom: FileFacts['forkedFrom'];
  /** The user or assistant entry a uuid stands for (itself, or the one a note of the CLI's hangs off). */
  resolve(uuid: string | null): string | null;
}

/** The CLI's file if it is there (it has every entry and its parent); else Byre's transcripts, one chain. */
async function readChain(fs: LibraryFs, member: MemberSource): Promise<Chain> {
  if (member.cliFile !== null) {
    const chain = await readCliChain(fs, member.cliFile);
    if (chain) return chain;
  }
  const reader = new TranscriptChain();
  for (const path of member.transcripts) {
    await eachEntry(fs, path, (value, start) => reader.line(value, `${path}:${start}`));
  }
  return reader.chain();
}

/** A CLI session file's chain; null if the file cannot be opened. */
export async function readCliChain(fs: LibraryFs, path: string): Promise<Chain | null> {
  const reader = new CliChain();
  return (await eachEntry(fs, path, (value) => reader.line(value))) ? reader.chain() : null;
}

/**
 * The CLI's session file: main-thread user and assistant entries. Other entries of the chain (attachments,
 * system notes, a compact boundary) are not kept: an entry that goes on from one goes on from the message
 * it hangs off. Progress lines are not part of the chain at all.
 */
class CliChain {
  private readonly entries: ChainEntry[] = [];
  /** Each note's uuid, and the message it hangs off. */
  private readonly notes = new Map<string, string | null>();
  /** Counts messages as the index does, so the family's counts and the list's agree. */
  private readonly facts = emptyFacts();

  line(value: JsonRecord): void {
    const counted = this.facts.messages;
    const read = readEntry('cli', value, this.facts);
    const uuid = text(value.uuid);
    if (uuid === null || value.isSidechain === true || value.type === 'progress') return;
    const parentUuid = this.resolve(chainParent(value));
    if (read === null || (value.type !== 'user' && value.type !== 'assistant')) {
      this.notes.set(uuid, parentUuid);
      return;
    }
    const isMessage = this.facts.messages > counted;
    this.entries.push(
      entryOf(value.type, uuid, parentUuid, read.text, isMessage, timestamp(value.timestamp)),
    );
  }

  resolve(uuid: string | null): string | null {
    return uuid !== null && this.notes.has(uuid) ? (this.notes.get(uuid) ?? null) : uuid;
  }

  chain(): Chain {
    const from = this.facts.forkedFrom;
    return {
      entries: this.entries,
      forkedFrom: from && { ...from, messageUuid: this.resolve(from.messageUuid) ?? from.messageUuid },
      resolve: (uuid) => this.resolve(uuid),
    };
  }
}

/** Byre's transcripts: the prompts it sent and what the CLI answered, in order, one line of descent. */
class TranscriptChain {
  private readonly entries: ChainEntry[] = [];
  private readonly seen = new Set<string>();
  private readonly facts = emptyFacts();

  /** `place` names the line, for a message that has no uuid (Byre kept none before it sent them). */
  line(value: JsonRecord, place: string): void {
    const counted = this.facts.messages;
    const read = readEntry('transcript', value, this.facts);
    if (read === null) return;
    const uuid = read.uuid ?? place;
    // The CLI may echo a prompt back: one entry.
    if (this.seen.has(uuid)) return;
    this.seen.add(uuid);
    const role = record(value.msg)?.type === 'assistant' ? 'assistant' : 'user';
    const isMessage = this.facts.messages > counted;
    this.entries.push(
      entryOf(role, uuid, this.entries.at(-1)?.uuid ?? null, read.text, isMessage, read.time),
    );
  }

  chain(): Chain {
    return { entries: this.entries, forkedFrom: null, resolve: (uuid) => uuid };
  }
}

function entryOf(
  role: 'user' | 'assistant',
  uuid: string,
  parentUuid: string | null,
  said: string | null,
  isMessage: boolean,
  time: number | null,
): ChainEntry {
  return {
    uuid,
    parentUuid,
    role,
    isMessage,
    // A tool's result or a note to the model is not what a person reads as the branch's first message.
    text: isMessage || role === 'assistant' ? shortText(said ?? '') : '',
    timestamp: time,
  };
}

/**
 * Calls `onLine` with each parsed line of a file. Resolves false if the file cannot be opened (it is gone);
 * a file that fails part way keeps what was read of it.
 */
export async function eachEntry(
  fs: LibraryFs,
  path: string,
  onLine: (value: JsonRecord, start: number) => void,
): Promise<boolean> {
  let fd: number;
  try {
    fd = fs.open(path);
  } catch {
    return false;
  }
  try {
    await eachLine(fs, fd, (line, start) => {
      const value = parse(line.toString('utf8'));
      if (value) onLine(value, start);
    });
  } catch {
    // What was read before the failure stands.
  } finally {
    fs.close(fd);
  }
  return true;
}

function parse(line: string): JsonRecord | null {
  if (line.trim() === '') return null;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}
