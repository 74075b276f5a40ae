/**
 * The family, built from the files: how the sessions of one conversation family hang together, as the
 * branch tree (tree.ts) that the library, the branch switcher and the tree show. Built from what the files say and what Byre recorded; pure (no Node or
 * DOM), so the same rules hold wherever it runs.
 *
 * Where branches come from:
 * - Byre's own forks (`branches.json`): a session that parts from `parentSessionId` after `forkPointUuid`.
 * - The CLI's `/branch` command: the new session's file repeats the parent's entries, each marked
 *   `forkedFrom: {sessionId, messageUuid}` (the parent's session, and the entry's own uuid, which the copy
 *   keeps); the last such entry is the fork point. A Byre record wins over it.
 * - Rewinds inside one CLI file: its `parentUuid` chains end in several leaves. The chain that ends at the
 *   file's last entry is the session's own branch; every other leaf is a read-only branch of its own.
 *
 * A fork's file repeats its parent's entries up to the fork point with the same uuids, so a branch's
 * message count takes in the part it shares, and its first message is the first one after the fork point.
 */
import type { BranchInfo, Family, ForkRecord } from './index';

/** One main-thread entry of a session file, in file order (sidechain entries are left out). */
export interface ChainEntry {
  uuid: string;
  /** null where a chain starts. A parent the file does not hold (an entry left out) is taken to be the entry before it. */
  parentUuid: string | null;
  role: 'user' | 'assistant';
  /**
   * A message a person counts: a prompt, or a reply (once, though the CLI writes a line per content block).
   * Tool results and the CLI's own notes are entries of the chain, but not messages.
   */
  isMessage: boolean;
  /** What a person reads of it, cut short (see `shortText`); '' when there is nothing to show. */
  text: string;
  /** ms since the epoch; null when the entry has none. */
  timestamp: number | null;
}

export interface ForkedFrom {
  sessionId: string;
  messageUuid: string;
}

export interface FamilySession {
  sessionId: string;
  title: string;
  /** Its CLI file is there, so it can be resumed or forked. */
  resumable: boolean;
  /** When it was last active, as the library lists it. */
  lastActive: number;
  entries: readonly ChainEntry[];
  /** The last `forkedFrom` among its entries, where the CLI wrote one. */
  forkedFrom: ForkedFrom | null;
}

/** A session as the family's shape needs it: which session, if any, the CLI says it was forked from. */
export interface SessionLink {
  sessionId: string;
  forkedFromSessionId: string | null;
}

/** A branch's first message is cut to this many characters. */
export const FIRST_MESSAGE_CHARS = 200;

/** Text for a branch's first message: one line, cut to FIRST_MESSAGE_CHARS (never inside a surrogate pair). */
export function shortText(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= FIRST_MESSAGE_CHARS) return line;
  const code = line.charCodeAt(FIRST_MESSAGE_CHARS - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? FIRST_MESSAGE_CHARS - 1 : FIRST_MESSAGE_CHARS;
  return `${line.slice(0, end).trimEnd()}…`;
}

// ---------------------------------------------------------------------------------------------------
// Sessions: who parts from whom

interface SessionFork {
  parentSessionId: string;
  forkPointUuid: string | null;
  /** When Byre made it; null for the CLI's forks. */
  createdAt: number | null;
}

/**
 * Each session's parent session, where it has one the family knows: Byre's record first, then the CLI's
 * `forkedFrom`. A parent that is not among `sessions` is dropped (the session is a root of its own), and a
 * cycle is cut at its smallest session id, so every session has exactly one root.
 */
export function sessionParents(
  sessions: readonly SessionLink[],
  records: readonly ForkRecord[],
): Map<string, string> {
  const known = new Set(sessions.map((session) => session.sessionId));
  const latest = latestRecords(records);
  const parents = new Map<string, string>();
  for (const session of sessions) {
    const parent = latest.get(session.sessionId)?.parentSessionId ?? session.forkedFromSessionId;
    if (parent !== null && parent !== session.sessionId && known.has(parent))
      parents.set(session.sessionId, parent);
  }
  cutCycles(parents);
  return parents;
}

/** The session a family is named after: the one its parents lead up to. */
export function familyRoot(parents: ReadonlyMap<string, string>, sessionId: string): string {
  let at = sessionId;
  for (let parent = parents.get(at); parent !== undefined; parent = parents.get(at)) at = parent;
  return at;
}

function latestRecords(records: readonly ForkRecord[]): Map<string, ForkRecord> {
  // Oldest first: a later record of one session replaces an earlier one.
  return new Map(records.map((record) => [record.sessionId, record]));
}

function cutCycles(parents: Map<string, string>): void {
  const done = new Set<string>();
  for (const start of [...parents.keys()]) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let at: string | undefined = start;
    while (at !== undefined && !done.has(at) && !onPath.has(at)) {
      path.push(at);
      onPath.add(at);
      at = parents.get(at);
    }
    if (at !== undefined && onPath.has(at)) {
      const cycle = path.slice(path.indexOf(at));
      parents.delete(cycle.reduce((smallest, id) => (id < smallest ? id : smallest)));
    }
    for (const id of path) done.add(id);
  }
}

// ---------------------------------------------------------------------------------------------------
// One session's entries as a tree

/** A session file's entries linked up: each entry's parent is an earlier entry, or none. */
class EntryTree {
  readonly entries: ChainEntry[] = [];
  private readonly at = new Map<string, number>();
  /** Each entry's parent's index, or -1. */
  readonly parent: number[] = [];
  /** Messages from the top of its chain down to it, itself included. */
  readonly messagesTo: number[] = [];
  readonly hasChild: boolean[] = [];
  /** The key of the branch each entry belongs to (entries of a dead end belong to none). */
  readonly branchOf: (string | undefined)[] = [];
  /** The entry the file ends with; -1 for an empty file. */
  readonly last: number;

  constructor(entries: readonly ChainEntry[]) {
    for (const entry of entries) {
      // A uuid written twice is one entry: the first.
      if (this.at.has(entry.uuid)) continue;
      const index = this.entries.length;
      // The CLI appends, so a parent comes before its children; one not seen yet is an entry left out of
      // the file, and the entry before stands in for it. Nothing here can loop.
      const parent = entry.parentUuid === null ? -1 : (this.at.get(entry.parentUuid) ?? index - 1);
      this.entries.push(entry);
      this.at.set(entry.uuid, index);
      this.parent.push(parent);
      this.messagesTo.push((parent === -1 ? 0 : (this.messagesTo[parent] ?? 0)) + (entry.isMessage ? 1 : 0));
      this.hasChild.push(false);
      this.branchOf.push(undefined);
      if (parent !== -1) this.hasChild[parent] = true;
    }
    const lastUuid = entries.at(-1)?.uuid;
    this.last = lastUuid === undefined ? -1 : (this.at.get(lastUuid) ?? -1);
  }

  indexOf(uuid: string | null): number {
    return uuid === null ? -1 : (this.at.get(uuid) ?? -1);
  }

  /** From `index` up to the top of its chain, stopping before the first entry that already has a branch. */
  pathUp(index: number): { path: number[]; meets: number } {
    const path: number[] = [];
    let at = index;
    while (at !== -1 && this.branchOf[at] === undefined) {
      path.push(at);
      at = this.parent[at] ?? -1;
    }
    return { path, meets: at };
  }

  /** The branch that holds an entry: its own, or that of the nearest entry above it that has one. */
  branchHolding(index: number): string | undefined {
    for (let at = index; at !== -1; at = this.parent[at] ?? -1) {
      const key = this.branchOf[at];
      if (key !== undefined) return key;
    }
    return undefined;
  }

  /** The time of the entry at `index`, or of the nearest one above it that has one. */
  timeAt(index: number): number | null {
    for (let at = index; at !== -1; at = this.parent[at] ?? -1) {
      const time = this.entries[at]?.timestamp;
      if (time !== null && time !== undefined) return time;
    }
    return null;
  }

  /** Leaves other than the file's last entry, in file order. */
  otherLeaves(): number[] {
    const leaves: number[] = [];
    this.hasChild.forEach((hasChild, index) => {
      if (!hasChild && index !== this.last) leaves.push(index);
    });
    return leaves;
  }
}

/** The first message's text and the time of the first entry, of entries given top down. */
function firstOf(tree: EntryTree, path: readonly number[]): { text: string; time: number | null } {
  let text = '';
  let time: number | null = null;
  for (const index of path) {
    const entry = tree.entries[index];
    if (!entry) continue;
    time ??= entry.timestamp;
    if (text === '' && entry.text !== '') text = shortText(entry.text);
  }
  return { text, time };
}

// ---------------------------------------------------------------------------------------------------
// One branch's view

/**
 * The entries a branch of one file shows, by uuid: the chain from `leafUuid` up to its top, and every dead
 * end off that chain that holds no message (the CLI links each of parallel tool calls' results to its own
 * call, so all but one hang off the chain). A dead end that holds a message is another branch. null if no
 * entry has that uuid.
 */
export function branchView(entries: readonly ChainEntry[], leafUuid: string): Set<string> | null {
  const tree = new EntryTree(entries);
  const leaf = tree.indexOf(leafUuid);
  if (leaf === -1) return null;
  const shown = new Set<number>();
  for (let at = leaf; at !== -1; at = tree.parent[at] ?? -1) shown.add(at);
  // A parent comes before its children, so one pass back gathers each subtree, and one forward reaches
  // each dead end from the chain.
  const holdsMessage = tree.entries.map((entry) => entry.isMessage);
  for (let index = tree.entries.length - 1; index >= 0; index -= 1) {
    const parent = tree.parent[index] ?? -1;
    if (parent !== -1 && holdsMessage[index]) holdsMessage[parent] = true;
  }
  tree.entries.forEach((_, index) => {
    const parent = tree.parent[index] ?? -1;
    if (parent !== -1 && !holdsMessage[index] && shown.has(parent)) shown.add(index);
  });
  const uuids = new Set<string>();
  for (const index of shown) {
    const entry = tree.entries[index];
    if (entry) uuids.add(entry.uuid);
  }
  return uuids;
}

// ---------------------------------------------------------------------------------------------------
// The family

/**
 * The family `sessionId` belongs to, among `sessions`: the root's own branch first, then every other branch
 * by when it parted. Throws if `sessionId` is not among `sessions`.
 */
export function buildFamily(
  sessionId: string,
  sessions: readonly FamilySession[],
  records: readonly ForkRecord[],
): Family {
  const byId = new Map(sessions.map((session) => [session.sessionId, session]));
  if (!byId.has(sessionId)) throw new Error(`The session ${sessionId} is not among the family's sessions.`);
  const parents = sessionParents(
    sessions.map((session) => ({
      sessionId: session.sessionId,
      forkedFromSessionId: session.forkedFrom?.sessionId ?? null,
    })),
    records,
  );
  const root = familyRoot(parents, sessionId);
  const children = new Map<string, string[]>();
  for (const [child, parent] of parents) children.set(parent, [...(children.get(parent) ?? []), child]);
  const latest = latestRecords(records);
  const trees = new Map<string, EntryTree>();
  const placed: BranchInfo[] = [];
  // Parents before children: a fork's place is found in its parent's tree.
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const session = byId.get(next);
    if (!session) continue;
    const parentId = parents.get(next) ?? null;
    const fork = parentId === null ? null : forkOf(session, parentId, latest.get(next));
    const parentTree = parentId === null ? undefined : trees.get(parentId);
    const tree = new EntryTree(session.entries);
    trees.set(next, tree);
    placed.push(...placeSession(session, tree, fork, parentTree));
    queue.push(...(children.get(next) ?? []).sort());
  }
  const [first, ...rest] = placed;
  if (!first) throw new Error(`The family of ${sessionId} has no root.`);
  rest.sort((a, b) => a.partedAt - b.partedAt || (a.key < b.key ? -1 : 1));
  return { rootKey: first.key, branches: [first, ...rest] };
}

function forkOf(
  session: FamilySession,
  parentSessionId: string,
  record: ForkRecord | undefined,
): SessionFork {
  if (record && record.parentSessionId === parentSessionId) {
    return { parentSessionId, forkPointUuid: record.forkPointUuid, createdAt: record.createdAt };
  }
  return { parentSessionId, forkPointUuid: session.forkedFrom?.messageUuid ?? null, createdAt: null };
}

/** A session's own branch, then the read-only branches its file's other leaves end. */
function placeSession(
  session: FamilySession,
  tree: EntryTree,
  fork: SessionFork | null,
  parentTree: EntryTree | undefined,
): BranchInfo[] {
  const key = session.sessionId;
  const forkPoint = fork?.forkPointUuid ?? null;
  const inParent = parentTree?.indexOf(forkPoint) ?? -1;
  const inOwn = tree.indexOf(forkPoint);
  // A file that lacks the part it shares (Byre's transcripts of a fork hold only what came after) counts it
  // from its parent.
  const shared = inOwn === -1 && parentTree && inParent !== -1 ? (parentTree.messagesTo[inParent] ?? 0) : 0;
  const { path } = tree.pathUp(tree.last);
  for (const index of path) tree.branchOf[index] = key;
  const topDown = path.reverse();
  const after = inOwn === -1 ? topDown : topDown.slice(topDown.indexOf(inOwn) + 1);
  const first = firstOf(tree, after);
  const own: BranchInfo = {
    key,
    sessionId: session.sessionId,
    leafUuid: null,
    parentKey: fork === null ? null : (parentTree?.branchHolding(inParent) ?? fork.parentSessionId),
    forkPointUuid: fork === null ? null : forkPoint,
    firstMessage: first.text,
    lastActive: session.lastActive,
    partedAt: fork?.createdAt ?? first.time ?? session.lastActive,
    messageCount: shared + (tree.messagesTo[tree.last] ?? 0),
    resumable: session.resumable,
    title: session.title,
  };
  const placed = [own];
  for (const leaf of tree.otherLeaves()) {
    const { path: upward, meets } = tree.pathUp(leaf);
    // A dead end with no message of its own (the CLI links each of parallel tool calls' results to its
    // own call, so all but one end there) is no branch.
    if (!upward.some((index) => tree.entries[index]?.isMessage)) continue;
    const leafUuid = tree.entries[leaf]?.uuid ?? '';
    const branchKey = `${key}#${leafUuid}`;
    for (const index of upward) tree.branchOf[index] = branchKey;
    const mine = firstOf(tree, upward.reverse());
    placed.push({
      key: branchKey,
      sessionId: session.sessionId,
      leafUuid,
      parentKey: meets === -1 ? key : (tree.branchOf[meets] ?? key),
      forkPointUuid: meets === -1 ? null : (tree.entries[meets]?.uuid ?? null),
      firstMessage: mine.text,
      lastActive: tree.timeAt(leaf) ?? session.lastActive,
      partedAt: mine.time ?? session.lastActive,
      messageCount: shared + (tree.messagesTo[leaf] ?? 0),
      resumable: false,
      title: session.title,
    });
  }
  return placed;
}
