/**
 * A worktree's name, made from the conversation's first prompt when the user gives none: a few of its
 * words, short, a valid branch name (git check-ref-format's rules for one path component), and not one the
 * repository has already.
 */

const MAX_WORDS = 5;
const MAX_LENGTH = 32;
const FALLBACK = 'conversation';

/** A name for a new worktree (and its branch) from `prompt`, unlike any of `taken`. */
export function worktreeName(prompt: string, taken: ReadonlySet<string>): string {
  const words = prompt
    .normalize('NFKD')
    // Accents go, their letters stay.
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/[\s-]+/)
    .filter(Boolean)
    .slice(0, MAX_WORDS);
  let base = '';
  for (const word of words) {
    const next = base ? `${base}-${word}` : word;
    if (next.length > MAX_LENGTH) break;
    base = next;
  }
  base = base.replace(/^-+|-+$/g, '') || FALLBACK;
  if (!taken.has(base)) return base;
  for (let number = 2; ; number++) {
    const candidate = `${base}-${number}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Whether `name`, as the user typed it, can name a worktree's folder and branch; the reason if not. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'A worktree needs a name.';
  if (name.length > 100) return 'A worktree name is at most 100 characters.';
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return 'A worktree name has letters, digits and . _ - only.';
  if (name.startsWith('-') || name.startsWith('.')) return 'A worktree name cannot begin with - or a dot.';
  if (name.includes('..') || name.endsWith('.lock') || name.endsWith('.')) {
    return 'A worktree name cannot hold "..", or end with "." or ".lock".';
  }
  return null;
}
