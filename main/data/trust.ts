import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { z } from 'zod';
import {
  TrustItem,
  type FolderTrust,
  type TrustedFolder,
  type TrustItem as TrustItemType,
} from '../../shared/ipc';
import { Session, type FolderSettingsUse, type SessionOptions } from '../claude';
import { readFolderHere, type FolderSettings } from './folder-content';
import { fromHostFolderKey, hostFolderKey } from './host-folders';
import { programText, type ConfigEntry } from '../machines/git-config';
import { JsonFile } from './json-file';

export { describeFile, type FileText, type FolderSettings } from './folder-content';

/** What a folder carries that Claude Code would take as its own, and its digest (folder-content.ts). */
export function readFolderSettings(cwd: string): FolderSettings {
  const folder = realFolder(cwd);
  return readFolderHere(folder, folder);
}

/**
 * Trust, per folder, as VS Code's workspace trust: restricted until trusted. A folder's settings can run
 * code (hooks, helpers, MCP servers) and widen what Claude may do, its agents and skills can carry hooks and
 * allowed tools, and its CLAUDE.md steers Claude; the CLI applies all of it headless without asking
 * (cli-facts 14). So a folder that holds any of that (folder-content.ts) is asked about before its first CLI
 * starts, once per version of it, and runs restricted (`--setting-sources user --strict-mcp-config`) until
 * trusted: trust is a digest of it all (the scripts its hooks name too), kept by the folder's real path in
 * `trust.json`, so a `git pull` that changes a hook's script asks again. A folder with none of it opens
 * without a question, and unrestricted: restricted would change what is the user's own there (their MCP
 * servers, the rules "Always allow" writes). `TrustGate.startSession` is the only way main
 * starts a CLI (trust.test.ts proves it), so no path (new, resume, fork, rewind preview, restart) can go
 * around it.
 */

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
   * Whether a CLI in `cwd` loads what the folder carries: `loaded` when trusted as it is now, or when it
   * carries nothing; `off` when the user said to open without it; otherwise TrustNeeded, and nothing starts.
   */
  folderSettingsFor(cwd: string): FolderSettingsUse {
    return this.allows(readFolderSettings(cwd));
  }

  /** The same for a folder on a host, judged by its files there, read anew (a Terminal conversation there). */
  async folderSettingsOn(onHost: HostFolder): Promise<FolderSettingsUse> {
    return this.allows(await onHost.read(), onHost);
  }

  /** The same for a folder's settings as read; `host` names the host they were read from, for the question. */
  private allows(settings: FolderSettings, onHost?: { host: string; folder: string }): FolderSettingsUse {
    // A folder carrying none of it has nothing to hold back. Run restricted it would lose what is the user's
    // own: --strict-mcp-config drops their MCP servers, and --setting-sources user the rules "Always allow"
    // writes into the folder.
    if (!settings.needsTrust || this.trusts(settings)) return 'loaded';
    if (this.declined.get(settings.folder) === settings.digest) return 'off';
    if (this.carried(settings)?.declined) return 'off';
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
      if (!onHost) return Session.start({ ...options, folderSettings: 'none' });
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

  /**
   * Whether the user trusted a folder (a path here, or a host's by hostFolderKey) with these programs its
   * repository's git config names (machines/git.ts, a filter like git-crypt's), so that Byre's git runs them:
   * trusted in Byre (not only taken over from Claude Code's record, which never showed them), with each of
   * them among what the question showed, for it, a folder above it, or the repository a worktree of Byre's
   * belongs to, and not opened without its settings since.
   */
  trustsGitPrograms(key: string, programs: readonly ConfigEntry[]): boolean {
    const { folders, forgotten } = this.file.read();
    const shown = programs.map(programText);
    const trusted = (folder: string) => {
      const record = folders[folder];
      if (!record || record.source !== 'byre' || forgotten.includes(folder) || this.declined.has(folder))
        return false;
      const known = new Set(
        record.items.filter((item) => item.kind === 'gitProgram').map((item) => item.text),
      );
      return shown.every((text) => known.has(text));
    };
    const onHost = fromHostFolderKey(key);
    if (onHost) {
      for (let folder = posix.resolve(onHost.folder); ; folder = posix.dirname(folder)) {
        const at = hostFolderKey(onHost.host, folder);
        if (this.declined.has(at)) return false;
        if (trusted(at)) return true;
        if (folder === '/') return false;
      }
    }
    for (let folder = realFolder(key); ; folder = dirname(folder)) {
      if (this.declined.has(folder)) return false;
      if (trusted(folder)) return true;
      const repository = this.worktreeRepository(folder);
      if (repository !== undefined && trusted(realFolder(repository))) return true;
      if (dirname(folder) === folder) return false;
    }
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
