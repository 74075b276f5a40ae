import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, type posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TrustItem as TrustItemType } from '../../shared/ipc';
import { includedPaths, parseGitConfig, programEntries, programText } from '../machines/git-config';

/**
 * What a folder carries that Claude Code takes as the project's own, in words a person can judge, and its
 * digest: the settings files (hooks, helpers, MCP servers, allow rules), the scripts its hooks name, its
 * agents (whose frontmatter can carry hooks), skills (which Claude invokes by itself, with their allowed
 * tools), commands, output styles, and the instructions it gives Claude (`CLAUDE.md`, `CLAUDE.local.md`,
 * `.claude/CLAUDE.md`, `.claude/rules`) with what they import. Claude Code 2.1.332 skips every one of them
 * with `--setting-sources user --strict-mcp-config` (tried against the fake model: none reached the model's
 * request, nor the init line's agents, skills or commands). Read in rounds (a listing, then what it names,
 * then what those import or run), so that the same reading serves this computer's files and a host's.
 * Also the programs its repository's own git config names (a filter, a diff driver, a credential helper):
 * Byre's git runs them only in a folder the user trusted (main/machines/git.ts).
 */

/** The files of a folder that can run code or widen permissions, as the CLI reads them. */
export const FOLDER_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.mcp.json'];

/** A settings file larger than this is not read: it is shown as unreadable, and so needs trust. */
export const MAX_SETTINGS_BYTES = 1024 * 1024;
/**
 * The most Byre reads of all a folder carries together, here or on a host: a cloned repository could
 * otherwise make it read 200 files of 1 MB of each kind on main's thread before anything shows. Past it,
 * a file is unreadable, saying so, and so needs trust.
 */
export const MAX_FOLDER_BYTES = 16 * 1024 * 1024;
export const overFolderBudget = (total: number) =>
  `Byre reads no more of the folder: what it carries is over ${total} bytes`;
/** How many of a kind the question lists before it sums up the rest. */
const MAX_TEXT = 2_000;

/**
 * Keys of a settings file that neither run code nor widen permissions; anything else needs trust, so a
 * setting this version of Byre does not know is asked about rather than let through. Not cleanupPeriodDays:
 * at 0 Claude Code deletes every session file of every project.
 */
const HARMLESS_KEYS = new Set([
  '$schema',
  'model',
  'outputStyle',
  'includeCoAuthoredBy',
  'attribution',
  'alwaysThinkingEnabled',
  'spinnerTipsEnabled',
  'respectGitignore',
  'language',
  'disableAllHooks',
]);
/** Permission keys that only narrow what Claude may do. */
const NARROWING_PERMISSION_KEYS = new Set(['deny', 'disableBypassPermissionsMode']);
/** Settings that name a command the CLI runs. */
const HELPER_KEYS = new Set(['apiKeyHelper', 'awsAuthRefresh', 'awsCredentialExport', 'otelHeadersHelper']);
const PLUGIN_KEYS = new Set(['enabledPlugins', 'extraKnownMarketplaces', 'pluginConfigs']);

export interface FolderSettings {
  folder: string;
  digest: string;
  items: TrustItemType[];
  needsTrust: boolean;
}

/** The paths of this computer, or POSIX ones (a folder on another host). */
export type Paths = Pick<typeof posix, 'dirname' | 'join' | 'normalize' | 'isAbsolute' | 'relative'>;
export const pathsHere: Paths = { dirname, join, normalize, isAbsolute, relative };

/**
 * The files of `folder` whose contents are its settings, by their name in the question and their path: its
 * own, and every `.mcp.json` above it. Claude Code also starts the servers of those (seen with 2.1.332), not
 * their settings: they count as the folder's own, named by their full path.
 */
export function settingsFilesOf(folder: string, paths: Paths = pathsHere): { file: string; path: string }[] {
  const ancestors: { file: string; path: string }[] = [];
  for (let dir = folder; paths.dirname(dir) !== dir;) {
    dir = paths.dirname(dir);
    ancestors.push({ file: paths.join(dir, '.mcp.json'), path: paths.join(dir, '.mcp.json') });
  }
  return [...FOLDER_SETTINGS_FILES.map((file) => ({ file, path: paths.join(folder, file) })), ...ancestors];
}

/** What one settings file would do, each item in words a person can judge. */
export function describeFile(file: string, text: string): TrustItemType[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [{ file, kind: 'unreadable', text: `${file} is not valid JSON (${(error as Error).message})` }];
  }
  if (!isObject(value)) return [{ file, kind: 'unreadable', text: `${file} does not hold a JSON object` }];
  const items: TrustItemType[] = [];
  const add = (kind: TrustItemType['kind'], text: string) => items.push({ file, kind, text: clip(text) });
  if (file.endsWith('.mcp.json')) {
    describeMcpServers(value.mcpServers, add);
    for (const key of Object.keys(value)) if (key !== 'mcpServers') add('setting', `Sets "${key}"`);
    return items;
  }
  for (const [key, setting] of Object.entries(value)) {
    if (HARMLESS_KEYS.has(key)) continue;
    if (key === 'hooks') describeHooks(setting, add);
    else if (key === 'permissions') describePermissions(setting, add);
    else if (key === 'env' && isObject(setting)) {
      for (const name of Object.keys(setting)) add('env', `Sets the environment variable ${name}`);
    } else if (HELPER_KEYS.has(key)) add('helper', `${key} runs: ${commandText(setting)}`);
    else if (key === 'statusLine') add('helper', `statusLine runs: ${commandText(setting)}`);
    else if (key === 'mcpServers') describeMcpServers(setting, add);
    else if (PLUGIN_KEYS.has(key)) add('plugin', `${key}: ${clip(JSON.stringify(setting))}`);
    else add('setting', `Sets "${key}" to ${clip(JSON.stringify(setting) ?? String(setting))}`);
  }
  return items;
}

export type Add = (kind: TrustItemType['kind'], text: string) => void;

export function describeHooks(hooks: unknown, add: Add): void {
  if (!isObject(hooks)) {
    add('hook', `hooks: ${clip(JSON.stringify(hooks))}`);
    return;
  }
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : [groups]) {
      const matcher =
        isObject(group) && typeof group.matcher === 'string' && group.matcher ? group.matcher : '';
      const list = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [group];
      for (const hook of list) {
        const when = matcher ? `${event} (${matcher})` : event;
        add('hook', `${when}: ${commandText(hook)}`);
      }
    }
  }
}

function describePermissions(permissions: unknown, add: Add): void {
  if (!isObject(permissions)) {
    add('setting', `permissions: ${clip(JSON.stringify(permissions))}`);
    return;
  }
  for (const [key, value] of Object.entries(permissions)) {
    if (NARROWING_PERMISSION_KEYS.has(key)) continue;
    const list = Array.isArray(value) ? value.map((entry) => String(entry)) : [JSON.stringify(value)];
    if (key === 'allow') for (const rule of list) add('allowRule', `Allows without asking: ${rule}`);
    else if (key === 'ask') for (const rule of list) add('askRule', `Asks before: ${rule}`);
    else if (key === 'additionalDirectories')
      for (const dir of list) add('directory', `Opens the folder ${dir}`);
    else if (key === 'defaultMode') add('defaultMode', `Starts in the permission mode ${String(value)}`);
    else add('setting', `Sets permissions.${key} to ${clip(JSON.stringify(value))}`);
  }
}

function describeMcpServers(servers: unknown, add: Add): void {
  if (servers === undefined) return;
  if (!isObject(servers)) {
    add('mcpServer', `mcpServers: ${clip(JSON.stringify(servers))}`);
    return;
  }
  for (const [name, server] of Object.entries(servers)) {
    if (isObject(server) && typeof server.url === 'string') {
      add('mcpServer', `${name}: connects to ${server.url}`);
      if (server.headersHelper !== undefined)
        add('helper', `${name}: headersHelper runs ${commandText(server.headersHelper)}`);
      continue;
    }
    const args = isObject(server) && Array.isArray(server.args) ? server.args.map(String) : [];
    const command = isObject(server) && typeof server.command === 'string' ? server.command : '';
    const env = isObject(server) && isObject(server.env) ? Object.keys(server.env) : [];
    const line = command ? [command, ...args].join(' ') : clip(JSON.stringify(server));
    add('mcpServer', `${name}: runs ${line}${env.length ? ` (sets ${env.join(', ')})` : ''}`);
  }
}

/** The command a hook or helper runs, or what it is when it is not a command. */
function commandText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isObject(value)) {
    if (typeof value.command === 'string') return value.command;
    if (typeof value.url === 'string') return `${String(value.type ?? 'http')} request to ${value.url}`;
    if (typeof value.prompt === 'string') return `a ${String(value.type ?? 'prompt')} hook: ${value.prompt}`;
  }
  return clip(JSON.stringify(value) ?? String(value));
}

/** A settings file as read: its text, not there, or why it could not be read. */
export type FileText =
  { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'unreadable'; reason: string };

/**
 * A settings file's text, opened only once known to be a regular file: a cloned repository's link to a FIFO
 * or a device would otherwise block main's thread in open(), or never end. Opened without blocking (where
 * the platform can) and looked at again once open, in case it was swapped in between.
 */
export function readSmall(path: string, left = MAX_SETTINGS_BYTES): FileText {
  let fd: number;
  try {
    const kind = statSync(path);
    if (kind.isDirectory()) return { kind: 'unreadable', reason: 'it is a folder' };
    if (!kind.isFile()) return { kind: 'unreadable', reason: 'it is not a file' };
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'unreadable', reason: (error as Error).message };
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { kind: 'unreadable', reason: 'it is a folder' };
    if (!stat.isFile()) return { kind: 'unreadable', reason: 'it is not a file' };
    if (stat.size > MAX_SETTINGS_BYTES) return { kind: 'unreadable', reason: `it is over 1 MB` };
    if (stat.size > left) return { kind: 'unreadable', reason: overFolderBudget(MAX_FOLDER_BYTES) };
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return { kind: 'text', text: buffer.subarray(0, read).toString('utf8') };
  } catch (error) {
    return { kind: 'unreadable', reason: (error as Error).message };
  } finally {
    closeSync(fd);
  }
}

/** The folders of a folder's own agents, skills, commands, output styles and rules, and how deep each goes. */
export const PROJECT_FOLDERS: readonly { dir: string; depth: number }[] = [
  { dir: '.claude/agents', depth: 3 },
  { dir: '.claude/skills', depth: 2 },
  { dir: '.claude/commands', depth: 3 },
  { dir: '.claude/output-styles', depth: 2 },
  { dir: '.claude/rules', depth: 3 },
];
/** The instructions Claude Code reads from a folder. */
export const MEMORY_FILES = ['CLAUDE.md', 'CLAUDE.local.md', '.claude/CLAUDE.md'];
/** How many files of one of PROJECT_FOLDERS are read; more are counted, and need trust all the same. */
export const MAX_LISTED = 200;
/** How deep imports are followed, as Claude Code does. */
const MAX_IMPORT_DEPTH = 5;

export interface FolderSettings {
  folder: string;
  digest: string;
  items: TrustItemType[];
  needsTrust: boolean;
}

/** The `.md` files under a folder, by path, in name order (none when it is not there), or why it could not be listed. */
export type Listing = { files: readonly string[] } | { unreadable: string };

type Role =
  | { kind: 'settings'; file: string }
  | { kind: 'memory' }
  | { kind: 'import'; by: string; depth: number }
  | { kind: 'agent' }
  | { kind: 'skill' }
  | { kind: 'command' }
  | { kind: 'outputStyle' }
  | { kind: 'rule' }
  | { kind: 'script'; by: string }
  /** `.git` in the folder or a folder above: a repository's folder, or a file naming one (a worktree's). */
  | { kind: 'gitDir'; repo: string }
  /** A `.git` folder's HEAD: without one, git takes it for no repository and looks further up. */
  | { kind: 'gitHead'; repo: string }
  | { kind: 'gitCommondir'; repo: string; gitdir: string }
  /** A config of the repository at `repo`, as the question names it, and how many includes deep. */
  | { kind: 'gitConfig'; repo: string; label: string; depth: number };

/** How many includes deep a repository's git config is followed: as deep as git itself goes. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * One reading of a folder's own files: `next()` says what to read and list, `add()` takes it, until
 * `next()` asks for nothing; then `result()`.
 */
export class FolderReading {
  private readonly roles = new Map<string, Role>();
  /**
   * What the repository's git reads, apart from `roles`: a file can be both (a CLAUDE.md a config includes,
   * whose `#` lines are comments to git), and each reading follows it.
   */
  private readonly gitRoles = new Map<string, Role>();
  private readonly queued = new Set<string>();
  private readonly texts = new Map<string, FileText>();
  private readonly listings = new Map<string, Listing>();
  private toRead: string[] = [];
  private toList: string[] = [];
  private bytesRead = 0;

  constructor(
    private readonly folder: string,
    private readonly paths: Paths = pathsHere,
  ) {
    for (const { file, path } of settingsFilesOf(folder, paths)) this.want(path, { kind: 'settings', file });
    for (const file of MEMORY_FILES) this.want(paths.join(folder, file), { kind: 'memory' });
    this.toList = PROJECT_FOLDERS.map(({ dir }) => paths.join(folder, dir));
    // The repository the folder is in: its .git here or above, as git looks for it.
    for (let repo = folder; ; repo = paths.dirname(repo)) {
      const dotGit = paths.join(repo, '.git');
      this.wantGit(dotGit, { kind: 'gitDir', repo });
      this.wantGit(paths.join(dotGit, 'HEAD'), { kind: 'gitHead', repo });
      this.wantGit(paths.join(dotGit, 'config'), { kind: 'gitConfig', repo, label: '.git/config', depth: 0 });
      this.wantGit(paths.join(dotGit, 'config.worktree'), {
        kind: 'gitConfig',
        repo,
        label: '.git/config.worktree',
        depth: 0,
      });
      if (paths.dirname(repo) === repo) break;
    }
  }

  /** The files to read and the folders to list next; both empty once all is read. */
  next(): { read: string[]; list: { dir: string; depth: number }[] } {
    const read = this.toRead;
    const list = this.toList.map((dir) => ({
      dir,
      depth: PROJECT_FOLDERS.find((known) => this.paths.join(this.folder, known.dir) === dir)?.depth ?? 1,
    }));
    this.toRead = [];
    this.toList = [];
    return { read, list };
  }

  /** What was read and listed; what they name is asked for next. */
  add(texts: ReadonlyMap<string, FileText>, listings: ReadonlyMap<string, Listing> = new Map()): void {
    for (const [dir, listing] of listings) {
      this.listings.set(dir, listing);
      if (!('files' in listing)) continue;
      const kind = this.kindOf(dir);
      for (const path of listing.files.slice(0, MAX_LISTED)) {
        if (kind === 'skill' && this.paths.relative(dir, path).split('/').at(-1) !== 'SKILL.md') continue;
        this.want(path, { kind });
      }
    }
    for (const [path, text] of texts) {
      if (this.texts.has(path)) continue;
      this.texts.set(path, text);
      if (text.kind !== 'text') continue;
      this.bytesRead += Buffer.byteLength(text.text);
      const gitRole = this.gitRoles.get(path);
      if (gitRole) this.addGit(path, gitRole, text.text);
      const role = this.roles.get(path);
      if (role) this.follow(path, role, text.text);
    }
  }

  /** What a file of the folder's own names next: what it imports, the scripts its hooks run. */
  private follow(path: string, role: Role, text: string): void {
    if (role.kind === 'memory' || role.kind === 'rule' || role.kind === 'import') {
      const depth = role.kind === 'import' ? role.depth : 0;
      if (depth >= MAX_IMPORT_DEPTH) return;
      for (const target of importsOf(text)) {
        const at = this.resolveFrom(this.paths.dirname(path), target);
        if (at) this.want(at, { kind: 'import', by: this.name(path), depth: depth + 1 });
      }
      return;
    }
    if (role.kind === 'script' || role.kind === 'outputStyle') return;
    const hooks = role.kind === 'settings' ? hooksOfSettings(text) : hooksOfFrontmatter(frontmatter(text));
    for (const command of hooks) {
      for (const script of scriptsOf(command, this.folder, this.paths)) {
        this.want(script, { kind: 'script', by: this.name(path) });
      }
    }
  }

  /** What a repository's `.git` file, `commondir` or config names next: its real git folder, its includes. */
  private addGit(path: string, role: Role, text: string): void {
    const { paths } = this;
    const at = (base: string, target: string) =>
      paths.normalize(paths.isAbsolute(target) ? target : paths.join(base, target));
    if (role.kind === 'gitDir') {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
      if (!named) return;
      const gitdir = at(role.repo, named);
      const config = { kind: 'gitConfig', repo: role.repo, depth: 0 } as const;
      this.wantGit(paths.join(gitdir, 'config'), { ...config, label: '.git/config' });
      this.wantGit(paths.join(gitdir, 'config.worktree'), { ...config, label: '.git/config.worktree' });
      this.wantGit(paths.join(gitdir, 'commondir'), { kind: 'gitCommondir', repo: role.repo, gitdir });
    } else if (role.kind === 'gitCommondir') {
      const common = at(role.gitdir, text.trim());
      this.wantGit(paths.join(common, 'config'), {
        kind: 'gitConfig',
        repo: role.repo,
        label: '.git/config',
        depth: 0,
      });
    } else if (role.kind === 'gitConfig' && role.depth < MAX_INCLUDE_DEPTH) {
      for (const included of includedPaths(parseGitConfig(text))) {
        // `~/…` is the user's own file, as their global config is.
        if (included.startsWith('~')) continue;
        const file = at(paths.dirname(path), included);
        // Named as the config that includes it is, when beside it or under it (a worktree's is its repository's).
        const inside = paths.relative(paths.dirname(path), file);
        const label =
          inside && !inside.startsWith('..') && !paths.isAbsolute(inside)
            ? paths.join(paths.dirname(role.label), inside)
            : this.name(file);
        this.wantGit(file, { kind: 'gitConfig', repo: role.repo, label, depth: role.depth + 1 });
      }
    }
  }

  /**
   * The programs the config of the repository the folder is in names (the nearest .git, as git finds it),
   * each an item, and their part of the digest: only what names a program counts, so a commit or a fetch
   * that rewrites the config asks nothing.
   */
  private gitItems(hash: ReturnType<typeof createHash>): TrustItemType[] {
    let repo: string | null = null;
    for (let dir = this.folder; ; dir = this.paths.dirname(dir)) {
      // A .git file naming a git folder, or a .git folder with a HEAD, as git finds a repository.
      const dotGit = this.texts.get(this.paths.join(dir, '.git'));
      const head = this.texts.get(this.paths.join(dir, '.git', 'HEAD'));
      const overBudget =
        dotGit?.kind === 'unreadable' && dotGit.reason === overFolderBudget(MAX_FOLDER_BYTES);
      if (dotGit?.kind === 'text' || head?.kind === 'text' || overBudget) {
        repo = dir;
        break;
      }
      if (this.paths.dirname(dir) === dir) break;
    }
    if (repo === null) return [];
    const items: TrustItemType[] = [];
    // What could not be followed for the budget is asked about, as any file past it is.
    for (const [path, role] of this.gitRoles) {
      const text = this.texts.get(path);
      if (
        (role.kind === 'gitDir' || role.kind === 'gitCommondir') &&
        role.repo === repo &&
        text?.kind === 'unreadable' &&
        text.reason === overFolderBudget(MAX_FOLDER_BYTES)
      ) {
        hash.update(`git ${path}\0unreadable\0`);
        items.push({
          file: this.name(path),
          kind: 'unreadable',
          text: `${this.name(path)} could not be read: ${text.reason}`,
        });
      }
    }
    const configs = [...this.gitRoles.entries()]
      .filter(([, role]) => role.kind === 'gitConfig' && role.repo === repo)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [path, role] of configs) {
      if (role.kind !== 'gitConfig') continue;
      const text = this.texts.get(path);
      if (text?.kind === 'unreadable') {
        hash.update(`git ${path}\0unreadable\0`);
        items.push({
          file: role.label,
          kind: 'unreadable',
          text: `${role.label} could not be read: ${text.reason}`,
        });
        continue;
      }
      if (text?.kind !== 'text') continue;
      for (const { key, value } of programEntries(parseGitConfig(text.text))) {
        hash.update(`git ${role.label}\0${key}=${value ?? ''}\0`);
        items.push({ file: role.label, kind: 'gitProgram', text: programText({ key, value }) });
      }
    }
    return items;
  }

  /** How many more bytes may be read (MAX_FOLDER_BYTES of all of it). */
  budget(): number {
    return Math.max(0, MAX_FOLDER_BYTES - this.bytesRead);
  }

  /** The items and digest of all that was read; `key` is what trust keeps the folder by. */
  result(key: string): FolderSettings {
    const hash = createHash('sha256');
    const items: TrustItemType[] = [];
    for (const { file, path } of settingsFilesOf(this.folder, this.paths)) {
      const text = this.texts.get(path) ?? { kind: 'absent' };
      hash.update(`${file}\0${text.kind === 'text' ? `=${text.text}` : text.kind}\0`);
      if (text.kind === 'absent') continue;
      if (text.kind === 'unreadable') {
        items.push({ file, kind: 'unreadable', text: `${file} could not be read: ${text.reason}` });
        continue;
      }
      items.push(...describeFile(file, text.text));
    }
    for (const dir of [...this.listings.keys()].sort()) {
      const listing = this.listings.get(dir) ?? { files: [] };
      if (!('files' in listing)) {
        hash.update(`list ${dir}\0unreadable\0`);
        items.push({
          file: this.name(dir),
          kind: 'unreadable',
          text: `${this.name(dir)} could not be listed: ${listing.unreadable}`,
        });
        continue;
      }
      const files = listing.files;
      hash.update(`list ${dir}\0${files.length}\0`);
      if (files.length > MAX_LISTED) {
        items.push({
          file: this.name(dir),
          kind: 'unreadable',
          text: `${this.name(dir)} holds more than ${MAX_LISTED} files: Byre shows the first ${MAX_LISTED}`,
        });
      }
    }
    const rest = [...this.roles.entries()]
      .filter(([, role]) => role.kind !== 'settings')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [path, role] of rest) {
      const text = this.texts.get(path) ?? { kind: 'absent' };
      const file = this.name(path);
      hash.update(`${role.kind} ${path}\0${text.kind === 'text' ? `=${text.text}` : text.kind}\0`);
      if (text.kind === 'absent') continue;
      if (text.kind === 'unreadable') {
        items.push({ file, kind: 'unreadable', text: `${file} could not be read: ${text.reason}` });
        continue;
      }
      items.push(...describeProjectFile(file, role, text.text));
    }
    items.push(...this.gitItems(hash));
    return { folder: key, digest: hash.digest('hex'), items, needsTrust: items.length > 0 };
  }

  private want(path: string, role: Role): void {
    if (this.roles.has(path)) return;
    this.roles.set(path, role);
    const text = this.texts.get(path);
    if (!text) this.queue(path);
    else if (text.kind === 'text') this.follow(path, role, text.text);
  }

  private wantGit(path: string, role: Role): void {
    if (this.gitRoles.has(path)) return;
    this.gitRoles.set(path, role);
    const text = this.texts.get(path);
    if (!text) this.queue(path);
    else if (text.kind === 'text') this.addGit(path, role, text.text);
  }

  private queue(path: string): void {
    if (this.queued.has(path)) return;
    this.queued.add(path);
    this.toRead.push(path);
  }

  private kindOf(dir: string): 'agent' | 'skill' | 'command' | 'outputStyle' | 'rule' {
    const name = this.paths.relative(this.folder, dir);
    if (name.endsWith('agents')) return 'agent';
    if (name.endsWith('skills')) return 'skill';
    if (name.endsWith('commands')) return 'command';
    if (name.endsWith('output-styles')) return 'outputStyle';
    return 'rule';
  }

  /** A path as the question names it: relative to the folder when inside it. */
  private name(path: string): string {
    const inside = this.paths.relative(this.folder, path);
    return inside && !inside.startsWith('..') && !this.paths.isAbsolute(inside) ? inside : path;
  }

  /** An import's path: `~/` is the home folder's, which Byre does not read (the user's own files). */
  private resolveFrom(dir: string, target: string): string | null {
    if (target.startsWith('~')) return null;
    return this.paths.normalize(this.paths.isAbsolute(target) ? target : this.paths.join(dir, target));
  }
}

/** What a folder carries, read here; a folder that does not exist carries nothing. */
export function readFolderHere(folder: string, key: string): FolderSettings {
  const reading = new FolderReading(folder);
  for (let round = 0; round < MAX_IMPORT_DEPTH + 4; round++) {
    const { read, list } = reading.next();
    if (read.length === 0 && list.length === 0) break;
    let left = reading.budget();
    const texts = new Map<string, FileText>();
    for (const path of read) {
      const text = readSmall(path, left);
      if (text.kind === 'text') left -= Buffer.byteLength(text.text);
      texts.set(path, text);
    }
    reading.add(texts, new Map(list.map(({ dir, depth }) => [dir, listHere(dir, depth)])));
  }
  return reading.result(key);
}

/**
 * The `.md` files under `dir` here, `depth` folders deep, links followed (a skill is often one), at most
 * MAX_LISTED + 1, in name order.
 */
function listHere(dir: string, depth: number): Listing {
  return { files: mdFilesHere(dir, depth) };
}

function mdFilesHere(dir: string, depth: number): string[] {
  const found: string[] = [];
  const walk = (at: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(at).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (found.length > MAX_LISTED) return;
      const path = join(at, name);
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (left > 1) walk(path, left - 1);
      } else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk(dir, depth);
  return found;
}

/** The paths a Markdown text imports (`@path`), outside code. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[\w.\-/~]+)/g)) {
      const target = match[1]?.replace(/[.,;:)]+$/, '');
      if (target && !found.includes(target)) found.push(target);
    }
  }
  return found;
}

/** A Markdown file's YAML frontmatter, or null when it has none (or it is not YAML). */
export function frontmatter(text: string): Record<string, unknown> | null {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match) return null;
  try {
    const value: unknown = parseYaml(match[1] ?? '', { maxAliasCount: 10 });
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function hooksOfSettings(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? hookCommands(value.hooks) : [];
  } catch {
    return [];
  }
}

function hooksOfFrontmatter(front: Record<string, unknown> | null): string[] {
  return front ? hookCommands(front.hooks) : [];
}

/** Every command line of a `hooks` value, however it is nested. */
function hookCommands(hooks: unknown): string[] {
  if (!isObject(hooks)) return [];
  const commands: string[] = [];
  for (const groups of Object.values(hooks)) {
    for (const group of Array.isArray(groups) ? groups : [groups]) {
      const list = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [group];
      for (const hook of list) {
        if (isObject(hook) && typeof hook.command === 'string') commands.push(hook.command);
        else if (typeof hook === 'string') commands.push(hook);
      }
    }
  }
  return commands;
}

/** Programs that run the file named as their first argument. */
const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'fish',
  'node',
  'deno',
  'bun',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'ruby',
  'perl',
  'php',
  'pwsh',
  'powershell',
  'source',
  '.',
]);

/**
 * The files inside `folder` a hook's command line runs: each command's program when it is a path
 * (`$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh`, `./x`), and the file an interpreter is given (`node hook.js`,
 * `bash .claude/hooks/x.sh`); not what it reads, writes or redirects to. A path outside the folder is not the
 * folder's. Quotes join what they quote to what is next to them, as the shell does.
 */
export function scriptsOf(command: string, folder: string, paths: Paths = pathsHere): string[] {
  const line = command.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, folder).replace(/["']/g, '');
  const found: string[] = [];
  const take = (word: string) => {
    if (!word || word.startsWith('~') || word.includes('$')) return;
    const path = paths.normalize(paths.isAbsolute(word) ? word : paths.join(folder, word));
    const inside = paths.relative(folder, path);
    if (!inside || inside.startsWith('..') || paths.isAbsolute(inside)) return;
    if (!found.includes(path)) found.push(path);
  };
  for (const segment of line.split(/[;&|()\n]+/)) {
    const words: string[] = [];
    let redirected = false;
    for (const word of segment.trim().split(/\s+/)) {
      if (redirected) {
        redirected = false;
        continue;
      }
      if (/^\d*[<>]/.test(word)) {
        // `> file` names its file next; `>file` in the same word.
        redirected = /^\d*[<>]+&?$/.test(word);
        continue;
      }
      if (word) words.push(word);
    }
    while (words[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift();
    const [program, ...args] = words;
    if (!program) continue;
    if (program.includes('/')) take(program);
    const name = program.split('/').at(-1) ?? program;
    if (INTERPRETERS.has(name)) {
      const script = args.find((arg) => !arg.startsWith('-'));
      if (script) take(script);
    }
  }
  return found;
}

/** What one of the folder's own Markdown files or scripts would do, each item in words a person can judge. */
function describeProjectFile(file: string, role: Role, text: string): TrustItemType[] {
  const items: TrustItemType[] = [];
  const add: Add = (kind, words) => items.push({ file, kind, text: clip(words) });
  const front = frontmatter(text);
  const field = (key: string) => {
    const value = front?.[key];
    if (value === undefined || value === null) return '';
    return Array.isArray(value) ? value.map(String).join(', ') : String(value);
  };
  const base = file.split('/').at(-1)?.replace(/\.md$/, '') ?? file;
  const lines = text.split('\n').length;
  const said = (what: string) => {
    const description = field('description');
    return description ? `${what}: ${description}` : what;
  };
  switch (role.kind) {
    case 'memory':
    case 'rule':
      add('instructions', `Instructions for Claude (${plural(lines, 'line')})${firstLine(text)}`);
      break;
    case 'import':
      add('instructions', `Imported into Claude’s instructions by ${role.by} (${plural(lines, 'line')})`);
      break;
    case 'script':
      add('script', `Run by a hook of ${role.by} (${plural(lines, 'line')})`);
      break;
    case 'outputStyle':
      add('outputStyle', said(`Output style “${field('name') || base}”`));
      break;
    case 'agent': {
      const tools = field('tools');
      add('agent', `${said(`Agent “${field('name') || base}”`)}${tools ? ` (tools: ${tools})` : ''}`);
      if (front?.hooks !== undefined) describeHooks(front.hooks, add);
      if (front?.mcpServers !== undefined)
        add('mcpServer', `Its MCP servers: ${clip(JSON.stringify(front.mcpServers))}`);
      const mode = field('permissionMode');
      if (mode) add('defaultMode', `Runs in the permission mode ${mode}`);
      break;
    }
    case 'skill':
    case 'command': {
      const name = role.kind === 'skill' ? field('name') || file.split('/').at(-2) || base : base;
      add(role.kind, said(role.kind === 'skill' ? `Skill “${name}”` : `Command /${name}`));
      const allowed = field('allowed-tools');
      if (allowed) add('allowRule', `Allows without asking, while it runs: ${allowed}`);
      if (front?.hooks !== undefined) describeHooks(front.hooks, add);
      break;
    }
    default:
      break;
  }
  return items;
}

function firstLine(text: string): string {
  const line = text
    .replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, '')
    .split('\n')
    .map((entry) => entry.trim())
    .find((entry) => entry.length > 0);
  return line ? `: ${line.length > 120 ? `${line.slice(0, 120)}…` : line}` : '';
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string | undefined): string {
  const value = text ?? '';
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}
