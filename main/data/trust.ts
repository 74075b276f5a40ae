import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, type posix } from 'node:path';
import { z } from 'zod';
import {
  TrustItem,
  type FolderTrust,
  type TrustedFolder,
  type TrustItem as TrustItemType,
} from '../../shared/ipc';
import { Session, type SessionOptions } from '../claude';
import { JsonFile } from './json-file';

/**
 * Trust, per folder. A folder's `.claude/settings*.json` and `.mcp.json` can run code (hooks, helpers, MCP
 * servers) and widen what Claude may do (allow rules, extra directories, a default mode), and the CLI applies
 * them headless without asking (cli-facts 14). So before a CLI starts in a folder whose files do any of
 * that, the user is asked, once per version of those files: trust is a digest of them, kept by the folder's
 * real path in `trust.json`, so a `git pull` that adds a hook asks again. An untrusted folder's CLI runs
 * with `--setting-sources user --strict-mcp-config`. `TrustGate.startSession` is the only way main starts a
 * CLI (trust.test.ts proves it), so no path (new, resume, fork, rewind preview, restart) can go around it.
 */

/** The files of a folder that can run code or widen permissions, as the CLI reads them. */
export const FOLDER_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.mcp.json'];

/** A settings file larger than this is not read: it is shown as unreadable, and so needs trust. */
export const MAX_SETTINGS_BYTES = 1024 * 1024;
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

/** What the folder's files would do, and their digest; a folder that does not exist has none. */
export function readFolderSettings(cwd: string): FolderSettings {
  const folder = realFolder(cwd);
  return folderSettingsOf(folder, folder, readSmall, pathsHere);
}

/** The paths of this computer, or POSIX ones (a folder on another host). */
type Paths = Pick<typeof posix, 'dirname' | 'join'>;
const pathsHere: Paths = { dirname, join };

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

/**
 * What a folder's files would do, and their digest, from `read`: this computer's files, or those a host
 * sent. `key` is what trust is kept by: the folder's real path here, a host's folder otherwise.
 */
export function folderSettingsOf(
  folder: string,
  key: string,
  read: (path: string) => FileText,
  paths: Paths = pathsHere,
): FolderSettings {
  const hash = createHash('sha256');
  const items: TrustItemType[] = [];
  for (const { file, path } of settingsFilesOf(folder, paths)) {
    const text = read(path);
    hash.update(`${file}\0${text.kind === 'text' ? `=${text.text}` : text.kind}\0`);
    if (text.kind === 'absent') continue;
    if (text.kind === 'unreadable') {
      items.push({ file, kind: 'unreadable', text: `${file} could not be read: ${text.reason}` });
      continue;
    }
    items.push(...describeFile(file, text.text));
  }
  return { folder: key, digest: hash.digest('hex'), items, needsTrust: items.length > 0 };
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

type Add = (kind: TrustItemType['kind'], text: string) => void;

function describeHooks(hooks: unknown, add: Add): void {
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
function readSmall(path: string): FileText {
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

function realFolder(cwd: string): string {
  const folder = resolve(cwd);
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/**
 * Whether Claude Code itself was told to trust the folder (its own dialog, in a terminal): its record in
 * `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`) for the folder or a folder above it, as the CLI
 * reads it. Byre reads that file and never writes it.
 */
export function claudeTrusts(folder: string, env: NodeJS.ProcessEnv): boolean {
  const configDir = env.CLAUDE_CONFIG_DIR;
  const file = configDir ? join(configDir, '.claude.json') : join(env.HOME || homedir(), '.claude.json');
  let projects: Record<string, unknown>;
  try {
    const config: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isObject(config) || !isObject(config.projects)) return false;
    projects = config.projects;
  } catch {
    return false;
  }
  for (let dir = folder; ; dir = dirname(dir)) {
    // On Windows the CLI keys its folders with forward slashes.
    const record = projects[dir] ?? projects[dir.replaceAll('\\', '/')];
    if (isObject(record) && record.hasTrustDialogAccepted === true) return true;
    if (dirname(dir) === dir) return false;
  }
}

const TrustRecord = z.object({
  digest: z.string(),
  trustedAt: z.number(),
  source: z.enum(['byre', 'claude']),
  /** What the files did when trusted, to show what changed when they change. */
  items: z.array(TrustItem).default([]),
});
const TrustFile = z.object({
  folders: z.record(z.string(), TrustRecord).default({}),
  /** Folders whose trust the user took back: Claude Code's own record of them no longer counts. */
  forgotten: z.array(z.string()).default([]),
});
type TrustFile = z.infer<typeof TrustFile>;

/** A CLI would start in a folder whose settings the user has not answered for: ask, then start again. */
/** A folder on another host, for the gate: where it is, and how to read its settings files there. */
export interface HostFolder {
  host: string;
  /** Its path there. */
  folder: string;
  /** Its settings, read there now (keyed by hostFolderKey). */
  read: () => Promise<FolderSettings>;
}

export class TrustNeeded extends Error {
  override readonly name = 'TrustNeeded';
  constructor(
    readonly folder: string,
    /** The host the folder is on; absent: this computer. */
    readonly host?: string,
  ) {
    super(
      `Byre needs to know whether to trust ${folder}${host ? ` on ${host}` : ''} before Claude Code starts there.`,
    );
  }
}

/** The one gate every CLI process of the app starts through. */
export class TrustGate {
  private readonly file: JsonFile<TrustFile>;
  /** "Open without its settings", by folder, for the files as they were: until Byre quits. */
  private readonly declined = new Map<string, string>();
  /**
   * What "Always allow" told the CLI to write into a folder's settings, by folder, until Byre quits: the
   * change it makes to the files is the user's own, and asks nothing.
   */
  private readonly expected = new Map<string, TrustItemType[]>();

  constructor(
    dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly now: () => number = Date.now,
    /**
     * The repository a folder is a Byre worktree of (from worktrees.json), or undefined: a worktree's
     * settings that the repository was trusted with (or opened without) carry to it.
     */
    private readonly worktreeRepository: (folder: string) => string | undefined = () => undefined,
  ) {
    this.file = new JsonFile(join(dataDir, 'trust.json'), TrustFile, () => TrustFile.parse({}));
  }

  /** The question's content for a folder. */
  view(cwd: string): FolderTrust {
    return this.viewOf(readFolderSettings(cwd));
  }

  /** The question's content for a folder's settings as read (here, or from a host). */
  viewOf(settings: FolderSettings): FolderTrust {
    const record = this.file.read().folders[settings.folder];
    const trusted = !settings.needsTrust || this.trusts(settings);
    const changed =
      record && record.digest !== settings.digest
        ? {
            added: settings.items.filter((item) => !record.items.some((old) => sameItem(old, item))),
            removed: record.items.filter((old) => !settings.items.some((item) => sameItem(old, item))),
          }
        : null;
    return { ...settings, trusted, changed };
  }

  /**
   * Whether a CLI in `cwd` loads the folder's settings: yes when they need no trust or are trusted as they
   * are, no when the user said to open without them; otherwise TrustNeeded, and nothing starts.
   */
  folderSettingsFor(cwd: string): boolean {
    return this.allows(readFolderSettings(cwd));
  }

  /** The same for a folder on a host, judged by its files there, read anew (a Terminal conversation there). */
  async folderSettingsOn(onHost: HostFolder): Promise<boolean> {
    return this.allows(await onHost.read(), onHost);
  }

  /** The same for a folder's settings as read; `host` names the host they were read from, for the question. */
  private allows(settings: FolderSettings, onHost?: { host: string; folder: string }): boolean {
    if (!settings.needsTrust || this.trusts(settings)) return true;
    if (this.declined.get(settings.folder) === settings.digest) return false;
    if (this.carried(settings)?.declined) return false;
    throw onHost ? new TrustNeeded(onHost.folder, onHost.host) : new TrustNeeded(settings.folder);
  }

  /**
   * How the repository a worktree belongs to was answered for, when every item of the worktree's files is
   * one the repository has too: trusted with them, or opened without them. Undefined for a folder that is
   * no worktree of Byre's, or whose files hold something the repository's answer did not cover.
   */
  private carried(settings: FolderSettings): { trusted: boolean; declined: boolean } | undefined {
    const repository = this.worktreeRepository(settings.folder);
    if (!repository) return undefined;
    const own = readFolderSettings(repository);
    if (own.folder === settings.folder) return undefined;
    const items = settings.items.map((item) => asRepositoryItem(item, own.folder));
    const covers = (known: readonly TrustItemType[]) =>
      items.every((item) => known.some((old) => sameItem(old, item)));
    const repositoryTrusted = !own.needsTrust || this.trusts(own);
    const record = this.file.read().folders[own.folder];
    const trusted = repositoryTrusted && covers(record?.items ?? own.items);
    const declined = this.declined.get(own.folder) === own.digest && covers(own.items);
    return trusted || declined ? { trusted, declined } : undefined;
  }

  /** Starts a CLI: the only way main does (see the file's comment). */
  startSession(options: SessionOptions, onHost?: HostFolder): Promise<Session> {
    // A folder on another host is judged by its files there, read anew for each start; without them its own
    // settings are never loaded, whatever a folder of the same path on this computer holds.
    if (options.transport) {
      if (!onHost) return Session.start({ ...options, folderSettings: false });
      return onHost
        .read()
        .then((settings) => Session.start({ ...options, folderSettings: this.allows(settings, onHost) }));
    }
    return Session.start({ ...options, folderSettings: this.folderSettingsFor(options.cwd) });
  }

  /** The rules and folders "Always allow" sent for a conversation in `cwd` (the CLI's suggestions). */
  expect(cwd: string, suggestions: readonly unknown[]): void {
    this.expectFor(realFolder(cwd), suggestions);
  }

  /** The same for a folder as trust keeps it (a host's folder: hostFolderKey). */
  expectFor(folder: string, suggestions: readonly unknown[]): void {
    const items = suggestions.flatMap(expectedItems);
    if (items.length > 0) this.expected.set(folder, [...(this.expected.get(folder) ?? []), ...items]);
  }

  /** The user's answer for the files with `digest`; nothing is recorded when they changed meanwhile. */
  decide(cwd: string, digest: string, trust: boolean): void {
    this.decideFor(readFolderSettings(cwd), digest, trust);
  }

  /** The same for a folder's settings as read (here, or from a host). */
  decideFor(settings: FolderSettings, digest: string, trust: boolean): void {
    if (settings.digest !== digest) return;
    if (!trust) {
      this.declined.set(settings.folder, digest);
      return;
    }
    this.declined.delete(settings.folder);
    this.record(settings, 'byre');
  }

  list(): TrustedFolder[] {
    return Object.entries(this.file.read().folders)
      .map(([folder, record]) => ({ folder, trustedAt: record.trustedAt, source: record.source }))
      .sort((a, b) => a.folder.localeCompare(b.folder));
  }

  forget(folder: string): void {
    this.file.update((file) => {
      const { [folder]: _gone, ...folders } = file.folders;
      return { folders, forgotten: [...new Set([...file.forgotten, folder])] };
    });
  }

  /**
   * Trusted as the files are now: by Byre with this digest, or by Claude Code's own record when Byre has
   * not seen the folder's files otherwise (then Byre keeps their digest, so a later change asks).
   */
  private trusts(settings: FolderSettings): boolean {
    const file = this.file.read();
    const record = file.folders[settings.folder];
    if (record?.digest === settings.digest) return true;
    if (this.carried(settings)?.trusted) return true;
    // What changed is only what the user chose with "Always allow": trusted as before (or as it was
    // without settings), with the new digest.
    const expected = this.expected.get(settings.folder) ?? [];
    const before = record?.items ?? [];
    const added = settings.items.filter((item) => !before.some((old) => sameItem(old, item)));
    const removed = before.filter((old) => !settings.items.some((item) => sameItem(old, item)));
    // Without a record, it had nothing that needed trust, unless the user opened it without its settings
    // or took its trust back.
    const wasTrusted =
      record !== undefined ||
      (!file.forgotten.includes(settings.folder) && !this.declined.has(settings.folder));
    if (
      wasTrusted &&
      added.length > 0 &&
      removed.length === 0 &&
      added.every((item) => expected.some((known) => sameItem(known, item)))
    ) {
      this.record(settings, record?.source ?? 'byre');
      return true;
    }
    if (record) return false;
    // Claude Code's record of the repository covers its worktrees too (it looks up the tree), but not what a
    // worktree's branch brings that the repository was never trusted with: that asks.
    if (this.worktreeRepository(settings.folder) !== undefined) return false;
    if (file.forgotten.includes(settings.folder) || !claudeTrusts(settings.folder, this.env)) return false;
    this.record(settings, 'claude');
    return true;
  }

  private record(settings: FolderSettings, source: 'byre' | 'claude'): void {
    this.file.update((file) => ({
      folders: {
        ...file.folders,
        [settings.folder]: { digest: settings.digest, trustedAt: this.now(), source, items: settings.items },
      },
      forgotten: file.forgotten.filter((folder) => folder !== settings.folder),
    }));
  }
}

/** The settings items an "Always allow" suggestion makes, once the CLI has written it to the folder. */
function expectedItems(suggestion: unknown): TrustItemType[] {
  if (!isObject(suggestion)) return [];
  const file =
    suggestion.destination === 'localSettings'
      ? '.claude/settings.local.json'
      : suggestion.destination === 'projectSettings'
        ? '.claude/settings.json'
        : null;
  if (!file) return [];
  if (suggestion.type === 'addRules' && Array.isArray(suggestion.rules)) {
    return suggestion.rules.flatMap((rule) =>
      isObject(rule) && typeof rule.toolName === 'string'
        ? [
            {
              file,
              kind: 'allowRule' as const,
              text: `Allows without asking: ${rule.toolName}${typeof rule.ruleContent === 'string' ? `(${rule.ruleContent})` : ''}`,
            },
          ]
        : [],
    );
  }
  if (suggestion.type === 'addDirectories' && Array.isArray(suggestion.directories)) {
    return suggestion.directories.map((dir) => ({
      file,
      kind: 'directory' as const,
      text: `Opens the folder ${String(dir)}`,
    }));
  }
  return [];
}

/**
 * A worktree's item as the repository's would read: a `.mcp.json` above the worktree that is the
 * repository's own is, for the repository, its `.mcp.json`. A worktree sits inside its repository
 * (`<repository>/.claude/worktrees/<name>`), so the CLI reads the repository's servers there too.
 */
function asRepositoryItem(item: TrustItemType, repository: string): TrustItemType {
  return item.file === join(repository, '.mcp.json') ? { ...item, file: '.mcp.json' } : item;
}

function sameItem(a: TrustItemType, b: TrustItemType): boolean {
  return a.file === b.file && a.kind === b.kind && a.text === b.text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string | undefined): string {
  const value = text ?? '';
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}
