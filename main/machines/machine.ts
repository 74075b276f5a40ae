/**
 * The computer a folder's snapshots are taken on: this one, or a host over ssh (host-machine.ts).
 * Snapshots run git there and touch a few files there (the private index, a private repository, a file a
 * revert deletes) only through this, so one engine serves both. Each call is one piece of work; on a host,
 * one ssh run over its multiplexed connection.
 */
import { constants } from 'node:fs';
import {
  access,
  appendFile,
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { copyIndex, gitRun, type GitOptions, type GitRun } from './git';

/** What is at a path, not following a symlink: a folder, a regular file, anything else, or nothing. */
export type PathKind = 'folder' | 'file' | 'other' | null;

export interface Machine {
  /** Another computer's name as the user knows it (a host's), for messages; null for this one. */
  readonly where: string | null;
  /** Path arithmetic of that computer's paths (POSIX on a host). */
  readonly path: Pick<path.PlatformPath, 'join' | 'resolve' | 'dirname' | 'relative' | 'isAbsolute' | 'sep'>;
  /** Runs git there, as git.ts does here: no hooks, no fsmonitor, no inherited GIT_* redirects. */
  git(args: readonly string[], options: GitOptions): Promise<GitRun>;
  /** What is at each path, in order. */
  kinds(paths: readonly string[]): Promise<PathKind[]>;
  /** Whether `path` is a folder, through a link as a program working in it would see it. */
  isFolder(path: string): Promise<boolean>;
  /** How many bytes the files at these paths (relative to `root`) take, symlinks not followed. */
  bytes(root: string, paths: readonly string[]): Promise<number>;
  writable(folder: string): Promise<boolean>;
  /** A folder and its parents, made private (0700) where they are new. */
  makePrivateFolder(folder: string): Promise<void>;
  /** A file of Byre's, written whole, private (0600). */
  writePrivateFile(file: string, text: string): Promise<void>;
  /** A file of Byre's made private (0600); nothing when it cannot be. */
  makePrivate(file: string): Promise<void>;
  /** copyIndex (git.ts) there: a copy dated as the original; false when it could not be made. */
  copyIndex(from: string, to: string): Promise<boolean>;
  /** Removes a file, or a folder with everything in it; nothing when it is not there. */
  remove(target: string): Promise<void>;
  /** Deletes files (never a folder), in order; throws with the first that could not be, and why. */
  unlinkAll(files: readonly string[]): Promise<void>;
  /** Removes each folder, in order, that is empty by then; one that is not stays. */
  removeEmptyFolders(folders: readonly string[]): Promise<void>;
  /** A small text file's text (a git folder's own files), or null when it cannot be read. */
  readText(file: string): Promise<string | null>;
  /** Text added at a file's end, the file (not its folder) made where it is missing. */
  appendText(file: string, text: string): Promise<void>;
  /** A folder made where it is missing (its parent must be there); nothing when it cannot be. */
  makeFolder(folder: string): Promise<void>;
  /** The names in a folder; none when it cannot be read. */
  list(folder: string): Promise<string[]>;
  /** A path with every symlink resolved; rejects when it is not there. */
  realpath(target: string): Promise<string>;
}

const yes = () => true;
const no = () => false;

/** This computer. */
export const thisMachine: Machine = {
  where: null,
  path,
  git: gitRun,
  kinds: (paths) =>
    Promise.all(
      paths.map((at) =>
        lstat(at).then(
          (found): PathKind => (found.isDirectory() ? 'folder' : found.isFile() ? 'file' : 'other'),
          () => null,
        ),
      ),
    ),
  isFolder: (at) =>
    stat(at).then(
      (found) => found.isDirectory(),
      () => false,
    ),
  async bytes(root, paths) {
    let total = 0;
    for (let at = 0; at < paths.length; at += 256) {
      const sizes = await Promise.all(
        paths.slice(at, at + 256).map((file) =>
          lstat(path.join(root, file)).then(
            (found) => found.size,
            () => 0,
          ),
        ),
      );
      total += sizes.reduce((sum, size) => sum + size, 0);
    }
    return total;
  },
  writable: (folder) => access(folder, constants.W_OK).then(yes, no),
  makePrivateFolder: async (folder) => {
    await mkdir(folder, { recursive: true, mode: 0o700 });
  },
  writePrivateFile: (file, text) => writeFile(file, text, { mode: 0o600 }),
  makePrivate: (file) => chmod(file, 0o600).catch(() => undefined),
  copyIndex: (from, to) => copyIndex(from, to).then(yes, no),
  remove: (target) => rm(target, { recursive: true, force: true }),
  async unlinkAll(files) {
    for (const file of files) {
      await unlink(file).catch((error: unknown) => {
        throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  },
  async removeEmptyFolders(folders) {
    for (const folder of folders) await rmdir(folder).catch(() => undefined);
  },
  readText: (file) => readFile(file, 'utf8').catch(() => null),
  appendText: (file, text) => appendFile(file, text),
  makeFolder: (folder) =>
    mkdir(folder).then(
      () => undefined,
      () => undefined,
    ),
  list: (folder) => readdir(folder).catch(() => []),
  realpath: (target) => realpath(target),
};
