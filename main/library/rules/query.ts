/**
 * A search query as the user typed it, turned into what the index can run: words of any characters, each
 * quoted for FTS5 (so `foo.bar(` or `"x"` are searched as they are). The trigram index needs three
 * characters; shorter words only narrow the matches of longer ones, or match titles. Pure.
 */

/** Trigrams need this many characters. */
const TRIGRAM = 3;
/** Words beyond this are ignored: a search is a few words, not a paragraph. */
const MAX_TERMS = 8;
/** A long word is looked up by a few of its trigrams, spread over it; the search checks the rest. */
const TRIGRAMS_PER_TERM = 8;

export interface ParsedQuery {
  /** Every word, as typed. */
  terms: string[];
  /**
   * An FTS5 query for messages that hold every trigram of the words long enough to have one (each trigram
   * quoted, so any character is taken as it is), or null when no word is that long.
   */
  match: string | null;
  /**
   * An FTS5 query for messages that hold every word of the terms, whole (a term such as `foo.bar(` holds
   * `foo` and `bar`), or null when no term has a letter or digit. Not the starts of words: FTS5 answers a
   * prefix by merging the lists of every word that starts so, which made a search several times slower.
   */
  words: string | null;
}

export function parseQuery(query: string): ParsedQuery {
  const terms = query.split(/\s+/u).filter(Boolean).slice(0, MAX_TERMS);
  const trigrams = new Set(terms.flatMap(trigramsOf));
  const words = [
    ...new Set(terms.flatMap((term) => term.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter(Boolean)),
  ];
  return {
    terms,
    match: trigrams.size > 0 ? [...trigrams].map(quoted).join(' AND ') : null,
    words: words.length > 0 ? words.map(quoted).join(' AND ') : null,
  };
}

/** A token for FTS5, taken as it is. */
function quoted(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

function trigramsOf(term: string): string[] {
  const chars = Array.from(term);
  const count = chars.length - TRIGRAM + 1;
  if (count <= 0) return [];
  const picks = Math.min(count, TRIGRAMS_PER_TERM);
  const starts = new Set(
    Array.from({ length: picks }, (_, n) => (picks === 1 ? 0 : Math.round((n * (count - 1)) / (picks - 1)))),
  );
  return [...starts].map((start) => chars.slice(start, start + TRIGRAM).join(''));
}

/** Whether `text` holds every term, ignoring case. */
export function containsAll(text: string, terms: string[]): boolean {
  const folded = text.toLowerCase();
  return terms.every((term) => folded.includes(term.toLowerCase()));
}

/** How much of a message a search hit shows, and how much of it comes before the first match. */
const SNIPPET_CHARS = 200;
const SNIPPET_LEAD = 60;

/**
 * The part of a marked-up text around its first match, on one line: about 200 characters, cut at word
 * boundaries where it can be, never inside a marked match, with an ellipsis where something was left out.
 */
export function snippetAround(marked: string, start: string, end: string): string {
  const anchor = Math.max(0, marked.indexOf(start));
  let from = Math.max(0, anchor - SNIPPET_LEAD);
  if (from > 0) {
    const space = marked.indexOf(' ', from);
    if (space !== -1 && space < anchor) from = space + 1;
  }
  let to = Math.min(marked.length, from + SNIPPET_CHARS);
  if (to < marked.length) {
    const space = marked.lastIndexOf(' ', to);
    if (space > anchor) to = space;
  }
  const open = marked.lastIndexOf(start, to - 1);
  if (open >= from) {
    const close = marked.indexOf(end, open);
    if (close !== -1 && close + end.length > to) to = close + end.length;
  }
  const body = marked.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${body}${to < marked.length ? '…' : ''}`;
}

/** How often `term` occurs in `folded` (already lower case), ignoring case. */
export function occurrences(folded: string, term: string): number {
  const needle = term.toLowerCase();
  let count = 0;
  for (let at = folded.indexOf(needle); at !== -1; at = folded.indexOf(needle, at + needle.length))
    count += 1;
  return count;
}

/** `text` with each occurrence of any term (ignoring case) put between the markers. */
export function markMatches(text: string, terms: string[], start: string, end: string): string {
  if (terms.length === 0) return text;
  // Longest first, so a term inside another does not cut its match short.
  const alternatives = [...terms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(alternatives.join('|'), 'giu');
  return text.replace(pattern, (match) => `${start}${match}${end}`);
}

function escapeRegExp(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
