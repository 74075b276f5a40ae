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
import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { ChangedKind, DiffHunk, FileDiff } from '../../shared/ipc/changes';
import { configEnv, configPairs, git, GitFailed, inRuns, type GitOptions } from '../machines/git';
import { parseHunks } from './hunks';
import { thisMachine, type Machine } from '../machines/machine';

/** One file that differs between two snapshots. */
export interface FileChange {
  path: string;
  /** Where a renamed file was. */
  from: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** What it is now (what it was, when deleted): a symlink or a submodule is listed, never followed. */
  kind: ChangedKind;
  /** Lines added and removed; null for a binary file, a symlink or a submodule. */
  added: number | null;
  removed: number | null;
}

export interface Snapshot {
  /** The commit that holds it, under its ref. */
  commit: string;
  ref: string;
}

/** A snapshot just taken, and the files it had to leave as they were last time because they could not be read. */
export type Taken = Snapshot & { unreadable: string[] };

/** A snapshot, or a commit or tree id. */
export type Treeish = string | Snapshot;
const id = (treeish: Treeish): string => (typeof treeish === 'string' ? treeish : treeish.commit);
/** A full object name (SHA-1 or SHA-256): what a diff is kept by (a ref's target can move). */
const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Diffs kept per folder, the latest asked: the panel's, a step's, a file's. */
const KEPT_DIFFS = 16;
/** Snapshots' trees kept by commit, the latest made. */
const KEPT_TREES = 256;

/** Puts `key` last in `map` (the most recently used), dropping the least recently used past `most`. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, most: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= most) break;
    map.delete(oldest);
  }
}

/** Snapshots cannot be taken of this folder (any more): why, in words the panel shows. */
export class SnapshotsOff extends Error {
  override name = 'SnapshotsOff';
}

/**
 * How many paths one git command line names: short enough for any command line, as Windows takes 32,767
 * characters and a host's shell gets the whole line as one argument of at most 128 KiB (a word there may
 * grow fourfold, escaped).
 */
const PATHS_PER_RUN = { count: 500, bytes: 24_000 };

/** Past these, a snapshot is not taken: a folder of generated output is not worth copying into git. */
export const SNAPSHOT_BOUNDS = { files: 200_000, bytes: 2 * 1024 ** 3 };

/** A file diff longer than this many lines is cut, with a note; a file larger than this is not diffed. */
export const DIFF_BOUNDS = { lines: 200_000, bytes: 32 * 1024 * 1024 };

/** The modes git records, by what they are. */
const SYMLINK_MODE = '120000';
const SUBMODULE_MODE = '160000';

function kindOf(mode: string): ChangedKind {
  return mode === SYMLINK_MODE ? 'symlink' : mode === SUBMODULE_MODE ? 'submodule' : 'file';
}

/**
 * The git work of one private index, one at a time: two conversations in one folder share it, and git locks
 * an index while it writes it.
 */
const indexQueues = new Map<string, Promise<unknown>>();
/** Names the indexes compose() writes, one each. */
let composed = 0;
function oneAtATime<T>(index: string, work: () => Promise<T>): Promise<T> {
  const before = indexQueues.get(index) ?? Promise.resolve();
  const next = before.then(work, work);
  const settled = next.catch(() => undefined);
  indexQueues.set(index, settled);
  void settled.then(() => {
    if (indexQueues.get(index) === settled) indexQueues.delete(index);
  });
  return next;
}

/** What a repository is in the middle of, by the file git keeps for it. */
const REPOSITORY_STATES: [string, string][] = [
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase'],
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['BISECT_LOG', 'a bisect'],
];

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
  /** Diffs already worked out, by their two trees (`diff`). */
  private readonly diffs = new Map<string, Promise<FileChange[]>>();
  /** The tree of each snapshot commit this made (`keep`): a commit and its tree diff alike. */
  private readonly treeOfCommit = new Map<string, string>();

  private constructor(
    /** Where git runs: the repository's top level, or the folder itself. */
    readonly workTree: string,
    /** True when the folder is in a repository (whose own object store may still be read-only, see open). */
    readonly inRepository: boolean,
    private readonly env: Record<string, string>,
    private readonly seedIndex: string | null,
    private readonly privateIndex: string,
    /** The repository's git folder, to tell what it is in the middle of; null outside one. */
    private readonly gitDir: string | null,
    private readonly bounds: typeof SNAPSHOT_BOUNDS,
    /** The computer the folder is on: this one, or a host over ssh. */
    private readonly machine: Machine,
  ) {}

  /** The computer the folder is on: null for this one, else the host's name. */
  get where(): string | null {
    return this.machine.where;
  }

  /** What its git work queues by: the private index, on the computer it is on. */
  private get queueKey(): string {
    return `${this.machine.where ?? ''}\0${this.privateIndex}`;
  }

  private git(args: readonly string[], options: GitOptions & { mayFail: true }): Promise<string | null>;
  private git(args: readonly string[], options: GitOptions): Promise<string>;
  private git(args: readonly string[], options: GitOptions): Promise<string | null> {
    return git(args, { ...options, via: this.machine.git });
  }

  /**
   * The snapshots of `folder`, kept with Byre's other state under `store` (its private indexes, and the
   * private repositories of folders that are not in one, or whose repository cannot be written).
   */
  static async open(
    folder: string,
    store: string,
    bounds: typeof SNAPSHOT_BOUNDS = SNAPSHOT_BOUNDS,
    machine: Machine = thisMachine,
  ): Promise<Snapshots> {
    const { join, resolve } = machine.path;
    const found = await machine.git(
      ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'],
      {
        cwd: folder,
      },
    );
    if (found.code === 'ENOENT') {
      throw new SnapshotsOff(
        machine.where
          ? `Git is not installed on ${machine.where}, so Byre cannot keep snapshots of this folder there. Install git there to see what each turn changes.`
          : 'Git is not installed, so Byre cannot keep snapshots of this folder. Install git to see what each turn changes.',
      );
    }
    // 128: not in a repository. Anything else (a host that could not be asked, git failing) is no answer.
    if (found.code !== 0 && found.code !== 128) {
      throw new GitFailed(['rev-parse', '--show-toplevel'], found.stderr, found.code);
    }
    const [workTree, gitDir, commonDir] = found.code === 0 ? found.stdout.split('\n').filter(Boolean) : [];
    // git gives the common folder relative to where it ran.
    const objects = workTree && gitDir ? join(resolve(folder, commonDir ?? gitDir), 'objects') : null;
    const own = objects !== null && (await machine.writable(objects));
    // One private index per work tree and object store: an index names objects only its store has.
    const key = createHash('sha256')
      .update(`${own ? 'repository' : 'private'}:${workTree ?? resolve(folder)}`)
      .digest('hex')
      .slice(0, 24);
    const home = join(store, key);
    try {
      await machine.makePrivateFolder(home);
      if (!(await machine.writable(home))) throw new Error('it is not writable.');
    } catch (error) {
      throw new SnapshotsOff(`Byre cannot write its snapshots to ${home}: ${reasonOf(error)}`);
    }
    const privateIndex = join(home, 'index');
    if (workTree && gitDir && objects) {
      if (own) {
        return new Snapshots(
          workTree,
          true,
          { GIT_INDEX_FILE: privateIndex },
          join(gitDir, 'index'),
          privateIndex,
          gitDir,
          bounds,
          machine,
        );
      }
      // A repository Byre may not write to (a read-only checkout, another user's): its snapshots go to a
      // private repository that borrows its objects and its ignore rules, and its own files stay untouched.
      const repository = await privateRepository(machine, home);
      await machine.writePrivateFile(join(repository, 'objects', 'info', 'alternates'), `${objects}\n`);
      return new Snapshots(
        workTree,
        true,
        {
          GIT_DIR: repository,
          GIT_WORK_TREE: workTree,
          GIT_INDEX_FILE: privateIndex,
          ...configEnv([['core.excludesFile', join(gitDir, 'info', 'exclude')]]),
        },
        join(gitDir, 'index'),
        privateIndex,
        gitDir,
        bounds,
        machine,
      );
    }
    const repository = await privateRepository(machine, home);
    const where = resolve(folder);
    return new Snapshots(
      where,
      false,
      { GIT_DIR: repository, GIT_WORK_TREE: where, GIT_INDEX_FILE: privateIndex },
      null,
      privateIndex,
      null,
      bounds,
      machine,
    );
  }

  /**
   * Records the working tree as it is now, as `refs/byre/<conversation>/<label>`, on top of `parent` (the
   * conversation's snapshot before, if any). A file that cannot be read keeps what the last snapshot had
   * of it, and is named in `unreadable`.
   */
  take(conversation: string, label: string, parent: Snapshot | null): Promise<Taken> {
    return oneAtATime(this.queueKey, async () => {
      const { tree, unreadable } = await this.writeTree();
      return { ...(await this.keep(conversation, label, tree, parent)), unreadable };
    });
  }

  /**
   * Keeps a tree (one compose made, say) as `refs/byre/<conversation>/<label>`, on top of `parent`: a ref,
   * so git's gc leaves its objects while the conversation needs them.
   */
  async keep(
    conversation: string,
    label: string,
    tree: string,
    parent: Snapshot | null = null,
  ): Promise<Snapshot> {
    const ref = `refs/byre/${refPart(conversation)}/${refPart(label)}`;
    const env = { ...this.env, ...BYRE };
    const commit = (
      await this.git(
        [
          'commit-tree',
          '--no-gpg-sign',
          tree,
          ...(parent ? ['-p', parent.commit] : []),
          '-m',
          `Byre: ${label}`,
        ],
        {
          cwd: this.workTree,
          env,
        },
      )
    ).trim();
    await this.git(['update-ref', ref, commit], { cwd: this.workTree, env });
    remember(this.treeOfCommit, commit, tree, KEPT_TREES);
    return { commit, ref };
  }

  /** The working tree now, as a tree under no ref: what "now" is for a diff, or a check for hand edits. */
  current(): Promise<{ tree: string; unreadable: string[] }> {
    return oneAtATime(this.queueKey, () => this.writeTree());
  }

  /**
   * What differs between two snapshots (commits or trees), file by file, renames found. Git's objects never
   * change, so the answer for two snapshots is kept (by their trees, a snapshot's commit and tree being the
   * same folder): the Changes panel opened again, a file's diff asked for, or a step's files after the turn
   * that listed them, cost no second `git diff-tree` of the whole change (half a second for 1,000 files).
   */
  diff(from: Treeish, to: Treeish): Promise<FileChange[]> {
    const [a, b] = [id(from), id(to)].map((name) => this.treeOfCommit.get(name) ?? name);
    if (!a || !b || !OBJECT_NAME.test(a) || !OBJECT_NAME.test(b)) return this.diffAnew(from, to);
    // The same tree at both ends (nothing changed since the last turn): nothing differs.
    if (a === b) return Promise.resolve([]);
    const key = `${a}..${b}`;
    let kept = this.diffs.get(key);
    if (!kept) {
      kept = this.diffAnew(from, to);
      // A failure (git killed, a disk error) is not kept: the next asks again.
      kept.catch(() => this.diffs.delete(key));
    }
    remember(this.diffs, key, kept, KEPT_DIFFS);
    // Each caller gets its own list (of the same, never changed, entries).
    return kept.then((changes) => [...changes]);
  }

  private async diffAnew(from: Treeish, to: Treeish): Promise<FileChange[]> {
    const cwd = this.workTree;
    const env = this.env;
    const range = [id(from), id(to)];
    const plain = ['diff-tree', '-r', '-z', '-M', '--no-commit-id', '--no-ext-diff', '--no-textconv'];
    const [raw, counts] = await Promise.all([
      this.git([...plain, '--raw', ...range], { cwd, env }),
      this.git([...plain, '--numstat', ...range], { cwd, env }),
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
    const fields = raw.split('\0');
    for (let index = 0; index < fields.length - 1;) {
      // ":<old mode> <new mode> <old sha> <new sha> <status>", then the path (two for a rename or copy).
      const [oldMode = '', newMode = '', , , code = ''] = (fields[index++] ?? '').slice(1).split(' ');
      const renamed = code.startsWith('R') || code.startsWith('C');
      const before = renamed ? (fields[index++] ?? '') : null;
      const path = fields[index++] ?? '';
      const status = renamed ? 'renamed' : code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified';
      const kind = kindOf(status === 'deleted' ? oldMode : newMode);
      const counted = kind === 'file' ? lines.get(path) : undefined;
      changes.push({ path, from: before, status, kind, ...(counted ?? { added: null, removed: null }) });
    }
    return changes.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * One file's diff between two snapshots (commits or trees): its hunks, cut past DIFF_BOUNDS; a binary
   * file's sizes; a symlink's targets or a submodule's commits, neither followed. `oldPath`: where a renamed
   * file was.
   */
  async fileDiff(start: Treeish, end: Treeish, path: string, oldPath: string = path): Promise<FileDiff> {
    const from = id(start);
    const to = id(end);
    const [before, after] = await Promise.all([this.entry(from, oldPath), this.entry(to, path)]);
    const kinds = [before?.mode, after?.mode].filter((mode): mode is string => !!mode).map(kindOf);
    if (kinds.includes('submodule')) {
      return { kind: 'submodule', path, before: before?.object ?? null, after: after?.object ?? null };
    }
    if (kinds.includes('symlink')) {
      const [a, b] = await Promise.all([this.blobText(before), this.blobText(after)]);
      return { kind: 'symlink', path, before: a, after: b };
    }
    const [sizeBefore, sizeAfter] = await Promise.all([this.blobSize(before), this.blobSize(after)]);
    const largest = Math.max(sizeBefore ?? 0, sizeAfter ?? 0);
    if (largest > DIFF_BOUNDS.bytes) {
      return {
        kind: 'text',
        path,
        hunks: [],
        cut: `The file is too large to show here (${megabytes(largest)} MB); Byre shows files up to ${megabytes(DIFF_BOUNDS.bytes)} MB.`,
      };
    }
    const paths = oldPath === path ? [path] : [oldPath, path];
    const patch = await this.git(
      [
        '--literal-pathspecs',
        'diff-tree',
        '-p',
        '-M',
        '-U3',
        '--no-color',
        '--no-ext-diff',
        '--no-textconv',
        '--no-commit-id',
        from,
        to,
        '--',
        ...paths,
      ],
      { cwd: this.workTree, env: this.env },
    );
    if (/^(Binary files .* differ|GIT binary patch)$/m.test(patch)) {
      return { kind: 'binary', path, before: sizeBefore, after: sizeAfter };
    }
    const { hunks, lines } = parseHunks(patch, DIFF_BOUNDS.lines);
    return { kind: 'text', path, hunks, cut: lines > DIFF_BOUNDS.lines ? cutNote(hunks, lines) : null };
  }

  /**
   * Sets these working-tree paths to what they are in `from` (a commit or tree): written back, or deleted
   * where `from` has no such file. Nothing else is touched: not the user's index, not another file.
   */
  async restore(source: Treeish, paths: readonly string[]): Promise<void> {
    const from = id(source);
    for (const path of paths) mustBeInside(path);
    return await oneAtATime(this.queueKey, async () => {
      const present = new Set<string>();
      for (const run of inRuns(paths, PATHS_PER_RUN)) {
        const listed = await this.git(
          ['--literal-pathspecs', 'ls-tree', '-r', '-z', '--name-only', from, '--', ...run],
          {
            cwd: this.workTree,
            env: this.env,
          },
        );
        for (const path of listed.split('\0')) if (path) present.add(path);
      }
      const written = paths.filter((path) => present.has(path));
      if (written.length > 0) {
        const env = await this.withoutFilters();
        const restored = await this.machine.git(
          [
            '--literal-pathspecs',
            'restore',
            `--source=${from}`,
            '--worktree',
            '--pathspec-from-file=-',
            '--pathspec-file-nul',
          ],
          { cwd: this.workTree, env, input: written.join('\0') },
        );
        if (restored.code !== 0)
          throw new Error(`The files could not be restored: ${firstLine(restored.stderr)}`);
      }
      await this.removeAll(paths.filter((path) => !present.has(path)));
    });
  }

  /**
   * `base` with `paths` as `source` has them (left out where `source` has none), as a tree under no ref:
   * what a snapshot would read had only those paths changed. Written through an index of its own.
   */
  async compose(base: Treeish, source: Treeish, paths: readonly string[]): Promise<string> {
    for (const path of paths) mustBeInside(path);
    // Unique on the computer the store is on, whichever Byre (of whichever computer) composes there.
    const index = `${this.privateIndex}.compose-${process.pid}-${++composed}-${randomBytes(4).toString('hex')}`;
    const run = (args: string[], input?: string) =>
      this.git(args, {
        cwd: this.workTree,
        env: { ...this.env, GIT_INDEX_FILE: index },
        ...(input === undefined ? {} : { input }),
      });
    try {
      await run(['read-tree', id(base)]);
      const entries = new Map<string, string>();
      for (const some of inRuns(paths, PATHS_PER_RUN)) {
        const listed = await run([
          '--literal-pathspecs',
          'ls-tree',
          '-r',
          '-z',
          '--full-tree',
          id(source),
          '--',
          ...some,
        ]);
        for (const line of listed.split('\0')) {
          const tab = line.indexOf('\t');
          if (tab !== -1) entries.set(line.slice(tab + 1), line.slice(0, tab));
        }
      }
      // "<mode> <type> <object>\t<path>" puts a path in; mode 0 takes it out.
      const none = `0 ${'0'.repeat(id(base).length)}`;
      const info = paths.map((path) => `${entries.get(path) ?? none}\t${path}\0`).join('');
      if (info) await run(['update-index', '-z', '--index-info'], info);
      return (await run(['write-tree'])).trim();
    } finally {
      await this.machine.remove(index);
    }
  }

  /** Whether the store still has this snapshot (git's gc or a new repository may have taken it). */
  async has(commit: string): Promise<boolean> {
    const found = await this.git(['cat-file', '-e', `${commit}^{commit}`], {
      cwd: this.workTree,
      env: this.env,
      mayFail: true,
    });
    return found !== null;
  }

  /** What the repository is in the middle of ("a rebase", "a merge"…), or null. Snapshots go on regardless. */
  async repositoryState(): Promise<string | null> {
    const gitDir = this.gitDir;
    if (!gitDir) return null;
    const kinds = await this.machine.kinds(
      REPOSITORY_STATES.map(([file]) => this.machine.path.join(gitDir, file)),
    );
    return REPOSITORY_STATES.find((_, index) => kinds[index] !== null)?.[1] ?? null;
  }

  /** That files .gitignore leaves out are not tracked, with how many (a folder counts once), or null. */
  async ignoredNote(): Promise<string | null> {
    const listed = await this.git(
      ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
      {
        cwd: this.workTree,
        env: this.env,
        mayFail: true,
      },
    );
    const count = (listed ?? '').split('\0').filter(Boolean).length;
    if (count === 0) return null;
    return count === 1
      ? 'One file or folder that .gitignore leaves out is not tracked.'
      : `${count.toLocaleString('en-US')} files and folders that .gitignore leaves out are not tracked.`;
  }

  /** Forgets a conversation's snapshots: their refs go, and git's own gc takes the objects in its time. */
  async forget(conversation: string): Promise<void> {
    const prefix = `refs/byre/${refPart(conversation)}/`;
    const refs = await this.git(['for-each-ref', '--format=%(refname)', prefix], {
      cwd: this.workTree,
      env: this.env,
    });
    for (const ref of refs.split('\n').filter(Boolean)) {
      await this.git(['update-ref', '-d', ref], { cwd: this.workTree, env: this.env });
    }
    // A private repository nothing needs any more goes whole, and its disk with it; in the user's own
    // repository, git's gc takes the objects in its time.
    if (this.inRepository) return;
    await oneAtATime(this.queueKey, async () => {
      const left = await this.git(['for-each-ref', '--count=1', 'refs/byre/'], {
        cwd: this.workTree,
        env: this.env,
      });
      if (left.trim() === '') await this.machine.remove(this.machine.path.dirname(this.privateIndex));
    });
  }

  /** The working tree into the private index, as a tree: bounded, and past files it cannot read. */
  private async writeTree(): Promise<{ tree: string; unreadable: string[] }> {
    // A private repository another conversation of this folder forgot whole: made again.
    if (
      !this.inRepository &&
      this.env.GIT_DIR &&
      (await this.machine.kinds([this.env.GIT_DIR]))[0] === null
    ) {
      const home = this.machine.path.dirname(this.privateIndex);
      await this.machine.makePrivateFolder(home);
      await privateRepository(this.machine, home);
    }
    await this.seed();
    const cwd = this.workTree;
    // Neither reads a file's content, so neither runs a filter: they can go at once.
    const [off] = await Promise.all([this.withoutFilters(), this.withinBounds()]);
    const add = ['add', '--all', '--ignore-errors', '--', '.'];
    const added = await this.machine.git(add, { cwd, env: off });
    const unreadable = added.code === 0 ? [] : unreadablePaths(added.stderr);
    if (added.code !== 0 && unreadable.length === 0) throw new GitFailed(add, added.stderr, added.code);
    // Every step, not only `add`: git re-reads a racily clean file through its filter wherever it checks the
    // index against the work tree, `write-tree` included.
    const tree = (await this.git(['write-tree'], { cwd, env: off })).trim();
    // The user's repository's settings decide the mode git gives it; it is Byre's, and private.
    await this.machine.makePrivate(this.privateIndex);
    return { tree, unreadable };
  }

  /**
   * The files this snapshot would add for the first time (everything, in a folder's first one): past
   * SNAPSHOT_BOUNDS, no snapshot is taken, rather than copying a node_modules install into git.
   */
  private async withinBounds(): Promise<void> {
    const listed = await this.git(['ls-files', '-z', '--others', '--exclude-standard'], {
      cwd: this.workTree,
      env: this.env,
    });
    const paths = listed.split('\0').filter(Boolean);
    if (paths.length > this.bounds.files) {
      throw new SnapshotsOff(
        `Byre stopped taking snapshots: ${paths.length.toLocaleString('en-US')} new files appeared at once (more than ${this.bounds.files.toLocaleString('en-US')}), too many to count. Add the folder they are in to .gitignore to count the rest again.`,
      );
    }
    let bytes = 0;
    // In runs, each one piece of work on a host, stopping at the first that passes the bound.
    for (let at = 0; at < paths.length; at += 10_000) {
      bytes += await this.machine.bytes(this.workTree, paths.slice(at, at + 10_000));
      if (bytes > this.bounds.bytes) {
        throw new SnapshotsOff(
          `Byre stopped taking snapshots: the new files come to more than ${megabytes(this.bounds.bytes).toLocaleString('en-US')} MB, too much to copy. Add the folder they are in to .gitignore to count the rest again.`,
        );
      }
    }
  }

  /** A path's entry in a snapshot: its mode and object, or null where it has none. */
  private async entry(treeish: string, path: string): Promise<{ mode: string; object: string } | null> {
    const listed = await this.git(['--literal-pathspecs', 'ls-tree', '-z', treeish, '--', path], {
      cwd: this.workTree,
      env: this.env,
    });
    for (const line of listed.split('\0')) {
      const tab = line.indexOf('\t');
      if (tab === -1 || line.slice(tab + 1) !== path) continue;
      const [mode = '', , object = ''] = line.slice(0, tab).split(' ');
      return { mode, object };
    }
    return null;
  }

  private async blobSize(entry: { object: string } | null): Promise<number | null> {
    if (!entry) return null;
    return Number(
      (await this.git(['cat-file', '-s', entry.object], { cwd: this.workTree, env: this.env })).trim(),
    );
  }

  private async blobText(entry: { object: string } | null): Promise<string | null> {
    if (!entry) return null;
    return this.git(['cat-file', 'blob', entry.object], { cwd: this.workTree, env: this.env });
  }

  /**
   * Deletes the files a revert takes back to not existing, and the folders they leave empty; never through
   * a symlink, never a folder (a submodule's is left). Each is looked at first, all in one look, so nothing
   * is deleted when one of them cannot be; then they go in one piece of work, and the emptied folders in
   * another (on a host, a few ssh runs however many files).
   */
  private async removeAll(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const { join, dirname, sep } = this.machine.path;
    // Each folder on the way, then the file itself.
    const chains = paths.map((path) => {
      const parts = path.split('/');
      return parts.map((_, depth) => join(this.workTree, ...parts.slice(0, depth + 1)));
    });
    const looked = [...new Set(chains.flat())];
    const found = await this.machine.kinds(looked);
    const kindOf = new Map(looked.map((at, index) => [at, found[index] ?? null]));
    const doomed: string[] = [];
    paths.forEach((path, index) => {
      const chain = chains[index] ?? [];
      for (let depth = 0; depth < chain.length - 1; depth++) {
        const kind = kindOf.get(chain[depth] ?? '');
        if (kind === null) return;
        if (kind !== 'folder') {
          throw new Error(
            `${path} could not be deleted: ${path
              .split('/')
              .slice(0, depth + 1)
              .join('/')} is not a folder.`,
          );
        }
      }
      const kind = kindOf.get(chain.at(-1) ?? '');
      if (kind === null) return;
      if (kind === 'folder') throw new Error(`${path} is a folder now; Byre deletes only files.`);
      doomed.push(join(this.workTree, path));
    });
    await this.machine.unlinkAll(doomed).catch((error: unknown) => {
      throw new Error(`Files could not be deleted: ${reasonOf(error)}`);
    });
    // The folders they were in, deepest first, each removed only when it is empty now.
    const folders = new Set<string>();
    for (const file of doomed) {
      for (let folder = dirname(file); folder.startsWith(this.workTree + sep); folder = dirname(folder)) {
        folders.add(folder);
      }
    }
    await this.machine.removeEmptyFolders([...folders].sort((a, b) => b.length - a.length));
  }

  /**
   * This repository's environment with every filter driver git's config names switched off: `add` would run
   * a driver's clean command and `restore` its smudge command, and a repository's own config (one that came
   * in a tarball, say) could name any program. Reading the config runs nothing. The overrides go through
   * GIT_CONFIG_* variables, not `-c`, which would read a driver's name with `=` in it as the end of the key.
   * A snapshot keeps the bytes on disk, which is what a turn changed, and a revert writes them back.
   */
  private async withoutFilters(): Promise<Record<string, string>> {
    const drivers = await this.filterDrivers();
    // Off, and not required: a required driver left without a command would fail the whole snapshot.
    const off = drivers.flatMap((name): [string, string][] =>
      ['clean', 'smudge', 'process']
        .map((what): [string, string] => [`filter.${name}.${what}`, ''])
        .concat([[`filter.${name}.required`, 'false']]),
    );
    return { ...this.env, ...configEnv([...configPairs(this.env), ...off]) };
  }

  /** The names of the filter drivers git's config (any of its files) defines. */
  private async filterDrivers(): Promise<string[]> {
    const found = await this.git(
      ['config', '-z', '--get-regexp', '^filter\\..*\\.(clean|smudge|process|required)$'],
      {
        cwd: this.workTree,
        env: this.env,
        mayFail: true,
      },
    );
    const names = new Set<string>();
    // Each entry: "<key>\n<value>\0" (or "<key>\0" without a value).
    for (const entry of (found ?? '').split('\0')) {
      const key = entry.split('\n', 1)[0] ?? '';
      const last = key.lastIndexOf('.');
      if (key.startsWith('filter.') && last > 'filter.'.length) names.add(key.slice('filter.'.length, last));
    }
    return [...names];
  }

  /**
   * The first snapshot starts from a copy of the user's index, so git's stat cache spares it from reading
   * every tracked file. The copy is Byre's; the user's index is only read. Entries a filter applies to are
   * left out of the copy: the user's index holds them as the filter cleaned them (an LFS pointer, say),
   * and Byre's snapshots hold the bytes on disk, which a revert writes back.
   */
  private async seed(): Promise<void> {
    if (this.seeded || !this.seedIndex) return;
    this.seeded = true;
    if ((await this.machine.kinds([this.privateIndex]))[0] !== null) return;
    if (!(await this.machine.copyIndex(this.seedIndex, this.privateIndex))) return;
    if ((await this.filterDrivers()).length === 0) return;
    const cwd = this.workTree;
    const env = this.env;
    const tracked = await this.git(['ls-files', '-z'], { cwd, env });
    const attributes = (
      await this.git(['check-attr', '-z', '--stdin', 'filter'], { cwd, env, input: tracked })
    ).split('\0');
    const filtered: string[] = [];
    // "<path>\0filter\0<value>\0" for each path.
    for (let at = 0; at + 2 < attributes.length; at += 3) {
      const value = attributes[at + 2];
      if (value !== 'unspecified' && value !== 'unset') filtered.push(attributes[at] ?? '');
    }
    if (filtered.length === 0) return;
    await this.git(['update-index', '-z', '--force-remove', '--stdin'], {
      cwd,
      env,
      input: `${filtered.join('\0')}\0`,
    });
  }
}

/** A bare repository of Byre's own in `home`, made the first time. */
async function privateRepository(machine: Machine, home: string): Promise<string> {
  const repository = machine.path.join(home, 'repository.git');
  // Private as the rest of the data folder: files 0600, folders 0700, and none of git's sample hooks.
  await git(['init', '--bare', '--quiet', '--template=', '--shared=0600', repository], {
    cwd: home,
    via: machine.git,
  });
  return repository;
}

/** A path from a diff, which a revert may write: relative, inside the work tree, no `..`. */
function mustBeInside(path: string): void {
  if (
    posix.isAbsolute(path) ||
    /^[A-Za-z]:|^\\/.test(path) ||
    path.split('/').some((part) => part === '..' || part === '' || part === '.git')
  ) {
    throw new Error(`"${path}" is not a path inside the folder.`);
  }
}

/** The files `add --ignore-errors` could not read, from what it said. */
function unreadablePaths(stderr: string): string[] {
  const found = new Set<string>();
  for (const match of stderr.matchAll(/^error: unable to index file '(.+)'$/gm))
    if (match[1]) found.add(match[1]);
  return [...found];
}

function cutNote(hunks: DiffHunk[], lines: number): string {
  const shown = hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
  return `Showing the first ${shown.toLocaleString('en-US')} of ${lines.toLocaleString('en-US')} lines of this diff.`;
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

function firstLine(text: string): string {
  return text.trim().split('\n').find(Boolean) ?? 'git gave no reason.';
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
