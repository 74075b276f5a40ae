import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonFile } from './json-file';
import { LockFile } from './lock-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-json-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const Names = z.object({ names: z.array(z.string()) });
type Names = z.infer<typeof Names>;
const emptyNames = (): Names => ({ names: [] });
const add = (name: string) => (current: Names) => ({ names: [...current.names, name] });

/** The pid of a process that has exited (the pid of one that never existed would do as well). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

describe('JsonFile', () => {
  it('reads a missing file as empty, and creates nothing until a change', () => {
    const file = new JsonFile(join(dir, 'names.json'), Names, emptyNames);
    expect(file.read()).toEqual({ names: [] });
    // A change that changes nothing writes nothing.
    expect(file.update((current) => current)).toEqual({ names: [] });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes a private file in a private folder it makes, leaving no temp or lock file', () => {
    const folder = join(dir, 'data');
    const file = new JsonFile(join(folder, 'names.json'), Names, emptyNames);
    expect(file.update(add('ada'))).toEqual({ names: ['ada'] });
    expect(readdirSync(folder)).toEqual(['names.json']);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, 'names.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(folder, 'names.json'), 'utf8'))).toEqual({ names: ['ada'] });
  });

  it('starts each change from the file, so two instances on one path both keep theirs', () => {
    const path = join(dir, 'names.json');
    const one = new JsonFile(path, Names, emptyNames);
    const other = new JsonFile(path, Names, emptyNames);
    one.update(add('ada'));
    other.update(add('grace'));
    one.update(add('edsger'));
    expect(other.read()).toEqual({ names: ['ada', 'grace', 'edsger'] });
  });

  it('leaves a damaged file alone when reading, and sets it aside, saying where, before a change', () => {
    const path = join(dir, 'names.json');
    const problems: string[] = [];
    const file = new JsonFile(path, Names, emptyNames, { report: (problem) => problems.push(problem) });
    for (const damaged of ['{"names": [', '{"names": "ada"}']) {
      rmSync(dir, { recursive: true, force: true });
      problems.length = 0;
      file.update(add('ada'));
      writeFileSync(path, damaged);
      expect(file.read()).toEqual({ names: [] });
      expect(readFileSync(path, 'utf8')).toBe(damaged);
      expect(problems).toEqual([]);

      expect(file.update(add('grace'))).toEqual({ names: ['grace'] });
      const aside = readdirSync(dir).filter((name) => name.startsWith('names.json.damaged-'));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(dir, aside[0]!), 'utf8')).toBe(damaged);
      expect(problems).toEqual([expect.stringContaining(join(dir, aside[0]!))]);
    }
  });

  it('refuses to write a value its schema does not take, and leaves the file as it was', () => {
    const path = join(dir, 'names.json');
    const file = new JsonFile(path, Names, emptyNames);
    file.update(add('ada'));
    expect(() => file.update(() => ({ names: 'everyone' }) as unknown as Names)).toThrow();
    expect(file.read()).toEqual({ names: ['ada'] });
    expect(readdirSync(dir)).toEqual(['names.json']);
  });

  it('takes over a lock left by a process that has gone', () => {
    const path = join(dir, 'names.json');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid(), token: 'crashed' }));
    new JsonFile(path, Names, emptyNames).update(add('ada'));
    expect(readdirSync(dir)).toEqual(['names.json']);
  });
});

describe('LockFile', () => {
  it('is refused while a live process holds it, saying who, and free once that one lets go', () => {
    const path = join(dir, 'folder.lock');
    const first = new LockFile(path);
    const second = new LockFile(path);
    expect(first.tryTake({ address: 'here' })).toEqual({ taken: true });
    expect(second.tryTake()).toEqual({
      taken: false,
      holder: { pid: process.pid, token: expect.any(String), address: 'here' },
    });
    // Letting go of a lock one does not hold removes no one else's.
    second.release();
    expect(second.tryTake()).toMatchObject({ taken: false });
    first.release();
    expect(second.tryTake()).toEqual({ taken: true });
  });

  it('takes over a lock that is not one (a half-written or foreign file)', () => {
    const path = join(dir, 'folder.lock');
    writeFileSync(path, '{"pid": ');
    expect(new LockFile(path).tryTake()).toEqual({ taken: true });
  });
});
