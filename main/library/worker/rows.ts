import { z } from 'zod';
import type { LibraryChoices } from '../../data/library-choices';
import { FileFacts } from '../rules/entries';
import { chooseTitle } from '../rules/titles';
import type { FileRow, FileState, IndexStore, SessionRow } from './store';

/**
 * A session's row in the list, worked out again from all its files whenever one of them changes: one row per
 * session id, whatever holds it, its title by the title rules and the user's own name, its counts, and
 * whether it can be resumed. A file's preview (head and tail) stands in for what is not read yet.
 */

export const Preview = z.object({
  facts: FileFacts,
  /** The file's size when it was previewed. */
  sizeAt: z.number(),
  /** Bytes the preview read, to estimate the message count from. */
  sampled: z.number(),
});
export type Preview = z.infer<typeof Preview>;

export interface SessionFile {
  row: FileRow;
  facts: FileFacts;
}

/** Works out a session's row from all its files (one row per session id, whatever holds it); null if none holds a conversation. */
export function sessionRow(
  store: IndexStore,
  choices: LibraryChoices,
  sessionId: string,
  /** The host a CLI file was copied from; null for this computer's own. */
  hostOfPath: (path: string) => string | null = () => null,
): SessionRow | null {
  const files = sessionFiles(store, sessionId);
  const cli = files.filter((file) => file.row.kind === 'cli');
  const transcripts = files.filter((file) => file.row.kind === 'transcript');
  const primary = cli[0];
  const conversational = files.some(({ facts }) => facts.messages > 0 || hasTitle(facts));
  if (!conversational) return null;
  const first = <T>(pick: (facts: FileFacts) => T | null): T | null => {
    for (const file of [...cli, ...transcripts]) {
      const value = pick(file.facts);
      if (value !== null) return value;
    }
    return null;
  };
  // set_title is "the last one said": the newest transcript that has one, else the CLI file's tool call.
  const setTitle =
    [...transcripts].reverse().find((file) => file.facts.setTitle !== null)?.facts.setTitle ??
    first((facts) => facts.setTitle);
  const rename = choices.rename(sessionId);
  const title = chooseTitle({
    rename,
    setTitle,
    customTitle: first((facts) => facts.customTitle),
    aiTitle: first((facts) => facts.aiTitle),
    summary: primary ? verifiedSummary(store, sessionId, primary.facts) : null,
    firstPrompt: first((facts) => facts.firstPrompt),
    commandFallback: first((facts) => facts.commandFallback),
  });
  // Byre's transcript says where it ran it; a session copied from a host is that host's, unless this
  // computer has its own file of it (a home folder shared with the host, say): then it is this computer's.
  const copiedFrom = cli.map((file) => hostOfPath(file.row.path));
  const host =
    first((facts) => facts.host ?? null) ??
    (copiedFrom.includes(null) ? null : (copiedFrom.find((name) => name !== null) ?? null));
  const present = files.filter((file) => file.row.present === 1);
  const transcriptMessages = transcripts.reduce((sum, file) => sum + file.facts.messages, 0);
  const row: SessionRow = {
    session_id: sessionId,
    title,
    cwd: first((facts) => facts.cwd),
    git_branch: primary?.facts.gitBranch ?? null,
    host,
    last_active: Math.max(...files.map((file) => file.facts.lastActive ?? file.row.mtime)),
    message_count: Math.max(primary?.facts.messages ?? 0, transcriptMessages),
    size_bytes: present.reduce((sum, file) => sum + file.row.size, 0),
    // One Byre ran on another host has its CLI's file there: it resumes there.
    resumable: cli.some((file) => file.row.present === 1) || host ? 1 : 0,
    has_transcript: transcripts.some((file) => file.row.present === 1) ? 1 : 0,
    indexed: present.every((file) => isRead(file.row)) ? 1 : 0,
    hidden: choices.isHidden(sessionId) ? 1 : 0,
    renamed: rename === null ? 0 : 1,
    forked_from: primary?.facts.forkedFrom?.sessionId ?? null,
    rewinds: primary?.facts.rewinds ?? 0,
  };
  return row;
}

/**
 * A session's files with what each says so far: CLI files first (the one in use first: present, newest),
 * then transcripts, oldest first. Subagents' files are not the session's (only their usage counts for it).
 */
export function sessionFiles(store: IndexStore, sessionId: string): SessionFile[] {
  const files = store
    .filesOfSession(sessionId)
    .filter((row) => row.state !== 'sidechain' && row.kind !== 'subagent')
    .map((row) => ({ row, facts: effectiveFacts(row) }));
  const order = (a: SessionFile, b: SessionFile) => {
    if (a.row.kind !== b.row.kind) return a.row.kind === 'cli' ? -1 : 1;
    if (a.row.kind === 'cli') return b.row.present - a.row.present || b.row.mtime - a.row.mtime;
    return (
      (a.facts.firstActive ?? a.row.mtime) - (b.facts.firstActive ?? b.row.mtime) ||
      a.row.path.localeCompare(b.row.path)
    );
  };
  return files.sort(order);
}

function verifiedSummary(store: IndexStore, sessionId: string, facts: FileFacts): string | null {
  for (const summary of [...facts.summaries].reverse()) {
    if (summary.verified || store.hasUuid(sessionId, summary.leafUuid)) return summary.summary;
  }
  return null;
}

/**
 * What a file says so far: what the full read found up to its offset, completed by the preview of its head
 * and tail until the full read has gone past where the preview looked.
 */
export function effectiveFacts(row: Pick<FileRow, 'facts' | 'preview' | 'offset' | 'size'>): FileFacts {
  const full = FileFacts.parse(JSON.parse(row.facts));
  if (row.preview === null) return full;
  const preview = Preview.parse(JSON.parse(row.preview));
  if (row.offset >= preview.sizeAt) return full;
  const sampled = preview.facts;
  const density = preview.sampled > 0 ? sampled.messages / preview.sampled : 0;
  return {
    sessionId: full.sessionId ?? sampled.sessionId,
    cwd: full.cwd ?? sampled.cwd,
    gitBranch: sampled.gitBranch ?? full.gitBranch,
    host: full.host ?? sampled.host ?? null,
    firstActive: full.firstActive ?? sampled.firstActive,
    lastActive: maxOf(full.lastActive, sampled.lastActive),
    firstPrompt: full.firstPrompt ?? sampled.firstPrompt,
    commandFallback: full.commandFallback ?? sampled.commandFallback,
    setTitle: sampled.setTitle ?? full.setTitle,
    customTitle: sampled.customTitle ?? full.customTitle,
    aiTitle: sampled.aiTitle ?? full.aiTitle,
    summaries: [...full.summaries, ...sampled.summaries],
    messages: full.messages + Math.round(density * (row.size - row.offset)),
    lastAssistantId: full.lastAssistantId,
    forkedFrom: full.forkedFrom ?? sampled.forkedFrom,
    // A preview's lines are not contiguous: only the full read follows the chain.
    chainLeaf: full.chainLeaf,
    rewinds: full.rewinds,
  };
}

function hasTitle(facts: FileFacts): boolean {
  return facts.setTitle !== null || facts.customTitle !== null || facts.aiTitle !== null;
}

/** Read to its end, or nothing more will be read from it (until it changes). */
function isRead(row: FileRow): boolean {
  const states: FileState[] = ['reading', 'skipping'];
  return row.needs_preview === 0 && (!states.includes(row.state) || row.offset >= row.size);
}

export function sameRow(a: SessionRow, b: SessionRow): boolean {
  return (Object.keys(b) as (keyof SessionRow)[]).every((key) => a[key] === b[key]);
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
