/**
 * Snapshots of a folder's working tree, for the Changes panel and for rewinding what shell commands changed
 * (the CLI's own checkpoints see only its file tools, cli-facts 13). Each is a git tree in an object store,
 * written through a PRIVATE index file (`GIT_INDEX_FILE`, `add -A`, `write-tree`), so `.gitignore` is
 * honoured and git's stat cache keeps a snapshot of a barely changed tree cheap. It is kept as a commit
 * under `refs/byre/…`, which keeps its objects from git's gc while Byre needs them.
 *
 * In a repository that is the repository's own object store; outside one, a private repository in Byre's
 * data folder with the folder as its work tree. The user's index, HEAD, branches, stash, hooks and config
 * are never touched: the private index is Byre's file, and writing objects and refs/byre changes nothing a
 * `git status` or `git stash list` reads.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { git } from './git';

/** One file that differs between two snapshots. */
export interface FileChange {
  path: string;
  /** Where a renamed file was. */
  from: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

export interface Snapshot {
  /** The commit that holds it, under its ref. */
  commit: string;
  ref: string;
}

/** Who the snapshot commits are by: Byre, never the user's identity (which may not even be set). */
const BYRE = {
  GIT_AUTHOR_NAME: 'Byre',
  GIT_AUTHOR_EMAIL: 'byre@localhost',
  GIT_COMMITTER_NAME: 'Byre',
  GIT_COMMITTER_EMAIL: 'byre@localhost',
};

/** A ref name part from a conversation id or a label: what git allows in one path component. */
function refPart(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '');
  if (!cleaned || cleaned.endsWith('.lock')) throw new Error(`"${name}" cannot name a snapshot.`);
  return cleaned;
}

export class Snapshots {
  private seeded = false;

  private constructor(
    /** Where git runs: the repository's top level, or the folder itself. */
    readonly workTree: string,
    /** True when the snapshots live in the folder's own repository. */
    readonly inRepository: boolean,
    private readonly env: Record<string, string>,
    private readonly seedIndex: string | null,
    private readonly privateIndex: string,
  ) {}

  /**
   * The snapshots of `folder`, kept with Byre's other state under `store` (its private indexes, and the
   * private repositories of folders that are not in one).
   */
  static async open(folder: string, store: string): Promise<Snapshots> {
    const top = await git(['rev-parse', '--show-toplevel', '--absolute-git-dir'], {
      cwd: folder,
      mayFail: true,
    });
    const [workTree, gitDir] = top?.split('\n').filter(Boolean) ?? [];
    const key = createHash('sha256')
      .update(workTree ?? resolve(folder))
      .digest('hex')
      .slice(0, 24);
    const home = join(store, key);
    await mkdir(home, { recursive: true, mode: 0o700 });
    const privateIndex = join(home, 'index');
    if (workTree && gitDir) {
      return new Snapshots(
        workTree,
        true,
        { GIT_INDEX_FILE: privateIndex },
        join(gitDir, 'index'),
        privateIndex,
      );
    }
    const repository = join(home, 'repository.git');
    await git(['init', '--bare', '--quiet', repository], { cwd: home });
    const where = resolve(folder);
    return new Snapshots(
      where,
      false,
      { GIT_DIR: repository, GIT_WORK_TREE: where, GIT_INDEX_FILE: privateIndex },
      null,
      privateIndex,
    );
  }

  /**
   * Records the working tree as it is now, as `refs/byre/<conversation>/<label>`, on top of `parent` (the
   * conversation's snapshot before, if any).
   */
  async take(conversation: string, label: string, parent: Snapshot | null): Promise<Snapshot> {
    await this.seed();
    const env = { ...this.env, ...BYRE };
    // Every step, not only `add`: git re-reads a racily clean file through its filter wherever it checks the
    // index against the work tree, `write-tree` included.
    const off = await this.noFilters();
    const run = (args: string[]) => git([...off, ...args], { cwd: this.workTree, env });
    await run(['add', '--all', '--', '.']);
    const tree = (await run(['write-tree'])).trim();
    const commit = (
      await run(['commit-tree', tree, ...(parent ? ['-p', parent.commit] : []), '-m', `Byre: ${label}`])
    ).trim();
    const ref = `refs/byre/${refPart(conversation)}/${refPart(label)}`;
    await run(['update-ref', ref, commit]);
    return { commit, ref };
  }

  /** What differs between two snapshots, file by file, renames found. */
  async diff(from: Snapshot, to: Snapshot): Promise<FileChange[]> {
    const cwd = this.workTree;
    const env = this.env;
    const range = [from.commit, to.commit];
    const [names, counts] = await Promise.all([
      git(['diff-tree', '-r', '-z', '-M', '--no-commit-id', '--name-status', ...range], { cwd, env }),
      git(['diff-tree', '-r', '-z', '-M', '--no-commit-id', '--numstat', ...range], { cwd, env }),
    ]);
    const lines = new Map<string, { added: number | null; removed: number | null }>();
    const numstat = counts.split('\0');
    for (let index = 0; index < numstat.length - 1; index++) {
      const [added = '-', removed = '-', path = ''] = (numstat[index] ?? '').split('\t');
      // A rename's paths follow as two fields of their own.
      const to = path === '' ? numstat[(index += 2)] : path;
      if (to === undefined) break;
      lines.set(to, {
        added: added === '-' ? null : Number(added),
        removed: removed === '-' ? null : Number(removed),
      });
    }
    const changes: FileChange[] = [];
    const fields = names.split('\0');
    for (let index = 0; index < fields.length - 1;) {
      const code = fields[index++] ?? '';
      const renamed = code.startsWith('R');
      const before = renamed ? (fields[index++] ?? '') : null;
      const path = fields[index++] ?? '';
      const status = renamed ? 'renamed' : code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified';
      changes.push({ path, from: before, status, ...(lines.get(path) ?? { added: null, removed: null }) });
    }
    return changes.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** Forgets a conversation's snapshots: their refs go, and git's own gc takes the objects in its time. */
  async forget(conversation: string): Promise<void> {
    const prefix = `refs/byre/${refPart(conversation)}/`;
    const refs = await git(['for-each-ref', '--format=%(refname)', prefix], {
      cwd: this.workTree,
      env: this.env,
    });
    for (const ref of refs.split('\n').filter(Boolean)) {
      await git(['update-ref', '-d', ref], { cwd: this.workTree, env: this.env });
    }
  }

  /**
   * Every filter driver git's config names, switched off: `add` would run a driver's clean command, and a
   * repository's own config (one that came in a tarball, say) could name any program. Reading the config
   * runs nothing. A snapshot keeps the bytes on disk, which is what a turn changed.
   */
  private async noFilters(): Promise<string[]> {
    const found = await git(['config', '--get-regexp', '^filter\\..*\\.(clean|smudge|process|required)$'], {
      cwd: this.workTree,
      env: this.env,
      mayFail: true,
    });
    const drivers = new Set(
      (found ?? '')
        .split('\n')
        .map((line) => /^filter\.(.+)\.(?:clean|smudge|process|required)(?:\s|$)/.exec(line)?.[1])
        .filter((name): name is string => !!name),
    );
    // Off, and not required: a required driver left without a command would fail the whole snapshot.
    return [...drivers].flatMap((name) => [
      '-c',
      `filter.${name}.clean=`,
      '-c',
      `filter.${name}.process=`,
      '-c',
      `filter.${name}.required=false`,
    ]);
  }

  /**
   * The first snapshot starts from a copy of the user's index, so git's stat cache spares it from reading
   * every tracked file. The copy is Byre's; the user's index is only read.
   */
  private async seed(): Promise<void> {
    if (this.seeded || !this.seedIndex) return;
    this.seeded = true;
    await copyFile(this.seedIndex, this.privateIndex).catch(() => undefined);
  }
}
