/**
 * The snapshot store the Changes tracker works against: the API main/changes/snapshots.ts is growing (part G
 * of issue 27: a snapshot of "now" under no ref, diffs of one file, restore, the repository's state, the
 * .gitignore note). Until that lands, `openSnapshotStore` adapts today's `Snapshots` with plain git calls
 * through the same private index, so the tracker, its views and its tests are built against the final
 * shape. When snapshots.ts has these methods, `openSnapshotStore` becomes `Snapshots.open` and the
 * adapter goes.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ChangedKind, DiffHunk, FileDiff } from '../../shared/ipc';
import { git, GitFailed } from './git';
import { Snapshots, type Snapshot } from './snapshots';

/** One file that differs between two snapshots (or a snapshot and now). */
export interface SnapshotChange {
  path: string;
  from: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  kind: ChangedKind;
  added: number | null;
  removed: number | null;
}

export type { Snapshot };

export interface SnapshotStore {
  /** Paths are relative to it, with '/'. */
  readonly workTree: string;
  readonly inRepository: boolean;
  take(
    conversation: string,
    label: string,
    parent: Snapshot | null,
  ): Promise<Snapshot & { unreadable: string[] }>;
  /** The working tree now, under no ref. */
  current(): Promise<{ tree: string; unreadable: string[] }>;
  diff(from: string, to: string): Promise<SnapshotChange[]>;
  fileDiff(from: string, to: string, path: string): Promise<FileDiff>;
  /** Sets those working-tree paths to their content in `from`, deleting those absent there. */
  restore(from: string, paths: string[]): Promise<void>;
  repositoryState(): Promise<string | null>;
  ignoredNote(): Promise<string | null>;
  forget(conversation: string): Promise<void>;
}

export async function openSnapshotStore(folder: string, store: string): Promise<SnapshotStore> {
  const snapshots = await Snapshots.open(folder, store);
  return new Adapted(snapshots, envOf(snapshots, store));
}

/** The GIT_* variables today's Snapshots runs git with, worked out the way it does (it keeps them private). */
function envOf(snapshots: Snapshots, store: string): Record<string, string> {
  const home = join(store, createHash('sha256').update(snapshots.workTree).digest('hex').slice(0, 24));
  const index = join(home, 'index');
  if (snapshots.inRepository) return { GIT_INDEX_FILE: index };
  return {
    GIT_DIR: join(home, 'repository.git'),
    GIT_WORK_TREE: resolve(snapshots.workTree),
    GIT_INDEX_FILE: index,
  };
}

/** The ref "now" is written under for a moment, then dropped: today's take always names one. */
const NOW = 'byre-now';

class Adapted implements SnapshotStore {
  readonly workTree: string;
  readonly inRepository: boolean;

  constructor(
    private readonly snapshots: Snapshots,
    private readonly env: Record<string, string>,
  ) {
    this.workTree = snapshots.workTree;
    this.inRepository = snapshots.inRepository;
  }

  private run(args: string[]): Promise<string> {
    return git(args, { cwd: this.workTree, env: this.env });
  }

  async take(conversation: string, label: string, parent: Snapshot | null) {
    return { ...(await this.snapshots.take(conversation, label, parent)), unreadable: [] };
  }

  async current() {
    const taken = await this.snapshots.take(NOW, 'now', null);
    const tree = (await this.run(['rev-parse', `${taken.commit}^{tree}`])).trim();
    await this.run(['update-ref', '-d', taken.ref]);
    return { tree, unreadable: [] };
  }

  async diff(from: string, to: string): Promise<SnapshotChange[]> {
    const ref = (commit: string) => ({ commit, ref: '' });
    const changes = await this.snapshots.diff(ref(from), ref(to));
    return changes.map((change) => ({ ...change, kind: 'file' }));
  }

  async fileDiff(from: string, to: string, path: string): Promise<FileDiff> {
    const patch = await this.run(['diff-tree', '-r', '-p', '--no-commit-id', from, to, '--', path]);
    if (/^Binary files /m.test(patch)) {
      const size = async (tree: string) => {
        const bytes = await git(['cat-file', '-s', `${tree}:${path}`], {
          cwd: this.workTree,
          env: this.env,
          mayFail: true,
        });
        return bytes === null ? null : Number(bytes.trim());
      };
      return { kind: 'binary', path, before: await size(from), after: await size(to) };
    }
    return { kind: 'text', path, hunks: hunksOf(patch), cut: null };
  }

  async restore(from: string, paths: string[]): Promise<void> {
    for (const path of paths) {
      const there = await git(['cat-file', '-e', `${from}:${path}`], {
        cwd: this.workTree,
        env: this.env,
        mayFail: true,
      });
      try {
        if (there === null) await rm(join(this.workTree, path), { force: true });
        else await this.run(['restore', `--source=${from}`, '--worktree', '--', path]);
      } catch (error) {
        const why = error instanceof GitFailed ? error.stderr.trim() : (error as Error).message;
        throw new Error(`${path} could not be restored: ${why}`, { cause: error });
      }
    }
  }

  async repositoryState(): Promise<string | null> {
    if (!this.inRepository) return null;
    const gitDir = (await git(['rev-parse', '--absolute-git-dir'], { cwd: this.workTree })).trim();
    const states: [string, string][] = [
      ['rebase-merge', 'a rebase'],
      ['rebase-apply', 'a rebase'],
      ['MERGE_HEAD', 'a merge'],
      ['CHERRY_PICK_HEAD', 'a cherry-pick'],
      ['REVERT_HEAD', 'a revert'],
      ['BISECT_LOG', 'a bisect'],
    ];
    return states.find(([name]) => existsSync(join(gitDir, name)))?.[1] ?? null;
  }

  async ignoredNote(): Promise<string | null> {
    const listed = await this.run([
      'ls-files',
      '-z',
      '--others',
      '--ignored',
      '--exclude-standard',
      '--directory',
    ]);
    const count = listed.split('\0').filter(Boolean).length;
    if (count === 0) return null;
    return `${count} ${count === 1 ? 'file .gitignore leaves out is' : 'files .gitignore leaves out are'} not tracked.`;
  }

  forget(conversation: string): Promise<void> {
    return this.snapshots.forget(conversation);
  }
}

/** The hunks of a `git diff` patch. */
function hunksOf(patch: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let hunk: DiffHunk | null = null;
  for (const line of patch.split('\n')) {
    const head = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/.exec(line);
    if (head) {
      hunk = {
        oldStart: Number(head[1]),
        oldLines: head[2] === undefined ? 1 : Number(head[2]),
        newStart: Number(head[3]),
        newLines: head[4] === undefined ? 1 : Number(head[4]),
        header: head[5] ?? '',
        lines: [],
      };
      hunks.push(hunk);
    } else if (hunk && /^[ +\-\\]/.test(line)) hunk.lines.push(line);
  }
  return hunks;
}
