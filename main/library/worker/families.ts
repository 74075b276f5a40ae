import { familyRoot, sessionParents } from '../../../shared/branches/family';
import type { ForkRecord } from '../../../shared/branches';
import type { LibraryRow } from '../../../shared/library';
import type { FamilySource } from '../family';
import { NoSuchSession } from './messages';
import { sessionFiles } from './rows';
import type { FamilyLinkRow, IndexStore, ListedSessionRow } from './store';
import { costOf } from './usage-report';

/**
 * Families of branches: which session each belongs to (by its root's session id), from Byre's records of
 * its forks and the CLI's `forkedFrom`, so the list shows a family once and its tree can be read.
 */

/** Which family each session belongs to (by its root's session id), and how many branches each family has. */
export interface Families {
  rootOf: Map<string, string>;
  branchCount: Map<string, number>;
}

/** Where the family `sessionId` belongs to is read from: its sessions' files and Byre's records of its forks. */
export function familySource(store: IndexStore, forkRecords: ForkRecord[], sessionId: string): FamilySource {
  const { rootOf } = familiesOf(store.familyLinks(), forkRecords);
  const root = rootOf.get(sessionId);
  if (root === undefined) throw new NoSuchSession('That conversation is not in the library.');
  const members = [...rootOf].filter(([, rootId]) => rootId === root).map(([member]) => member);
  const sessions = members.flatMap((member) => {
    const session = store.session(member);
    if (!session) return [];
    const files = sessionFiles(store, member).filter((file) => file.row.present === 1);
    return [
      {
        sessionId: member,
        title: session.title,
        resumable: session.resumable === 1,
        lastActive: session.last_active,
        cliFile: files.find((file) => file.row.kind === 'cli')?.row.path ?? null,
        transcripts: files.filter((file) => file.row.kind === 'transcript').map((file) => file.row.path),
      },
    ];
  });
  const inFamily = new Set(members);
  return { sessionId, sessions, records: forkRecords.filter((fork) => inFamily.has(fork.sessionId)) };
}

/** Families from Byre's records and the CLI's `forkedFrom`, given every session's link (hidden ones still link their family). */
export function familiesOf(links: FamilyLinkRow[], forkRecords: ForkRecord[]): Families {
  const parents = sessionParents(
    links.map((link) => ({ sessionId: link.session_id, forkedFromSessionId: link.forked_from })),
    forkRecords,
  );
  const rootOf = new Map<string, string>();
  const branchCount = new Map<string, number>();
  for (const link of links) {
    const root = familyRoot(parents, link.session_id);
    rootOf.set(link.session_id, root);
    branchCount.set(root, (branchCount.get(root) ?? 0) + 1 + link.rewinds);
  }
  return { rootOf, branchCount };
}

export function toLibraryRow(row: ListedSessionRow, families: Families): LibraryRow {
  const familyKey = families.rootOf.get(row.session_id) ?? row.session_id;
  const cost = costOf({
    estUsd: row.est_usd,
    estimated: row.estimated,
    unpriced: row.unpriced,
    realUsd: row.real_usd,
    realTurns: row.real_turns,
  });
  return {
    sessionId: row.session_id,
    title: row.title,
    cwd: row.cwd,
    gitBranch: row.git_branch,
    ...(row.host ? { host: row.host } : {}),
    lastActive: row.last_active,
    messageCount: row.message_count,
    sizeBytes: row.size_bytes,
    resumable: row.resumable === 1,
    hasTranscript: row.has_transcript === 1,
    branchCount: families.branchCount.get(familyKey) ?? 1,
    familyKey,
    cost: { usd: cost.usd, estimated: cost.estimated },
  };
}
