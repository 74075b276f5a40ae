import { MATCH_END, MATCH_START, type SearchHit } from '../../../shared/library';
import {
  containsAll,
  markMatches,
  occurrences,
  parseQuery,
  snippetAround,
  type ParsedQuery,
} from '../rules/query';
import { DEFAULT_SEARCH_LIMIT } from './messages';
import { stopIfSuperseded } from '../search-lanes';
import type { IndexStore, MessageCandidateRow } from './store';
import { messageTime } from './text-store';

/**
 * Search over the index: titles that hold every word, then messages, ranked here rather than by FTS5 (see
 * matchingMessages), with a few hits per session so one long conversation cannot fill the results.
 */

export interface SearchRequest {
  query: string;
  folder?: string | null;
  limit?: number;
  /** `titles`: only the conversations whose titles match, which is quick; `all` (the default): messages too. */
  part?: 'titles' | 'all';
}

/**
 * Asked between a search's steps: true once a newer search of the same searcher has replaced it, which then
 * stops with SearchSuperseded.
 */
export type Superseded = () => boolean;

/** A session shows at most this many hits, so one long conversation cannot fill the results. */
const HITS_PER_SESSION = 3;
/** Search: candidates are read this many at a time, up to a limit, until enough match to rank. */
const CANDIDATE_PAGE = 500;
const MAX_CANDIDATES = 5000;
const RANKED_MATCHES = 250;
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Titles and messages that hold every word of the query (as substrings, ignoring case). Title matches lead
 * (a title is what a person remembers), newest first; then messages, ranked by a BM25 score lifted for
 * recent ones. A session shows a few hits at most.
 */
export function searchIndex(
  store: IndexStore,
  request: SearchRequest,
  now: () => number,
  superseded: Superseded = () => false,
): SearchHit[] {
  const query = parseQuery(request.query);
  if (query.terms.length === 0) return [];
  stopIfSuperseded(superseded);
  const limit = Math.max(1, Math.min(request.limit ?? DEFAULT_SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT));
  const folder = request.folder ?? null;
  const sessions = store.searchedSessions(folder);
  const byId = new Map(sessions.map((session) => [session.session_id, session]));
  const titleHits = sessions
    .filter((session) => containsAll(session.title, query.terms))
    .map((session) => ({ session, uuid: null, text: null }));
  const messages = request.part === 'titles' ? [] : matchingMessages(store, query, folder, now, superseded);
  const messageHits = messages.flatMap((message) => {
    const session = byId.get(message.session_id);
    return session ? [{ session, uuid: message.uuid, text: message.text }] : [];
  });
  const hits: SearchHit[] = [];
  const perSession = new Map<string, number>();
  const seen = new Set<string>();
  for (const { session, uuid, text } of [...titleHits, ...messageHits]) {
    const key = `${session.session_id}\n${uuid}`;
    const count = perSession.get(session.session_id) ?? 0;
    if (seen.has(key) || count >= HITS_PER_SESSION) continue;
    seen.add(key);
    perSession.set(session.session_id, count + 1);
    hits.push({
      sessionId: session.session_id,
      title: session.title,
      cwd: session.cwd,
      lastActive: session.last_active,
      snippet:
        text === null
          ? markMatches(session.title, query.terms, MATCH_START, MATCH_END)
          : snippetAround(markMatches(text, query.terms, MATCH_START, MATCH_END), MATCH_START, MATCH_END),
      messageUuid: uuid,
    });
    if (hits.length >= limit) break;
  }
  return hits;
}

/**
 * The messages that hold every word, best first. The indexes give candidates newest first, a page at a
 * time; each is checked, and the newest few hundred that match are ranked (BM25's term frequency and
 * length, times a lift for recent messages). FTS5's own bm25() is not used: to weigh a word it reads every
 * message that has it, which for a common word in a large library takes far longer than a search may.
 */
function matchingMessages(
  store: IndexStore,
  query: ParsedQuery,
  folder: string | null,
  now: () => number,
  superseded: Superseded,
): MessageCandidateRow[] {
  if (query.match === null && query.words === null) return [];
  stopIfSuperseded(superseded);
  const found: MessageCandidateRow[] = [];
  let before = Number.MAX_SAFE_INTEGER;
  for (let scanned = 0; scanned < MAX_CANDIDATES && found.length < RANKED_MATCHES;) {
    const page = store.candidates({
      match: query.match,
      wordMatch: query.words,
      folder,
      before,
      limit: CANDIDATE_PAGE,
      words: query.terms,
      superseded,
    });
    stopIfSuperseded(superseded);
    for (const row of page) if (containsAll(row.text, query.terms)) found.push(row);
    scanned += page.length;
    const last = page.at(-1);
    if (!last || page.length < CANDIDATE_PAGE) break;
    before = last.id;
  }
  const averageLength = found.reduce((sum, row) => sum + row.text.length, 0) / Math.max(1, found.length);
  const at = now();
  const scored = found.map((row) => {
    const folded = row.text.toLowerCase();
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * row.text.length) / averageLength);
    const relevance = query.terms.reduce((sum, term) => {
      const count = occurrences(folded, term);
      return sum + (count * (BM25_K1 + 1)) / (count + norm);
    }, 0);
    const age = Math.max(0, at - messageTime(row.id));
    return { row, score: relevance * (1 + 1 / (1 + age / WEEK_MS)) };
  });
  return scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id).map(({ row }) => row);
}
