/**
 * A repository's own git config as text: which of its settings make git run a program (PROGRAM_KEYS), and
 * which files it includes. Pure, so that a folder's config is read the same way here and from a host (the
 * trust question lists what it names: main/data/folder-content.ts), and no git runs to read it.
 */

/**
 * The settings by which a repository's own config (its .git/config, config.worktree and what they include)
 * makes git run a program, as `git config --get-regexp` takes a pattern: keys as git prints them, the
 * section and the name lower-cased.
 */
export const PROGRAM_KEYS =
  '^(filter\\..*\\.(clean|smudge|process|required)|diff\\..*\\.(textconv|command)|merge\\..*\\.driver|diff\\.external|core\\.(sshcommand|askpass|gitproxy|editor|pager|alternaterefscommand)|credential\\.(.*\\.)?helper|gpg\\.(.*\\.)?program|gpg\\.ssh\\.defaultkeycommand|(commit|tag)\\.gpgsign|protocol\\..*allow|sequence\\.editor|submodule\\..*\\.update|remote\\..*\\.(receivepack|uploadpack))$';

const PROGRAM_KEY = new RegExp(PROGRAM_KEYS);

/** The settings that include another config file: what a listing of PROGRAM_KEYS also asks for (LISTED_KEYS). */
export const INCLUDE_KEY = /^include(if\..*)?\.path$/;

/** What Byre's git lists of a repository's config: the program keys, and the includes (whose files it watches). */
export const LISTED_KEYS = `${PROGRAM_KEYS}|^include(if\\..*)?\\.path$`;

/**
 * Whether a setting makes git run a program: a program key, but a submodule's `update` only as a command
 * (`!…`; checkout, rebase and merge run nothing).
 */
export function isProgramEntry(entry: ConfigEntry): boolean {
  if (!PROGRAM_KEY.test(entry.key)) return false;
  return !/^submodule\..*\.update$/.test(entry.key) || (entry.value ?? '').trimStart().startsWith('!');
}

/** A program setting in words, as the trust question lists it and trust keeps it. */
export function programText(entry: ConfigEntry): string {
  const text = `${entry.key} = ${entry.value ?? 'true'}`;
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

/** One setting: its key as git prints it (section and name lower-cased), and its value; null for a bare key. */
export interface ConfigEntry {
  key: string;
  value: string | null;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' };

/**
 * The settings of a git config file, in order, as git reads them: `[section]`, `[section "sub"]` and the
 * old `[section.sub]`, quoted values with their escapes, `\` continuing a line, `#` and `;` comments. A line
 * git would refuse is skipped (git itself would then stop; nothing of it runs).
 */
export function parseGitConfig(text: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = '';
  let at = 0;
  const n = text.length;
  const toLineEnd = () => {
    while (at < n && text[at] !== '\n') at++;
  };
  while (at < n) {
    const c = text[at] ?? '';
    if (/\s/.test(c)) {
      at++;
      continue;
    }
    if (c === '#' || c === ';') {
      toLineEnd();
      continue;
    }
    if (c === '[') {
      const header = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)")?\s*\]/.exec(
        text.slice(at, at + 4096),
      );
      if (!header) {
        section = '';
        toLineEnd();
        continue;
      }
      const name = (header[1] ?? '').toLowerCase();
      section =
        header[2] === undefined
          ? name
          : `${name}.${header[2].replace(/\\(.)/g, (_all, char: string) => char)}`;
      at += header[0].length;
      continue;
    }
    const named = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(at, at + 1024));
    if (!named || !section) {
      toLineEnd();
      continue;
    }
    at += named[0].length;
    while (at < n && (text[at] === ' ' || text[at] === '\t')) at++;
    const key = `${section}.${named[0].toLowerCase()}`;
    if (text[at] !== '=') {
      entries.push({ key, value: null });
      toLineEnd();
      continue;
    }
    at++;
    let value = '';
    let kept = 0; // the length of value up to its last character that is not unquoted trailing space
    let quoted = false;
    while (at < n) {
      const char = text[at] ?? '';
      if (char === '\n' && !quoted) break;
      if (char === '\n') break; // an open quote at a line's end: git refuses the line; take what there is
      if (!quoted && (char === '#' || char === ';')) {
        toLineEnd();
        break;
      }
      if (char === '"') {
        quoted = !quoted;
        at++;
        kept = value.length;
        continue;
      }
      if (char === '\\') {
        const next = text[at + 1] ?? '';
        at += 2;
        if (next === '\n') continue;
        if (next === '\r' && text[at] === '\n') {
          at++;
          continue;
        }
        value += ESCAPES[next] ?? next;
        kept = value.length;
        continue;
      }
      at++;
      // Unquoted white space is a space to git (a tab too), and none at the start or the end.
      if (!quoted && (char === ' ' || char === '\t' || char === '\r')) {
        if (value.length > 0) value += char === '\r' ? '' : ' ';
        continue;
      }
      value += char;
      kept = value.length;
    }
    entries.push({ key, value: value.slice(0, kept) });
  }
  return entries;
}

/** The settings of a config that make git run a program (PROGRAM_KEYS). */
export function programEntries(entries: readonly ConfigEntry[]): ConfigEntry[] {
  return entries.filter(isProgramEntry);
}

/** The files a config includes (`include.path`, and `includeIf.<condition>.path` whatever its condition). */
export function includedPaths(entries: readonly ConfigEntry[]): string[] {
  return entries
    .filter((entry) => INCLUDE_KEY.test(entry.key) && entry.value)
    .map((entry) => entry.value ?? '');
}
