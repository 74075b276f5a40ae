/**
 * What "Merge into <base>" and "Create pull request" start from, drafted from the conversation (issue 28):
 * a commit message whose first line git's tools show whole (at most 72 characters) and whose body says what
 * was asked and which files changed, and a pull request's title and Markdown body saying the same. Pure:
 * the user edits both before anything is done with them.
 */

/** Git's tools (log --oneline, GitHub's list) show a subject of this many characters whole. */
export const SUBJECT_MAX_CHARS = 72;
/** Prompts listed in a draft; the rest are counted. */
export const PROMPTS_LISTED = 10;
/** Files listed in a draft; the rest are counted. */
export const FILES_LISTED = 50;

export interface DraftSource {
  /** The conversation's title, when it has one of its own (a rename, the CLI's); null: none. */
  title: string | null;
  /** The prompts the user sent, oldest first. */
  prompts: readonly string[];
  /** The files that differ from the base, as paths in the repository. */
  files: readonly string[];
  /** The worktree's branch, named when nothing else says what the work is. */
  branch: string;
}

export interface Drafts {
  commitMessage: string;
  title: string;
  body: string;
}

export function draftFinish(source: DraftSource): Drafts {
  const asked = source.prompts.map(firstLine).filter(Boolean);
  const subject = cut(firstLine(source.title ?? '') || asked[0] || `Work from ${source.branch}`);
  const listedPrompts = more(asked, PROMPTS_LISTED, 'prompt');
  const listedFiles = more([...source.files], FILES_LISTED, 'file');
  const commitBody = [
    ...(asked.length > 0 ? ['Asked in the conversation:', ...listedPrompts.map((line) => `- ${line}`)] : []),
    ...(asked.length > 0 && listedFiles.length > 0 ? [''] : []),
    ...(listedFiles.length > 0 ? ['Files changed:', ...listedFiles.map((line) => `- ${line}`)] : []),
  ];
  const prBody = [
    ...(asked.length > 0
      ? ['## What was asked', '', ...listedPrompts.map((line) => `- ${markdownText(line)}`), '']
      : []),
    ...(listedFiles.length > 0
      ? [
          '## Files changed',
          '',
          ...listedFiles.map((line, at) =>
            // The count of the rest is words, not a path.
            at === FILES_LISTED && source.files.length > FILES_LISTED ? `- ${line}` : `- ${codeSpan(line)}`,
          ),
          '',
        ]
      : []),
    'Made with Byre',
  ];
  return {
    commitMessage: commitBody.length > 0 ? `${subject}\n\n${commitBody.join('\n')}\n` : `${subject}\n`,
    title: subject,
    body: `${prBody.join('\n')}\n`,
  };
}

/** A text's first line that says something, its spaces made one. */
function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.replace(/\s+/g, ' ').trim();
}

/** At most SUBJECT_MAX_CHARS, cut at a word where one is near the end, with an ellipsis. */
function cut(line: string): string {
  if (line.length <= SUBJECT_MAX_CHARS) return line;
  const room = line.slice(0, SUBJECT_MAX_CHARS - 1);
  const space = room.lastIndexOf(' ');
  return `${(space > SUBJECT_MAX_CHARS / 2 ? room.slice(0, space) : room).trimEnd()}…`;
}

/** The first `limit` items, and how many more there are, in words. */
function more(items: readonly string[], limit: number, what: string): string[] {
  if (items.length <= limit) return [...items];
  const rest = items.length - limit;
  return [...items.slice(0, limit), `and ${rest} more ${what}${rest === 1 ? '' : 's'}`];
}

/** A prompt as Markdown shows it as typed: characters Markdown would read as markup are escaped. */
function markdownText(text: string): string {
  return text.replace(/([\\`*_{}[\]<>()#+!|~])/g, '\\$1');
}

/** A path as code, fenced with more backticks than it holds in a row. */
function codeSpan(path: string): string {
  const longest = Math.max(0, ...(path.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${path} ${fence}` : `${fence}${path}${fence}`;
}
